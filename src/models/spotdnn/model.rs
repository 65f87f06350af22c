//! spotDNN in the registry: what it reads, its section's checks, and its
//! report.

use super::contention_cap;
use super::eval::{evaluate, frontier_plans, prepare, sample_charts, SpotEvaluation};
use super::{factors, ClusterFigures, IterationParts, Mix};
use super::plan::work_units;
use super::report::{build, FRONTIER};
use super::section;
use crate::errors::FieldError;
use crate::hardware::Instance;
use crate::models::{Model, Need, RunPrediction, Unavailable, Work};
use crate::report::{fmt_sig, Report};
use crate::scenario::Scenario;

pub struct SpotDnn;

/// Plan search steps taken on (`plan::work_units`, about a nanosecond
/// each natively): seconds in the worst case, every search at its budget.
/// The shipped current catalog at quota 32 and 63 workers states 1.7·10⁹.
const MAX_SEARCH_STEPS: f64 = 1e10;

const NEEDS: [Need; 14] = [
    Need {
        field: "models.spotdnn",
        what: "the workload's S_param [MB], B_req [MB/s], α1, β1 (PS contention), α2, β2 (batch per GPU memory), γ1…γ5 (loss), and each instance type's iteration time measured alone",
        optional: false,
        shown: None,
    },
    Need {
        field: "hardware.catalog",
        what: "GPU instance types: GPUs per instance, GPU memory [B], PCIe bandwidth [B/s] (interconnect), spot and on-demand price [USD/h], quota",
        optional: false,
        shown: None,
    },
    Need {
        field: "hardware.cluster.ps",
        what: "the PS side: instance or link; B_ps is count × link",
        optional: false,
        shown: None,
    },
    Need {
        field: "hardware.cluster.workers",
        what: "a heterogeneous cluster to predict (and to keep, or revoke from, when replanning)",
        optional: true,
        shown: None,
    },
    Need {
        field: "goals",
        what: "loss goal L_obj and time goal T_obj [s], for plans",
        optional: true,
        shown: None,
    },
    Need {
        field: "hardware.pricing",
        what: "spot or on-demand prices for costs",
        optional: true,
        shown: None,
    },
    section::PARAM_BYTES.need(),
    section::REQ_BYTES_PER_S.need(),
    section::ALPHA1_INPUT.need(),
    section::BETA1_INPUT.need(),
    section::ALPHA2_INPUT.need(),
    section::BETA2_INPUT.need(),
    section::OVERHEAD.need(),
    section::MAX_WORKERS.need(),
];

/// What its paper prints of its own accuracy (`runs::papers`): nothing
/// a measured run can hold, and why.
static PAPER_CHECK: crate::runs::papers::PaperCheck = crate::runs::papers::PaperCheck {
    tables: &[],
    sets: &[],
    notes: &["its revocation run (Fig. 9) prints the times of a whole training to a loss (the revocation signal at 29.8 min, completion at 41.9 min), not an iteration time or a throughput, which is what a measured run holds; its other measurements are drawn in figures: no cell is shipped."],
};

