//! Li et al. in the registry: what it reads, its section's checks, and its
//! report.

use std::sync::Mutex;

use super::eval::{evaluate_streamed, prepare, push_point, skeleton, spread, LiEvaluation, Spread};
use super::report::build;
use super::generate::OpCount;
use super::{factors, section};
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

/// The last reports and the inputs each was made from, newest first:
/// two, so a calibrated scenario's report and its figures as published
/// (`models::add_published`) do not push each other out.
static LAST: Mutex<Vec<(String, Result<Report, Unavailable>)>> = Mutex::new(Vec::new());
/// Reports `LAST` keeps.
const KEPT: usize = 2;

/// Everything the simulation reads, as text: the section, the PS side,
/// its calibration factors, and (for a generated profile) the layer
/// table, the first worker group, its catalog entry and the precision.
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
        s.calibration.of(section::ID),
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
        &[
            &super::files::PROFILE,
            &super::files::PROFILE_UPLOAD,
            &super::files::TRACE,
        ]
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
        let mut errs = section::validate(s);
        errs.extend(crate::calibration::validate(s, section::ID, &factors::specs()));
        errs
    }

    fn factors(&self, _s: &Scenario) -> Vec<crate::calibration::FactorSpec> {
        factors::specs()
    }

    /// The throughput over the link ratios (`factors::Table`): a
    /// surrogate of `predict_run`, its simulation to the bit where
    /// `network / compute` is a tabulated whole power of two (1 among
    /// them: as published).
    fn run_predictor(&self, s: &Scenario) -> Option<crate::models::RunPredictor> {
        run_predictor(s)
    }

    fn run_predictor_exact(&self) -> bool {
        false
    }

    /// Every run simulated at the table's `factors::POINTS` ratios and
    /// four times whole (as published in the runs comparison and in the
    /// fit, calibrated, and fitted without it).
    fn calibration_work(&self, s: &Scenario) -> Vec<Work> {
        calibration_work(s)
    }

    /// Ops simulated (`eval::ops_simulated`): the profile's ops per step
    /// (and a parse op per transfer with a parse overhead) × steps × Σ W
    /// over W = 1..=max workers × seeds, and the timeline's and Lin et
    /// al.'s runs; counted, not generated, for a generated profile. With
    /// several PS, also the passes over the chunks in service that the
    /// links' max-min shares take (`eval::share_passes`).
    fn work(&self, s: &Scenario) -> Vec<Work> {
        let set = section::settings(s);
        // Calibrated, the figures as published beside the headline are
        // one more evaluation (`models::add_published`).
        let times = if s.calibration.of(section::ID).is_some() {
            2.0
        } else {
            1.0
        };
        let mut w = vec![Work {
            units: times * super::eval::ops_simulated(s, &set),
            unit: "ops simulated",
            limit: MAX_OPS_SIMULATED,
            field: "models.li.steps".into(),
            reduce: "the steps, the seeds, the most workers or the profile's ops".into(),
        }];
        if s.hardware.cluster.ps.count > 1 {
            w.push(Work {
                units: times * super::eval::share_passes(s, &set),
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

    /// A band sample's headline, not kept as the newest report.
    fn headline(&self, s: &Scenario) -> Result<Vec<crate::report::Figure>, Unavailable> {
        super::eval::evaluate(s).map(|e| super::report::headline(&e))
    }

    fn caches(&self) -> bool {
        true
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
            partial(in_progress(s, e, done, total), done, total);
        })
        .map(|e| report_of(s, &e));
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
            return Ok(in_progress(s, &e, done, total));
        }
        let r = Ok(report_of(s, &e));
        keep(key, &r);
        r
    }
}

/// The report, saying so when the profile's one step keeps the workers
/// in lock-step, and when it is calibrated.
fn report_of(s: &Scenario, e: &LiEvaluation) -> Report {
    let mut r = build(e);
    r.notes
        .extend(crate::calibration::calibrated_note(s, section::ID));
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
    last.iter().find(|(k, _)| k == key).map(|(_, r)| r.clone())
}

fn keep(key: String, r: &Result<Report, Unavailable>) {
    if let Ok(mut last) = LAST.lock() {
        last.retain(|(k, _)| *k != key);
        last.insert(0, (key, r.clone()));
        last.truncate(KEPT);
    }
}

/// The curve so far; the trace file comes with the whole result.
fn in_progress(s: &Scenario, e: &LiEvaluation, done: u32, total: u32) -> Report {
    let mut r = report_of(s, e);
    r.downloads.clear();
    r.subject = format!("{} ({done} of {total} worker counts so far)", r.subject);
    r
}

