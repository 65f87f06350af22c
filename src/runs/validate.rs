//! Checks of the measured runs, each at `runs[i].<field>` and naming the
//! run: its label, its cluster (the same checks as the scenario's own
//! cluster, so the same words), and its measurement.

use std::collections::HashSet;

use super::{Run, ITERATION, MAX_RUNS, MAX_SOURCE_CHARS, THROUGHPUT};
use crate::errors::{err, FieldError};
use crate::report::fmt_count;
use crate::scenario::validate::long_name;
use crate::scenario::Scenario;

/// Every problem of `s.runs`. Over `MAX_RUNS`, only that is said: no run
/// of such a list is read.
pub fn validate_runs(s: &Scenario) -> Vec<FieldError> {
    let runs = &s.runs;
    if runs.len() > MAX_RUNS {
        return vec![err(
            "runs",
            format!(
                "{} measured runs is more than the {} accepted: remove some",
                fmt_count(runs.len() as f64),
                fmt_count(MAX_RUNS as f64)
            ),
        )];
    }
    let mut errs = Vec::new();
    let mut labels = HashSet::new();
    for (i, run) in runs.iter().enumerate() {
        let at = format!("runs[{i}]");
        let who = run_name(i, run);
        if let Some(e) = long_name(
            format!("{at}.label"),
            &format!("run {}'s label", i + 1),
            &run.label,
        ) {
            errs.push(e);
        } else if run.label.trim().is_empty() {
            errs.push(err(
                format!("{at}.label"),
                format!("run {} needs a label", i + 1),
            ));
        } else if !labels.insert(run.label.as_str()) {
            errs.push(err(
                format!("{at}.label"),
                format!("the label '{}' is used by two runs", run.label),
            ));
        }
        if run.workers.is_empty() {
            errs.push(err(
                format!("{at}.workers"),
                format!(
                    "{who} has no worker groups: give the instance, count and batch size of each"
                ),
            ));
        }
        let cluster = s
            .check_workers(&at, &run.workers)
            .into_iter()
            .chain(run.ps.iter().flat_map(|ps| s.check_ps(&at, ps)));
        errs.extend(cluster.map(|e| err(e.field, format!("{who}: {}", e.message))));
        errs.extend(measurement(&at, &who, run));
        let texts = [
            ("source", "the source", Some(run.source.as_str())),
            ("lacks", "what it lacks", run.lacks.as_deref()),
            (
                "published.source",
                "the published prediction's source",
                run.published.as_ref().map(|p| p.source.as_str()),
            ),
        ];
        for (field, what, text) in texts {
            let n = text.map_or(0, |t| t.chars().count());
            if n > MAX_SOURCE_CHARS {
                errs.push(err(
                    format!("{at}.{field}"),
                    format!(
                        "{who}: {what} is {} characters long; it is limited to {}",
                        fmt_count(n as f64),
                        fmt_count(MAX_SOURCE_CHARS as f64)
                    ),
                ));
            }
        }
        if run.lacks.as_deref().is_some_and(|l| l.trim().is_empty()) {
            errs.push(err(
                format!("{at}.lacks"),
                format!("{who}: say which input the run lacks, or leave 'lacks' out"),
            ));
        }
        if let Some(p) = &run.published {
            let bounds = if run.throughput.is_some() {
                THROUGHPUT
            } else {
                ITERATION
            };
            if let Some(m) = bounds.check("the published prediction", p.value) {
                errs.push(err(format!("{at}.published.value"), format!("{who}: {m}")));
            }
        }
    }
    errs
}

/// "run 'T6 VGG-16 bs 32'", or "run 3" when it has no usable label.
fn run_name(i: usize, run: &Run) -> String {
    let label = run.label.trim();
    if label.is_empty() || label.chars().count() > crate::hardware::MAX_NAME_CHARS {
        format!("run {}", i + 1)
    } else {
        format!("run '{label}'")
    }
}

/// Exactly one of the iteration time and the throughput, within range.
fn measurement(at: &str, who: &str, run: &Run) -> Vec<FieldError> {
    match (run.iteration_s, run.throughput) {
        (None, None) => vec![err(
            format!("{at}.iteration_s"),
            format!("{who}: give the measured iteration time [s] or the throughput [samples/s]"),
        )],
        (Some(_), Some(_)) => vec![err(
            format!("{at}.throughput"),
            format!(
                "{who}: give the iteration time or the throughput, not both (throughput = global batch / iteration time)"
            ),
        )],
        (Some(t), None) => ITERATION
            .check("the measured iteration time", t)
            .map(|m| err(format!("{at}.iteration_s"), format!("{who}: {m}")))
            .into_iter()
            .collect(),
        (None, Some(x)) => THROUGHPUT
            .check("the measured throughput", x)
            .map(|m| err(format!("{at}.throughput"), format!("{who}: {m}")))
            .into_iter()
            .collect(),
    }
}
