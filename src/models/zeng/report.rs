//! Zeng's evaluation as the generic `Report`: the headline, every figure
//! with its unit, the per-worker queue, the timeline and the scaling charts.
//! Values stay in SI units; each `Unit` says how they are shown.

use super::eval::{speedup_baseline, Sweep, SweepPoint, ZengEvaluation};
use super::SegmentKind;
use crate::hardware::Pricing;
use crate::report::{
    fmt_count, fmt_sig, Axis, Chart, Column, Figure, Marker, Note, Report, Series, Style, Table,
    Unit, Value,
};
use crate::scenario::Scenario;

/// Timeline colours, one per segment kind, in legend order.
const KINDS: [(SegmentKind, &str); 4] = [
    (SegmentKind::Compute, "#4c78a8"),
    (SegmentKind::Wait, "#d8b365"),
    (SegmentKind::Push, "#54a24b"),
    (SegmentKind::Pull, "#9d755d"),
];

const TIMELINE_HINT: &str = "Compute is a worker's whole iteration on a CPU (Algorithm 1) or \
    forward plus the first backward segment on a GPU (Algorithm 2); gradients then queue for \
    the PS link one push at a time, and the n pulls follow the last push.";

fn iteration_curve(e: &ZengEvaluation, with_hover: bool) -> Chart {
    workers_chart_with(
        e,
        "workers-iteration",
        "Iteration time vs number of workers",
        Axis::new("iteration time", Unit::Seconds).from_zero(),
        |p| p.iteration_s,
        with_hover,
    )
}

fn cost_curve(e: &ZengEvaluation, with_hover: bool) -> Option<Chart> {
    e.cost.as_ref().map(|_| {
        workers_chart_with(
            e,
            "cost",
            "Cost per 1,000 iterations vs number of workers",
            Axis::new("cost per 1,000 iterations", Unit::Usd).from_zero(),
            |p| p.cost_per_1000_usd.unwrap_or(0.0),
            with_hover,
        )
    })
}

/// The charts with uncertainty bands, numbers only (`Model::curves`):
/// the timeline as its total (the iteration end) and the iteration time
/// and cost against the worker count.
pub fn curve_charts(e: &ZengEvaluation) -> Vec<Chart> {
    let timeline = Chart {
        key: "timeline".into(),
        markers: vec![Marker::Vertical {
            x: e.queue.iteration_s,
            label: String::new(),
        }],
        ..Chart::default()
    };
    let mut charts = vec![timeline, iteration_curve(e, false)];
    charts.extend(cost_curve(e, false));
    charts
}

pub fn build(s: &Scenario, e: &ZengEvaluation) -> Report {
    let mut charts = vec![timeline_chart(e), iteration_curve(e, true), speedup_chart(e)];
    charts.extend(cost_curve(e, true));
    charts.push(bandwidth_chart(e));
    Report {
        model: "zeng".into(),
        model_name: "Zeng et al. push queue".into(),
        subject: s.summary_line(),
        headline: headline(e),
        figures: figures(e),
        tables: vec![workers_table(e), timeline_table(e)],
        notes: notes(e),
        charts,
        actions: Vec::new(),
        downloads: Vec::new(),
    }
}

fn regime_word(e: &ZengEvaluation) -> &'static str {
    if e.regime.communication_bound {
        "communication-bound"
    } else {
        "compute-bound"
    }
}

pub fn headline(e: &ZengEvaluation) -> Vec<Figure> {
    let mut h = vec![
        Figure::new(
            "iteration-time",
            "iteration time (push queue, Alg. 1/2)",
            Value::num(e.queue.iteration_s, Unit::Seconds),
        )
        .source("Alg. 1/2"),
        Figure::new(
            "throughput",
            "throughput",
            Value::num(e.throughput.samples_per_s, Unit::SamplesPerS),
        )
        .source("Σ bs / T"),
        Figure::new(
            "speedup",
            match baseline_device(e) {
                Some((name, bs, _)) => format!("speedup over one {name} (bs {bs}) alone"),
                None => "speedup over the fastest worker alone".to_string(),
            },
            Value::num(e.throughput.speedup, Unit::Times),
        )
        .source("Eq. 28/33"),
        Figure::new(
            "t-push",
            if e.pull_bytes == e.transfer_bytes {
                "T_push = T_pull per worker"
            } else {
                "T_push per worker"
            },
            Value::num(e.queue.t_push_s, Unit::Seconds),
        )
        .source("Eq. 31"),
        Figure::new("regime", "regime", Value::text(regime_word(e))).source("Eq. 32"),
    ];
    if let Some(c) = &e.cost {
        let prices = pricing_words(c.pricing);
        h.extend([
            Figure::new(
                "cost-per-iteration",
                format!("cost per iteration ({prices})"),
                Value::num(c.per_iteration_usd, Unit::Usd),
            )
            .source("Σ price × T / 3600"),
            Figure::new(
                "cost-per-1000-iterations",
                format!("cost per 1,000 iterations ({prices})"),
                Value::num(c.per_1000_iterations_usd, Unit::Usd),
            )
            .source("1,000 × Σ price × T / 3600"),
        ]);
    }
    h
}