impl Model for SpotDnn {
    fn paper_check(&self) -> Option<&'static crate::runs::papers::PaperCheck> {
        Some(&PAPER_CHECK)
    }


    fn id(&self) -> &'static str {
        section::ID
    }

    fn name(&self) -> &'static str {
        "spotDNN"
    }

    fn about(&self) -> &'static str {
        "heterogeneous spot GPU clusters under ASP: time and cost to a loss goal with PS and PCIe contention, the cheapest plan within quotas (Algorithm 1 next to an exact optimiser), and replanning after a revocation"
    }

    fn paper(&self) -> &'static str {
        "Shang, Xu, Bai, Chen, Zhou, Liu. spotDNN: Provisioning Spot Instances for Predictable Distributed DNN Training in the Cloud. IWQoS 2023 (Eq. 1-16, Algorithm 1)"
    }

    fn assumes(&self) -> &'static str {
        "spotDNN (Eq. 1-2) counts normalized iterations of the whole ASP cluster, T_exp = 1/Σ 1/T_i, with measured per-type iteration times."
    }

    fn overview_figures(&self) -> &'static [&'static str] {
        &["exact-plan", "exact-cost", "train-time", "convergence"]
    }

    fn overview_charts(&self) -> &'static [(&'static str, &'static str)] {
        &[("timeline", "iteration"), ("cost", "frontier")]
    }

    /// This cluster's training time and cost to the loss goal.
    fn goal_figures(&self) -> &'static [(&'static str, crate::uncertainty::Goal)] {
        &[
            ("train-time", crate::uncertainty::Goal::Time),
            ("cost", crate::uncertainty::Goal::Budget),
        ]
    }

    fn needs(&self) -> &'static [Need] {
        &NEEDS
    }

    fn reads(&self) -> &'static [&'static str] {
        &[
            "hardware.catalog",
            "hardware.cluster.workers",
            "hardware.cluster.ps",
            "hardware.pricing",
            "goals.",
            "models.spotdnn",
        ]
    }

    /// The plan searches' worst case (`plan::work_units`): the measured
    /// types in the catalog, the worker limit (`P < 1` and the section's),
    /// and the instances Algorithm 1 lines up (`Σ min(quota, limit)`).
    /// Without both goals nothing is planned (0).
    fn work(&self, s: &Scenario) -> Vec<Work> {
        let plans = s.goals.loss.is_some() && s.goals.time_s.is_some();
        let set = section::settings(s);
        let cap = contention_cap(set.alpha1, set.beta1)
            .map_or(set.max_workers, |n| n.min(set.max_workers));
        let measured = |name: &str| set.measured.iter().any(|m| m.instance == name);
        let types: Vec<&Instance> = s
            .hardware
            .catalog
            .iter()
            .filter(|i| i.gpus.is_some_and(|g| g > 0) && measured(&i.name))
            .collect();
        let list: u64 = types
            .iter()
            .map(|i| u64::from(i.quota.unwrap_or(cap).min(cap)))
            .sum();
        vec![Work {
            units: if plans {
                work_units(types.len(), cap, list, set.revocation.is_some())
            } else {
                0.0
            },
            unit: "plan search steps",
            limit: MAX_SEARCH_STEPS,
            field: "hardware.catalog".into(),
            reduce: "the measured instance types, their quotas, or the worker limit (models.spotdnn.max_workers, α1, β1)".into(),
        }]
    }

    fn validate(&self, s: &Scenario) -> Vec<FieldError> {
        let mut errs = section::validate(s);
        errs.extend(crate::calibration::validate(s, section::ID, &factors::specs(s)));
        errs
    }

    fn factors(&self, s: &Scenario) -> Vec<crate::calibration::FactorSpec> {
        factors::specs(s)
    }

    fn run_predictor(&self, s: &Scenario) -> Option<crate::models::RunPredictor> {
        run_predictor(s)
    }

    /// Eq. 1-2 and 4 on the run's cluster, without plans: throughput
    /// `v = Σ b_i/T_i` and the workers' effective step `|N|·T_exp`.
    fn predict_run(&self, s: &Scenario) -> Option<Result<RunPrediction, Unavailable>> {
        Some(predict_run(s))
    }

    fn report(&self, s: &Scenario) -> Result<Report, Unavailable> {
        let mut r = evaluate(s).map(|e| build(s, &e))?;
        r.notes
            .extend(crate::calibration::calibrated_note(s, section::ID));
        Ok(r)
    }

    /// The given cluster without the plan searches and the replan.
    fn headline(&self, s: &Scenario) -> Result<Vec<crate::report::Figure>, Unavailable> {
        prepare(s).map(|e| build(s, &e).headline)
    }

    /// The timeline of one iteration per type (its total is `T_exp`),
    /// and the frontier: each time goal's plan, costed per sample.
    fn banded_charts(&self) -> &'static [&'static str] {
        &["iteration", FRONTIER]
    }

    /// The given cluster's charts, without the plan searches (the
    /// frontier's points are plans: `curve_sampler` keeps them).
    fn curves(&self, s: &Scenario) -> Result<Vec<crate::report::Chart>, Unavailable> {
        prepare(s).map(|e| super::report::curve_charts(&e))
    }

    /// The frontier's plans searched once, on `s` as given; each sample
    /// costs them, as a cost curve's band costs each worker count.
    fn curve_sampler(&self, s: &Scenario) -> Option<crate::models::CurveSampler> {
        let plans = frontier_plans(s);
        Some(Box::new(move |x: &Scenario| sample_charts(x, &plans)))
    }

    fn curves_work(&self, s: &Scenario) -> Vec<Work> {
        self.headline_work(s)
    }

    /// One cluster's evaluation: no search.
    fn headline_work(&self, _s: &Scenario) -> Vec<Work> {
        vec![Work {
            units: 1.0,
            unit: "plan search steps",
            limit: MAX_SEARCH_STEPS,
            field: "hardware.cluster.workers".into(),
            reduce: "the workers".into(),
        }]
    }
}

