//! Models cheap enough to compute on the page's thread, in the edit's own
//! task, so the frame that shows the edit shows its numbers too: a worker's
//! answer arrives a frame or two late, however fast the model.
//!
//! A model is quick on a scenario when the least of its last `KEPT`
//! evaluations that gave a report, each measured where it ran (the worker's `elapsed_ms`, or
//! the page's own clock) and scaled by how much its work grew since
//! (`Model::work`, measure by measure), stays under `QUICK_MS`. A model
//! never measured, one that caches its reports (`Model::caches`: a fast
//! answer from its cache says nothing of the next), one with uncertainty
//! bands to sample, and one whose inputs the page keeps aside (a large
//! profile: only the workers hold it whole) go to the worker. A scenario
//! a model refuses (invalid, over its budget) is quick: the refusal is
//! all there is.

use std::collections::HashMap;

use super::Outcome;
use crate::models::{self, Model, MODELS};
use crate::scenario::Scenario;

/// The most a model may be expected to take on the page's thread (ms):
/// the edit's task stays well inside a frame.
pub const QUICK_MS: f64 = 2.0;

/// Measurements kept per model: the prediction takes the least of them,
/// so one evaluation slowed by something else (a garbage collection, the
/// other core busy) does not send a cheap model to the worker.
const KEPT: usize = 3;

/// Each model's last measured evaluations, newest last, and the work
/// each request in flight asked of it. Only an evaluation that gave a
/// report measures the work: a model that says what it lacks answers at
/// once, whatever its work would be with the input.
#[derive(Default)]
pub struct Costs {
    last: HashMap<&'static str, Vec<Cost>>,
    asked: HashMap<(u64, &'static str), Vec<f64>>,
    /// Whether each model's last answer was a report (a `Same` repeats it).
    reported: HashMap<&'static str, bool>,
}

/// An evaluation's time (ms) and the work it was asked, per measure.
struct Cost {
    ms: f64,
    units: Vec<f64>,
}

/// What the page does with one model on an edit.
pub enum Plan {
    /// Computes it now: its work in units, `None` when it refuses the
    /// scenario.
    Quick(Option<Vec<f64>>),
    /// Leaves it to the worker, which was asked this work.
    Worker(Vec<f64>),
}

impl Costs {
    /// Where each registry model of request `id` is computed; `kept_aside`
    /// says whether the page keeps any input of the scenario out of it.
    pub fn plan(&mut self, id: u64, s: &Scenario, kept_aside: bool) -> Vec<Plan> {
        let bands = crate::uncertainty::has_ranges(s);
        self.asked
            .retain(|(asked, _), _| *asked >= id.saturating_sub(8));
        MODELS
            .iter()
            .map(|m| {
                let units = models::valid_work(*m, s)
                    .ok()
                    .map(|w| w.iter().map(|w| w.units).collect::<Vec<_>>());
                let Some(u) = units else {
                    return Plan::Quick(None);
                };
                let cheap = !bands
                    && !kept_aside
                    && !m.caches()
                    && self.predict(m.id(), &u).is_some_and(|ms| ms <= QUICK_MS);
                if cheap {
                    Plan::Quick(Some(u))
                } else {
                    self.asked.insert((id, m.id()), u.clone());
                    Plan::Worker(u)
                }
            })
            .collect()
    }

    /// The expected time (ms) of `model` asked `units`: the least of its
    /// kept times, each scaled by the largest growth of any measure since
    /// (never below it).
    fn predict(&self, model: &str, units: &[f64]) -> Option<f64> {
        self.last
            .get(model)?
            .iter()
            .filter_map(|c| c.scaled(units))
            .min_by(f64::total_cmp)
    }

    fn keep(&mut self, model: &'static str, cost: Cost) {
        let kept = self.last.entry(model).or_default();
        if kept.len() == KEPT {
            kept.remove(0);
        }
        kept.push(cost);
    }

