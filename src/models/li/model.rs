//! Li et al. in the registry: what it reads, its section's checks, and its
//! report.

use std::sync::Mutex;

use super::eval::{evaluate_streamed, prepare, push_point, skeleton, spread, LiEvaluation, Spread};
use super::report::build;
use super::section;
use super::generate::OpCount;
use crate::models::work::over_budget;
use crate::models::{ByteImport, Import, Model, Need, RunPrediction, Unavailable, Work};
use crate::readers::AnyImporter;
use crate::report::{Note, Report};
use crate::errors::FieldError;
use crate::scenario::Scenario;

pub struct Li;

/// Ops simulated in one evaluation at most: the cost per op grows with
/// W, and at W = 1..64 the bench runs about 18 M ops/s natively (`make
/// bench`'s budget rows), so this is about 7 s, under `eval`'s 10 s; the
/// page computes it in parts on every core, with progress. The shipped
/// Inception v3 profile at W = 1..8 × 1000 steps and one seed is
/// 5.4·10⁷; at W = 1..64 × 1000 steps it is 3.1·10⁹ per seed and refused
/// (fewer steps, or `ddnn-planner simulate`, which streams each W).
const MAX_OPS_SIMULATED: f64 = 1.2e8;

/// With several PS, chunk visits of the max-min shares at most: each costs
/// about half an op, so this bounds the time as `MAX_OPS_SIMULATED` does.
const MAX_SHARE_PASSES: f64 = 2.5e8;

/// The last report and the inputs it was made from.
static LAST: Mutex<Option<(String, Result<Report, Unavailable>)>> = Mutex::new(None);

/// Everything the simulation reads, as text: the section, the PS side,
/// and (for a generated profile) the layer table, the first worker group,
/// its catalog entry and the precision.
pub fn inputs_key(s: &Scenario) -> String {
    let section = s.models.get(section::ID);
    let ps = &s.hardware.cluster.ps;
    let group = s.hardware.cluster.workers.first();
    let entry = group.and_then(|g| s.instance(&g.instance));
    let ps_entry = ps.instance.as_deref().and_then(|n| s.instance(n));
    serde_json::json!([
        section,
        ps,
        ps_entry,
        s.workload.network,
        group,
        entry,
        s.hardware.precision,
    ])
    .to_string()
}

const IMPORTS: [Import; 1] = [Import {
    key: "profile",
    what: "a one-worker profile JSON (ops with resource, deps, tensor; amounts per profiled step)",
    apply: |s, text| {
        let p = super::profile::Profile::from_json(text)?;
        let n = p.ops.len();
        let mut c = section::settings(s);
        c.profile = Some(p);
        c.profile_ref = None;
        s.set_section(section::ID, &c);
        Ok(format!("a profile of {n} ops"))
    },
}];

const NEEDS: [Need; 19] = [
    Need {
        field: "models.li.profile",
        what: "a one-worker, one-PS profile (ops, resources, dependencies, amounts per profiled step), or models.li.generate to build one from the layer table",
        optional: false,
        shown: None,
    },
    Need {
        field: "hardware.cluster.ps",
        what: "the PS side: count M and each node's link B (typed, or its instance's network)",
        optional: false,
        shown: None,
    },
    Need {
        field: "workload.network.layers",
        what: "the layer table, when the profile is generated",
        optional: true,
        shown: None,
    },
    Need {
        field: "hardware.cluster.workers",
        what: "the worker (its instance's rate, its batch), when the profile is generated",
        optional: true,
        shown: None,
    },
    Need {
        field: "models.li",
        what: "parse overhead α, β; HTTP/2 window or flow control off with an order (of the downlinks, or of every stream); steps, warm-up, seeds, most workers",
        optional: true,
        shown: None,
    },
    section::PARSE_ALPHA.need(),
    section::PARSE_BETA.need(),
    section::WINDOW_INPUT.need(),
    section::STEPS_INPUT.need(),
    section::WARMUP.need(),
    section::MAX_WORKERS_INPUT.need(),
    section::SEEDS_INPUT.need(),
    section::FIRST_SEED.need(),
    section::TIMELINE_WORKERS.need(),
    section::GEN_ACHIEVED.need(),
    section::GEN_PS_RATE.need(),
    section::GEN_JITTER.need(),
    section::GEN_PROFILED_STEPS.need(),
    section::GEN_MEMORY_RATE.need(),
];

/// What its paper prints of its own accuracy (`runs::papers`): nothing
/// a measured run can hold, and why.
static PAPER_CHECK: crate::runs::papers::PaperCheck = crate::runs::papers::PaperCheck {
    tables: &[],
    sets: &[],
    notes: &["they draw their measured throughputs (Fig. 13-21), not print them; Sec. 4.5's 581 s is the wall time of ten measurement settings together, not one run's: no cell is shipped."],
};