/// The given cluster's figures (`eval::prepare`): `T_exp` counts one
/// update of any worker, so a step of every worker is `|N|·T_exp`.
fn predict_run(s: &Scenario) -> Result<RunPrediction, Unavailable> {
    let e = prepare(s)?;
    let Some(c) = &e.cluster else {
        return Err(Unavailable::missing(
            "hardware.cluster.workers",
            e.cluster_note
                .unwrap_or_else(|| "a cluster of measured instance types".into()),
        ));
    };
    Ok(prediction(&c.figures, batch_note(s, &e)))
}

/// `predict_run` with the section read and fitted once, as published;
/// each call applies the factors to the instance types and the workload
/// and computes the cluster's figures (Eq. 1-9), as `prepare` does.
fn run_predictor(s: &Scenario) -> Option<crate::models::RunPredictor> {
    let mut base = s.clone();
    base.calibration.set(section::ID, Default::default());
    let e = prepare(&base).ok()?;
    let counts = e.cluster.as_ref()?.counts.clone();
    let note = batch_note(s, &e);
    let (types, workload) = (e.types, e.workload);
    let keys: Vec<String> = types
        .iter()
        .map(|t| format!("{}{}", factors::RATE_PREFIX, t.name))
        .collect();
    let workers: u32 = counts.iter().sum();
    Some(Box::new(move |values| {
        // As `Applied::workload` and `Applied::instance`, then
        // `Mix::of_times`, which gives `cluster`'s bits.
        let get = |key: &str| factors::value(values, key, 1.0);
        let mut w = workload;
        let b = get(factors::PS_BANDWIDTH);
        if b != 1.0 {
            w.ps_bytes_per_s *= b;
        }
        let n = f64::from(workers);
        let times: Vec<f64> = types
            .iter()
            .zip(&keys)
            .map(|(t, key)| {
                let f = get(key);
                let compute_s = if f != 1.0 { t.compute_s / f } else { t.compute_s };
                IterationParts {
                    compute_s,
                    ..t.iteration(&w, n)
                }
                .total()
            })
            .collect();
        let m = Mix::of_times(&types, &counts, &times)?;
        Some(RunPrediction {
            iteration_s: Some(f64::from(m.workers) * m.expected_iteration_s()),
            throughput: Some(m.speed),
            note: note.clone(),
        })
    }))
}

fn prediction(f: &ClusterFigures, note: Option<String>) -> RunPrediction {
    RunPrediction {
        iteration_s: Some(f64::from(f.workers) * f.expected_iteration_s),
        throughput: Some(f.speed),
        note,
    }
}

/// Eq. 10 sizes the batches; say so where the run's differ.
fn batch_note(s: &Scenario, e: &SpotEvaluation) -> Option<String> {
    let differ: Vec<String> = s
        .hardware
        .cluster
        .workers
        .iter()
        .filter_map(|g| {
            let t = e.types.iter().find(|t| t.name == g.instance)?;
            (t.batch != f64::from(g.batch_size)).then(|| {
                format!(
                    "{} {} (the run's {})",
                    g.instance,
                    fmt_sig(t.batch),
                    g.batch_size
                )
            })
        })
        .collect();
    (!differ.is_empty()).then(|| {
        format!(
            "spotDNN sizes each worker's batch by Eq. 10, not by the run's: {}",
            differ.join(", ")
        )
    })
}