/// A run's simulation of `w` workers on `servers` PS, `times` over:
/// the ops it simulates and, with several PS, the share passes, each
/// against the report's budget (`eval::ops_simulated`, `share_passes`).
fn run_work(
    set: &section::LiSettings,
    size: &OpCount,
    w: u32,
    servers: u32,
    times: f64,
    unit: (&'static str, &'static str),
    reduce: &str,
) -> Vec<Work> {
    let parse = set.alpha_s_per_byte != 0.0 || set.beta_s != 0.0;
    let per_step = (size.ops + if parse { size.transfers() } else { 0 }) as f64;
    let worker_steps =
        times * f64::from(set.seeds.max(1)) * f64::from(set.steps) * f64::from(w.max(1));
    let mut work = vec![Work {
        units: per_step * worker_steps,
        unit: unit.0,
        limit: MAX_OPS_SIMULATED,
        field: "models.li.steps".into(),
        reduce: reduce.into(),
    }];
    if servers > 1 {
        // As `eval::share_passes`, for this one W.
        let on = |links: usize| links.min(servers as usize) as f64;
        let per = 2.0 * size.transfers() as f64 * (on(size.downlinks) + on(size.uplinks));
        work.push(Work {
            units: per * worker_steps * f64::from(w.max(1)),
            unit: unit.1,
            limit: MAX_SHARE_PASSES,
            field: "models.li.steps".into(),
            reduce: reduce.into(),
        });
    }
    work
}

const RUN_UNITS: (&str, &str) = ("ops simulated", "chunk visits to share several PS links");

/// One W of the sweep (`eval::spread`) for the run's worker count, when
/// its ops (and, with several PS, its share passes) fit the budgets the
/// report's sweep has.
fn predict_run(s: &Scenario) -> Result<RunPrediction, Unavailable> {
    let (set, profile, _, base) = prepare(s)?;
    let w = s.hardware.cluster.total_workers().max(1);
    let work = run_work(
        &set,
        &OpCount::of(&profile),
        w,
        base.servers,
        1.0,
        RUN_UNITS,
        "the steps or the seeds (the run fixes its workers)",
    );
    let over = over_budget("Li et al.", &work);
    if !over.is_empty() {
        return Err(Unavailable::invalid(over));
    }
    let sim = spread(&profile, &base, w, set.seeds);
    Ok(with_note(s, &profile, RunPrediction::throughput(sim.mean)))
}

/// `p`, saying so when the run's workers differ from the profiled one.
fn with_note(s: &Scenario, profile: &super::profile::Profile, p: RunPrediction) -> RunPrediction {
    let groups = &s.hardware.cluster.workers;
    let alike = groups
        .iter()
        .all(|g| g.instance == groups[0].instance && g.batch_size == profile.batch);
    if alike {
        p
    } else {
        p.with_note(format!(
            "Li et al. simulate the run's workers alike, each stepping as the profile does ({} samples per step)",
            profile.batch
        ))
    }
}

/// `predict_run` as a function of the factors: the run's throughput
/// `X(ρ)` tabulated as published (`factors::Table`, one simulation per
/// ratio), then `compute · X(network / compute)` per call.
fn run_predictor(s: &Scenario) -> Option<crate::models::RunPredictor> {
    let mut published = s.clone();
    published.calibration.set(section::ID, Default::default());
    let (set, profile, _, base) = prepare(&published).ok()?;
    let w = s.hardware.cluster.total_workers().max(1);
    if !over_budget(
        "Li et al.",
        &run_work(&set, &OpCount::of(&profile), w, base.servers, 1.0, RUN_UNITS, ""),
    )
    .is_empty()
    {
        return None;
    }
    let note = with_note(s, &profile, RunPrediction::default()).note;
    let (bytes_per_s, servers, seeds) = (base.bytes_per_s, base.servers, set.seeds);
    let table = factors::Table::new(move |rho| {
        let setup = super::eval::setup_of(&set, &profile, servers, bytes_per_s * rho);
        spread(&profile, &setup, w, seeds).mean
    });
    Some(Box::new(move |values| {
        let f = factors::from_values(values);
        let x = f.compute * table.at(f.network / f.compute)?;
        Some(RunPrediction {
            throughput: Some(x),
            iteration_s: None,
            note: note.clone(),
        })
    }))
}

/// A calibration's simulations on `s`'s runs (`Model::calibration_work`):
/// each run's `predict_run` work, `factors::POINTS + 4` times over.
fn calibration_work(s: &Scenario) -> Vec<Work> {
    let set = section::settings(s);
    let size = super::eval::profile_size(s, &set);
    let times = (factors::POINTS + 4) as f64;
    let mut total: Vec<Work> = Vec::new();
    for run in &s.runs {
        let w: u32 = run.workers.iter().map(|g| g.count).sum();
        let servers = run.ps.as_ref().unwrap_or(&s.hardware.cluster.ps).count.max(1);
        let work = run_work(
            &set,
            &size,
            w,
            servers,
            times,
            (
                "ops simulated to calibrate (each run at 16 link ratios and 4 times whole)",
                "chunk visits to share several PS links to calibrate",
            ),
            "the steps or the seeds (or the runs)",
        );
        for x in work {
            match total.iter_mut().find(|t| t.unit == x.unit) {
                Some(t) => t.units += x.units,
                None => total.push(x),
            }
        }
    }
    total
}
