//! Cynthia's figures: cost and training time vs workers per instance type
//! (goal line, feasible region, chosen plan), utilisation with one PS, and
//! the chosen plan's iteration.

use plotly::common::{DashType, Line, Marker, MarkerSymbol, Mode, Orientation, Title};
use plotly::layout::{Axis, BarMode, Layout, Margin, Shape, ShapeLine, ShapeType};
use plotly::{Bar, Plot, Scatter};
use serde_json::{json, Value};

use super::plots::escape;
use crate::models::cynthia::{Plan, Run};
use crate::report::CynthiaEvaluation;
use crate::workload::profile::SyncMode;

fn layout(title: &str, x: &str, y: &str) -> Layout {
    Layout::new()
        .title(Title::with_text(title))
        .height(340)
        .margin(Margin::new().left(70).right(20).top(50).bottom(50))
        .x_axis(Axis::new().title(Title::with_text(x)))
        .y_axis(Axis::new().title(Title::with_text(y)))
}

fn value(plot: &Plot) -> Value {
    serde_json::from_str(&plot.to_json()).unwrap_or(Value::Null)
}

fn chosen(e: &CynthiaEvaluation) -> Option<&Plan> {
    e.exact.as_ref().and_then(|x| x.plan.as_ref())
}

/// One line per type of `metric` vs workers; infeasible points hollow.
fn per_type(
    e: &CynthiaEvaluation,
    title: &str,
    y_title: &str,
    metric: fn(&Run) -> f64,
    goal: Option<f64>,
) -> Value {
    let mut plot = Plot::new();
    // plotly.rs has no per-point marker symbols: they are added below.
    let mut symbols = Vec::new();
    for c in &e.curves {
        let x: Vec<u32> = c.points.iter().map(|p| p.run.n_wk).collect();
        let y: Vec<f64> = c.points.iter().map(|p| metric(&p.run)).collect();
        let text: Vec<String> = c
            .points
            .iter()
            .map(|p| {
                format!(
                    "{}<br>{} workers, {} PS<br>time {:.3} h, cost ${:.2}<br>u = {:.2}{}",
                    escape(&c.instance),
                    p.run.n_wk,
                    p.run.n_ps,
                    p.run.train_time_s / 3600.0,
                    p.run.cost_usd,
                    p.run.u,
                    if p.meets_time && p.within_budget {
                        ""
                    } else {
                        "<br>misses a goal"
                    }
                )
            })
            .collect();
        symbols.push(
            c.points
                .iter()
                .map(|p| {
                    if p.meets_time && p.within_budget {
                        "circle"
                    } else {
                        "circle-open"
                    }
                })
                .collect::<Vec<_>>(),
        );
        plot.add_trace(
            Scatter::new(x, y)
                .name(escape(&c.instance))
                .mode(Mode::LinesMarkers)
                .marker(Marker::new().size(7))
                .hover_text_array(text)
                .hover_info(plotly::common::HoverInfo::Text),
        );
    }
    if let Some(p) = chosen(e) {
        plot.add_trace(
            Scatter::new(vec![p.run.n_wk], vec![metric(&p.run)])
                .name(format!(
                    "cheapest plan: {} × {} + {} PS",
                    p.run.n_wk,
                    escape(&p.instance),
                    p.run.n_ps
                ))
                .mode(Mode::Markers)
                .marker(
                    Marker::new()
                        .symbol(MarkerSymbol::Star)
                        .size(16)
                        .color("#d62728"),
                ),
        );
    }
    let mut l = layout(
        title,
        "workers (each point: the cheapest PS count meeting T_g, else the fastest)",
        y_title,
    );
    if let Some(g) = goal {
        l = l.shapes(vec![
            Shape::new()
                .shape_type(ShapeType::Rect)
                .x_ref("paper")
                .y_ref("y")
                .x0(0)
                .x1(1)
                .y0(0)
                .y1(g)
                .fill_color("rgba(44,160,44,0.08)")
                .line(ShapeLine::new().width(0.0)),
            Shape::new()
                .shape_type(ShapeType::Line)
                .x_ref("paper")
                .y_ref("y")
                .x0(0)
                .x1(1)
                .y0(g)
                .y1(g)
                .line(ShapeLine::new().color("#2ca02c").dash(DashType::Dash)),
        ]);
    }
    plot.set_layout(l);
    let mut v = value(&plot);
    if let Some(traces) = v.get_mut("data").and_then(Value::as_array_mut) {
        for (t, sym) in traces.iter_mut().zip(symbols) {
            t["marker"]["symbol"] = json!(sym);
        }
    }
    v
}

