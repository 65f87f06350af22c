//! The size of a model's work, stated from its inputs before it runs.
//!
//! Every model says how much work a scenario asks of it (`Model::work`):
//! ops × steps × workers × seeds for a simulation, candidate clusters for a
//! plan search, types × workers for curves. Over its budget, the registry
//! refuses the scenario with one sentence at the input to reduce, before
//! anything is computed; under it, the work is bounded by construction.

use crate::errors::{err, FieldError};
use crate::report::fmt_count;

/// One measure of a model's work on a scenario, and its budget.
#[derive(Clone, Debug, PartialEq)]
pub struct Work {
    /// How much work the scenario asks for, in `unit`s.
    pub units: f64,
    /// What a unit is, plural ("op-steps simulated").
    pub unit: &'static str,
    /// The most this model takes on (sized so the largest accepted input
    /// finishes in seconds natively, with progress where it is long).
    pub limit: f64,
    /// The scenario path of the input to reduce.
    pub field: String,
    /// That input as people name it ("the number of steps").
    pub reduce: String,
}

impl Work {
    /// Within the budget (NaN never is).
    pub fn fits(&self) -> bool {
        self.units <= self.limit
    }

    /// The refusal, at the input to reduce: "… asks for 3.2 billion
    /// op-steps simulated, more than the 500 million Li et al. takes on:
    /// reduce the number of steps".
    pub fn refusal(&self, model: &str) -> FieldError {
        err(
            self.field.clone(),
            format!(
                "this scenario asks {model} for {} {}, more than the {} it takes on: reduce {}",
                fmt_count(self.units),
                self.unit,
                fmt_count(self.limit),
                self.reduce
            ),
        )
    }
}

/// The refusals of every measure over its budget.
pub fn over_budget(model: &str, work: &[Work]) -> Vec<FieldError> {
    work.iter()
        .filter(|w| !w.fits())
        .map(|w| w.refusal(model))
        .collect()
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn over_the_limit_names_the_input_and_the_limit() {
        let w = Work {
            units: 3.2e9,
            unit: "op-steps simulated",
            limit: 5e8,
            field: "models.li.steps".into(),
            reduce: "the number of steps".into(),
        };
        assert!(!w.fits());
        let e = w.refusal("Li et al.");
        assert_eq!(e.field, "models.li.steps");
        assert!(
            e.message.contains("reduce the number of steps"),
            "{}",
            e.message
        );
        let nan = Work {
            units: f64::NAN,
            ..w.clone()
        };
        assert!(!nan.fits());
        let ok = Work { units: 1.0, ..w };
        assert!(over_budget("Li et al.", &[ok]).is_empty());
    }
}
