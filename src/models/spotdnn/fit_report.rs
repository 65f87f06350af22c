//! The coefficient fits in spotDNN's report: one table of every fitted
//! coefficient with its error and what it came from, the speeds behind
//! the contention fit, the loss traces against the fitted law, and one
//! action per fit that copies its coefficients into their fields.

use serde_json::json;

use super::eval::{LossFit, SpotEvaluation};
use super::fit::{Coefficient, ContentionPoint, Fit};
use super::section::{ALPHA1, COEFF, ID};
use crate::report::{
    fmt_sig, Action, Axis, Chart, Column, Note, Report, Series, Style, Table, Unit, Value,
};

pub const FITS: &str = "fits";

/// A trace's points and its fitted curve share a colour.
const PALETTE: [&str; 6] = [
    "#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2",
];

pub fn add(e: &SpotEvaluation, r: &mut Report) {
    let f = &e.fits;
    let field = |list: &str| format!("models.{ID}.fits.{list}");
    let mut rows = Vec::new();
    if let Some(m) = &f.memory {
        match m {
            Ok(fit) => {
                rows.extend(fit_rows(fit, "GPU memory per batch", |c| {
                    // α2 is stored per byte and typed per GB.
                    (c.name == "α2").then_some((1e9, "α2 [samples/GB]"))
                }));
                fit_notes(fit, &field("memory"), r);
                if let (Some(a), Some(b)) = (fit.value("α2"), fit.value("β2")) {
                    if fit.determined() {
                        r.actions.push(Action {
                            key: "use-memory-fit".into(),
                            label: "Use the fitted α2, β2".into(),
                            description: format!(
                                "Sets Eq. 10's α2 = {} samples/GB and β2 = {}.",
                                fmt_sig(a * 1e9),
                                fmt_sig(b)
                            ),
                            patch: json!({"models": {ID: {"alpha2_per_byte": a, "beta2": b}}}),
                        });
                    }
                }
            }
            Err(why) => r
                .notes
                .push(Note::warning(format!("α2, β2 not fitted: {why}")).at(field("memory"))),
        }
    }
    if let Some(c) = &f.contention {
        match c {
            Ok((fit, points)) => {
                rows.extend(fit_rows(fit, "cluster speeds", |_| None));
                fit_notes(fit, &field("speeds"), r);
                r.tables.push(speeds_table(points));
                let (a, b) = (fit.value("α1"), fit.value("β1"));
                if let (Some(a), Some(b)) = (a, b) {
                    if ALPHA1.contains(a) && COEFF.contains(b) {
                        r.actions.push(Action {
                            key: "use-contention-fit".into(),
                            label: "Use the fitted α1, β1".into(),
                            description: format!(
                                "Sets Eq. 9's α1 = {} and β1 = {}.",
                                fmt_sig(a),
                                fmt_sig(b)
                            ),
                            patch: json!({"models": {ID: {"alpha1": a, "beta1": b}}}),
                        });
                    }
                }
            }
            Err(why) => r
                .notes
                .push(Note::warning(format!("α1, β1 not fitted: {why}")).at(field("speeds"))),
        }
    }
    if let Some(l) = &f.loss {
        match l {
            Ok(lf) => {
                rows.extend(fit_rows(&lf.fit, "loss traces", |_| None));
                fit_notes(&lf.fit, &field("loss"), r);
                r.charts.push(loss_chart(lf));
                let ok = lf.law.gammas().iter().all(|g| COEFF.contains(*g));
                if ok {
                    let loose = if lf.fit.determined() {
                        ""
                    } else {
                        " Not every coefficient is determined by the traces (see the fits table)."
                    };
                    r.actions.push(Action {
                        key: "use-loss-fit".into(),
                        label: "Use the fitted γ1…γ5".into(),
                        description: format!("Sets Eq. 3's loss law to the fitted one.{loose}"),
                        patch: json!({"models": {ID: {"loss": lf.law}}}),
                    });
                }
            }
            Err(why) => r
                .notes
                .push(Note::warning(format!("γ1…γ5 not fitted: {why}")).at(field("loss"))),
        }
    }
    for used in &f.used {
        let at = if *used == "γ" {
            "loss"
        } else {
            "alpha2_per_byte"
        };
        r.notes.push(
            Note::info(format!(
                "{used}: the fields are empty, so the fitted values are used"
            ))
            .at(format!("models.{ID}.{at}")),
        );
    }
    if !rows.is_empty() {
        r.tables.push(Table {
            key: FITS.into(),
            title: "Fitted coefficients (Sec. IV, obtaining model parameters)".into(),
            columns: vec![
                Column::new("coefficient", Unit::None),
                Column::new("fitted value", Unit::None),
                Column::new("standard error", Unit::None),
                Column::new("from", Unit::None),
                Column::new("R²", Unit::None),
                Column::new("status", Unit::None),
            ],
            rows,
            caption: "R² is on the measured quantity (memory, speed, loss). A coefficient \
                      another one can stand in for is not determined by the data: the \
                      status says what would determine it."
                .into(),
            omitted_rows: 0,
        });
    }
}

