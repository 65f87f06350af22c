//! Li et al.'s evaluation as the generic `Report`: throughput against W
//! with its spread over seeds, the link bound and the coarse estimates, the
//! busy shares of the PS links, and one synthetic timeline.

use super::eval::LiEvaluation;
use super::profile::Resource;
use super::sim::{Lane, Segment};
use crate::report::{
    fmt_count, fmt_sig, Axis, Chart, Column, Download, Figure, Marker, Note, Report, Series, Style,
    Table, Unit, Value,
};

pub fn build(e: &LiEvaluation) -> Report {
    Report {
        model: super::section::ID.into(),
        model_name: "Li et al. trace simulation".into(),
        subject: format!(
            "{}: W = 1 to {}, {} PS at {} Gb/s each, {} steps per worker ({} warm-up), {} seeds",
            e.profile.name,
            e.settings.max_workers,
            e.servers,
            fmt_sig(e.bytes_per_s * 8.0 / 1e9),
            e.settings.steps,
            e.settings.warmup,
            e.settings.seeds.max(1)
        ),
        headline: headline(e),
        figures: figures(e),
        tables: vec![throughput_table(e)],
        notes: notes(e),
        charts: vec![throughput_chart(e), timeline_chart(e)],
        actions: Vec::new(),
        downloads: vec![Download {
            key: "perfetto".into(),
            label: format!(
                "Synthetic trace of {} workers for Perfetto (Chrome trace JSON)",
                e.timeline_workers
            ),
            filename: format!("li-trace-{}-workers.json", e.timeline_workers),
            mime: "application/json".into(),
            text: super::trace::chrome_trace(&e.profile, &e.timeline),
        }],
    }
}

/// The link bound of a profile that moves no bytes.
pub const NO_LINK_BOUND: &str = "none (no bytes cross a link)";

/// Cynthia's estimate where it is a number: with neither worker compute
/// nor downlink bytes its denominator is 0.
fn cynthia(p: &super::eval::Point) -> Option<f64> {
    Some(p.cynthia).filter(|v| v.is_finite())
}

/// Lin et al.'s estimate where it was measured.
fn lin(p: &super::eval::Point) -> Option<f64> {
    p.lin.filter(|v| v.is_finite())
}

/// The headline figures (also a band sample's, `Model::headline`).
pub fn headline(e: &LiEvaluation) -> Vec<Figure> {
    let mut h = Vec::new();
    if let Some(best) = e
        .points
        .iter()
        .map(|p| &p.sim)
        .max_by(|a, b| a.mean.total_cmp(&b.mean))
    {
        h.push(
            Figure::new(
                "throughput-max",
                format!("highest throughput (W = {})", best.workers),
                Value::num(best.mean, Unit::SamplesPerS),
            )
            .source(format!("mean of {} seeds", e.settings.seeds.max(1))),
        );
    }
    h.push(
        Figure::new(
            "saturation",
            "saturates at W (within 5% of the highest)",
            Value::count(e.saturation),
        )
        .source("Algorithm 3.1"),
    );
    h.push(
        Figure::new(
            "link-bound",
            "link bound batch · M·B / bytes per step",
            e.link_bound.map_or_else(
                || Value::text(NO_LINK_BOUND),
                |b| Value::num(b, Unit::SamplesPerS),
            ),
        )
        .source("busier direction"),
    );
    if let Some(one) = e.points.first() {
        h.push(Figure::new(
            "one-worker",
            "one worker",
            Value::num(one.sim.mean, Unit::SamplesPerS),
        ));
    }
    h
}

