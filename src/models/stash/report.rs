//! Stash's evaluation as the generic `Report`: the stalls per
//! configuration (table and stacked bars), the comm model over L and G,
//! and the all-reduce prediction (an extension) with its ranking.

use super::eval::{achieved_words, names, Predictions, StashEvaluation};
use super::predict::{Link, Prediction};
use super::ranking_report::{measured_ranking_notes, measured_ranking_table};
use super::stalls::StallKind;
use super::{comm_time, crossover_layers, ring_time, TABLE_II};
use crate::report::{
    fmt_count, fmt_sig, Axis, Chart, Column, Figure, Marker, Note, Report, Series, Style, Table,
    Unit, Value,
};
use crate::scenario::Scenario;

/// Stacked-bar colours: compute, then each stall.
const COMPUTE: &str = "#4c78a8";
fn colour(k: StallKind) -> &'static str {
    match k {
        StallKind::Interconnect => "#f58518",
        StallKind::Network => "#e45756",
        StallKind::Cpu => "#72b7b2",
        StallKind::Disk => "#b279a2",
    }
}

const EXTENSION: &str = "extension, not the paper's";

pub fn build(s: &Scenario, e: &StashEvaluation) -> Report {
    let mut tables = Vec::new();
    let mut charts = Vec::new();
    if !e.stalls.configs.is_empty() {
        tables.push(stalls_table(e));
        tables.push(runs_table(s, e));
        charts.push(stalls_chart(e));
    }
    if let Some(m) = &e.measured_ranking {
        tables.push(measured_ranking_table(m));
    }
    if let Some(c) = &e.comm {
        tables.push(comm_table(e, c));
        charts.push(comm_chart(c, true));
        charts.push(comm_chart(c, false));
        charts.push(networks_chart(c));
    }
    if let Some(p) = &e.prediction {
        tables.push(configurations_table(p));
        charts.push(configurations_chart(e, p));
    }
    Report {
        model: super::section::ID.into(),
        model_name: "Stash stalls and all-reduce".into(),
        subject: subject(s, e),
        headline: headline(e),
        figures: figures(e),
        tables,
        notes: notes(e),
        charts,
        actions: Vec::new(),
        downloads: Vec::new(),
    }
}

fn subject(s: &Scenario, e: &StashEvaluation) -> String {
    let configs: Vec<&str> = e.stalls.configs.iter().map(|c| c.name.as_str()).collect();
    let runs = if configs.is_empty() {
        "no measured runs".to_string()
    } else {
        format!("runs on {}", configs.join(", "))
    };
    format!(
        "{}: {runs}; {} peaks, {} prices",
        s.workload.network.name,
        e.precision.word(),
        e.pricing.word()
    )
}

/// The largest positive stall share of any configuration.
fn worst_stall(e: &StashEvaluation) -> Option<(String, StallKind, f64)> {
    e.stalls
        .configs
        .iter()
        .flat_map(|c| {
            StallKind::ALL
                .iter()
                .filter_map(move |&k| c.stall(k).map(|v| (c.name.clone(), k, v.fraction)))
        })
        .filter(|(_, _, f)| *f > 0.0)
        .reduce(|a, b| if b.2 > a.2 { b } else { a })
}

