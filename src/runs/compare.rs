//! Every model that predicts measured runs, against each run: its
//! prediction in the run's own measure, or why it has none, the signed
//! error `(predicted − measured) / measured`, and per model the median
//! and worst absolute error over the runs it predicted. Iterates the
//! models it is given (the registry's, or the CLI's `--model` choice):
//! nothing here names a model.

use serde::Serialize;

use super::{field_in_run, run_scenario, set_run_cluster, validate::validate_runs, Measure, Run};
use crate::errors::{err, FieldError, Unavailable};
use crate::models::{validate_for, Model};
use crate::scenario::Scenario;

/// A run as measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measured {
    pub label: String,
    pub measure: Measure,
    /// In the measure's SI unit (s or samples/s).
    pub value: f64,
    /// Σ count × batch size.
    pub global_batch: f64,
    pub source: String,
}

/// One model on one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// Its prediction in the run's measure, and the signed error.
    Predicted {
        value: f64,
        error: f64,
        note: Option<String>,
    },
    /// Why not, with fields as the run's (`runs[i].workers…`).
    Unavailable { why: Unavailable },
}

impl Outcome {
    pub fn error(&self) -> Option<f64> {
        match self {
            Outcome::Predicted { error, .. } => Some(*error),
            Outcome::Unavailable { .. } => None,
        }
    }
}

/// One model's absolute errors over the runs it predicted.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub predicted: usize,
    pub median_abs: Option<f64>,
    pub worst_abs: Option<f64>,
    /// The run with the worst absolute error (the first of equals).
    pub worst_run: Option<usize>,
}

/// One model against every run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelRuns {
    pub id: &'static str,
    pub name: &'static str,
    /// One per run, in the scenario's order.
    pub outcomes: Vec<Outcome>,
    pub stats: Stats,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub runs: Vec<Measured>,
    /// The models that predict measured runs, in the order given.
    pub models: Vec<ModelRuns>,
}