/// One row per coefficient; `shown` gives a display scale and name.
fn fit_rows(
    fit: &Fit,
    from: &str,
    shown: impl Fn(&Coefficient) -> Option<(f64, &'static str)>,
) -> Vec<Vec<Value>> {
    let from = format!("{from} ({} points)", fit.points);
    fit.coefficients
        .iter()
        .map(|c| {
            let (scale, name) = shown(c).unwrap_or((1.0, c.name));
            let se = if c.std_error.is_finite() {
                Value::num(c.std_error * scale, Unit::None)
            } else {
                Value::text("—")
            };
            vec![
                Value::text(name),
                Value::num(c.value * scale, Unit::None),
                se,
                Value::text(from.clone()),
                Value::num(fit.r_squared, Unit::None),
                Value::text(match &c.undetermined {
                    None => "determined".to_string(),
                    Some(_) => "not determined".to_string(),
                }),
            ]
        })
        .collect()
}

fn fit_notes(fit: &Fit, field: &str, r: &mut Report) {
    for c in &fit.coefficients {
        if let Some(why) = &c.undetermined {
            r.notes.push(Note::warning(why.clone()).at(field));
        }
    }
    for n in &fit.notes {
        r.notes.push(Note::info(n.clone()).at(field));
    }
}

fn speeds_table(points: &[ContentionPoint]) -> Table {
    let rows = points
        .iter()
        .map(|p| {
            vec![
                Value::text(p.label.clone()),
                Value::count(p.workers),
                p.contention
                    .map_or(Value::text("no contention"), |c| Value::num(c, Unit::None)),
                Value::num(p.measured, Unit::None),
                Value::num(p.predicted, Unit::None),
                Value::text(if p.clamped {
                    "left out (no P fits)"
                } else {
                    ""
                }),
            ]
        })
        .collect();
    Table {
        key: "speeds".into(),
        title: "Measured cluster speeds and the P each implies (Eq. 6-9)".into(),
        columns: vec![
            Column::new("cluster", Unit::None),
            Column::new("workers |N|", Unit::Count),
            Column::new("P from the speed", Unit::None),
            Column::new("measured [global steps/s]", Unit::None),
            Column::new("with fitted α1, β1 [global steps/s]", Unit::None),
            Column::new("", Unit::None),
        ],
        rows,
        caption: String::new(),
        omitted_rows: 0,
    }
}

/// Each trace's points and the fitted law through them.
fn loss_chart(lf: &LossFit) -> Chart {
    let mut series = Vec::new();
    for (t, color) in lf.traces.iter().zip(PALETTE.iter().cycle()) {
        let (x, y): (Vec<f64>, Vec<f64>) = t.points.iter().copied().unzip();
        let last = x.iter().copied().fold(0.0f64, f64::max);
        let first = x.iter().copied().fold(f64::INFINITY, f64::min).max(0.0);
        let xs: Vec<f64> = (0..=60)
            .map(|i| first + (last - first) * f64::from(i) / 60.0)
            .collect();
        let ys: Vec<f64> = xs
            .iter()
            .map(|&j| lf.law.loss_at(j, t.wa_batch, t.convergence, t.workers))
            .collect();
        series.push(Series::xy(format!("{} measured", t.label), Style::Points, x, y).color(*color));
        series.push(Series::xy(format!("{} fitted", t.label), Style::Line, xs, ys).color(*color));
    }
    Chart {
        key: "loss-fit".into(),
        title: format!(
            "Loss traces and the fitted Eq. 3 (R² {})",
            fmt_sig(lf.fit.r_squared)
        ),
        x: Axis::new("global step j", Unit::Count),
        y: Axis::new("loss", Unit::None),
        y2: None,
        series,
        markers: Vec::new(),
    }
}