pub fn headline(e: &StashEvaluation) -> Vec<Figure> {
    let mut h = Vec::new();
    if let Some((config, kind, f)) = worst_stall(e) {
        h.push(
            Figure::new(
                "worst-stall",
                format!("largest stall ({} on {config})", kind.word()),
                Value::num(f, Unit::Percent),
            )
            .source(kind.definition()),
        );
    }
    if let Some(p) = &e.prediction {
        let r = &p.ranking;
        if let Some(&i) = r.fastest.first() {
            h.push(
                Figure::new(
                    "fastest",
                    "fastest configuration (all-reduce prediction, an extension)",
                    Value::text(names(&p.rows, &r.fastest)),
                )
                .source("whole run"),
            );
            h.push(Figure::new(
                "fastest-time",
                format!("its whole run ({} epochs)", fmt_count(p.setup.epochs)),
                Value::num(p.rows[i].run_s, Unit::Hours),
            ));
        }
        let goals = e.time_goal_s.is_some() || e.budget_usd.is_some();
        match r.cheapest.first() {
            Some(&i) => {
                h.push(Figure::new(
                    "cheapest",
                    if goals {
                        "cheapest configuration meeting the goals"
                    } else {
                        "cheapest configuration"
                    },
                    Value::text(names(&p.rows, &r.cheapest)),
                ));
                h.push(Figure::new(
                    "cheapest-cost",
                    "its whole run",
                    Value::num(p.rows[i].run_usd.unwrap_or(f64::NAN), Unit::Usd),
                ));
            }
            None => h.push(Figure::new(
                "cheapest",
                "cheapest configuration meeting the goals",
                Value::text(if p.rows.iter().any(|r| r.run_usd.is_some()) {
                    "none meets the goals"
                } else {
                    "no prices in the catalog"
                }),
            )),
        }
        if let Some(&i) = r.best_per_sample.first() {
            h.push(Figure::new(
                "per-sample",
                format!(
                    "best cost per 1,000 samples ({})",
                    names(&p.rows, &r.best_per_sample)
                ),
                Value::num(
                    p.rows[i].usd_per_sample.unwrap_or(f64::NAN) * 1000.0,
                    Unit::Usd,
                ),
            ));
        }
    }
    h
}

fn figures(e: &StashEvaluation) -> Vec<Figure> {
    let mut f = Vec::new();
    let w = &e.workload;
    if let Some((v, src)) = &w.flop_per_sample {
        f.push(
            Figure::new(
                "flop-per-sample",
                "F_s: training FLOP per sample",
                Value::num(*v, Unit::Gflop),
            )
            .source(src.clone()),
        );
    }
    if let Some((v, src)) = &w.layers {
        f.push(
            Figure::new("layers", "L: layers with gradients", Value::count(*v)).source(src.clone()),
        );
    }
    if let Some((v, src)) = &w.gradient_bytes {
        f.push(
            Figure::new(
                "gradient-bytes",
                "G: gradient bytes per all-reduce",
                Value::num(*v, Unit::Megabytes),
            )
            .source(src.clone()),
        );
    }
    if let Some(p) = &e.prediction {
        f.push(Figure::new(
            "achieved",
            "a: achieved fraction of the GPU's peak",
            Value::text(achieved_words(p)),
        ));
        f.push(Figure::new(
            "overlap",
            "o: all-reduce hidden behind compute",
            Value::num(p.setup.overlap, Unit::Percent),
        ));
        f.push(Figure::new(
            "ring",
            "all-reduce",
            Value::text(p.setup.ring.word()),
        ));
        f.push(Figure::new(
            "batch",
            if p.setup.batch_per_gpu {
                "batch per GPU"
            } else {
                "global batch B_g"
            },
            Value::count(p.setup.batch),
        ));
        f.push(Figure::new(
            "epoch-samples",
            "samples per epoch",
            Value::count(p.setup.epoch_samples),
        ));
        f.push(Figure::new(
            "epochs",
            "epochs in the whole run",
            Value::count(p.setup.epochs),
        ));
        f.push(Figure::new(
            "configurations",
            "configurations ranked",
            Value::count(p.rows.len() as f64),
        ));
        f.push(Figure::new(
            "meeting-goals",
            "configurations meeting the goals",
            Value::count(p.ranking.meeting_goals as f64),
        ));
    }
    f
}

pub(super) fn opt_num(v: Option<f64>, unit: Unit) -> Value {
    v.map_or(Value::Empty, |v| Value::num(v, unit))
}

