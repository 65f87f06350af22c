//! Measured runs: clusters a user timed, and every model held against
//! them (issue 35, first increment).
//!
//! A run is a cluster (worker groups from the catalog, optionally its own
//! PS side) and what was measured on it: the iteration time or the
//! throughput. The two measures are tied by one convention, the same for
//! every run and model:
//!
//! ```text
//! throughput [samples/s] = global batch / iteration time [s]
//! global batch           = Σ count × batch_size over the run's groups
//! ```
//!
//! so an iteration is the time in which every worker processes one batch
//! (BSP's step; for an asynchronous cluster, the mean time per step of
//! its workers). A model predicts a run from the scenario with the run's
//! cluster (`run_scenario`, `Model::predict_run`); `compare` sets the
//! predictions beside the measurements and `report` makes that a `Report`.
//!
//! - `validate.rs`: each run's checks, at `runs[i].<field>`.
//! - `files.rs`: runs from CSV or JSON (`--import runs=FILE`).
//! - `compare.rs`: predictions, signed errors, median and worst per model.
//! - `report.rs`: the comparison as a `Report` (table, parity chart).

pub mod analysis;
pub mod compare;
pub mod files;
pub mod papers;
pub mod report;
pub mod validate;

use serde::{Deserialize, Serialize};

use crate::bounds::Bounds;
use crate::hardware::{ParameterServer, WorkerGroup};
use crate::scenario::Scenario;

pub use compare::{compare, Comparison};

/// Most runs one scenario holds (each is predicted by every model).
pub const MAX_RUNS: usize = 10_000;
/// Longest `source` text accepted.
pub const MAX_SOURCE_CHARS: usize = 1_000;
/// A measured iteration: a microsecond to about 115 days.
pub const ITERATION: Bounds = Bounds::shown(1e-6, 1e7, 1.0, "s");
/// A measured throughput, samples/s.
pub const THROUGHPUT: Bounds = Bounds::shown(1e-6, 1e12, 1.0, "samples/s");

/// One measured run: the cluster it ran on and what was measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// How the tables and charts name it; unique within the scenario.
    #[serde(default)]
    pub label: String,
    /// Worker groups (catalog instances, counts, batch sizes).
    #[serde(default)]
    pub workers: Vec<WorkerGroup>,
    /// Its PS side, when not the scenario's (`hardware.cluster.ps`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ps: Option<ParameterServer>,
    /// Seconds per iteration (one batch on every worker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iteration_s: Option<f64>,
    /// Samples per second across the cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput: Option<f64>,
    /// Where the figure comes from ("Zeng et al. Table 6, VGG-16 bs 32").
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
    /// The paper's own prediction of this run, when it prints one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<Published>,
    /// An input the run's source does not give and no model may invent
    /// ("the per-iteration data-loading time"): the comparison says
    /// "cannot predict: lacks …" instead of predicting it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lacks: Option<String>,
}

/// A paper's own prediction of a measured run, in the run's measure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Published {
    /// In the run's measure's SI unit (s or samples/s).
    pub value: f64,
    /// Where it is printed ("Zeng et al. Table 6, row Vgg16, bs = 32, column PT").
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
}

/// Which quantity a run measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// Seconds per iteration.
    IterationTime,
    /// Samples per second.
    Throughput,
}

impl Measure {
    /// "iteration time", "throughput".
    pub fn name(self) -> &'static str {
        match self {
            Measure::IterationTime => "iteration time",
            Measure::Throughput => "throughput",
        }
    }

    /// "iteration time [s]", "throughput [samples/s]".
    pub fn words(self) -> &'static str {
        match self {
            Measure::IterationTime => "iteration time [s]",
            Measure::Throughput => "throughput [samples/s]",
        }
    }

    pub fn unit(self) -> crate::report::Unit {
        match self {
            Measure::IterationTime => crate::report::Unit::Seconds,
            Measure::Throughput => crate::report::Unit::SamplesPerS,
        }
    }
}

impl Run {
    /// Samples per iteration: Σ count × batch size.
    pub fn global_batch(&self) -> f64 {
        self.workers
            .iter()
            .map(|g| f64::from(g.count) * f64::from(g.batch_size))
            .sum()
    }