fn pricing_words(p: Pricing) -> String {
    format!("{} prices", p.word())
}

/// The summary's figures that are not in the headline, and the link used.
fn figures(e: &ZengEvaluation) -> Vec<Figure> {
    let n = &e.summary;
    let mut f = vec![
        Figure::new(
            "forward-flop-eq4",
            "forward per sample (Eq. 4 conv+fc)",
            Value::num(n.forward_flop_eq4, Unit::Gflop),
        )
        .source("Eq. 4"),
        Figure::new(
            "forward-flop",
            "forward per sample incl. extra activation FLOP",
            Value::num(n.forward_flop, Unit::Gflop),
        ),
        Figure::new(
            "backward-flop",
            "backward per iteration (Eq. 22)",
            Value::num(e.backward_flop, Unit::Gflop),
        )
        .source("Eq. 22"),
        Figure::new("weights", "weights", Value::count(n.weights)),
        Figure::new(
            "transfer-values",
            "values per push (G)",
            Value::count(n.transfer_values),
        ),
        Figure::new(
            "transfer-bytes",
            "bytes per push (G)",
            Value::num(e.transfer_bytes, Unit::Megabytes),
        ),
        Figure::new(
            "pull-values",
            "values per pull (P)",
            Value::count(n.pull_values),
        ),
        Figure::new(
            "pull-bytes",
            "bytes per pull (P)",
            Value::num(e.pull_bytes, Unit::Megabytes),
        ),
    ];
    if let Some(p) = e.pushes {
        f.push(Figure::new(
            "pushes",
            "gradient pushes per iteration",
            Value::count(p),
        ));
    }
    // Keyed by position, not instance name: names are user text and may repeat.
    for (i, g) in e.groups.iter().enumerate() {
        f.push(
            Figure::new(
                format!("iteration-flop-{}", i + 1),
                format!(
                    "FLOP per iteration, {} bs {} (Eq. 27)",
                    g.instance, g.batch_size
                ),
                Value::num(g.iteration_flop, Unit::Gflop),
            )
            .source("Eq. 27"),
        );
    }
    f.extend([
        Figure::new(
            "t-pull",
            "T_pull per worker (Eq. 30)",
            Value::num(e.queue.t_pull_s, Unit::Seconds),
        )
        .source("Eq. 30"),
        Figure::new(
            "eq32-iteration",
            "Eq. 32 communication-bound shortcut",
            Value::num(e.regime.eq32_s, Unit::Seconds),
        )
        .source("Eq. 32"),
    ]);
    if let Some(t) = e.regime.eq29_s {
        f.push(
            Figure::new(
                "eq29-iteration",
                "Eq. 29 homogeneous BSP",
                Value::num(t, Unit::Seconds),
            )
            .source("Eq. 29"),
        );
    }
    f.extend([
        Figure::new(
            "link-idle",
            "PS link idle between pushes",
            Value::num(e.queue.link_idle_s, Unit::Seconds),
        ),
        Figure::new(
            "ps-bandwidth",
            "PS link bandwidth",
            Value::num(e.bandwidth_bytes_per_s, Unit::GbitPerS),
        ),
    ]);
    if let Some(c) = &e.cost {
        let prices = pricing_words(c.pricing);
        f.push(Figure::new(
            "cluster-price",
            format!("price of the cluster, workers + PS nodes ({prices})"),
            Value::num(c.usd_per_hour(), Unit::UsdPerHour),
        ));
    }
    if let Some(ep) = &e.epoch {
        f.extend([
            Figure::new(
                "iterations-per-epoch",
                format!(
                    "iterations per epoch ({} samples, {} per iteration)",
                    fmt_count(ep.samples as f64),
                    fmt_count(ep.global_batch as f64)
                ),
                Value::count(ep.iterations as f64),
            )
            .source("⌈samples / Σ bs⌉"),
            Figure::new(
                "epoch-time",
                "time per epoch",
                Value::num(ep.time_s, Unit::Hours),
            )
            .source("iterations × T"),
        ]);
        if let Some(usd) = e.cost.as_ref().and_then(|c| c.per_epoch_usd) {
            f.push(
                Figure::new(
                    "cost-per-epoch",
                    format!(
                        "cost per epoch ({})",
                        e.cost
                            .as_ref()
                            .map_or(String::new(), |c| pricing_words(c.pricing))
                    ),
                    Value::num(usd, Unit::Usd),
                )
                .source("iterations × cost per iteration"),
            );
        }
    }
    f
}

