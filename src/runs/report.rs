//! The comparison as the shared `Report`, so the CLI prints it and the
//! page can show it with its report view: per model the median and worst
//! absolute error (figures and the `accuracy` table), every run beside
//! every model's prediction and error (`runs`), why a model has no
//! prediction (notes, grouped), and a parity chart per measure.

use std::collections::BTreeMap;

use super::compare::{Comparison, ModelRuns, Outcome};
use super::Measure;
use crate::errors::Unavailable;
use crate::report::{
    fmt_count, Axis, Chart, Column, Figure, Note, Report, Series, Style, Table, Unit, Value,
};

/// Runs a parity chart draws at most (the table has every one).
pub const PARITY_MAX_RUNS: usize = 2_000;
/// Run labels a note names before "and N more".
const NOTE_MAX_LABELS: usize = 5;

/// `c` as a report; `subject` names what was measured (the network).
pub fn build(c: &Comparison, subject: &str) -> Report {
    let mut headline = vec![Figure::new(
        "runs",
        "measured runs",
        Value::count(c.runs.len() as f64),
    )];
    let mut figures = Vec::new();
    for m in &c.models {
        let st = &m.stats;
        let pct = |v: Option<f64>| {
            v.map_or_else(
                || Value::text("no run predicted"),
                |v| Value::num(v, Unit::Percent),
            )
        };
        let median = Figure::new(
            format!("{}-median-error", m.id),
            format!("{}: median |error|", m.name),
            pct(st.median_abs),
        );
        headline.push(if st.predicted > 0 {
            median.source(format!("over {} predicted", runs_word(st.predicted)))
        } else {
            median
        });
        figures.push(Figure::new(
            format!("{}-worst-error", m.id),
            format!("{}: worst |error|", m.name),
            pct(st.worst_abs),
        ));
        figures.push(Figure::new(
            format!("{}-runs-predicted", m.id),
            format!("{}: runs predicted", m.name),
            Value::count(st.predicted as f64),
        ));
    }
    let mut notes = vec![Note::info(
        "error = (predicted − measured) / measured, in the run's own measure; \
         throughput [samples/s] = global batch (Σ count × batch size) / iteration time [s], \
         so a model that computes the other measure is compared through it.",
    )];
    notes.extend(c.models.iter().flat_map(|m| model_notes(c, m)));
    if c.models.is_empty() {
        notes.push(Note::warning(
            "none of the models asked for predicts measured runs",
        ));
    }
    let charts = [Measure::IterationTime, Measure::Throughput]
        .into_iter()
        .filter_map(|measure| parity(c, measure))
        .collect();
    Report {
        model: "runs".into(),
        model_name: "Measured runs".into(),
        subject: format!(
            "{subject} · {} measured against {}",
            runs_word(c.runs.len()),
            if c.models.len() == 1 {
                "1 model".to_string()
            } else {
                format!("{} models", c.models.len())
            }
        ),
        headline,
        figures,
        tables: vec![accuracy_table(c), runs_table(c)],
        notes,
        charts,
        actions: Vec::new(),
        downloads: Vec::new(),
    }
}

fn accuracy_table(c: &Comparison) -> Table {
    let rows = c
        .models
        .iter()
        .map(|m| {
            let st = &m.stats;
            let pct = |v: Option<f64>| v.map_or(Value::Empty, |v| Value::num(v, Unit::Percent));
            vec![
                Value::text(m.name),
                Value::count(st.predicted as f64),
                Value::count(m.outcomes.len().saturating_sub(st.predicted) as f64),
                pct(st.median_abs),
                pct(st.worst_abs),
                st.worst_run
                    .and_then(|i| c.runs.get(i))
                    .map_or(Value::Empty, |r| Value::text(&r.label)),
            ]
        })
        .collect();
    Table {
        key: "accuracy".into(),
        title: "Each model against the measured runs".into(),
        columns: vec![
            Column::new("model", Unit::None),
            Column::new("runs predicted", Unit::Count),
            Column::new("runs not predicted", Unit::Count),
            Column::new("median |error|", Unit::Percent),
            Column::new("worst |error|", Unit::Percent),
            Column::new("worst run", Unit::None),
        ],
        rows,
        caption: "|error| = |predicted − measured| / measured, over the runs each model predicts."
            .into(),
        omitted_rows: 0,
    }
}