fn stalls_table(e: &StashEvaluation) -> Table {
    let mut rows = Vec::new();
    for c in &e.stalls.configs {
        for s in &c.stalls {
            let (secs, pct, of, note) = match &s.value {
                Ok(v) => (
                    Value::num(v.seconds, Unit::Seconds),
                    Value::num(v.fraction, Unit::Percent),
                    Value::num(v.reference_s, Unit::Seconds),
                    s.kind.definition().to_string(),
                ),
                Err(why) => (Value::Empty, Value::Empty, Value::Empty, why.to_string()),
            };
            rows.push(vec![
                Value::text(c.name.clone()),
                Value::text(s.kind.word()),
                secs,
                pct,
                of,
                Value::text(note),
            ]);
        }
    }
    Table {
        key: "stalls".into(),
        title: "Stalls per configuration (Stash Sec. IV-B)".into(),
        columns: vec![
            Column::new("configuration", Unit::None),
            Column::new("stall", Unit::None),
            Column::new("stall", Unit::Seconds),
            Column::new("share", Unit::Percent),
            Column::new("of", Unit::Seconds),
            Column::new("definition, or why none", Unit::None),
        ],
        rows,
        caption: "Times are over the configuration's samples per GPU (runs over other sample counts scaled to them). The network stall is the only one that may be negative; a run that contradicts the method leaves its stall out and says why.".into(),
        omitted_rows: 0,
    }
}

fn runs_table(s: &Scenario, e: &StashEvaluation) -> Table {
    let rows = e
        .stalls
        .configs
        .iter()
        .map(|c| {
            let price = s
                .instance(&c.instance)
                .and_then(|i| i.price(e.pricing))
                .map(|p| p * f64::from(c.machines));
            let mut row = vec![
                Value::text(c.name.clone()),
                Value::count(c.gpus),
                Value::count(c.per_gpu_samples),
            ];
            row.extend((1..=5u8).map(|r| opt_num(c.time(r), Unit::Seconds)));
            row.push(c.reference.as_ref().map_or(Value::Empty, |(n, t)| {
                Value::text(format!("{n}: {} s", fmt_sig(*t)))
            }));
            row.push(opt_num(
                c.time(3).zip(price).map(|(t, p)| t / 3600.0 * p),
                Unit::Usd,
            ));
            row
        })
        .collect();
    Table {
        key: "runs".into(),
        title: "Measured runs, normalised".into(),
        columns: vec![
            Column::new("configuration", Unit::None),
            Column::new("GPUs", Unit::Count),
            Column::new("samples per GPU", Unit::Count),
            Column::new("t1 one GPU", Unit::Seconds),
            Column::new("t2 all GPUs", Unit::Seconds),
            Column::new("t3 cold cache", Unit::Seconds),
            Column::new("t4 warm cache", Unit::Seconds),
            Column::new("t5 machines", Unit::Seconds),
            Column::new("t2_ref", Unit::None),
            Column::new("cost of run (3)", Unit::Usd),
        ],
        rows,
        caption: "(1) synthetic, one GPU; (2) synthetic, all GPUs of one machine; (3) real data, cold cache; (4) real data, warm cache; (5) synthetic, several machines. Cost of run (3): its time at the configuration's price, i.e. the measured cost of the samples it covers.".into(),
        omitted_rows: 0,
    }
}

/// One stacked-bar series as it is filled.
#[derive(Default)]
struct Bars {
    label: String,
    colour: &'static str,
    rows: Vec<String>,
    start: Vec<f64>,
    end: Vec<f64>,
    hover: Vec<String>,
}