fn notes(e: &ZengEvaluation) -> Vec<Note> {
    let mut notes = vec![Note::info(regime_note(e)), Note::info(TIMELINE_HINT)];
    notes.extend(cost_notes(e));
    notes.extend(coincident_note(e));
    notes
}

/// The regime word, then why: "communication-bound: every worker's …".
/// The explanation carries only the why, so the word is said once.
fn regime_note(e: &ZengEvaluation) -> String {
    if e.queue.workers.is_empty() {
        return e.regime.explanation.clone();
    }
    format!("{}: {}", regime_word(e), e.regime.explanation)
}

/// Most instances named one by one in the missing-price notes.
const MISSING_PRICE_NOTES: usize = 5;

/// Why there is no cost (which device lacks a price, at its price field),
/// or what the cost leaves out.
fn cost_notes(e: &ZengEvaluation) -> Vec<Note> {
    let mut out: Vec<Note> = e
        .missing_prices
        .iter()
        .take(MISSING_PRICE_NOTES)
        .map(|m| {
            let role = if m.ps { "the PS nodes' instance" } else { "a worker device" };
            Note::warning(format!(
                "no cost: {} ({role}) has no {} in the catalog; type one to see the cost per iteration",
                m.instance, m.what
            ))
            .at(m.field.clone())
        })
        .collect();
    let more = e.missing_prices.len().saturating_sub(MISSING_PRICE_NOTES);
    if more > 0 {
        out.push(
            Note::warning(format!(
                "no cost: {} more instances in use have no price",
                fmt_count(more as f64)
            ))
            .at("hardware.catalog"),
        );
    }
    if e.cost.is_some() && !e.ps_has_instance {
        out.push(
            Note::info(
                "the PS nodes have no instance type, so the cost counts the workers only; pick the PS instance to include them",
            )
            .at("hardware.cluster.ps.instance"),
        );
    }
    out
}

fn worker_name(e: &ZengEvaluation, i: usize) -> String {
    e.queue
        .workers
        .get(i)
        .map_or_else(String::new, |w| w.name.clone())
}

fn workers_table(e: &ZengEvaluation) -> Table {
    Table {
        omitted_rows: 0,
        key: "workers".into(),
        title: "Workers, in push order".into(),
        columns: vec![
            Column::new("worker", Unit::None),
            Column::new("kind", Unit::None),
            Column::new("batch size", Unit::Count),
            Column::new("stand-alone iteration (Eq. 28/33)", Unit::Seconds),
            Column::new("compute before first push", Unit::Seconds),
            Column::new("wait in push queue", Unit::Seconds),
            Column::new("push start", Unit::Seconds),
            Column::new("push end", Unit::Seconds),
        ],
        rows: e
            .queue
            .workers
            .iter()
            .map(|w| {
                vec![
                    Value::text(w.name.clone()),
                    Value::text(w.kind),
                    Value::count(w.batch_size),
                    Value::num(w.standalone_s, Unit::Seconds),
                    Value::num(w.compute_s, Unit::Seconds),
                    Value::num(w.wait_s, Unit::Seconds),
                    Value::num(w.push_start_s, Unit::Seconds),
                    Value::num(w.push_end_s, Unit::Seconds),
                ]
            })
            .collect(),
        caption: "Workers push in order of ascending compute time (ties keep input order); \
                  times are since the iteration start."
            .into(),
    }
}