impl Model for Li {
    fn paper_check(&self) -> Option<&'static crate::runs::papers::PaperCheck> {
        Some(&PAPER_CHECK)
    }


    fn file_importers(&self) -> &'static [&'static dyn AnyImporter] {
        &[&super::files::PROFILE, &super::files::TRACE]
    }

    fn id(&self) -> &'static str {
        section::ID
    }

    fn name(&self) -> &'static str {
        "Li et al."
    }

    fn about(&self) -> &'static str {
        "asynchronous SGD with parameter servers: throughput for W workers simulated from a one-worker profile (Algorithm 3.1), with HTTP/2 multiplexing, parse overhead and several PS"
    }

    fn paper(&self) -> &'static str {
        "Li, Yan, Paolieri, Golubchik. Throughput Prediction of Asynchronous SGD in TensorFlow. ICPE 2020 (Sections 2-5, Algorithm 3.1)"
    }

    fn assumes(&self) -> &'static str {
        "Li et al. simulate asynchronous SGD op by op from a one-worker profile: links shared while in use, compute overlapping transfers."
    }

    fn needs(&self) -> &'static [Need] {
        &NEEDS
    }

    fn imports(&self) -> &'static [Import] {
        &IMPORTS
    }

    fn byte_imports(&self) -> &'static [ByteImport] {
        &[super::files::TRACE_IMPORT]
    }

    fn reads(&self) -> &'static [&'static str] {
        &[
            "workload.network",
            "hardware.catalog",
            "hardware.cluster",
            "hardware.precision",
            "models.li",
        ]
    }

    fn validate(&self, s: &Scenario) -> Vec<FieldError> {
        section::validate(s)
    }

    /// Ops simulated (`eval::ops_simulated`): the profile's ops per step
    /// (and a parse op per transfer with a parse overhead) × steps × Σ W
    /// over W = 1..=max workers × seeds, and the timeline's and Lin et
    /// al.'s runs; counted, not generated, for a generated profile. With
    /// several PS, also the passes over the chunks in service that the
    /// links' max-min shares take (`eval::share_passes`).
    fn work(&self, s: &Scenario) -> Vec<Work> {
        let set = section::settings(s);
        let mut w = vec![Work {
            units: super::eval::ops_simulated(s, &set),
            unit: "ops simulated",
            limit: MAX_OPS_SIMULATED,
            field: "models.li.steps".into(),
            reduce: "the steps, the seeds, the most workers or the profile's ops".into(),
        }];
        if s.hardware.cluster.ps.count > 1 {
            w.push(Work {
                units: super::eval::share_passes(s, &set),
                unit: "chunk visits to share several PS links",
                limit: MAX_SHARE_PASSES,
                field: "hardware.cluster.ps.count".into(),
                reduce: "the PS count (one PS shares its links without them), the most workers, the steps or the seeds".into(),
            });
        }
        w
    }

    fn shrink_for_link(
        &self,
        s: &mut std::borrow::Cow<'_, Scenario>,
    ) -> Vec<crate::models::LeftOut> {
        super::share_link::shrink(s)
    }

    fn restore_after_link(
        &self,
        s: &mut Scenario,
        saved: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        super::share_link::restore(s, saved)
    }

    /// The simulated throughput (Algorithm 3.1) of the run's W workers,
    /// the mean over the section's seeds; only within the budget.
    fn predict_run(&self, s: &Scenario) -> Option<Result<RunPrediction, Unavailable>> {
        Some(predict_run(s))
    }

    fn report(&self, s: &Scenario) -> Result<Report, Unavailable> {
        self.report_streamed(s, &mut |_, _, _| {})
    }

    fn report_streamed(
        &self,
        s: &Scenario,
        partial: &mut dyn FnMut(Report, u32, u32),
    ) -> Result<Report, Unavailable> {
        // The page evaluates every model on every edit: a simulation of
        // seconds reruns only when an input it reads has changed.
        let key = inputs_key(s);
        if let Some(r) = cached(&key) {
            return r;
        }
        let r = evaluate_streamed(s, &mut |e, done, total| {
            partial(in_progress(e, done, total), done, total);
        })
        .map(|e| report_of(&e));
        keep(key, &r);
        r
    }

    /// One part per worker count W, unless this run is cached or its
    /// inputs are missing (the report says which).
    fn parts(&self, s: &Scenario) -> u32 {
        if cached(&inputs_key(s)).is_some() || prepare(s).is_err() {
            return 0;
        }
        section::settings(s).max_workers
    }

    /// Part `k`: the spread over seeds of W = k + 1.
    fn part(&self, s: &Scenario, k: u32) -> Result<String, Unavailable> {
        let (set, profile, _, base) = prepare(s)?;
        let sim = spread(&profile, &base, k + 1, set.seeds);
        serde_json::to_string(&sim)
            .map_err(|e| Unavailable::missing(section::ID, format!("part {k}: {e}")))
    }

    fn assemble(&self, s: &Scenario, parts: &[Option<String>]) -> Result<Report, Unavailable> {
        let key = inputs_key(s);
        if let Some(r) = cached(&key) {
            return r;
        }
        let mut e = {
            let mut memo = SKELETON.lock().unwrap_or_else(|p| p.into_inner());
            match memo.as_ref() {
                Some((k, e)) if *k == key => e.clone(),
                _ => {
                    let (e, _) = skeleton(s)?;
                    *memo = Some((key.clone(), e.clone()));
                    e
                }
            }
        };
        // In W order, from W = 1 (Cynthia's estimate reads its share).
        let total = e.settings.max_workers;
        let mut done = 0;
        for text in parts.iter().take(total as usize) {
            let Some(text) = text else {
                if done == 0 {
                    break;
                }
                continue;
            };
            let sim: Spread = serde_json::from_str(text)
                .map_err(|e| Unavailable::missing(section::ID, format!("a part: {e}")))?;
            push_point(&mut e, sim);
            done += 1;
        }
        if done < total {
            return Ok(in_progress(&e, done, total));
        }
        let r = Ok(report_of(&e));
        keep(key, &r);
        r
    }
}

