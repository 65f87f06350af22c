//! The comparison of the measured runs with every registry model, served
//! by the evaluation protocol (`Model`: validation, a work statement, a
//! report) so the worker computes it and the page shows it as it shows a
//! model's results. It is not in the registry: it reads every model.

use std::collections::BTreeMap;

use crate::inputs::Need;
use crate::models::{validate_for, Model, Unavailable, Work, MODELS};
use crate::report::Report;
use crate::scenario::Scenario;

use super::{run_scenario, MAX_RUNS};

pub struct MeasuredRuns;

/// The comparison as the worker and the page list it.
pub static MEASURED_RUNS: MeasuredRuns = MeasuredRuns;

const NEEDS: &[Need] = &[Need {
    field: "runs",
    what: "measured runs: each a label, its worker groups and the iteration time [s] or throughput [samples/s] measured",
    optional: false,
}];

impl Model for MeasuredRuns {
    fn id(&self) -> &'static str {
        "runs"
    }
    fn name(&self) -> &'static str {
        "Measured runs"
    }
    fn about(&self) -> &'static str {
        "every model's prediction of the runs you timed, and its error"
    }
    fn paper(&self) -> &'static str {
        ""
    }
    fn needs(&self) -> &'static [Need] {
        NEEDS
    }
    fn reads(&self) -> &'static [&'static str] {
        &["runs"]
    }
    fn work(&self, s: &Scenario) -> Vec<Work> {
        work(s)
    }
    fn report(&self, s: &Scenario) -> Result<Report, Unavailable> {
        super::evaluate(s, MODELS)
    }
}

/// Each model's work over every run it would predict, summed per measure
/// against that model's own budget: together the runs take on what one
/// evaluation of the model does.
pub fn work(s: &Scenario) -> Vec<Work> {
    if s.runs.len() > MAX_RUNS {
        return Vec::new(); // refused by validation, at `runs`
    }
    let mut total: BTreeMap<(&'static str, &'static str), Work> = BTreeMap::new();
    for run in &s.runs {
        let rs = run_scenario(s, run);
        for &m in MODELS {
            if !validate_for(m, &rs).is_empty() {
                continue;
            }
            for w in m.work(&rs) {
                total
                    .entry((m.id(), w.unit))
                    .and_modify(|t| t.units += w.units)
                    .or_insert(Work {
                        units: w.units,
                        unit: w.unit,
                        limit: w.limit,
                        field: "runs".into(),
                        reduce: format!("the number of runs {} predicts", m.name()),
                    });
            }
        }
    }
    total.into_values().collect()
}
