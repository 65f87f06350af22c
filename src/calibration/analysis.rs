//! The calibration of every model with factors on the measured runs,
//! served by the evaluation protocol (`Model`) so the worker refits on
//! every edit and the page shows it as it shows a model's results, with
//! an action per model that stores its fitted factors (and one that goes
//! back to the model as published). Not in the registry: it reads every
//! model.

use serde_json::{json, Map, Value};

use super::fit::{calibrate, FitOptions, ModelCalibration};
use crate::inputs::Need;
use crate::models::{Model, Unavailable, Work, MODELS};
use crate::report::{Action, Report};
use crate::runs::compare::{compare, Outcome};
use crate::scenario::Scenario;

pub struct Calibrate;

/// The calibration as the worker and the page list it.
pub static CALIBRATE: Calibrate = Calibrate;

const NEEDS: &[Need] = &[Need {
    field: "runs",
    what: "at least two measured runs a model with factors predicts",
    optional: false,
    shown: None,
}];

impl Model for Calibrate {
    fn id(&self) -> &'static str {
        "calibration"
    }
    fn name(&self) -> &'static str {
        "Calibration"
    }
    fn about(&self) -> &'static str {
        "each model's factors fitted to your runs, with in-sample and leave-one-out error"
    }
    fn paper(&self) -> &'static str {
        ""
    }
    fn needs(&self) -> &'static [Need] {
        NEEDS
    }
    fn reads(&self) -> &'static [&'static str] {
        &["runs", "calibration"]
    }
    fn work(&self, s: &Scenario) -> Vec<Work> {
        vec![super::fit::work(s)]
    }
    fn report(&self, s: &Scenario) -> Result<Report, Unavailable> {
        if s.runs.is_empty() {
            return Err(Unavailable::missing("runs", NEEDS[0].what));
        }
        let models = calibrated_models(s);
        if models.is_empty() {
            return Err(Unavailable::missing(
                "runs",
                "a model with factors that predicts these runs (Zeng et al.'s need the runs' devices in the catalog)",
            ));
        }
        let results = calibrate(s, &models, &FitOptions::default());
        let mut r = super::report::build(&results, &s.display_title());
        for (m, result) in &results {
            if let Ok(c) = result {
                r.actions.extend(apply(s, *m, c));
                r.actions.extend(spread_as_bands(s, *m, c));
            }
            if s.calibration.of(m.id()).is_some() {
                r.actions.push(Action {
                    key: format!("{}-published", m.id()),
                    label: format!("{} as published", m.name()),
                    description: format!(
                        "Removes the factors at calibration.{}: {} is computed as its paper has it.",
                        m.id(),
                        m.name()
                    ),
                    patch: json!({ "calibration": { m.id(): null } }),
                });
            }
        }
        Ok(r)
    }
}

/// The registry models that have factors on `s` and predict at least one
/// of its runs as published, in registry order: what the page's
/// calibration view, `ddnn-planner calibrate` and the JS package's
/// `calibrate` fit. A model that predicts none of the runs (it lacks an
/// input of its own, or no run is a cluster it predicts) is left out
/// rather than reported as failed; when the runs themselves cannot be
/// compared, every model with factors is kept, so each says why.
///
/// A model whose calibration is over its budget
/// (`Model::calibration_work`) is kept without predicting the runs, so
/// its calibration says so before anything runs.
pub fn calibrated_models(s: &Scenario) -> Vec<&'static dyn Model> {
    let with: Vec<&'static dyn Model> = MODELS
        .iter()
        .copied()
        .filter(|m| !m.factors(s).is_empty())
        .collect();
    let over = |m: &&'static dyn Model| m.calibration_work(s).iter().any(|w| !w.fits());
    let within: Vec<&'static dyn Model> = with.iter().copied().filter(|m| !over(m)).collect();
    match compare(s, &within) {
        Ok(c) => with
            .into_iter()
            .filter(|m| {
                over(m)
                    || c.models.iter().any(|r| {
                        r.id == m.id()
                            && r.outcomes
                                .iter()
                                .any(|o| matches!(o, Outcome::Predicted { .. }))
                    })
            })
            .collect(),
        Err(_) => with,
    }
}

/// "Use the calibrated factors" for one model, when the fit has any and
/// they are not the ones stored already.
fn apply(s: &Scenario, m: &dyn Model, c: &ModelCalibration) -> Option<Action> {
    let values = c.values();
    if values.is_empty() || s.calibration.of(m.id()) == Some(&values) {
        return None;
    }
    // A merge patch: the fitted values, and null for a stored factor the
    // fit left as published.
    let mut obj = Map::new();
    if let Some(stored) = s.calibration.of(m.id()) {
        for name in stored.keys() {
            obj.insert(name.clone(), Value::Null);
        }
    }
    for (name, v) in &values {
        obj.insert(name.clone(), json!(v));
    }
    let list: Vec<String> = values
        .iter()
        .map(|(k, v)| format!("{k} = {v:.4}"))
        .collect();
    Some(Action {
        key: format!("{}-apply", m.id()),
        label: format!("Use {}'s calibrated factors", m.name()),
        description: format!(
            "Stores {} at calibration.{}: every figure, timeline and chart of {} uses them, and a shared link carries them.",
            list.join(", "),
            m.id(),
            m.name()
        ),
        patch: json!({ "calibration": { m.id(): Value::Object(obj) } }),
    })
}

/// "Use the spread as bands": the calibrated factors, and each fitted
/// factor's leave-one-out spread as its range (`uncertainty.ranges`), so
/// every headline figure carries the band the runs allow. Other ranges
/// stay; none when no factor's refits differ or it is there already.
fn spread_as_bands(s: &Scenario, m: &dyn Model, c: &ModelCalibration) -> Option<Action> {
    let spreads: Vec<(String, f64, f64)> = c
        .factors
        .iter()
        .filter_map(|f| {
            f.spread
                .map(|(lo, hi)| (format!("calibration.{}.{}", m.id(), f.spec.name), lo, hi))
        })
        .collect();
    if spreads.is_empty() {
        return None;
    }
    let stored = s.uncertainty.as_ref().map(|u| &u.ranges);
    let present = spreads.iter().all(|(p, lo, hi)| {
        stored
            .and_then(|r| r.get(p))
            .is_some_and(|r| r.min == *lo && r.max == *hi)
    });
    if present && s.calibration.of(m.id()) == Some(&c.values()) {
        return None;
    }
    let mut ranges = Map::new();
    for (p, lo, hi) in &spreads {
        ranges.insert(p.clone(), json!({ "min": lo, "max": hi }));
    }
    let mut patch = apply(s, m, c).map_or_else(|| json!({}), |a| a.patch);
    if let Some(obj) = patch.as_object_mut() {
        obj.insert(
            "uncertainty".into(),
            json!({ "ranges": Value::Object(ranges) }),
        );
    }
    let list: Vec<String> = spreads
        .iter()
        .map(|(p, lo, hi)| format!("{p} {lo:.4} to {hi:.4}"))
        .collect();
    Some(Action {
        key: format!("{}-bands", m.id()),
        label: format!("Use the runs' spread as {}'s bands", m.name()),
        description: format!(
            "Stores the calibrated factors and, as uncertainty ranges, each fitted factor's least and greatest value over the fit and its leave-one-out refits ({}): every headline figure of the models then shows its 10th-90th percentile band.",
            list.join("; ")
        ),
        patch,
    })
}
