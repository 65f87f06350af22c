//! A calibration as the shared `Report`, so the CLI prints it and the
//! page can show it with its report view: per model the factors (name,
//! unit, published, calibrated, a bound hit or why not fitted), the three
//! errors (as published, calibrated in-sample, leave-one-out: median and
//! worst |error|), every run's predictions, and a parity chart with the
//! as-published and calibrated series.

use super::fit::{ModelCalibration, Status};
use super::CalibrationError;
use crate::models::Model;
use crate::report::{
    fmt_count, fmt_sig, Chart, Column, Figure, Note, Report, Series, Style, Table, Unit, Value,
};
use crate::runs::report::{identity_line, parity_axis};
use crate::runs::Measure;

/// The calibration of every model asked for, as one report.
pub fn build(
    results: &[(
        &'static dyn Model,
        Result<ModelCalibration, CalibrationError>,
    )],
    subject: &str,
) -> Report {
    let mut headline = Vec::new();
    let mut figures = Vec::new();
    let mut tables = Vec::new();
    let mut notes = vec![Note::info(
        "Fitted by bounded least squares on ln(predicted / measured) from several starts; \
         error = (predicted − measured) / measured. Leave-one-out: each run predicted by the fit on the other runs. \
         A factor the runs cannot determine stays as published.",
    )];
    let mut charts = Vec::new();
    for (m, r) in results {
        let c = match r {
            Ok(c) => c,
            Err(e) => {
                notes.push(
                    Note::warning(format!(
                        "{}: not calibrated: {e}; its factors stay as they were",
                        m.name()
                    ))
                    .at(format!("calibration.{}", m.id())),
                );
                continue;
            }
        };
        let pct = |v: Option<f64>| v.map_or(Value::Empty, |v| Value::num(v, Unit::Percent));
        headline.push(Figure::new(
            format!("{}-published-median-error", c.id),
            format!("{}: median |error| as published", c.name),
            pct(c.published.median_abs),
        ));
        headline.push(Figure::new(
            format!("{}-calibrated-median-error", c.id),
            format!("{}: median |error| calibrated (in-sample)", c.name),
            pct(c.calibrated.median_abs),
        ));
        headline.push(Figure::new(
            format!("{}-loo-median-error", c.id),
            format!("{}: median |error| leave-one-out", c.name),
            c.loo
                .median_abs
                .map_or_else(|| Value::text("none"), |v| Value::num(v, Unit::Percent)),
        ));
        for (key, label, v) in [
            (
                "published-worst-error",
                "worst |error| as published",
                c.published.worst_abs,
            ),
            (
                "calibrated-worst-error",
                "worst |error| calibrated (in-sample)",
                c.calibrated.worst_abs,
            ),
            (
                "loo-worst-error",
                "worst |error| leave-one-out",
                c.loo.worst_abs,
            ),
        ] {
            figures.push(Figure::new(
                format!("{}-{key}", c.id),
                format!("{}: {label}", c.name),
                pct(v),
            ));
        }
        tables.push(factor_table(c));
        tables.push(error_table(c));
        tables.push(run_table(c));
        if let Some(n) = &c.loo_note {
            notes.push(Note::info(format!("{}: {n}", c.name)));
        }
        for f in &c.factors {
            let field = format!("calibration.{}.{}", c.id, f.spec.name);
            match &f.status {
                Status::AtLower | Status::AtUpper => notes.push(
                    Note::warning(format!(
                        "{}: {} hit its {} bound ({} {}): the runs ask for a value outside what is physically plausible; check the inputs it scales ({}).",
                        c.name,
                        f.spec.label,
                        if f.status == Status::AtLower { "lower" } else { "upper" },
                        f.value,
                        f.spec.unit,
                        f.spec.scales
                    ))
                    .at(field),
                ),
                Status::NotFitted { why } => notes.push(
                    Note::info(format!(
                        "{}: {} cannot be fitted from these runs: {why}; left as published ({} {}).",
                        c.name, f.spec.label, f.spec.published, f.spec.unit
                    ))
                    .at(field),
                ),
                Status::Fitted | Status::Held => {}
            }
        }
        for measure in [Measure::IterationTime, Measure::Throughput] {
            if let Some(ch) = parity(c, measure) {
                charts.push(ch);
            }
        }
    }
    Report {
        model: "calibration".into(),
        model_name: "Calibration".into(),
        subject: subject.to_string(),
        headline,
        figures,
        tables,
        notes,
        charts,
        actions: Vec::new(),
        downloads: Vec::new(),
    }
}

fn factor_table(c: &ModelCalibration) -> Table {
    let rows = c
        .factors
        .iter()
        .map(|f| {
            let status = match &f.status {
                Status::Fitted => "fitted".to_string(),
                Status::AtLower => format!("fitted, at its lower bound {}", f.spec.min),
                Status::AtUpper => format!("fitted, at its upper bound {}", f.spec.max),
                Status::NotFitted { why } => format!("cannot be fitted from these runs: {why}"),
                Status::Held => "held as published (not asked for)".into(),
            };
            vec![
                Value::text(&f.spec.name),
                Value::text(&f.spec.label),
                Value::text(f.spec.unit),
                Value::text(format!("{} to {}", f.spec.min, f.spec.max)),
                Value::num(f.spec.published, Unit::None),
                Value::num(f.value, Unit::None),
                f.spread.map_or(Value::Empty, |(lo, hi)| {
                    Value::text(format!("{} to {}", fmt_sig(lo), fmt_sig(hi)))
                }),
                Value::text(status),
                Value::text(&f.spec.scales),
            ]
        })
        .collect();
    Table {
        key: format!("{}-factors", c.id),
        title: format!("{}: calibration factors", c.name),
        columns: vec![
            Column::new("factor", Unit::None),
            Column::new("meaning", Unit::None),
            Column::new("unit", Unit::None),
            Column::new("bounds", Unit::None),
            Column::new("published", Unit::None),
            Column::new("calibrated", Unit::None),
            Column::new("leave-one-out spread", Unit::None),
            Column::new("status", Unit::None),
            Column::new("scales", Unit::None),
        ],
        rows,
        caption: format!(
            "Stored at calibration.{} (a factor not fitted is absent: as published); fitted from {} starts.",
            c.id, c.starts
        ),
        omitted_rows: 0,
    }
}