    /// The worker's answer for `model` on request `id`: its time (its
    /// `elapsed_ms`), and whether it is a report (`None`: `Same`, as the
    /// last answer).
    pub fn measured(&mut self, id: u64, model: &str, ms: f64, report: Option<bool>) {
        let Some(m) = models::by_id(model) else {
            return;
        };
        let report = match report {
            Some(r) => {
                self.reported.insert(m.id(), r);
                r
            }
            None => self.reported.get(m.id()).copied().unwrap_or(false),
        };
        if let Some(units) = self.asked.remove(&(id, m.id())) {
            if report {
                self.keep(m.id(), Cost { ms, units });
            }
        }
    }

    /// The page's own time for `model` asked `units`, and whether it gave
    /// a report.
    pub fn measured_here(
        &mut self,
        model: &'static dyn Model,
        units: Vec<f64>,
        ms: f64,
        report: bool,
    ) {
        self.reported.insert(model.id(), report);
        if report {
            self.keep(model.id(), Cost { ms, units });
        }
    }
}

impl Cost {
    /// This time scaled to `units` of work: by the largest growth of any
    /// measure, never below it; `None` if the work is not comparable.
    fn scaled(&self, units: &[f64]) -> Option<f64> {
        if self.units.len() != units.len() || !self.ms.is_finite() {
            return None;
        }
        let mut grow = 1.0_f64;
        for (&new, &old) in units.iter().zip(&self.units) {
            if new > old {
                if old <= 0.0 || !new.is_finite() {
                    return None;
                }
                grow = grow.max(new / old);
            }
        }
        Some(self.ms * grow)
    }
}

/// `model`'s outcome on `s` as the worker would send it (tables cut for
/// the page).
pub fn evaluate(model: &dyn Model, s: &Scenario) -> Outcome {
    Outcome::trimmed(&models::evaluate(model, s))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn zeng_plan(plans: &[Plan]) -> &Plan {
        &plans[0]
    }

    #[test]
    fn a_model_is_quick_once_measured_cheap_and_not_when_its_work_grows() {
        let s = Scenario::example();
        let mut costs = Costs::default();
        // Never measured: the worker.
        let plans = costs.plan(1, &s, false);
        let Plan::Worker(units) = zeng_plan(&plans) else {
            panic!("an unmeasured model goes to the worker");
        };
        let units = units.clone();
        costs.measured(1, "zeng", 0.5, Some(true));
        assert!(matches!(
            zeng_plan(&costs.plan(2, &s, false)),
            Plan::Quick(Some(_))
        ));
        // A measurement of another request's work is not this one's.
        let mut other = Costs::default();
        other.plan(3, &s, false);
        other.measured(4, "zeng", 0.5, Some(true));
        assert!(matches!(
            zeng_plan(&other.plan(5, &s, false)),
            Plan::Worker(_)
        ));
        // Work grown past QUICK_MS / 0.5 = 4× since every kept
        // measurement: the worker.
        let mut grown = Costs::default();
        grown.measured_here(
            MODELS[0],
            units.iter().map(|u| u / 5.0).collect(),
            0.5,
            true,
        );
        assert!(matches!(grown.plan(6, &s, false)[0], Plan::Worker(_)));
        // One slow measurement among quick ones is taken for noise; three
        // in a row are not.
        costs.measured_here(MODELS[0], units.clone(), 40.0, true);
        assert!(matches!(costs.plan(6, &s, false)[0], Plan::Quick(_)));
        costs.measured_here(MODELS[0], units.clone(), 40.0, true);
        costs.measured_here(MODELS[0], units.clone(), 40.0, true);
        assert!(matches!(costs.plan(6, &s, false)[0], Plan::Worker(_)));
        // Kept-aside inputs and bands go to the worker too.
        costs.measured_here(MODELS[0], units.clone(), 0.5, true);
        assert!(matches!(
            zeng_plan(&costs.plan(7, &s, true)),
            Plan::Worker(_)
        ));
        let mut banded = s.clone();
        banded.uncertainty = Some(crate::uncertainty::Uncertainty {
            ranges: [(
                "hardware.cluster.ps.link".to_string(),
                crate::uncertainty::Range {
                    min: 1e8,
                    max: 1.5e8,
                },
            )]
            .into(),
            ..Default::default()
        });
        assert!(crate::uncertainty::has_ranges(&banded));
        assert!(matches!(
            zeng_plan(&costs.plan(8, &banded, false)),
            Plan::Worker(_)
        ));
        assert!(matches!(
            zeng_plan(&costs.plan(9, &s, false)),
            Plan::Quick(Some(_))
        ));
    }

    #[test]
    fn a_refused_scenario_is_quick_and_its_refusal_is_the_workers() {
        let mut s = Scenario::example();
        s.hardware.cluster.ps.link_bytes_per_s = Some(-1.0);
        let mut costs = Costs::default();
        let mut refused = 0;
        for (m, plan) in MODELS.iter().zip(costs.plan(1, &s, false)) {
            if let Plan::Quick(None) = plan {
                let outcome = evaluate(*m, &s);
                assert!(!outcome.is_report(), "{}", m.id());
                assert_eq!(outcome, Outcome::from(models::evaluate(*m, &s)));
                refused += 1;
            }
        }
        assert!(
            refused >= 2,
            "a negative link stops the models that read it"
        );
    }

    #[test]
    fn a_model_with_a_cache_is_never_quick() {
        let s = Scenario::example();
        let mut costs = Costs::default();
        for (m, plan) in MODELS.iter().zip(costs.plan(1, &s, false)) {
            if let Plan::Worker(units) = plan {
                costs.measured_here(*m, units, 0.0, true);
            }
        }
        for (m, plan) in MODELS.iter().zip(costs.plan(2, &s, false)) {
            match plan {
                Plan::Worker(_) => assert!(m.caches(), "{}", m.id()),
                Plan::Quick(_) => assert!(!m.caches(), "{}", m.id()),
            }
        }
        assert!(
            MODELS.iter().any(|m| m.caches()),
            "Li et al. keeps its simulations"
        );
    }

    /// An answer that is not a report ("needs inputs") measures nothing:
    /// the model's first report with those inputs goes to the worker.
    #[test]
    fn only_a_report_measures_the_work() {
        let s = Scenario::example();
        let mut costs = Costs::default();
        costs.plan(1, &s, false);
        costs.measured(1, "zeng", 0.01, Some(false));
        assert!(matches!(costs.plan(2, &s, false)[0], Plan::Worker(_)));
        // A `Same` repeats what the last answer was.
        costs.measured(2, "zeng", 0.01, None);
        assert!(matches!(costs.plan(3, &s, false)[0], Plan::Worker(_)));
        costs.measured(3, "zeng", 0.5, Some(true));
        costs.plan(4, &s, false);
        costs.measured(4, "zeng", 0.5, None);
        assert!(matches!(costs.plan(5, &s, false)[0], Plan::Quick(_)));
        let mut here = Costs::default();
        let Plan::Worker(units) = here.plan(1, &s, false).swap_remove(0) else {
            panic!("an unmeasured model goes to the worker");
        };
        here.measured_here(MODELS[0], units.clone(), 0.01, false);
        assert!(matches!(here.plan(2, &s, false)[0], Plan::Worker(_)));
        here.measured_here(MODELS[0], units, 0.5, true);
        assert!(matches!(here.plan(3, &s, false)[0], Plan::Quick(_)));
    }

    #[test]
    fn the_prediction_scales_with_the_largest_growth() {
        let mut costs = Costs::default();
        costs.measured_here(MODELS[0], vec![10.0, 100.0], 1.0, true);
        assert_eq!(costs.predict("zeng", &[20.0, 100.0]), Some(2.0));
        assert_eq!(costs.predict("zeng", &[5.0, 400.0]), Some(4.0));
        assert_eq!(costs.predict("zeng", &[1.0, 1.0]), Some(1.0));
        assert_eq!(costs.predict("zeng", &[1.0]), None);
        assert_eq!(costs.predict("zeng", &[f64::INFINITY, 1.0]), None);
        assert_eq!(costs.predict("cynthia", &[1.0]), None);
        // The least of the kept measurements, each scaled.
        costs.measured_here(MODELS[0], vec![40.0, 100.0], 3.0, true);
        assert_eq!(costs.predict("zeng", &[40.0, 100.0]), Some(3.0));
        assert_eq!(costs.predict("zeng", &[20.0, 100.0]), Some(2.0));
        let mut zero = Costs::default();
        zero.measured_here(MODELS[0], vec![0.0], 1.0, true);
        assert_eq!(zero.predict("zeng", &[1.0]), None);
    }
}
