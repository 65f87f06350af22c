//! Cynthia in the registry: what it reads, its section's checks, and its
//! report.

use super::eval::{evaluate_validated, given_cluster};
use super::iteration;
use super::report::build;
use super::{factors, section};
use crate::models::{Model, Need, RunPrediction, Unavailable, Work};
use crate::report::Report;
use crate::errors::FieldError;
use crate::scenario::Scenario;
use crate::workload::profile::Profile;

pub struct Cynthia;

/// Candidate clusters priced in one search at most (~3 ns each natively).
const MAX_CANDIDATES: f64 = 2e8;

const NEEDS: [Need; 7] = [
    Need {
        field: "workload.profile",
        what: "the job profile: w_iter [FLOP], g_param [B], c_prof [FLOP/s], b_prof [B/s], c_base [FLOP/s], BSP or ASP",
        optional: false,
        shown: None,
    },
    Need {
        field: "workload.loss",
        what: "β0, β1 of Eq. 1 (typed or fitted from a loss curve); needed for training time, cost and plans",
        optional: true,
        shown: None,
    },
    Need {
        field: "hardware.catalog",
        what: "instance types with a rate [FLOP/s] (typed, or from a clock-level description), network [B/s] and price [USD/h]",
        optional: false,
        shown: None,
    },
    Need {
        field: "hardware.cluster",
        what: "a cluster to predict: worker groups, and the PS instance, count and (optionally) per-node link",
        optional: true,
        shown: None,
    },
    Need {
        field: "goals",
        what: "time goal T_g [s], loss goal l_g and an optional budget [USD], for planning",
        optional: true,
        shown: None,
    },
    section::MAX_WORKERS.need(),
    Need {
        field: "hardware.pricing",
        what: "price plans at on-demand or spot prices",
        optional: true,
        shown: None,
    },
];

impl Model for Cynthia {
    fn id(&self) -> &'static str {
        "cynthia"
    }

    fn name(&self) -> &'static str {
        "Cynthia"
    }

    fn assumes(&self) -> &'static str {
        "Cynthia (Eq. 3) takes the larger of computation and the PS nodes' CPU and network share, fully overlapped, so its time is usually lower."
    }

    fn overview_figures(&self) -> &'static [&'static str] {
        &["exact-plan", "iteration-time", "train-time", "cost"]
    }

    fn overview_charts(&self) -> &'static [(&'static str, &'static str)] {
        &[("cost", "cost")]
    }

    fn about(&self) -> &'static str {
        "parameter-server bottlenecks, training time and cost to a loss goal, and the cheapest homogeneous cluster for a time/loss/budget goal (Algorithm 1 next to an exact search)"
    }

    fn paper(&self) -> &'static str {
        "Zheng, Xu, Chen, Zhou, Liu. Cynthia: Cost-Efficient Cloud Resource Provisioning for Predictable Distributed Deep Neural Network Training. ICPP 2019 (Eq. 1-14, Theorem 4.1, Algorithm 1)"
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
            "workload.profile",
            "workload.loss",
            "hardware.catalog",
            "hardware.cluster.workers",
            "hardware.cluster.ps.instance",
            "hardware.cluster.ps.count",
            "hardware.cluster.ps.link",
            "hardware.pricing",
            "goals.",
        ]
    }

    fn validate(&self, s: &Scenario) -> Vec<FieldError> {
        let mut errs = section::validate(s);
        errs.extend(crate::calibration::validate(s, section::ID, &factors::specs(s)));
        errs
    }

    fn factors(&self, s: &Scenario) -> Vec<crate::calibration::FactorSpec> {
        factors::specs(s)
    }

    /// Candidate clusters the exact search prices: every type with
    /// 1 ≤ n_ps ≤ n_wk ≤ N (the cost curves are fewer).
    fn work(&self, s: &Scenario) -> Vec<Work> {
        let types = s.hardware.catalog.len() as f64;
        let n = f64::from(section::settings(s).max_workers);
        vec![Work {
            units: types * n * (n + 1.0) / 2.0,
            unit: "candidate clusters",
            limit: MAX_CANDIDATES,
            field: "models.cynthia.max_workers".into(),
            reduce: "the most workers to consider, or the catalog".into(),
        }]
    }

    fn paper_check(&self) -> Option<&'static crate::runs::papers::PaperCheck> {
        Some(&super::paper_check::PAPER_CHECK)
    }

    /// Eq. 3-5's iteration time of the run's cluster (BSP: the cluster's
    /// step; ASP: the workers' effective step `n / Σ 1/t_j`).
    fn predict_run(&self, s: &Scenario) -> Option<Result<RunPrediction, Unavailable>> {
        Some(predict_run(s))
    }

    fn run_predictor(&self, s: &Scenario) -> Option<crate::models::RunPredictor> {
        run_predictor(s)
    }

    /// The given cluster without the plan searches.
    fn headline(&self, s: &Scenario) -> Result<Vec<crate::report::Figure>, Unavailable> {
        if s.workload.profile.is_none() {
            return Err(Unavailable::missing("workload.profile", "a job profile"));
        }
        let e = super::eval::evaluate_cluster(s).map_err(Unavailable::invalid)?;
        Ok(build(s, &e).headline)
    }

    /// One cluster's evaluation.
    fn headline_work(&self, _s: &Scenario) -> Vec<Work> {
        vec![Work {
            units: 1.0,
            unit: "candidate clusters",
            limit: MAX_CANDIDATES,
            field: "models.cynthia.max_workers".into(),
            reduce: "the most workers to consider, or the catalog".into(),
        }]
    }

    fn banded_charts(&self) -> &'static [&'static str] {
        &["cost", "time"]
    }

    /// The cost curves without the plan searches.
    fn curves(&self, s: &Scenario) -> Result<Vec<crate::report::Chart>, Unavailable> {
        if s.workload.profile.is_none() {
            return Err(Unavailable::missing("workload.profile", "a job profile"));
        }
        let e = super::eval::evaluate_curves(s).map_err(Unavailable::invalid)?;
        Ok(super::report::curve_charts(&e))
    }

    fn report(&self, s: &Scenario) -> Result<Report, Unavailable> {
        if s.workload.profile.is_none() {
            return Err(Unavailable::missing(
                "workload.profile",
                "a job profile (w_iter, g_param, c_prof, b_prof, c_base): pick a Table 4 preset, type it in, upload it, or derive it from the layer table",
            ));
        }
        let e = evaluate_validated(s).map_err(|errors| Unavailable::Invalid { errors })?;
        let mut r = build(s, &e);
        r.notes
            .extend(crate::calibration::calibrated_note(s, section::ID));
        Ok(r)
    }
}