fn timeline_table(e: &ZengEvaluation) -> Table {
    Table {
        omitted_rows: 0,
        key: "timeline".into(),
        title: "Timeline segments".into(),
        columns: vec![
            Column::new("worker", Unit::None),
            Column::new("segment", Unit::None),
            Column::new("start", Unit::Seconds),
            Column::new("end", Unit::Seconds),
        ],
        rows: e
            .queue
            .segments
            .iter()
            .map(|g| {
                vec![
                    Value::text(worker_name(e, g.worker)),
                    Value::text(g.kind.label()),
                    Value::num(g.start_s, Unit::Seconds),
                    Value::num(g.end_s, Unit::Seconds),
                ]
            })
            .collect(),
        caption: String::new(),
    }
}

/// Most device lines the scaling charts draw.
pub const SWEEP_MAX_LINES: usize = 12;

/// Most workers the timeline draws: a row per worker stops being readable
/// (and plotly slows) well before the 4,096 a cluster may have.
pub const TIMELINE_MAX_ROWS: usize = 32;

/// The push queue as a Gantt chart: one row per worker, in push order
/// (the first `TIMELINE_MAX_ROWS` workers to appear).
fn timeline_chart(e: &ZengEvaluation) -> Chart {
    let mut shown: Vec<usize> = Vec::new();
    for g in &e.queue.segments {
        if !shown.contains(&g.worker) {
            if shown.len() == TIMELINE_MAX_ROWS {
                break;
            }
            shown.push(g.worker);
        }
    }
    let all = e.queue.workers.len();
    let series = KINDS
        .iter()
        .filter_map(|&(kind, color)| {
            let segs: Vec<_> = e
                .queue
                .segments
                .iter()
                .filter(|g| g.kind == kind && shown.contains(&g.worker))
                .collect();
            if segs.is_empty() {
                return None;
            }
            let rows: Vec<String> = segs.iter().map(|g| worker_name(e, g.worker)).collect();
            let hover = segs
                .iter()
                .zip(&rows)
                .map(|(g, n)| {
                    format!(
                        "{n}\n{}: {} s → {} s\nduration {} s",
                        kind.label(),
                        fmt_sig(g.start_s),
                        fmt_sig(g.end_s),
                        fmt_sig(g.end_s - g.start_s)
                    )
                })
                .collect();
            Some(
                Series::segments(
                    kind.label(),
                    rows,
                    segs.iter().map(|g| g.start_s).collect(),
                    segs.iter().map(|g| g.end_s).collect(),
                )
                .color(color)
                .hover(hover),
            )
        })
        .collect();
    let end = e.queue.iteration_s;
    Chart {
        key: "timeline".into(),
        title: if all > shown.len() {
            format!(
                "One iteration: {} s (push queue, Algorithm 1/2) — the first {} of {} workers; all in the segments table",
                fmt_sig(end),
                shown.len(),
                crate::report::fmt_count(all as f64)
            )
        } else {
            format!(
                "One iteration: {} s (push queue, Algorithm 1/2)",
                fmt_sig(end)
            )
        },
        x: Axis::new("time since iteration start", Unit::Seconds).from_zero(),
        y: Axis::new("worker", Unit::None),
        y2: None,
        series,
        markers: vec![Marker::Vertical {
            x: end,
            label: "iteration end".into(),
        }],
    }
}

fn regime_hover(p: &SweepPoint) -> &'static str {
    if p.communication_bound {
        "communication-bound"
    } else {
        "compute-bound"
    }
}

/// The speedup charts' baseline: one worker of the cluster's fastest
/// device (most samples/s alone, Eq. 28/33), as ("Quadro RTX 4000", 32),
/// with its samples/s; `None` without a worker that computes.
fn baseline_device(e: &ZengEvaluation) -> Option<(String, u32, f64)> {
    let base = speedup_baseline(&e.queue);
    let w = e
        .queue
        .workers
        .iter()
        .filter(|w| w.standalone_s > 0.0)
        .find(|w| f64::from(w.batch_size) / w.standalone_s == base)?;
    let name = w.name.split(" #").next().unwrap_or(&w.name);
    Some((name.to_string(), w.batch_size, base))
}