fn error_table(c: &ModelCalibration) -> Table {
    let pct = |v: Option<f64>| v.map_or(Value::Empty, |v| Value::num(v, Unit::Percent));
    let rows = [
        ("as published", &c.published),
        ("calibrated, in-sample", &c.calibrated),
        ("calibrated, leave-one-out", &c.loo),
    ]
    .into_iter()
    .map(|(what, st)| {
        vec![
            Value::text(what),
            Value::count(st.runs as f64),
            pct(st.median_abs),
            pct(st.worst_abs),
        ]
    })
    .collect();
    Table {
        key: format!("{}-errors", c.id),
        title: format!("{}: errors against the measured runs", c.name),
        columns: vec![
            Column::new("prediction", Unit::None),
            Column::new("runs", Unit::Count),
            Column::new("median |error|", Unit::Percent),
            Column::new("worst |error|", Unit::Percent),
        ],
        rows,
        caption: "In-sample: fitted on every run, then compared with them; leave-one-out: each run predicted by the fit on the others (how well the calibrated model predicts a run it never saw).".into(),
        omitted_rows: 0,
    }
}

fn run_table(c: &ModelCalibration) -> Table {
    let rows = c
        .runs
        .iter()
        .map(|r| {
            let unit = r.measure.unit();
            let num = |v: Option<f64>| v.map_or(Value::Empty, |v| Value::num(v, unit));
            let pct = |v: Option<f64>| v.map_or(Value::Empty, |v| Value::num(v, Unit::Percent));
            vec![
                Value::text(&r.label),
                Value::text(r.measure.words()),
                Value::num(r.measured, unit),
                num(r.published),
                pct(r.published_error()),
                num(r.calibrated),
                pct(r.calibrated_error()),
                num(r.loo),
                pct(r.loo_error()),
                r.why_not
                    .as_ref()
                    .map_or(Value::Empty, |w| Value::text(format!("not predicted: {w}"))),
            ]
        })
        .collect();
    Table {
        key: format!("{}-runs", c.id),
        title: format!("{}: every run as published, calibrated and left out", c.name),
        columns: vec![
            Column::new("run", Unit::None),
            Column::new("measure", Unit::None),
            Column::new("measured", Unit::None),
            Column::new("as published", Unit::None),
            Column::new("error as published", Unit::Percent),
            Column::new("calibrated", Unit::None),
            Column::new("error calibrated", Unit::Percent),
            Column::new("left out", Unit::None),
            Column::new("error left out", Unit::Percent),
            Column::new("note", Unit::None),
        ],
        rows,
        caption: "In the run's measure (seconds per iteration, or samples/s). \"Left out\": predicted by the fit on the other runs.".into(),
        omitted_rows: 0,
    }
}

/// Predicted against measured, as published and calibrated (and left
/// out), with y = x; `None` when no run measured `measure`.
fn parity(c: &ModelCalibration, measure: Measure) -> Option<Chart> {
    let runs: Vec<_> = c.runs.iter().filter(|r| r.measure == measure).collect();
    if runs.is_empty() {
        return None;
    }
    let unit = measure.unit();
    let mut lo = f64::INFINITY;
    let mut hi: f64 = 0.0;
    let mut series = Vec::new();
    type Pick = fn(&super::fit::RunFit) -> Option<f64>;
    let picks: [(&str, Pick); 3] = [
        ("as published", |r| r.published),
        ("calibrated", |r| r.calibrated),
        ("calibrated, left out", |r| r.loo),
    ];
    for (what, pick) in picks {
        let (mut x, mut y, mut hover) = (Vec::new(), Vec::new(), Vec::new());
        for r in &runs {
            if let Some(v) = pick(r) {
                x.push(r.measured);
                y.push(v);
                hover.push(format!(
                    "{}\nmeasured {}, {what} {} ({:+.1}%)",
                    r.label,
                    unit.display(r.measured),
                    unit.display(v),
                    (v - r.measured) / r.measured * 100.0
                ));
            }
        }
        if x.is_empty() {
            continue;
        }
        for &v in x.iter().chain(&y) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        series.push(Series::xy(format!("{} {what}", c.name), Style::Points, x, y).hover(hover));
    }
    if !lo.is_finite() {
        return None;
    }
    series.push(identity_line(lo, hi));
    let name = measure.name();
    let axis = |label: String| parity_axis(label, unit, lo, hi);
    Some(Chart {
        key: format!(
            "{}-calibrated-parity-{}",
            c.id,
            match measure {
                Measure::IterationTime => "iteration-time",
                Measure::Throughput => "throughput",
            }
        ),
        title: format!(
            "{}: predicted against measured {name}, as published and calibrated ({} runs)",
            c.name,
            fmt_count(runs.len() as f64)
        ),
        x: axis(format!("measured {name}")),
        y: axis(format!("predicted {name}")),
        y2: None,
        series,
        markers: Vec::new(),
    })
}