    /// What was measured and its value, when exactly one measure is given.
    pub fn measured(&self) -> Option<(Measure, f64)> {
        match (self.iteration_s, self.throughput) {
            (Some(t), None) => Some((Measure::IterationTime, t)),
            (None, Some(x)) => Some((Measure::Throughput, x)),
            _ => None,
        }
    }
}

/// A model's prediction of a run, in the measure (or measures) the model
/// computes; `in_measure` converts by the convention above.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunPrediction {
    /// Seconds per iteration (every worker one batch).
    pub iteration_s: Option<f64>,
    /// Samples per second across the cluster.
    pub throughput: Option<f64>,
    /// What a reader must know about this prediction (a batch the model
    /// sized itself, workers it took as alike).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl RunPrediction {
    pub fn iteration(iteration_s: f64) -> Self {
        RunPrediction {
            iteration_s: Some(iteration_s),
            ..Self::default()
        }
    }

    pub fn throughput(samples_per_s: f64) -> Self {
        RunPrediction {
            throughput: Some(samples_per_s),
            ..Self::default()
        }
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// The prediction in `measure`: as computed, else converted with the
    /// run's `global_batch`; `None` when neither is there or the value is
    /// not a finite positive number.
    pub fn in_measure(&self, measure: Measure, global_batch: f64) -> Option<f64> {
        let v = match measure {
            Measure::IterationTime => self
                .iteration_s
                .or_else(|| self.throughput.map(|x| global_batch / x)),
            Measure::Throughput => self
                .throughput
                .or_else(|| self.iteration_s.map(|t| global_batch / t)),
        };
        v.filter(|v| crate::bounds::positive(*v))
    }
}

/// The comparison of `s`'s runs against `models` as a report (`report`),
/// or why there is none: no runs (`Missing`), a run's fields wrong, or a
/// number too large to compute (`Invalid`).
pub fn evaluate(
    s: &Scenario,
    models: &[&'static dyn crate::models::Model],
) -> Result<crate::report::Report, crate::errors::Unavailable> {
    let c = compare(s, models)?;
    let r = report::build(&c, &s.workload.network.name);
    match r.non_finite() {
        None => Ok(r),
        Some(at) => Err(crate::errors::Unavailable::invalid(vec![
            crate::errors::err(
                "runs",
                format!("the comparison holds a number too large or too small to compute ({at})"),
            ),
        ])),
    }
}

/// The scenario as the run ran: `s` with the run's worker groups as its
/// cluster, and the run's PS side when it gives one (else the
/// scenario's); without runs. What every model's `predict_run` reads.
pub fn run_scenario(s: &Scenario, run: &Run) -> Scenario {
    let mut out = Scenario {
        version: s.version,
        title: s.title.clone(),
        workload: s.workload.clone(),
        hardware: s.hardware.clone(),
        goals: s.goals.clone(),
        runs: Vec::new(),
        // The factors travel with the run: a model predicts it as
        // calibrated (`crate::calibration`).
        calibration: s.calibration.clone(),
        models: s.models.clone(),
        // Bands are of the scenario's figures, not of a run's prediction.
        uncertainty: None,
    };
    set_run_cluster(&mut out, &s.hardware.cluster.ps, run);
    out
}

/// Puts `run`'s cluster into `base` (a scenario without runs), with
/// `ps` as the PS side when the run gives none: one clone of the
/// scenario serves every run (`compare`).
pub(crate) fn set_run_cluster(base: &mut Scenario, ps: &ParameterServer, run: &Run) {
    base.hardware.cluster.workers.clone_from(&run.workers);
    base.hardware
        .cluster
        .ps
        .clone_from(run.ps.as_ref().unwrap_or(ps));
}

/// `field` of the run's scenario as the path of run `i`: its workers are
/// `runs[i].workers`, its PS side `runs[i].ps` when the run gives one.
pub fn field_in_run(field: &str, i: usize, run: &Run) -> String {
    let at = format!("runs[{i}]");
    if let Some(rest) = field.strip_prefix("hardware.cluster.workers") {
        return format!("{at}.workers{rest}");
    }
    if run.ps.is_some() {
        if let Some(rest) = field.strip_prefix("hardware.cluster.ps") {
            return format!("{at}.ps{rest}");
        }
    }
    field.to_string()
}