/// The report, saying so when the profile's one step keeps the workers
/// in lock-step.
fn report_of(e: &LiEvaluation) -> Report {
    let mut r = build(e);
    if e.profile.steps.len() == 1 {
        r.notes.push(
            Note::warning(super::chrome::SINGLE_STEP).at(format!("models.{}.profile", section::ID)),
        );
    }
    r
}

/// The evaluation of the newest inputs without its sweep, for `assemble`.
static SKELETON: Mutex<Option<(String, LiEvaluation)>> = Mutex::new(None);

fn cached(key: &str) -> Option<Result<Report, Unavailable>> {
    let last = LAST.lock().ok()?;
    let (k, r) = last.as_ref()?;
    (k == key).then(|| r.clone())
}

fn keep(key: String, r: &Result<Report, Unavailable>) {
    if let Ok(mut last) = LAST.lock() {
        *last = Some((key, r.clone()));
    }
}

/// The curve so far; the trace file comes with the whole result.
fn in_progress(e: &LiEvaluation, done: u32, total: u32) -> Report {
    let mut r = report_of(e);
    r.downloads.clear();
    r.subject = format!("{} ({done} of {total} worker counts so far)", r.subject);
    r
}

/// One W of the sweep (`eval::spread`) for the run's worker count, when
/// its ops (and, with several PS, its share passes) fit the budgets the
/// report's sweep has.
fn predict_run(s: &Scenario) -> Result<RunPrediction, Unavailable> {
    let (set, profile, _, base) = prepare(s)?;
    let w = s.hardware.cluster.total_workers().max(1);
    let size = OpCount::of(&profile);
    let parse = set.alpha_s_per_byte != 0.0 || set.beta_s != 0.0;
    let per_step = (size.ops + if parse { size.transfers() } else { 0 }) as f64;
    let worker_steps = f64::from(set.seeds.max(1)) * f64::from(set.steps) * f64::from(w);
    let reduce = "the steps or the seeds (the run fixes its workers)";
    let mut work = vec![Work {
        units: per_step * worker_steps,
        unit: "ops simulated",
        limit: MAX_OPS_SIMULATED,
        field: "models.li.steps".into(),
        reduce: reduce.into(),
    }];
    if base.servers > 1 {
        // As `eval::share_passes`, for this one W.
        let on = |links: usize| links.min(base.servers as usize) as f64;
        let per = 2.0 * size.transfers() as f64 * (on(size.downlinks) + on(size.uplinks));
        work.push(Work {
            units: per * worker_steps * f64::from(w),
            unit: "chunk visits to share several PS links",
            limit: MAX_SHARE_PASSES,
            field: "models.li.steps".into(),
            reduce: reduce.into(),
        });
    }
    let over = over_budget("Li et al.", &work);
    if !over.is_empty() {
        return Err(Unavailable::invalid(over));
    }
    let sim = spread(&profile, &base, w, set.seeds);
    let p = RunPrediction::throughput(sim.mean);
    let groups = &s.hardware.cluster.workers;
    let alike = groups
        .iter()
        .all(|g| g.instance == groups[0].instance && g.batch_size == profile.batch);
    Ok(if alike {
        p
    } else {
        p.with_note(format!(
            "Li et al. simulate the run's workers alike, each stepping as the profile does ({} samples per step)",
            profile.batch
        ))
    })
}