/// The stacked bars: compute (run 1), then each stall, per configuration.
fn stalls_chart(e: &StashEvaluation) -> Chart {
    let mut series: Vec<Bars> = Vec::new();
    let mut push = |label: &str, colour: &'static str, row: &str, a: f64, b: f64, hover: String| {
        let i = match series.iter().position(|s| s.label == label) {
            Some(i) => i,
            None => {
                series.push(Bars {
                    label: label.to_string(),
                    colour,
                    ..Bars::default()
                });
                series.len() - 1
            }
        };
        let s = &mut series[i];
        s.rows.push(row.to_string());
        s.start.push(a);
        s.end.push(b);
        s.hover.push(hover);
    };
    for c in &e.stalls.configs {
        let mut at = 0.0;
        if let Some(t1) = c.time(1) {
            push(
                "compute, one GPU (run 1)",
                COMPUTE,
                &c.name,
                0.0,
                t1,
                format!("{}: run (1) {} s", c.name, fmt_sig(t1)),
            );
            at = t1;
        }
        let mut stack = |kind: StallKind, end: Option<f64>, at: &mut f64| {
            if let Some(end) = end.filter(|&end| end > *at) {
                let share = c
                    .stall(kind)
                    .map(|v| format!(", {}% of its reference", fmt_sig(v.fraction * 100.0)))
                    .unwrap_or_default();
                push(
                    kind.word(),
                    colour(kind),
                    &c.name,
                    *at,
                    end,
                    format!(
                        "{}: {} stall {} s{share}",
                        c.name,
                        kind.word(),
                        fmt_sig(end - *at)
                    ),
                );
                *at = end;
            }
        };
        if c.machines == 1 {
            // Up to run (2), when the stall is defined (runs 1 and 2 agree).
            let t2 = c.stall(StallKind::Interconnect).and(c.time(2));
            stack(StallKind::Interconnect, t2, &mut at);
        } else {
            if let Some((_, t2_ref)) = c.reference {
                if c.stall(StallKind::Network)
                    .is_some_and(|v| v.seconds >= 0.0)
                {
                    stack(StallKind::Interconnect, Some(t2_ref), &mut at);
                }
            }
            stack(StallKind::Network, c.synthetic_all(), &mut at);
        }
        stack(StallKind::Cpu, c.time(4), &mut at);
        stack(StallKind::Disk, c.time(3), &mut at);
    }
    Chart {
        key: "stalls".into(),
        title: "Where the time goes: compute, then each stall".into(),
        x: Axis::new("time over the samples per GPU", Unit::Seconds).from_zero(),
        y: Axis::new("configuration", Unit::None),
        y2: None,
        series: series
            .into_iter()
            .map(|b| {
                Series::segments(b.label, b.rows, b.start, b.end)
                    .color(b.colour)
                    .hover(b.hover)
            })
            .collect(),
        markers: Vec::new(),
    }
}

fn link_words(l: &Link) -> String {
    format!(
        "{} (τ {} µs, {} GB/s)",
        l.kind.word(),
        fmt_sig(l.latency_s * 1e6),
        fmt_sig(l.bytes_per_s / 1e9)
    )
}

fn comm_table(e: &StashEvaluation, c: &super::eval::CommView) -> Table {
    let gpus = e
        .prediction
        .as_ref()
        .and_then(|p| {
            p.rows
                .iter()
                .find(|r| r.instance == c.instance && r.machines == 1)
        })
        .map_or(1, |r| r.gpus);
    let rows = c
        .links
        .iter()
        .map(|l| {
            let t = comm_time(l.latency_s, c.gradient_bytes, c.layers, l.bytes_per_s);
            let members = if l.kind == super::predict::LinkKind::Network {
                2
            } else {
                gpus
            };
            let ring = ring_time(
                l.latency_s,
                c.gradient_bytes,
                c.layers,
                l.bytes_per_s,
                members,
            );
            vec![
                Value::text(link_words(l)),
                Value::num(t.latency_s, Unit::Seconds),
                Value::num(t.bandwidth_s, Unit::Seconds),
                Value::num(t.total_s(), Unit::Seconds),
                Value::text(t.dominated_by()),
                opt_num(
                    crossover_layers(l.latency_s, c.gradient_bytes, l.bytes_per_s),
                    Unit::Count,
                ),
                Value::text(if members > 1 {
                    format!("{} s over {members}", fmt_sig(ring.total_s()))
                } else {
                    "one GPU: none".into()
                }),
            ]
        })
        .collect();
    Table {
        key: "comm".into(),
        title: format!(
            "Communication per iteration on {}: T = (τ + G/(L·B))·L (Sec. VI-A)",
            c.instance
        ),
        columns: vec![
            Column::new("link", Unit::None),
            Column::new("latency part τ·L", Unit::Seconds),
            Column::new("bandwidth part G/B", Unit::Seconds),
            Column::new("T", Unit::Seconds),
            Column::new("dominated by", Unit::None),
            Column::new("L where the parts are equal", Unit::Count),
            Column::new(format!("ring 2(n−1)/n·G ({EXTENSION})"), Unit::None),
        ],
        rows,
        caption: format!(
            "L = {}, G = {} MB. More layers than the crossover: latency-bound (deep networks on fast links, the paper's ResNet); fewer: bandwidth-bound (large networks on slow links, the paper's VGG). τ is typed (the paper gives none).",
            fmt_count(c.layers),
            fmt_sig(c.gradient_bytes / 1e6)
        ),
        omitted_rows: 0,
    }
}

