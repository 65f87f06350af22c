//! The comparison of the measured runs with every registry model, served
//! by the evaluation protocol (`Model`: validation, a work statement, a
//! report) so the worker computes it and the page shows it as it shows a
//! model's results. It is not in the registry: it reads every model.

use std::collections::BTreeMap;

use crate::inputs::Need;
use crate::models::{Model, Unavailable, Work, MODELS};
use crate::report::Report;
use crate::scenario::Scenario;

use super::compare::blocking;
use super::{run_scenario, set_run_cluster, MAX_RUNS};

pub struct MeasuredRuns;

/// The comparison as the worker and the page list it.
pub static MEASURED_RUNS: MeasuredRuns = MeasuredRuns;

const NEEDS: &[Need] = &[Need {
    field: "runs",
    what: "measured runs: each a label, its worker groups and the iteration time [s] or throughput [samples/s] measured",
    optional: false,
    shown: None,
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

/// Each model's work over every run it would predict (as `compare`
/// decides it, from each model's validation of the scenario once), summed
/// per measure against that model's own budget: together the runs take on
/// what one evaluation of the model does.
pub fn work(s: &Scenario) -> Vec<Work> {
    let Some(first) = s.runs.first().filter(|_| s.runs.len() <= MAX_RUNS) else {
        return Vec::new(); // none, or refused by validation at `runs`
    };
    let blocking = blocking(s, MODELS);
    let mut base = run_scenario(s, first);
    let mut total: BTreeMap<(&'static str, &'static str), Work> = BTreeMap::new();
    for run in &s.runs {
        set_run_cluster(&mut base, &s.hardware.cluster.ps, run);
        for (&m, (other, ps)) in MODELS.iter().zip(&blocking) {
            if !other.is_empty() || (run.ps.is_none() && !ps.is_empty()) {
                continue;
            }
            for w in m.work(&base) {
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

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::models::validate_for;

    #[test]
    fn the_runs_work_is_each_predicting_models_work_summed_over_its_runs() {
        let s = crate::models::from_json(include_str!(
            "../../public/examples/zeng-tables6-7-vgg16-runs.json"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let mut want: BTreeMap<(&str, &str), f64> = BTreeMap::new();
        for run in &s.runs {
            let rs = run_scenario(&s, run);
            for &m in MODELS {
                if validate_for(m, &rs).is_empty() {
                    for w in m.work(&rs) {
                        *want.entry((m.id(), w.unit)).or_default() += w.units;
                    }
                }
            }
        }
        assert!(want.keys().any(|(id, _)| *id == "zeng"), "{want:?}");
        let got: Vec<f64> = work(&s).iter().map(|w| w.units).collect();
        assert_eq!(got, want.into_values().collect::<Vec<_>>());
    }
}
