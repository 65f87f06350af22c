//! Calibration (issue 35): per model, a few named, physically meaningful
//! factors fitted to the measured runs (`crate::runs`) by bounded least
//! squares, kept in the scenario so a link or file carries them, and
//! applied by the model wherever it computes.
//!
//! - The factors live in `Scenario::calibration`: per model id, factor
//!   name → value. A factor that is absent is the model "as published".
//!   Each model says which factors it has (`Model::factors`: name, unit,
//!   bounds, what it scales, the published value) and reads their values
//!   from the scenario when it evaluates; nothing here names a model.
//! - `fit.rs`: which factors the runs can determine, the multi-start
//!   bounded fit (`lm.rs`), and leave-one-out.
//! - `report.rs`: factors and the three errors as a `Report`.
//!
//! Residuals are log-ratios `ln(predicted / measured)` in the run's own
//! measure: symmetric in over- and under-prediction, scale-free (a 30 s
//! run and a 0.3 s run weigh alike), and the same for iteration time and
//! throughput (they are reciprocal). Errors are reported as the runs
//! comparison reports them, `(predicted − measured) / measured`.

pub mod analysis;
pub mod fit;
pub mod lm;
pub mod report;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::errors::{err, FieldError};
use crate::scenario::Scenario;

pub use fit::{calibrate, calibrate_model, FitOptions, ModelCalibration};

/// Factors per model id (`"zeng" → {"link": 0.93, …}`); as stored in the
/// scenario's `calibration`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Calibration(pub BTreeMap<String, BTreeMap<String, f64>>);

impl Calibration {
    /// No model has a factor: every model as published.
    pub fn is_empty(&self) -> bool {
        self.0.values().all(BTreeMap::is_empty)
    }

    /// The factors of model `id` (empty: as published).
    pub fn of(&self, id: &str) -> Option<&BTreeMap<String, f64>> {
        self.0.get(id).filter(|m| !m.is_empty())
    }

    /// Factor `name` of model `id`, when calibrated.
    pub fn get(&self, id: &str, name: &str) -> Option<f64> {
        self.0.get(id).and_then(|m| m.get(name)).copied()
    }

    /// Replaces model `id`'s factors (none: as published).
    pub fn set(&mut self, id: &str, factors: BTreeMap<String, f64>) {
        if factors.is_empty() {
            self.0.remove(id);
        } else {
            self.0.insert(id.to_string(), factors);
        }
    }
}

/// The key prefix of a per-instance rate factor (`rate:Quadro RTX 4000`),
/// shared by every model that calibrates each device type's rate.
pub const RATE_PREFIX: &str = "rate:";

/// The achieved fraction of each instance type's rate, as stored (1
/// where a type has no factor).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rates(Vec<(String, f64)>);

impl Rates {
    /// Keeps `rate:<instance>` = `v`; false for any other name.
    pub fn take(&mut self, name: &str, v: f64) -> bool {
        match name.strip_prefix(RATE_PREFIX) {
            Some(inst) => {
                self.0.push((inst.to_string(), v));
                true
            }
            None => false,
        }
    }

    /// The fraction of `instance`'s rate (1 when not calibrated).
    pub fn of(&self, instance: &str) -> f64 {
        self.0
            .iter()
            .find(|(n, _)| n == instance)
            .map_or(1.0, |(_, v)| *v)
    }
}

/// The catalog instances whose rate model `id` can be calibrated on: those
/// in `used` (the runs' instances, in order of first use), then any the
/// scenario already has a rate factor for; each once.
pub fn rated_instances<'a>(
    s: &'a Scenario,
    id: &str,
    used: impl Iterator<Item = &'a str>,
) -> Vec<&'a str> {
    let stored = s
        .calibration
        .of(id)
        .into_iter()
        .flat_map(|m| m.keys().filter_map(|k| k.strip_prefix(RATE_PREFIX)));
    let mut names: Vec<&str> = Vec::new();
    for n in used.chain(stored) {
        if s.instance(n).is_some() && !names.contains(&n) {
            names.push(n);
        }
    }
    names
}

/// The instances of every run's worker groups, in order of first use.
pub fn run_workers(s: &Scenario) -> impl Iterator<Item = &str> {
    s.runs
        .iter()
        .flat_map(|r| r.workers.iter().map(|g| g.instance.as_str()))
}