fn figures(e: &LiEvaluation) -> Vec<Figure> {
    let p = &e.profile;
    let set = &e.settings;
    let mut f = vec![
        Figure::new("profile", "profile", Value::text(p.name.clone())),
        Figure::new("ops", "ops per step", Value::count(p.ops.len() as f64)),
        Figure::new(
            "profiled-steps",
            "profiled steps",
            Value::count(p.steps.len() as f64),
        ),
        Figure::new("batch", "batch per worker", Value::count(p.batch)),
        Figure::new(
            "down-bytes",
            "downlink bytes per step",
            Value::num(p.mean_bytes(Resource::Downlink), Unit::Megabytes),
        ),
        Figure::new(
            "up-bytes",
            "uplink bytes per step",
            Value::num(p.mean_bytes(Resource::Uplink), Unit::Megabytes),
        ),
        Figure::new(
            "bandwidth",
            "B: each PS link, per direction",
            Value::num(e.bytes_per_s, Unit::GbitPerS),
        ),
        Figure::new("servers", "M: parameter servers", Value::count(e.servers)),
        Figure::new(
            "t-p",
            "T_p: worker compute per step",
            Value::num(e.t_p, Unit::Seconds),
        ),
        Figure::new(
            "t-c",
            "T_C: downlink bytes per step at B",
            Value::num(e.t_c, Unit::Seconds),
        ),
        Figure::new(
            "u-1",
            "U_1: downlink busy with one worker",
            Value::num(e.u_1, Unit::Percent),
        ),
        Figure::new(
            "flow",
            "streams",
            Value::text(if set.flow_control {
                format!(
                    "HTTP/2 flow control, window {} MB",
                    fmt_sig(set.window_bytes / 1e6)
                )
            } else {
                match set.ordered_streams {
                    super::section::OrderedStreams::Downlinks => format!(
                        "flow control off, whole streams: downlinks {}, the others first come, first served",
                        set.order.word()
                    ),
                    super::section::OrderedStreams::All => format!(
                        "flow control off, whole streams, every stream {}",
                        set.order.word()
                    ),
                }
            }),
        ),
        Figure::new(
            "parse",
            "parse overhead α·size + β",
            Value::text(format!(
                "α {} ns/B, β {} ms, {}",
                fmt_sig(set.alpha_s_per_byte * 1e9),
                fmt_sig(set.beta_s * 1e3),
                if set.parse_occupies {
                    "on the receiver's compute"
                } else {
                    "a pure delay"
                }
            )),
        ),
    ];
    if let Some(lin) = &e.lin {
        let ph = &lin.phases;
        for (key, label, v) in [
            ("lin-down", "Lin et al.: downlink phase", ph.downlink),
            ("lin-compute", "Lin et al.: computation phase", ph.compute),
            ("lin-up", "Lin et al.: uplink phase", ph.uplink),
            ("lin-rest", "Lin et al.: rest of the step", ph.rest),
        ] {
            f.push(
                Figure::new(key, label, Value::num(v, Unit::Seconds))
                    .source(format!("one worker, mean of {} steps", ph.steps)),
            );
        }
    }
    f
}

fn throughput_table(e: &LiEvaluation) -> Table {
    Table {
        key: "throughput".into(),
        title: "Throughput per number of workers (Algorithm 3.1)".into(),
        columns: vec![
            Column::new("workers W", Unit::Count),
            Column::new("throughput, mean", Unit::SamplesPerS),
            Column::new("least of seeds", Unit::SamplesPerS),
            Column::new("most of seeds", Unit::SamplesPerS),
            Column::new("Cynthia's estimate", Unit::SamplesPerS),
            Column::new("Lin et al.'s estimate", Unit::SamplesPerS),
            Column::new("downlink busy in the window", Unit::Percent),
            Column::new("uplink busy in the window", Unit::Percent),
        ],
        rows: e
            .points
            .iter()
            .map(|p| {
                vec![
                    Value::count(p.sim.workers),
                    Value::num(p.sim.mean, Unit::SamplesPerS),
                    Value::num(p.sim.min, Unit::SamplesPerS),
                    Value::num(p.sim.max, Unit::SamplesPerS),
                    cynthia(p).map_or(Value::text("none (no compute or downlink)"), |v| {
                        Value::num(v, Unit::SamplesPerS)
                    }),
                    lin(p).map_or(Value::text("not measured"), |v| {
                        Value::num(v, Unit::SamplesPerS)
                    }),
                    Value::num(p.sim.down_busy, Unit::Percent),
                    Value::num(p.sim.up_busy, Unit::Percent),
                ]
            })
            .collect(),
        caption: format!(
            "Throughput and link busy shares over one window, {} to the end of the first worker's last of {} steps: samples/s of the steps that end in it, and the share of it each PS link direction carried a chunk (mean over the PS). Cynthia's estimate WK/(T_p·max(1, W·U_1) + 2T_C) and Lin et al.'s queueing estimate are the coarse models the paper compares against.",
            if e.settings.warmup == 0 {
                "from the start".to_string()
            } else {
                format!(
                    "from the end of every worker's {} warm-up steps",
                    e.settings.warmup
                )
            },
            e.settings.steps
        ),
        omitted_rows: 0,
    }
}

