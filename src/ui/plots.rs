//! Figures for the charts, built with plotly.rs from core results.
//!
//! plotly.rs 0.14's `Bar` has no `base` and its axes cannot be reversed, so
//! those two attributes are added to the serialized figure.

use plotly::common::{HoverInfo, Line, Marker, Mode, Orientation, Title};
use plotly::layout::{
    Axis, AxisType, BarMode, Layout, Legend, Margin, Shape, ShapeLine, ShapeType,
};
use plotly::{Bar, Plot, Scatter};
use serde_json::{json, Value};

use crate::models::zeng::SegmentKind;
use crate::report::csv_out::fmt_sig;
use crate::report::zeng_eval::SweepPoint;
use crate::report::ZengEvaluation;

/// Escapes text from files and inputs before plotly sees it: plotly reads a
/// subset of HTML in labels.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const KINDS: [(SegmentKind, &str); 4] = [
    (SegmentKind::Compute, "#4c78a8"),
    (SegmentKind::Wait, "#d8b365"),
    (SegmentKind::Push, "#54a24b"),
    (SegmentKind::Pull, "#9d755d"),
];

fn base_layout(title: &str, height: usize, left: usize) -> Layout {
    Layout::new()
        .title(Title::with_text(title))
        .height(height)
        .margin(Margin::new().left(left).right(20).top(50).bottom(50))
        .legend(Legend::new())
}

fn to_value(plot: &Plot) -> Value {
    serde_json::from_str(&plot.to_json()).unwrap_or(Value::Null)
}

/// The push queue as a Gantt chart: one row per worker, in push order.
pub fn timeline(e: &ZengEvaluation) -> Value {
    let names: Vec<String> = e.queue.workers.iter().map(|w| escape(&w.name)).collect();
    let mut plot = Plot::new();
    let mut bases: Vec<Vec<f64>> = Vec::new();
    for (kind, color) in KINDS {
        let segs: Vec<_> = e.queue.segments.iter().filter(|s| s.kind == kind).collect();
        if segs.is_empty() {
            continue;
        }
        let y: Vec<String> = segs
            .iter()
            .map(|s| names.get(s.worker).cloned().unwrap_or_default())
            .collect();
        let x: Vec<f64> = segs.iter().map(|s| s.end_s - s.start_s).collect();
        let hover: Vec<String> = segs
            .iter()
            .zip(&y)
            .map(|(s, n)| {
                format!(
                    "{n}<br>{}: {} s → {} s<br>duration {} s",
                    kind.label(),
                    fmt_sig(s.start_s),
                    fmt_sig(s.end_s),
                    fmt_sig(s.end_s - s.start_s)
                )
            })
            .collect();
        bases.push(segs.iter().map(|s| s.start_s).collect());
        plot.add_trace(
            Bar::new(x, y)
                .orientation(Orientation::Horizontal)
                .name(kind.label())
                .marker(Marker::new().color(color))
                .hover_text_array(hover)
                .hover_info(HoverInfo::Text),
        );
    }
    let end = e.queue.iteration_s;
    // Room for the longest worker name on the category axis.
    let longest = e
        .queue
        .workers
        .iter()
        .map(|w| w.name.chars().count())
        .max()
        .unwrap_or(0);
    let left = (20 + 7 * longest).clamp(70, 260);
    plot.set_layout(
        base_layout(
            &format!(
                "One iteration: {} s (push queue, Algorithm 1/2)",
                fmt_sig(end)
            ),
            120 + 40 * names.len(),
            left,
        )
        .bar_mode(BarMode::Overlay)
        .x_axis(
            Axis::new()
                .title(Title::with_text("time since iteration start [s]"))
                .zero_line(true),
        )
        .y_axis(Axis::new())
        .shapes(vec![Shape::new()
            .shape_type(ShapeType::Line)
            .x_ref("x")
            .y_ref("paper")
            .x0(end)
            .x1(end)
            .y0(0)
            .y1(1)
            .line(
                ShapeLine::new()
                    .color("#333")
                    .dash(plotly::common::DashType::Dash),
            )]),
    );
    let mut v = to_value(&plot);
    if let Some(traces) = v.get_mut("data").and_then(Value::as_array_mut) {
        for (t, b) in traces.iter_mut().zip(bases) {
            t["base"] = json!(b);
        }
    }
    v["layout"]["yaxis"]["autorange"] = json!("reversed");
    v["layout"]["yaxis"]["type"] = json!("category");
    v
}

fn line_chart(
    title: &str,
    x_title: &str,
    y_title: &str,
    log_x: bool,
    series: Vec<(String, Vec<f64>, Vec<f64>)>,
    marker_x: Option<f64>,
) -> Value {
    let mut plot = Plot::new();
    for (name, x, y) in series {
        plot.add_trace(
            Scatter::new(x, y)
                .name(escape(&name))
                .mode(Mode::LinesMarkers)
                .line(Line::new().width(2.0)),
        );
    }
    let mut x_axis = Axis::new().title(Title::with_text(x_title));
    if log_x {
        x_axis = x_axis.type_(AxisType::Log);
    }
    let mut layout = base_layout(title, 320, 70)
        .x_axis(x_axis)
        .y_axis(Axis::new().title(Title::with_text(y_title)));
    if let Some(x) = marker_x {
        layout = layout.shapes(vec![Shape::new()
            .shape_type(ShapeType::Line)
            .x_ref("x")
            .y_ref("paper")
            .x0(x)
            .x1(x)
            .y0(0)
            .y1(1)
            .line(
                ShapeLine::new()
                    .color("#c33")
                    .dash(plotly::common::DashType::Dot),
            )]);
    }
    plot.set_layout(layout);
    to_value(&plot)
}

/// One sweep metric against the worker count, the current size marked.
fn workers_chart(
    e: &ZengEvaluation,
    title: &str,
    y_title: &str,
    metric: fn(&SweepPoint) -> f64,
) -> Value {
    let series = e
        .worker_sweeps
        .iter()
        .map(|s| {
            (
                s.label.clone(),
                s.points.iter().map(|p| p.x).collect(),
                s.points.iter().map(metric).collect(),
            )
        })
        .collect();
    let n = e.queue.workers.len() as f64;
    line_chart(title, "workers", y_title, false, series, Some(n))
}

/// Iteration time as the worker count grows.
pub fn workers_iteration(e: &ZengEvaluation) -> Value {
    workers_chart(
        e,
        "Iteration time vs number of workers",
        "iteration time [s]",
        |p| p.iteration_s,
    )
}

/// Speedup over the fastest worker alone as the worker count grows.
pub fn workers_speedup(e: &ZengEvaluation) -> Value {
    workers_chart(
        e,
        "Speedup vs number of workers",
        "speedup [×] vs the line's fastest worker alone",
        |p| p.speedup,
    )
}

/// Iteration time as the PS bandwidth grows (log axis).
pub fn bandwidth(e: &ZengEvaluation) -> Value {
    let gbps = |b: f64| b * 8.0 / 1e9;
    let s = &e.bandwidth_sweep;
    let series = vec![(
        s.label.clone(),
        s.points.iter().map(|p| gbps(p.x)).collect(),
        s.points.iter().map(|p| p.iteration_s).collect(),
    )];
    line_chart(
        "Iteration time vs PS link bandwidth",
        "PS link bandwidth [Gb/s]",
        "iteration time [s]",
        true,
        series,
        Some(gbps(e.bandwidth_bytes_per_s)),
    )
}