/// Throughput against the worker count, every line over the same worker:
/// one of the cluster's fastest device alone (named in the axis and the
/// title), so a slower device's line never plots above a faster one's.
fn speedup_chart(e: &ZengEvaluation) -> Chart {
    let (title, axis) = match baseline_device(e) {
        Some((name, bs, base)) => (
            format!(
                "Speedup vs workers: every line over one {name} (bs {bs}) alone, {}",
                Unit::SamplesPerS.display(base)
            ),
            format!("speedup over 1 {name}"),
        ),
        None => (
            "Speedup vs workers".to_string(),
            "speedup".to_string(),
        ),
    };
    workers_chart(
        e,
        "workers-speedup",
        &title,
        Axis::new(axis, Unit::Times).from_zero(),
        |p| p.speedup,
    )
}

/// Relative difference below which two lines are drawn on top of each
/// other at a chart's size (340 px: 1% is about 3 px).
const COINCIDE: f64 = 0.01;

/// Pairs of shown worker-sweep lines whose speedups agree within
/// `COINCIDE` at every worker count (one would hide the other).
fn coincident_lines(e: &ZengEvaluation) -> Vec<(String, String)> {
    let lines = shown_sweeps(e);
    let same = |a: &Sweep, b: &Sweep| {
        a.points.len() == b.points.len()
            && a.points.iter().zip(&b.points).all(|(p, q)| {
                let m = p.speedup.abs().max(q.speedup.abs());
                m == 0.0 || (p.speedup - q.speedup).abs() <= COINCIDE * m
            })
    };
    let mut out = Vec::new();
    for (i, a) in lines.iter().enumerate() {
        for b in &lines[i + 1..] {
            if same(a, b) {
                out.push((a.label.clone(), b.label.clone()));
            }
        }
    }
    out
}

/// Says which lines of the worker charts lie on top of each other.
fn coincident_note(e: &ZengEvaluation) -> Option<Note> {
    let pairs = coincident_lines(e);
    if pairs.is_empty() {
        return None;
    }
    let list: Vec<String> = pairs
        .iter()
        .map(|(a, b)| format!("“{a}” and “{b}”"))
        .collect();
    Some(Note::info(format!(
        "on the charts against the number of workers, {} coincide within {}% at every worker count: the later line is drawn over the earlier one (hover a point for each line's value)",
        list.join(", "),
        fmt_sig(COINCIDE * 100.0)
    )))
}

/// The worker sweeps the charts draw: at most `SWEEP_MAX_LINES` devices
/// (in cluster order), and the cluster's own mix, which comes last.
fn shown_sweeps(e: &ZengEvaluation) -> Vec<&Sweep> {
    let n = e.worker_sweeps.len();
    let mix = usize::from(n > 1);
    let devices = n - mix;
    e.worker_sweeps[..devices.min(SWEEP_MAX_LINES)]
        .iter()
        .chain(&e.worker_sweeps[devices..])
        .collect()
}

/// One sweep metric against the worker count, the current size marked.
fn workers_chart(
    e: &ZengEvaluation,
    key: &str,
    title: &str,
    y: Axis,
    metric: fn(&SweepPoint) -> f64,
) -> Chart {
    workers_chart_with(e, key, title, y, metric, true)
}

/// `workers_chart`, with or without its hover text (a band's samples
/// read only the numbers).
fn workers_chart_with(
    e: &ZengEvaluation,
    key: &str,
    title: &str,
    y: Axis,
    metric: fn(&SweepPoint) -> f64,
    with_hover: bool,
) -> Chart {
    // One line per device of the cluster, at most `SWEEP_MAX_LINES` of them
    // (in cluster order), and the cluster's own mix, which comes last.
    let n = e.worker_sweeps.len();
    let mix = usize::from(n > 1);
    let devices = n - mix;
    let shown = shown_sweeps(e);
    let title = if devices > SWEEP_MAX_LINES {
        format!("{title} — the first {SWEEP_MAX_LINES} of {devices} devices")
    } else {
        title.to_string()
    };
    let last = shown.len();
    let series = shown
        .into_iter()
        .enumerate()
        .map(|(i, sw)| {
            let hover = sw
                .points
                .iter()
                .filter(|_| with_hover)
                .map(|p| {
                    format!(
                        "{}\n{} workers: {}\n{}",
                        sw.label,
                        p.x,
                        y.unit.display(metric(p)),
                        regime_hover(p)
                    )
                })
                .collect();
            // The mix, drawn last, is a plain line: a device line under it
            // keeps its markers in sight.
            let style = if mix == 1 && i + 1 == last {
                Style::Line
            } else {
                Style::LinePoints
            };
            Series::xy(
                sw.label.clone(),
                style,
                sw.points.iter().map(|p| p.x).collect(),
                sw.points.iter().map(metric).collect(),
            )
            .hover(hover)
        })
        .collect();
    Chart {
        key: key.into(),
        title,
        x: Axis::new("workers", Unit::Count),
        y,
        y2: None,
        series,
        markers: vec![Marker::Vertical {
            x: e.queue.workers.len() as f64,
            label: "this cluster".into(),
        }],
    }
}