fn runs_table(c: &Comparison) -> Table {
    let mut columns = vec![
        Column::new("run", Unit::None),
        Column::new("measure", Unit::None),
        Column::new("measured", Unit::None),
        Column::new("global batch", Unit::Count),
    ];
    for m in &c.models {
        columns.push(Column::new(format!("{}: predicted", m.name), Unit::None));
        columns.push(Column::new(format!("{}: error", m.name), Unit::Percent));
    }
    columns.push(Column::new("source", Unit::None));
    let rows = c
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let unit = r.measure.unit();
            let mut row = vec![
                Value::text(&r.label),
                Value::text(r.measure.words()),
                Value::num(r.value, unit),
                Value::count(r.global_batch),
            ];
            for m in &c.models {
                match m.outcomes.get(i) {
                    Some(Outcome::Predicted { value, error, .. }) => {
                        row.push(Value::num(*value, unit));
                        row.push(Value::num(*error, Unit::Percent));
                    }
                    Some(Outcome::Unavailable { why }) => {
                        let at = why.errors().first().map_or("", |e| e.field.as_str());
                        row.push(Value::text(format!("— ({at})")));
                        row.push(Value::Empty);
                    }
                    None => row.extend([Value::Empty, Value::Empty]),
                }
            }
            row.push(Value::text(&r.source));
            row
        })
        .collect();
    Table {
        key: "runs".into(),
        title: "Every measured run beside each model's prediction".into(),
        columns,
        rows,
        caption: "Measured and predicted in the run's measure (seconds per iteration, or samples/s); error = (predicted − measured) / measured. A run a model cannot predict shows a dash and the input concerned (the notes say why).".into(),
        omitted_rows: 0,
    }
}

/// "a, b, c" or "a, b, … and 7 more".
fn labels(c: &Comparison, runs: &[usize]) -> String {
    let mut named: Vec<String> = runs
        .iter()
        .take(NOTE_MAX_LABELS)
        .filter_map(|&i| c.runs.get(i).map(|r| format!("'{}'", r.label)))
        .collect();
    if runs.len() > NOTE_MAX_LABELS {
        named.push(format!(
            "and {} more",
            fmt_count((runs.len() - NOTE_MAX_LABELS) as f64)
        ));
    }
    named.join(", ")
}

fn runs_word(n: usize) -> String {
    if n == 1 {
        "1 run".into()
    } else {
        format!("{} runs", fmt_count(n as f64))
    }
}

/// One note per distinct reason a model gives (no prediction, or a
/// remark on its predictions), naming the runs it concerns.
fn model_notes(c: &Comparison, m: &ModelRuns) -> Vec<Note> {
    // (reason, missing rather than invalid) → (first field, runs).
    let mut why: BTreeMap<(String, bool), (Option<String>, Vec<usize>)> = BTreeMap::new();
    let mut remarks: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut order_why = Vec::new();
    let mut order_remarks = Vec::new();
    for (i, o) in m.outcomes.iter().enumerate() {
        match o {
            Outcome::Unavailable { why: u } => {
                let text: Vec<&str> = u.errors().iter().map(|e| e.message.as_str()).collect();
                let key = (text.join("; "), matches!(u, Unavailable::Missing { .. }));
                let entry = why.entry(key.clone()).or_insert_with(|| {
                    order_why.push(key);
                    (u.errors().first().map(|e| e.field.clone()), Vec::new())
                });
                entry.1.push(i);
            }
            Outcome::Predicted {
                note: Some(text), ..
            } => {
                remarks
                    .entry(text.clone())
                    .or_insert_with(|| {
                        order_remarks.push(text.clone());
                        Vec::new()
                    })
                    .push(i);
            }
            Outcome::Predicted { .. } => {}
        }
    }
    let mut notes = Vec::new();
    for key in order_why {
        let Some((field, runs)) = why.get(&key) else {
            continue;
        };
        let text = format!(
            "{} cannot predict {} ({}): {}",
            m.name,
            runs_word(runs.len()),
            labels(c, runs),
            key.0
        );
        let note = if key.1 {
            Note::info(text)
        } else {
            Note::warning(text)
        };
        notes.push(match field {
            Some(f) => note.at(f.clone()),
            None => note,
        });
    }
    for text in order_remarks {
        let Some(runs) = remarks.get(&text) else {
            continue;
        };
        let on = if runs.len() == c.runs.len() {
            "every run".to_string()
        } else {
            format!("{}: {}", runs_word(runs.len()), labels(c, runs))
        };
        notes.push(Note::info(format!("{}: {text} ({on}).", m.name)));
    }
    notes
}