/// The given cluster's iteration (`eval::given_cluster`, Eq. 3-5).
fn predict_run(s: &Scenario) -> Result<RunPrediction, Unavailable> {
    let Some(profile) = &s.workload.profile else {
        return Err(Unavailable::missing(
            "workload.profile",
            "a job profile (w_iter, g_param, c_prof, b_prof, c_base): pick a Table 4 preset, type it in, upload it, or derive it from the layer table",
        ));
    };
    let field = if s.hardware.cluster.ps.instance.is_none() {
        "hardware.cluster.ps.instance"
    } else {
        "hardware.catalog"
    };
    let (cluster, _) = given_cluster(s).map_err(|m| Unavailable::missing(field, m.to_string()))?;
    let t = iteration(&factors::applied(s).profile(profile), &cluster).t_iter_s;
    Ok(RunPrediction::iteration(t).with_note(batch_note(profile)))
}

fn batch_note(profile: &Profile) -> String {
    format!(
        "Cynthia's profile '{}' fixes the work of an iteration (w_iter); the runs' batch sizes do not enter its prediction",
        profile.name
    )
}

/// `predict_run` with the cluster read from the catalog once, as
/// published; each call scales it and the profile as
/// `factors::Applied` does, then takes Eq. 3-5.
fn run_predictor(s: &Scenario) -> Option<crate::models::RunPredictor> {
    let profile = s.workload.profile.clone()?;
    let mut base = s.clone();
    base.calibration.set(section::ID, Default::default());
    let (cluster, _) = given_cluster(&base).ok()?;
    let keys: Vec<String> = cluster
        .workers
        .iter()
        .chain(&cluster.ps)
        .map(|g| format!("{}{}", factors::RATE_PREFIX, g.kind.name))
        .collect();
    let note = batch_note(&profile);
    Some(Box::new(move |values| {
        let get = |key: &str| factors::value(values, key, 1.0);
        let bandwidth = get(factors::PS_BANDWIDTH);
        let mut c = cluster.clone();
        for (g, key) in c.workers.iter_mut().chain(c.ps.iter_mut()).zip(&keys) {
            factors::scale(&mut g.kind, get(key), bandwidth);
        }
        let p = factors::profile_at(&profile, get(factors::C_PROF));
        Some(RunPrediction::iteration(iteration(&p, &c).t_iter_s).with_note(note.clone()))
    }))
}