/// Iteration time as the PS bandwidth grows (log axis, values in bytes/s).
fn bandwidth_chart(e: &ZengEvaluation) -> Chart {
    let sw = &e.bandwidth_sweep;
    let hover = sw
        .points
        .iter()
        .map(|p| {
            format!(
                "{}\n{}: {}\n{}",
                sw.label,
                Unit::GbitPerS.display(p.x),
                Unit::Seconds.display(p.iteration_s),
                regime_hover(p)
            )
        })
        .collect();
    Chart {
        key: "bandwidth".into(),
        title: "Iteration time vs PS link bandwidth".into(),
        x: Axis::new("PS link bandwidth", Unit::GbitPerS).log(),
        y: Axis::new("iteration time", Unit::Seconds).from_zero(),
        y2: None,
        series: vec![Series::xy(
            sw.label.clone(),
            Style::LinePoints,
            sw.points.iter().map(|p| p.x).collect(),
            sw.points.iter().map(|p| p.iteration_s).collect(),
        )
        .hover(hover)],
        markers: vec![Marker::Vertical {
            x: e.bandwidth_bytes_per_s,
            label: "this link".into(),
        }],
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::models::zeng::evaluate_zeng;
    use crate::report::SeriesData;

    fn example() -> (ZengEvaluation, Report) {
        let s = Scenario::example();
        let e = evaluate_zeng(&s).unwrap_or_else(|e| panic!("{e:?}"));
        let r = build(&s, &e);
        (e, r)
    }

    #[test]
    fn headline_carries_the_queue() {
        let (e, r) = example();
        assert_eq!(r.model, "zeng");
        assert_eq!(r.subject, Scenario::example().summary_line());
        let keys: Vec<&str> = r.headline.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "iteration-time",
                "throughput",
                "speedup",
                "t-push",
                "regime"
            ]
        );
        let it = &r.headline[0].value;
        assert_eq!(
            it.number().map(f64::to_bits),
            Some(e.queue.iteration_s.to_bits())
        );
        let unit = |k: &str| match r.figure(k).map(|f| &f.value) {
            Some(Value::Number { unit, .. }) => Some(*unit),
            _ => None,
        };
        assert_eq!(unit("iteration-time"), Some(Unit::Seconds));
        assert_eq!(unit("throughput"), Some(Unit::SamplesPerS));
        assert_eq!(unit("speedup"), Some(Unit::Times));
        assert_eq!(unit("t-push"), Some(Unit::Seconds));
        assert_eq!(unit("backward-flop"), Some(Unit::Gflop));
        assert_eq!(unit("weights"), Some(Unit::Count));
        assert_eq!(unit("transfer-bytes"), Some(Unit::Megabytes));
        assert_eq!(unit("ps-bandwidth"), Some(Unit::GbitPerS));
        assert_eq!(
            r.figure("regime").map(|f| f.value.display()),
            Some("communication-bound".to_string())
        );
        assert_eq!(
            r.figure("ps-bandwidth").map(|f| f.value.display()),
            Some("1.000 Gb/s".to_string())
        );
    }

    #[test]
    fn figure_keys_are_unique() {
        let (e, r) = example();
        let mut keys: Vec<&str> = r
            .headline
            .iter()
            .chain(&r.figures)
            .map(|f| f.key.as_str())
            .collect();
        let n = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), n, "{keys:?}");
        // One FLOP figure per worker group.
        assert_eq!(
            r.figures
                .iter()
                .filter(|f| f.key.starts_with("iteration-flop-"))
                .count(),
            e.groups.len()
        );
    }

    #[test]
    fn workers_table_in_push_order() {
        let (e, r) = example();
        let t = r
            .table("workers")
            .unwrap_or_else(|| panic!("no workers table"));
        assert_eq!(t.rows.len(), 3);
        assert!(t.rows.iter().all(|row| row.len() == t.columns.len()));
        let names: Vec<String> = t.rows.iter().map(|row| row[0].display()).collect();
        let want: Vec<String> = e.queue.workers.iter().map(|w| w.name.clone()).collect();
        assert_eq!(names, want);
        let starts: Vec<f64> = t.rows.iter().filter_map(|row| row[6].number()).collect();
        assert_eq!(starts.len(), 3);
        assert!(starts.windows(2).all(|p| p[0] <= p[1]), "{starts:?}");
        let tl = r
            .table("timeline")
            .unwrap_or_else(|| panic!("no timeline table"));
        assert_eq!(tl.rows.len(), e.queue.segments.len());
        assert!(tl.rows.iter().all(|row| row.len() == tl.columns.len()));
    }

    #[test]
    fn charts_match_the_queue() {
        let (e, r) = example();
        let keys: Vec<&str> = r.charts.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "timeline",
                "workers-iteration",
                "workers-speedup",
                "bandwidth"
            ]
        );
        let tl = r.chart("timeline").unwrap_or_else(|| panic!("no timeline"));
        let segs: usize = tl
            .series
            .iter()
            .map(|s| match &s.data {
                SeriesData::Segments { rows, start, end } => {
                    assert_eq!(rows.len(), start.len());
                    assert_eq!(rows.len(), end.len());
                    assert_eq!(s.hover.len(), rows.len());
                    assert!(s.hover.iter().all(|h| !h.contains('<')));
                    rows.len()
                }
                SeriesData::Xy { .. } => panic!("timeline has xy data"),
            })
            .sum();
        assert_eq!(segs, e.queue.segments.len());
        assert!(tl.markers.contains(&Marker::Vertical {
            x: e.queue.iteration_s,
            label: "iteration end".into()
        }));

        let sp = r
            .chart("workers-speedup")
            .unwrap_or_else(|| panic!("no speedup chart"));
        assert!(sp.y.from_zero);
        assert_eq!(sp.y.unit, Unit::Times);
        // One baseline for every line, named in the axis and the title:
        // one worker of the cluster's fastest device alone.
        assert_eq!(sp.y.title(), "speedup over 1 Quadro RTX 4000 [×]");
        assert!(
            sp.title.contains("every line over one Quadro RTX 4000 (bs 32) alone"),
            "{}",
            sp.title
        );
        assert_eq!(sp.series.len(), e.worker_sweeps.len());

        let bw = r
            .chart("bandwidth")
            .unwrap_or_else(|| panic!("no bandwidth"));
        assert!(bw.x.log);
        assert_eq!(bw.x.unit, Unit::GbitPerS);
        assert!(bw.markers.contains(&Marker::Vertical {
            x: e.bandwidth_bytes_per_s,
            label: "this link".into()
        }));
    }

    /// The speedup chart's lines as plotted: (name, y per worker count).
    fn speedup_lines(r: &Report) -> Vec<(String, Vec<f64>)> {
        let sp = r
            .chart("workers-speedup")
            .unwrap_or_else(|| panic!("no speedup chart"));
        sp.series
            .iter()
            .map(|s| match &s.data {
                SeriesData::Xy { y, .. } => (s.name.clone(), y.clone()),
                SeriesData::Segments { .. } => panic!("speedup has segments"),
            })
            .collect()
    }

    #[test]
    fn a_slower_cluster_never_plots_above_a_faster_one() {
        // Issue 33 item 5: each line was over its own device alone, so
        // "GTX 1060 only" plotted above the Quadro RTX 4000's line although
        // that cluster is slower. Over one baseline, at every worker count:
        // n GTX 1060 ≤ the mix ≤ n RTX 4000 (same batch; under BSP a
        // slower worker never shortens the iteration), at the example's
        // 1 GbE (communication-bound) and at 100 Gb/s (compute-bound).
        let mut fast_link = Scenario::example();
        fast_link.hardware.cluster.ps.link_bytes_per_s = Some(100e9 / 8.0);
        for s in [Scenario::example(), fast_link] {
            let e = evaluate_zeng(&s).unwrap_or_else(|e| panic!("{e:?}"));
            let r = build(&s, &e);
            let lines = speedup_lines(&r);
            let line = |prefix: &str| {
                lines
                    .iter()
                    .find(|(n, _)| n.starts_with(prefix))
                    .map(|(_, y)| y.clone())
                    .unwrap_or_else(|| panic!("no line {prefix}: {lines:?}"))
            };
            let (rtx, gtx, mix) = (
                line("Quadro RTX 4000 only"),
                line("GeForce GTX 1060 6GB only"),
                line("this cluster's mix"),
            );
            assert_eq!(rtx.len(), gtx.len());
            assert_eq!(rtx.len(), mix.len());
            let tol = 1e-12;
            for n in 0..rtx.len() {
                assert!(gtx[n] <= rtx[n] * (1.0 + tol), "{n} workers: GTX {} > RTX {}", gtx[n], rtx[n]);
                assert!(mix[n] <= rtx[n] * (1.0 + tol), "{n} workers: mix {} > RTX {}", mix[n], rtx[n]);
                assert!(gtx[n] <= mix[n] * (1.0 + tol), "{n} workers: GTX {} > mix {}", gtx[n], mix[n]);
            }
            // The baseline: one RTX 4000 alone (Eq. 33), bs / its time.
            let rtx_alone = e
                .queue
                .workers
                .iter()
                .filter(|w| w.name.starts_with("Quadro RTX 4000"))
                .map(|w| f64::from(w.batch_size) / w.standalone_s)
                .fold(0.0, f64::max);
            let first = e
                .worker_sweeps
                .iter()
                .find(|sw| sw.label.starts_with("GeForce GTX 1060 6GB only"))
                .and_then(|sw| sw.points.first())
                .unwrap_or_else(|| panic!("no GTX sweep"));
            // One GTX 1060 at one worker: its throughput over the RTX's.
            let want = 32.0 / first.iteration_s / rtx_alone;
            assert!((first.speedup / want - 1.0).abs() < 1e-12, "{} vs {want}", first.speedup);
            // The cluster's own point on the mix line is the headline.
            let n = e.queue.workers.len();
            assert!((mix[n - 1] / e.throughput.speedup - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn coinciding_lines_are_told_apart() {
        // Over one baseline, lines can coincide (at 1 GbE the link sets
        // the iteration for every device): the mix is drawn last as a plain
        // line, so a device line under it keeps its markers, and a note
        // names the pairs that coincide.
        let (e, r) = example();
        let sp = r
            .chart("workers-speedup")
            .unwrap_or_else(|| panic!("no speedup chart"));
        let last = sp.series.last().unwrap_or_else(|| panic!("no series"));
        assert!(last.name.starts_with("this cluster's mix"), "{}", last.name);
        assert_eq!(last.style, Style::Line);
        assert!(sp.series[..sp.series.len() - 1]
            .iter()
            .all(|s| s.style == Style::LinePoints));
        let pairs = coincident_lines(&e);
        let note = r.notes.iter().find(|n| n.text.contains("coincide"));
        assert_eq!(note.is_some(), !pairs.is_empty(), "{pairs:?}");
        for (a, b) in &pairs {
            let text = &note.unwrap_or_else(|| panic!("no note")).text;
            assert!(text.contains(a.as_str()) && text.contains(b.as_str()), "{text}");
        }
    }

    #[test]
    fn regime_word_said_once() {
        // The example is communication-bound; at 100 Gb/s the GTX 1060
        // makes the link wait (compute-bound).
        let mut fast = Scenario::example();
        fast.hardware.cluster.ps.link_bytes_per_s = Some(100e9 / 8.0);
        let mut bound = Vec::new();
        for s in [Scenario::example(), fast] {
            let e = evaluate_zeng(&s).unwrap_or_else(|e| panic!("{e:?}"));
            let r = build(&s, &e);
            let word = regime_word(&e);
            bound.push(e.regime.communication_bound);
            let note = &r.notes[0];
            assert!(note.text.starts_with(&format!("{word}: ")), "{}", note.text);
            for w in ["communication-bound", "compute-bound"] {
                let n = usize::from(w == word);
                for text in r
                    .notes
                    .iter()
                    .map(|n| &n.text)
                    .chain(r.headline.iter().chain(&r.figures).map(|f| &f.label))
                {
                    assert!(text.matches(w).count() <= n.max(1), "{text}");
                }
                assert_eq!(note.text.matches(w).count(), n, "{}", note.text);
            }
            assert!(
                !e.regime.explanation.contains(word),
                "{}",
                e.regime.explanation
            );
        }
        assert_eq!(bound, [true, false], "both regimes are checked");
    }
}