fn throughput_chart(e: &LiEvaluation) -> Chart {
    let w: Vec<f64> = e.points.iter().map(|p| f64::from(p.sim.workers)).collect();
    let col = |f: fn(&super::eval::Point) -> f64| e.points.iter().map(f).collect::<Vec<f64>>();
    let mut markers = vec![Marker::Vertical {
        x: f64::from(e.saturation),
        label: format!("saturates at W = {}", e.saturation),
    }];
    if let Some(y) = e.link_bound {
        markers.push(Marker::Horizontal {
            y,
            label: "link bound".into(),
        });
    }
    let mut series = vec![
        Series::xy(
            "simulated (mean of seeds)",
            Style::LinePoints,
            w.clone(),
            col(|p| p.sim.mean),
        ),
        Series::xy(
            "least of seeds",
            Style::Points,
            w.clone(),
            col(|p| p.sim.min),
        )
        .hollow(vec![true; w.len()]),
        Series::xy(
            "most of seeds",
            Style::Points,
            w.clone(),
            col(|p| p.sim.max),
        )
        .hollow(vec![true; w.len()]),
    ];
    // The estimates at the W where they are numbers.
    for (name, at) in [
        (
            "Cynthia's estimate",
            cynthia as fn(&super::eval::Point) -> Option<f64>,
        ),
        ("Lin et al.'s estimate", lin),
    ] {
        let (x, y): (Vec<f64>, Vec<f64>) = e
            .points
            .iter()
            .filter_map(|p| Some((f64::from(p.sim.workers), at(p)?)))
            .unzip();
        if !x.is_empty() {
            series.push(Series::xy(name, Style::Line, x, y));
        }
    }
    Chart {
        key: "throughput".into(),
        title: "Throughput vs workers: simulation, its spread, the coarse estimates".into(),
        x: Axis::new("workers W", Unit::Count),
        y: Axis::new("throughput", Unit::SamplesPerS).from_zero(),
        y2: None,
        series,
        markers,
    }
}

fn lane_row(worker: u32, lane: Lane) -> (String, &'static str) {
    match lane {
        Lane::Down(i) => (format!("w{} downlink PS{}", worker + 1, i + 1), "downlink"),
        Lane::Up(i) => (format!("w{} uplink PS{}", worker + 1, i + 1), "uplink"),
        Lane::Worker | Lane::Delay => (format!("w{} worker", worker + 1), "compute"),
        Lane::Ps(i) => (format!("w{} PS{} update", worker + 1, i + 1), "PS update"),
    }
}

/// Bars per row the timeline draws at most: ops closer than `span / this`
/// on one row are drawn as one bar (a 1,500-op step would otherwise be
/// thousands of SVG shapes); the Perfetto file keeps every op. 120: few
/// enough bars for plotly to draw an Inception-sized timeline in short
/// tasks, and a bar still ~9 px wide at 1280 px.
const BARS_PER_ROW: f64 = 120.0;

/// One drawn bar: `count` consecutive ops of one row and kind.
struct Bar<'a> {
    row: String,
    kind: &'static str,
    step: u32,
    start: f64,
    end: f64,
    count: usize,
    first: &'a str,
    last: &'a str,
}

fn bars(e: &LiEvaluation) -> Vec<Bar<'_>> {
    // Each segment's row and kind worked out once, not per comparison.
    let mut segments: Vec<(String, &'static str, &Segment)> = e
        .timeline
        .segments
        .iter()
        .map(|g| {
            let (row, kind) = lane_row(g.worker, g.lane);
            (row, if g.parse { "parse" } else { kind }, g)
        })
        .collect();
    // Worker by worker, so the rows read w1, w2, … in each kind.
    crate::order::sort_by(&mut segments, |(xr, xk, x), (yr, yk, y)| {
        x.worker
            .cmp(&y.worker)
            .then(xr.cmp(yr))
            .then(xk.cmp(yk))
            .then(x.start.total_cmp(&y.start))
    });
    let span = e.timeline.end_s.max(f64::MIN_POSITIVE);
    let gap = span / BARS_PER_ROW;
    let name = |g: &Segment| {
        e.profile
            .ops
            .get(g.op as usize)
            .map_or("", |o| o.name.as_str())
    };
    let mut out: Vec<Bar> = Vec::new();
    for (row, kind, g) in segments {
        if let Some(b) = out.last_mut() {
            if b.row == row && b.kind == kind && g.start - b.end < gap && g.end - b.start < gap {
                b.end = b.end.max(g.end);
                b.count += 1;
                b.last = name(g);
                continue;
            }
        }
        out.push(Bar {
            row,
            kind,
            step: g.step,
            start: g.start,
            end: g.end,
            count: 1,
            first: name(g),
            last: name(g),
        });
    }
    out
}