/// 41 log-spaced points from `lo` to `hi`.
fn log_space(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.ln(), hi.ln());
    (0..=40)
        .map(|i| (a + (b - a) * f64::from(i) / 40.0).exp())
        .collect()
}

/// T over L at the workload's G (`over_layers`), or over G at its L.
fn comm_chart(c: &super::eval::CommView, over_layers: bool) -> Chart {
    let (xs, mark, x_axis, key, title) = if over_layers {
        (
            log_space(1.0, (c.layers * 10.0).max(1000.0)),
            c.layers,
            Axis::new("layers L", Unit::Count).log(),
            "comm-layers",
            format!(
                "Communication vs layers at G = {} MB",
                fmt_sig(c.gradient_bytes / 1e6)
            ),
        )
    } else {
        let g = c.gradient_bytes;
        (
            log_space((g / 100.0).max(1e3), g * 100.0),
            g,
            Axis::new("gradient bytes G", Unit::Megabytes).log(),
            "comm-bytes",
            format!(
                "Communication vs gradient bytes at L = {}",
                fmt_count(c.layers)
            ),
        )
    };
    let series = c
        .links
        .iter()
        .map(|l| {
            let y = xs
                .iter()
                .map(|&x| {
                    let (layers, bytes) = if over_layers {
                        (x, c.gradient_bytes)
                    } else {
                        (c.layers, x)
                    };
                    comm_time(l.latency_s, bytes, layers, l.bytes_per_s).total_s()
                })
                .collect();
            Series::xy(link_words(l), Style::Line, xs.clone(), y)
        })
        .collect();
    Chart {
        key: key.into(),
        title,
        x: x_axis,
        y: Axis::new("T per iteration", Unit::Seconds).log(),
        y2: None,
        series,
        markers: vec![Marker::Vertical {
            x: mark,
            label: "this workload".into(),
        }],
    }
}

/// Sec. VI-A's explanation as a chart: Table II's networks, and this
/// workload, on each link of the instance (points at their `L`, with `T`).
fn networks_chart(c: &super::eval::CommView) -> Chart {
    let mut nets: Vec<(String, f64, f64)> = TABLE_II
        .iter()
        .map(|&(n, l, g)| (format!("{n} (Table II)"), l, g))
        .collect();
    nets.push(("this workload".into(), c.layers, c.gradient_bytes));
    let series = c
        .links
        .iter()
        .map(|l| {
            let t: Vec<f64> = nets
                .iter()
                .map(|&(_, layers, g)| comm_time(l.latency_s, g, layers, l.bytes_per_s).total_s())
                .collect();
            let hover = nets
                .iter()
                .zip(&t)
                .map(|((n, layers, g), t)| {
                    format!(
                        "{n}: L = {}, G = {} MB, T = {} s on {}",
                        fmt_count(*layers),
                        fmt_sig(g / 1e6),
                        fmt_sig(*t),
                        l.kind.word()
                    )
                })
                .collect();
            Series::xy(
                link_words(l),
                Style::Points,
                nets.iter().map(|n| n.1).collect(),
                t,
            )
            .hover(hover)
        })
        .collect();
    Chart {
        key: "comm-networks".into(),
        title: "Deep or large: Table II's networks on these links (Sec. VI-A)".into(),
        x: Axis::new("layers L", Unit::Count).log(),
        y: Axis::new("T per iteration", Unit::Seconds).log(),
        y2: None,
        series,
        markers: Vec::new(),
    }
}