pub fn cost_curve(e: &CynthiaEvaluation) -> Value {
    let budget = e.goals.as_ref().and_then(|g| g.budget_usd);
    per_type(
        e,
        "Cost to the loss goal vs workers",
        "cost [USD]",
        |r| r.cost_usd,
        budget,
    )
}

pub fn time_curve(e: &CynthiaEvaluation) -> Value {
    let goal = e.goals.as_ref().map(|g| g.time_s / 3600.0);
    per_type(
        e,
        "Training time to the loss goal vs workers (shaded: meets T_g)",
        "training time [h]",
        |r| r.train_time_s / 3600.0,
        goal,
    )
}

pub fn utilisation(e: &CynthiaEvaluation) -> Value {
    let mut plot = Plot::new();
    for c in &e.curves {
        let x: Vec<usize> = (1..=c.u_one_ps.len()).collect();
        plot.add_trace(
            Scatter::new(x, c.u_one_ps.clone())
                .name(escape(&c.instance))
                .mode(Mode::Lines)
                .line(Line::new().width(2.0)),
        );
    }
    plot.set_layout(layout(
        "Worker utilisation u with one PS: where the PS saturates",
        "workers",
        "utilisation u [fraction]",
    ));
    value(&plot)
}

/// The chosen plan's iteration: compute and communication overlapped (BSP)
/// or one after the other (ASP).
pub fn plan_iteration(e: &CynthiaEvaluation, what: &str, t_comp: f64, t_comm: f64) -> Value {
    let (comm_start, how) = match e.sync {
        SyncMode::Bsp => (0.0, "BSP overlaps compute and communication: t_iter = max"),
        SyncMode::Asp => (t_comp, "ASP runs them one after the other: t_iter = sum"),
    };
    let label = format!("One iteration, {}", escape(what));
    let x_title = format!("time since iteration start [s] — {how}");
    let mut plot = Plot::new();
    plot.add_trace(
        Bar::new(vec![t_comp], vec!["compute"])
            .orientation(Orientation::Horizontal)
            .name("compute (Eq. 4)")
            .marker(Marker::new().color("#4c78a8")),
    );
    plot.add_trace(
        Bar::new(vec![t_comm], vec!["push + pull"])
            .orientation(Orientation::Horizontal)
            .name("communication (Eq. 5)")
            .marker(Marker::new().color("#54a24b")),
    );
    plot.set_layout(
        layout(&label, &x_title, "")
            .height(200)
            .bar_mode(BarMode::Overlay),
    );
    let mut v = value(&plot);
    if let Some(t) = v.get_mut("data").and_then(Value::as_array_mut) {
        if let Some(c) = t.get_mut(1) {
            c["base"] = json!([comm_start]);
        }
    }
    v
}

/// The fitted loss curve against the measured points, with residuals.
pub fn residuals(curve: &crate::workload::profile::LossCurve) -> Option<Value> {
    let fit = crate::models::loss_fit::fit_loss(curve).ok()?;
    let s: Vec<f64> = curve.points.iter().map(|p| p.0).collect();
    let measured: Vec<f64> = curve.points.iter().map(|p| p.1).collect();
    let n = curve.workers;
    let fitted: Vec<f64> = s
        .iter()
        .map(|&x| crate::models::loss_fit::loss_at(curve.sync, &fit.params, x, n))
        .collect();
    let mut plot = Plot::new();
    plot.add_trace(
        Scatter::new(s.clone(), measured)
            .name("measured loss")
            .mode(Mode::Markers)
            .marker(Marker::new().size(5)),
    );
    plot.add_trace(
        Scatter::new(s.clone(), fitted)
            .name("fitted Eq. 1")
            .mode(Mode::Lines)
            .line(Line::new().width(2.0)),
    );
    let (rx, ry): (Vec<f64>, Vec<f64>) = fit.residuals.iter().cloned().unzip();
    plot.add_trace(
        Bar::new(rx, ry)
            .name("residual (measured − fitted)")
            .y_axis("y2")
            .marker(Marker::new().color("rgba(214,39,40,0.5)")),
    );
    plot.set_layout(
        layout(
            &format!(
                "Loss fit: β0 = {:.4e}, β1 = {:.4e}, R² = {:.4}",
                fit.params.beta0, fit.params.beta1, fit.r_squared
            ),
            "iteration (global step)",
            "loss",
        )
        .y_axis2(
            Axis::new()
                .title(Title::with_text("residual"))
                .overlaying("y")
                .side(plotly::common::AxisSide::Right),
        ),
    );
    Some(value(&plot))
}