fn timeline_chart(e: &LiEvaluation) -> Chart {
    const KINDS: [(&str, &str); 5] = [
        ("downlink", "#4c78a8"),
        ("compute", "#e45756"),
        ("parse", "#b279a2"),
        ("uplink", "#54a24b"),
        ("PS update", "#9d755d"),
    ];
    let all = bars(e);
    let merged = all.iter().any(|b| b.count > 1);
    let series = KINDS
        .iter()
        .map(|&(kind, colour)| {
            let mut rows = Vec::new();
            let (mut a, mut b, mut hover) = (Vec::new(), Vec::new(), Vec::new());
            for bar in all.iter().filter(|b| b.kind == kind) {
                let what = if bar.count == 1 {
                    bar.first.to_string()
                } else {
                    format!("{} ops, {} … {}", bar.count, bar.first, bar.last)
                };
                let parse = if kind == "parse" { "parse of " } else { "" };
                hover.push(format!(
                    "{}, step {}: {parse}{what}, {} s",
                    bar.row,
                    bar.step,
                    fmt_sig(bar.end - bar.start)
                ));
                rows.push(bar.row.clone());
                a.push(bar.start);
                b.push(bar.end);
            }
            Series::segments(kind, rows, a, b)
                .color(colour)
                .hover(hover)
        })
        .collect();
    Chart {
        key: "timeline".into(),
        title: format!(
            "Synthetic trace: the first steps of {} workers{}",
            fmt_count(f64::from(e.timeline_workers)),
            if merged {
                ", nearby ops as one bar"
            } else {
                ""
            }
        ),
        x: Axis::new("time since the start", Unit::Seconds).from_zero(),
        y: Axis::new("worker and resource", Unit::None),
        y2: None,
        series,
        markers: Vec::new(),
    }
}

fn notes(e: &LiEvaluation) -> Vec<Note> {
    let mut n = vec![Note::info(
        "Each worker samples its steps from the profiled ones (seeded); all start at t = 0, share each PS link direction equally while they send on it, and compute on their own resources. Near saturation the result depends on the sampled path: the least and most of the seeds are drawn beside the mean.",
    )];
    if e.generated {
        n.push(
            Note::info(format!(
                "The profile is generated from the layer table (not measured): {}, forward and backward (2 × forward) compute at {}% of the worker's peak, and the PS update at {} GB/s; compute varies by ±{}% between the {} profiled steps.",
                match e.settings.generate.as_ref().map(|g| g.granularity) {
                    Some(super::section::Granularity::Op) => format!(
                        "per op and variable ({} ops: weights, biases or BatchNorm's β and moving statistics as separate tensors of 4 B values; BatchNorm and ReLU timed by memory bandwidth)",
                        e.profile.ops.len()
                    ),
                    _ => "per layer a downlink and an uplink of its weights and biases (4 B each)".to_string(),
                },
                e.settings.generate.as_ref().map_or(0.0, |g| g.achieved * 100.0),
                e.settings.generate.as_ref().map_or(0.0, |g| g.ps_bytes_per_s / 1e9),
                e.settings.generate.as_ref().map_or(0.0, |g| g.jitter * 100.0),
                e.profile.steps.len()
            ))
            .at(format!("models.{}.generate", super::section::ID)),
        );
    }
    if e.servers > 1 {
        n.push(Note::info(format!(
            "With {} PS, variables are placed greedily by bytes in creation order, and the links are shared max-min fairly (each worker's own link is the other constraint): this product's generalisation of the paper's two-PS rule.",
            e.servers
        )).at("hardware.cluster.ps.count"));
    }
    if bars(e).iter().any(|b| b.count > 1) {
        n.push(Note::info(format!(
            "The synthetic trace draws ops less than 1/{BARS_PER_ROW} of its span apart on one row as one bar (its hover names the first and last); the Perfetto download has every op."
        )));
    }
    n.push(lin_note(e));
    n
}

fn lin_note(e: &LiEvaluation) -> Note {
    let Some(lin) = &e.lin else {
        return Note::info(
            "Lin et al.'s queueing estimate is not drawn: no one-worker step could be measured for its phases (one step is over the timeline's segment limit, or takes no time).",
        );
    };
    let ph = &lin.phases;
    let ms = |s: f64| {
        if s <= 0.0 {
            "0".to_string()
        } else if s < 1e-5 {
            "under 0.01".to_string()
        } else {
            fmt_sig(s * 1e3)
        }
    };
    let bound = lin.bound(f64::from(e.profile.batch));
    let tends = match e.link_bound {
        Some(link) if bound.is_finite() => format!(
            " It tends to {} samples/s, where overlaps stretch the link phases past bytes / B (link bound {} samples/s).",
            fmt_sig(bound),
            fmt_sig(link)
        ),
        _ => String::new(),
    };
    let overlap = if ph.overlap > 0.0 {
        format!(
            "; the uplink starts {} ms before the downlink ends, so the phases add up to more than the step",
            ms(ph.overlap)
        )
    } else {
        String::new()
    };
    Note::info(format!(
        "Lin et al.'s queueing estimate, in this product's reading (the paper gives its inputs, not its equations): one worker's step cut into phases as Lin et al. read packets, downlink {} ms, computation {} ms (from the last downlink's end to the first uplink's start), uplink {} ms, rest {} ms (mean of {} steps{overlap}); W workers go through them one after another, each PS link direction a queue and the rest each worker's own, solved by mean value analysis.{tends}",
        ms(ph.downlink),
        ms(ph.compute),
        ms(ph.uplink),
        ms(ph.rest),
        ph.steps,
    ))
}