/// How a factor acts, which decides the coordinate it is fitted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FactorKind {
    /// Multiplies a quantity (a rate, a bandwidth): fitted in its
    /// logarithm, so halving and doubling are steps of one size.
    Ratio,
    /// Adds to a quantity (a latency): fitted as it is.
    Offset,
}

/// One factor a model can be calibrated by.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FactorSpec {
    /// Its key under `calibration.<model>` ("rate:Quadro RTX 4000").
    pub name: String,
    /// In words, with its unit ("achieved fraction of Quadro RTX 4000's rate [×]").
    pub label: String,
    /// "×" (a ratio) or "s".
    pub unit: &'static str,
    pub min: f64,
    pub max: f64,
    /// Its value as the paper has it (1 for a ratio, 0 for an offset).
    pub published: f64,
    /// What it scales, where the model uses it.
    pub scales: String,
    /// Why a run may not show it, for "cannot be fitted from these runs".
    pub unseen: String,
    pub kind: FactorKind,
}

impl FactorSpec {
    /// The checks of a stored value, at `calibration.<model>.<name>`.
    pub fn check(&self, model: &str, value: f64) -> Option<FieldError> {
        (!(value.is_finite() && value >= self.min && value <= self.max)).then(|| {
            err(
                format!("calibration.{model}.{}", self.name),
                format!(
                    "{} must be {} to {} {}",
                    self.label, self.min, self.max, self.unit
                ),
            )
        })
    }
}

/// The checks of model `id`'s stored factors against its `specs`: each
/// a factor it has, each within its bounds.
pub fn validate(s: &Scenario, id: &str, specs: &[FactorSpec]) -> Vec<FieldError> {
    let Some(stored) = s.calibration.of(id) else {
        return Vec::new();
    };
    stored
        .iter()
        .filter_map(|(name, &v)| match specs.iter().find(|f| &f.name == name) {
            Some(f) => f.check(id, v),
            None => Some(err(
                format!("calibration.{id}.{name}"),
                format!(
                    "'{name}' is not a factor of this model here; its factors: {}",
                    specs
                        .iter()
                        .map(|f| f.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        })
        .collect()
}

/// "Calibrated on measured runs (calibration.<id>: …)" when the scenario
/// has factors for model `id`, for its report: a calibrated figure is
/// never taken for the paper's own.
pub fn calibrated_note(s: &Scenario, id: &str) -> Option<crate::report::Note> {
    let stored = s.calibration.of(id)?;
    let list: Vec<String> = stored
        .iter()
        .map(|(k, v)| format!("{k} = {v:.4}"))
        .collect();
    Some(
        crate::report::Note::info(format!(
            "Calibrated on measured runs (calibration.{id}: {}): every figure and chart uses these factors; without them the model is as published.",
            list.join(", ")
        ))
        .at(format!("calibration.{id}")),
    )
}

/// Why a model's factors could not be fitted; its factors stay as they
/// were (as published, or the last good calibration).
#[derive(Clone, Debug, PartialEq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CalibrationError {
    #[error("{model} has no factors to calibrate")]
    NoFactors { model: String },
    #[error("no factor '{name}' for {model}; its factors: {known}")]
    UnknownFactor {
        model: String,
        name: String,
        known: String,
    },
    #[error("the runs cannot be compared: {why}")]
    Runs { why: String },
    #[error(
        "calibrating {model} needs at least {} runs it predicts; it predicts {predicted}: one run fits one factor exactly and leaves nothing to check it against",
        fit::MIN_RUNS
    )]
    TooFewRuns { model: String, predicted: usize },
    #[error(
        "runs '{a}' and '{b}' are the same cluster but measure {a_value} and {b_value} ({apart:.0}% apart): the runs contradict each other; correct or drop one"
    )]
    Contradictory {
        a: String,
        b: String,
        a_value: String,
        b_value: String,
        apart: f64,
    },
    #[error(
        "{model}: no start of the fit converged within {} iterations",
        lm::MAX_ITERATIONS
    )]
    NotConverged { model: String },
    /// Over the work budget (`fit::work`), refused before any fit.
    #[error("{message}")]
    OverBudget { message: String },
}