/// Every run against every one of `models` that predicts runs; or why
/// there is nothing to compare (no runs: `Missing`; a run's own fields
/// wrong: `Invalid`, at `runs[i].…`).
pub fn compare(s: &Scenario, models: &[&'static dyn Model]) -> Result<Comparison, Unavailable> {
    let Some(first) = s.runs.first() else {
        return Err(Unavailable::missing(
            "runs",
            "measured runs: each a label, its worker groups and the iteration time [s] or throughput [samples/s] measured",
        ));
    };
    let errors = validate_runs(s);
    if !errors.is_empty() {
        return Err(Unavailable::invalid(errors));
    }
    let runs: Vec<Measured> = s
        .runs
        .iter()
        .filter_map(|r| {
            let (measure, value) = r.measured()?;
            Some(Measured {
                label: r.label.clone(),
                measure,
                value,
                global_batch: r.global_batch(),
                source: r.source.clone(),
            })
        })
        .collect();
    if runs.len() != s.runs.len() {
        // Validation asks every run for exactly one measure.
        return Err(Unavailable::invalid(vec![err(
            "runs",
            "every run needs its iteration time or its throughput",
        )]));
    }
    let blocking = blocking(s, models);
    let mut base = run_scenario(s, first);
    let mut outcomes: Vec<Option<Vec<Outcome>>> = vec![Some(Vec::new()); models.len()];
    for (i, (run, measured)) in s.runs.iter().zip(&runs).enumerate() {
        set_run_cluster(&mut base, &s.hardware.cluster.ps, run);
        for (k, &m) in models.iter().enumerate() {
            let Some(list) = outcomes[k].as_mut() else {
                continue;
            };
            let (other, ps) = &blocking[k];
            let stop: Vec<FieldError> = other
                .iter()
                .chain(ps.iter().filter(|_| run.ps.is_none()))
                .cloned()
                .collect();
            let outcome = if stop.is_empty() {
                match m.predict_run(&base) {
                    // It does not predict runs: no column for it.
                    None => {
                        outcomes[k] = None;
                        continue;
                    }
                    Some(_) if run.lacks.is_some() => Outcome::Unavailable {
                        why: lacking(i, run),
                    },
                    Some(p) => outcome(m, i, run, measured, p),
                }
            } else {
                Outcome::Unavailable {
                    why: Unavailable::invalid(stop),
                }
            };
            list.push(outcome);
        }
    }
    let models = models
        .iter()
        .zip(outcomes)
        .filter_map(|(&m, outcomes)| {
            let outcomes = outcomes?;
            Some(ModelRuns {
                id: m.id(),
                name: m.name(),
                stats: stats(&outcomes),
                outcomes,
            })
        })
        .collect();
    Ok(Comparison { runs, models })
}

/// Each model's problems with `s` outside a run's own cluster, found once
/// for every run: (the other fields, the scenario's PS side). A run brings
/// its own workers (checked by `validate_runs`) and maybe its own PS side,
/// so a model predicts a run when the first list is empty and, for a run
/// on the scenario's PS side, the second too.
pub(crate) fn blocking(
    s: &Scenario,
    models: &[&'static dyn Model],
) -> Vec<(Vec<FieldError>, Vec<FieldError>)> {
    models
        .iter()
        .map(|&m| {
            validate_for(m, s)
                .into_iter()
                .filter(|e| !e.field.starts_with("hardware.cluster.workers"))
                .partition(|e| !e.field.starts_with("hardware.cluster.ps"))
        })
        .collect()
}

/// Run `i` names an input its source does not give: no model predicts
/// it, and none invents the input.
fn lacking(i: usize, run: &Run) -> Unavailable {
    Unavailable::missing(
        &format!("runs[{i}].lacks"),
        format!(
            "cannot predict: lacks {}",
            run.lacks.as_deref().unwrap_or_default()
        ),
    )
}

/// A model's answer on run `i`, in the run's measure and paths.
fn outcome(
    m: &dyn Model,
    i: usize,
    run: &Run,
    measured: &Measured,
    p: Result<super::RunPrediction, Unavailable>,
) -> Outcome {
    match p {
        Ok(p) => match p.in_measure(measured.measure, measured.global_batch) {
            Some(value) => Outcome::Predicted {
                value,
                error: signed_error(value, measured.value),
                note: p.note,
            },
            None => Outcome::Unavailable {
                why: Unavailable::invalid(vec![err(
                    format!("runs[{i}]"),
                    format!(
                        "{} gives no finite positive {} for this run: check the rates, bandwidths and sizes it reads",
                        m.name(),
                        measured.measure.words()
                    ),
                )]),
            },
        },
        Err(why) => Outcome::Unavailable {
            why: in_run(why, i, run),
        },
    }
}

/// `why` with the run's scenario paths as the run's own.
fn in_run(why: Unavailable, i: usize, run: &Run) -> Unavailable {
    let map = |v: Vec<FieldError>| -> Vec<FieldError> {
        v.into_iter()
            .map(|e| FieldError {
                field: field_in_run(&e.field, i, run),
                message: e.message,
            })
            .collect()
    };
    match why {
        Unavailable::Missing { needs } => Unavailable::Missing { needs: map(needs) },
        Unavailable::Invalid { errors } => Unavailable::Invalid {
            errors: map(errors),
        },
    }
}

/// `(predicted − measured) / measured`: +0.1 is 10% over.
pub fn signed_error(predicted: f64, measured: f64) -> f64 {
    (predicted - measured) / measured
}

/// The middle value of `v` (the mean of the two middle ones for an even
/// count); `None` for none.
pub fn median(v: &[f64]) -> Option<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(s[n / 2]),
        _ => Some((s[n / 2 - 1] + s[n / 2]) / 2.0),
    }
}

/// Median and worst absolute error over the predicted runs.
pub fn stats(outcomes: &[Outcome]) -> Stats {
    let errors: Vec<(usize, f64)> = outcomes
        .iter()
        .enumerate()
        .filter_map(|(i, o)| o.error().map(|e| (i, e.abs())))
        .collect();
    let abs: Vec<f64> = errors.iter().map(|&(_, e)| e).collect();
    let worst = errors
        .iter()
        .copied()
        .reduce(|a, b| if b.1 > a.1 { b } else { a });
    Stats {
        predicted: errors.len(),
        median_abs: median(&abs),
        worst_abs: worst.map(|w| w.1),
        worst_run: worst.map(|w| w.0),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[4.0, 1.0, 3.0]), Some(3.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }
}