fn ranks(p: &Predictions, i: usize) -> String {
    let r = &p.ranking;
    let mut w = Vec::new();
    if r.fastest.contains(&i) {
        w.push("fastest");
    }
    if r.cheapest.contains(&i) {
        w.push("cheapest");
    }
    if r.best_per_sample.contains(&i) {
        w.push("best per sample");
    }
    w.join(", ")
}

fn configurations_table(p: &Predictions) -> Table {
    let order = crate::order::positions(p.rows.len(), &|a, b| {
        let (x, y) = (&p.rows[a], &p.rows[b]);
        let cost = |r: &Prediction| r.run_usd.unwrap_or(f64::INFINITY);
        cost(x)
            .total_cmp(&cost(y))
            .then(x.run_s.total_cmp(&y.run_s))
    });
    let rows = order
        .iter()
        .map(|&i| {
            let r = &p.rows[i];
            vec![
                Value::text(r.name.clone()),
                Value::count(r.gpus),
                Value::num(r.per_gpu_batch, Unit::None),
                Value::num(r.compute_s, Unit::Seconds),
                Value::num(r.comm_s, Unit::Seconds),
                Value::num(r.iteration_s, Unit::Seconds),
                Value::num(r.epoch_s, Unit::Hours),
                Value::num(r.run_s, Unit::Hours),
                opt_num(r.price_per_hour, Unit::UsdPerHour),
                opt_num(r.epoch_usd, Unit::Usd),
                opt_num(r.run_usd, Unit::Usd),
                opt_num(r.usd_per_sample.map(|c| c * 1000.0), Unit::Usd),
                Value::text(ranks(p, i)),
            ]
        })
        .collect();
    Table {
        key: "configurations".into(),
        title: format!("Every configuration, cheapest first (all-reduce prediction, {EXTENSION})"),
        columns: vec![
            Column::new("configuration", Unit::None),
            Column::new("GPUs", Unit::Count),
            Column::new("batch per GPU", Unit::None),
            Column::new("compute per iteration", Unit::Seconds),
            Column::new("all-reduce per iteration", Unit::Seconds),
            Column::new("iteration", Unit::Seconds),
            Column::new("epoch", Unit::Hours),
            Column::new("whole run", Unit::Hours),
            Column::new("price", Unit::UsdPerHour),
            Column::new("per epoch", Unit::Usd),
            Column::new("whole run", Unit::Usd),
            Column::new("per 1,000 samples", Unit::Usd),
            Column::new("rank", Unit::None),
        ],
        rows,
        caption: format!(
            "t = t_c + (1 − o)·t_comm; t_c = (B_g/n)·F_s/(peak·a), a = {}; t_comm: Stash's τ·L plus a ring's 2(n−1)/n·G over each link level ({}). Ties are exact: every tied configuration is named.",
            achieved_words(p),
            p.setup.ring.word()
        ),
        omitted_rows: 0,
    }
}