/// Predicted against measured for the runs of `measure`, one series per
/// model and the line y = x; `None` when no run measured it.
fn parity(c: &Comparison, measure: Measure) -> Option<Chart> {
    let of: Vec<usize> = (0..c.runs.len())
        .filter(|&i| c.runs[i].measure == measure)
        .collect();
    if of.is_empty() {
        return None;
    }
    let shown = &of[..of.len().min(PARITY_MAX_RUNS)];
    let unit = measure.unit();
    let mut lo = f64::INFINITY;
    let mut hi: f64 = 0.0;
    let mut series = Vec::new();
    for m in &c.models {
        let (mut x, mut y, mut hover) = (Vec::new(), Vec::new(), Vec::new());
        for &i in shown {
            let r = &c.runs[i];
            if let Some(Outcome::Predicted { value, error, .. }) = m.outcomes.get(i) {
                x.push(r.value);
                y.push(*value);
                hover.push(format!(
                    "{}\nmeasured {}, {} predicts {} ({:+.1}%)",
                    r.label,
                    unit.display(r.value),
                    m.name,
                    unit.display(*value),
                    error * 100.0
                ));
            }
        }
        for &v in x.iter().chain(&y) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        series.push(Series::xy(m.name, Style::Points, x, y).hover(hover));
    }
    if !lo.is_finite() {
        // No model predicted any of these runs: the measured values alone.
        for &i in shown {
            lo = lo.min(c.runs[i].value);
            hi = hi.max(c.runs[i].value);
        }
    }
    series.push(identity_line(lo, hi));
    let name = measure.name();
    let axis = |label: String| parity_axis(label, unit, lo, hi);
    let mut title = format!("Predicted against measured {name}: each mark a run, y = x exact");
    if of.len() > shown.len() {
        title = format!(
            "{title} — the first {} of {} runs; all in the table",
            fmt_count(shown.len() as f64),
            fmt_count(of.len() as f64)
        );
    }
    Some(Chart {
        key: match measure {
            Measure::IterationTime => "parity-iteration-time".into(),
            Measure::Throughput => "parity-throughput".into(),
        },
        title,
        x: axis(format!("measured {name}")),
        y: axis(format!("predicted {name}")),
        y2: None,
        series,
        markers: Vec::new(),
    })
}

/// The y = x line of a parity chart over `[lo, hi]`.
pub(crate) fn identity_line(lo: f64, hi: f64) -> Series {
    Series::xy("y = x (exact)", Style::Line, vec![lo, hi], vec![lo, hi])
        .color("rgba(120,120,120,0.8)")
}

/// A parity chart's axis: logarithmic when the values span over 20×.
pub(crate) fn parity_axis(label: String, unit: Unit, lo: f64, hi: f64) -> Axis {
    let a = Axis::new(label, unit);
    if hi > 20.0 * lo {
        a.log()
    } else {
        a
    }
}