fn configurations_chart(e: &StashEvaluation, p: &Predictions) -> Chart {
    let priced: Vec<&Prediction> = p.rows.iter().filter(|r| r.run_usd.is_some()).collect();
    let x: Vec<f64> = priced.iter().map(|r| r.run_s).collect();
    let y: Vec<f64> = priced
        .iter()
        .map(|r| r.run_usd.unwrap_or(f64::NAN))
        .collect();
    let hover = priced
        .iter()
        .map(|r| {
            format!(
                "{}: {} h, ${}",
                r.name,
                fmt_sig(r.run_s / 3600.0),
                fmt_sig(r.run_usd.unwrap_or(f64::NAN))
            )
        })
        .collect();
    let mut series = vec![Series::xy("configurations", Style::Points, x, y).hover(hover)];
    let picks: Vec<&Prediction> = p
        .ranking
        .cheapest
        .iter()
        .map(|&i| &p.rows[i])
        .filter(|r| r.run_usd.is_some())
        .collect();
    if !picks.is_empty() {
        series.push(
            Series::xy(
                "cheapest",
                Style::Highlight,
                picks.iter().map(|r| r.run_s).collect(),
                picks
                    .iter()
                    .map(|r| r.run_usd.unwrap_or(f64::NAN))
                    .collect(),
            )
            .hover(picks.iter().map(|r| r.name.clone()).collect()),
        );
    }
    let mut markers = Vec::new();
    if let Some(t) = e.time_goal_s {
        markers.push(Marker::Vertical {
            x: t,
            label: "time goal".into(),
        });
    }
    if let Some(b) = e.budget_usd {
        markers.push(Marker::Horizontal {
            y: b,
            label: "budget".into(),
        });
    }
    Chart {
        key: "configurations".into(),
        title: "Whole-run time and cost per configuration (extension)".into(),
        x: Axis::new("whole run", Unit::Hours).log(),
        y: Axis::new("cost of the whole run", Unit::Usd).log(),
        y2: None,
        series,
        markers,
    }
}

fn notes(e: &StashEvaluation) -> Vec<Note> {
    let mut n = Vec::new();
    for m in &e.missing {
        n.push(Note::info(format!("Not shown without {}", m.message)).at(m.field.clone()));
    }
    for r in &e.stalls.notes {
        let note = if r.warning {
            Note::warning(r.text.clone())
        } else {
            Note::info(r.text.clone())
        };
        n.push(note.at(r.field.clone()));
    }
    if let Some(m) = &e.measured_ranking {
        n.extend(measured_ranking_notes(m));
    }
    if e.comm.is_some() || e.prediction.is_some() {
        let s = &e.settings;
        n.push(
            Note::info(format!(
                "τ per layer is this product's assumption, not the paper's (it gives none): NVLink {} µs, PCIe {} µs, network {} µs; set yours from a measured interconnect stall.",
                fmt_sig(s.latency_nvlink_s * 1e6),
                fmt_sig(s.latency_pcie_s * 1e6),
                fmt_sig(s.latency_network_s * 1e6)
            ))
            .at(format!("models.{}.latency_nvlink_s", super::section::ID)),
        );
    }
    if let Some(p) = &e.prediction {
        n.push(Note::info(format!(
            "The all-reduce prediction is this product's extension of Stash's comm model (the paper measures, it does not predict): compute from F_s and the GPU's {} peak × a, plus a ring all-reduce per link level, {} of it hidden behind compute.",
            e.precision.word(),
            if p.setup.overlap == 0.0 { "none (o = 0: set the overlap for frameworks that overlap, e.g. PyTorch DDP's buckets)".to_string() } else { format!("{}%", fmt_sig(p.setup.overlap * 100.0)) }
        )));
        if p.achieved > 1.0 {
            n.push(
                Note::warning(format!(
                    "The calibrated achieved fraction {} is above the peak: check F_s, the precision or the measured iteration.",
                    fmt_sig(p.achieved)
                ))
                .at(format!("models.{}.calibrate.iteration_s", super::section::ID)),
            );
        }
        for why in &p.skipped {
            n.push(Note::info(format!("Not ranked: {why}.")).at("hardware.catalog"));
        }
        if p.ranking.cheapest.is_empty() && (e.time_goal_s.is_some() || e.budget_usd.is_some()) {
            n.push(Note::warning("No configuration meets the goals: the fastest is named above; relax the time goal or budget, or raise the machines per configuration.").at("goals"));
        }
        let ties = [
            &p.ranking.fastest,
            &p.ranking.cheapest,
            &p.ranking.best_per_sample,
        ];
        if ties.iter().any(|t| t.len() > 1) {
            n.push(Note::info("Exact ties are named together: with little communication and prices proportional to GPUs, cost per epoch does not depend on the GPU count within a family (Stash Sec. V)."));
        }
    }
    n
}
