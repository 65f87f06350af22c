//! A `Chart` as a plotly.js figure (`{"data": [...], "layout": {...}}`),
//! built as plain JSON so this module compiles natively and stays testable
//! without a browser. Values arrive in SI units and are scaled here, once,
//! by each axis's `Unit`.

use serde_json::{json, Map, Value};

use super::{Axis, Chart, Marker, Series, SeriesData, Style};

/// Plotly reads a subset of HTML in every label; names and hover text come
/// from user files, so they are escaped. Quotes use numeric entities because
/// plotly only decodes a few named ones (`&amp;`, `&lt;`, `&gt;`).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `s` as `escape` had it: the plain text of an escaped string.
pub fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

const HIGHLIGHT: &str = "#d62728";
const GOAL: &str = "#2ca02c";
const REFERENCE: &str = "#555";
const TRANSPARENT: &str = "rgba(0,0,0,0)";

/// Plotly's default trace colours, in order: a band takes its curve's.
const COLORWAY: [(u8, u8, u8); 10] = [
    (0x1f, 0x77, 0xb4),
    (0xff, 0x7f, 0x0e),
    (0x2c, 0xa0, 0x2c),
    (0xd6, 0x27, 0x28),
    (0x94, 0x67, 0xbd),
    (0x8c, 0x56, 0x4b),
    (0xe3, 0x77, 0xc2),
    (0x7f, 0x7f, 0x7f),
    (0xbc, 0xbd, 0x22),
    (0x17, 0xbe, 0xcf),
];
/// The legend entry of every band (one entry toggles them all).
pub const BAND_LEGEND: &str = "10th-90th percentile";
const BAND_GROUP: &str = "band";
/// A band's fill opacity: the curve stays readable through it.
const BAND_ALPHA: f64 = 0.2;

/// A number for plotly: JSON has no NaN or infinity, so those become null,
/// which plotly draws as a gap.
fn num(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::Null
    }
}

fn nums(v: impl IntoIterator<Item = f64>) -> Value {
    Value::Array(v.into_iter().map(num).collect())
}

/// An annotation's position on a data axis: plotly wants log10 of the value
/// on log axes (shapes, unlike annotations, take data values).
fn annotation_pos(axis: &Axis, v: f64) -> Option<f64> {
    let p = if axis.log { v.log10() } else { v };
    p.is_finite().then_some(p)
}

/// A shape position on a data axis, if it can be drawn there.
fn shape_pos(axis: &Axis, v: f64) -> Option<f64> {
    (v.is_finite() && (!axis.log || v > 0.0)).then_some(v)
}

fn axis_layout(a: &Axis) -> Value {
    // Margins are set by `figure`, not measured by plotly: its automargin
    // draws every chart twice (half of a drawing's time).
    let mut o = json!({
        "title": { "text": escape(&a.title()) },
        "automargin": false,
    });
    if a.log {
        o["type"] = json!("log");
    }
    if a.from_zero {
        o["rangemode"] = json!("tozero");
    }
    o
}

fn hover(s: &Series, trace: &mut Map<String, Value>) {
    if s.hover.is_empty() {
        return;
    }
    let text: Vec<String> = s
        .hover
        .iter()
        .map(|h| escape(h).replace('\n', "<br>"))
        .collect();
    trace.insert("text".into(), json!(text));
    trace.insert("hoverinfo".into(), json!("text"));
}

/// Most points a chart draws with markers: plotly builds one SVG element per
/// marker, and a few hundred of them make one drawing a long main-thread
/// task. Above it, line-and-point series draw as lines (hover still tells
/// each point's story).
pub const MARKER_BUDGET: usize = 300;

fn xy_trace(c: &Chart, s: &Series, x: &[f64], y: &[f64], lines_only: bool) -> Map<String, Value> {
    let on_y2 = s.y2 && c.y2.is_some();
    let y_unit = match (&c.y2, on_y2) {
        (Some(a), true) => a.unit,
        _ => c.y.unit,
    };
    let mut t = Map::new();
    t.insert("name".into(), json!(escape(&s.name)));
    t.insert("x".into(), nums(x.iter().map(|&v| c.x.unit.scale(v))));
    t.insert("y".into(), nums(y.iter().map(|&v| y_unit.scale(v))));
    if on_y2 {
        t.insert("yaxis".into(), json!("y2"));
    }
    let (mode, open, filled) = match s.style {
        Style::Bars => {
            bar_style(s, &mut t);
            return t;
        }
        Style::Line => ("lines", "circle-open", "circle"),
        Style::Points => ("markers", "circle-open", "circle"),
        Style::LinePoints if lines_only => ("lines", "circle-open", "circle"),
        Style::LinePoints => ("lines+markers", "circle-open", "circle"),
        Style::Highlight => ("markers", "star-open", "star"),
    };
    t.insert("type".into(), json!("scatter"));
    t.insert("mode".into(), json!(mode));
    let mut marker = if s.style == Style::Highlight {
        json!({ "symbol": filled, "size": 16, "color": HIGHLIGHT })
    } else {
        json!({ "size": 7 })
    };
    if !s.hollow.is_empty()
        && s.style != Style::Line
        && !(lines_only && s.style == Style::LinePoints)
    {
        // One symbol per point: plans that miss a goal are drawn open.
        let symbols: Vec<&str> = (0..x.len().max(y.len()))
            .map(|i| match s.hollow.get(i) {
                Some(true) => open,
                _ => filled,
            })
            .collect();
        marker["symbol"] = json!(symbols);
    }
    let mut line = json!({ "width": 2 });
    if let Some(col) = &s.color {
        marker["color"] = json!(col);
        line["color"] = json!(col);
    }
    t.insert("marker".into(), marker);
    if s.style != Style::Points && s.style != Style::Highlight {
        t.insert("line".into(), line);
    }
    hover(s, &mut t);
    t
}

fn segments_trace(
    c: &Chart,
    s: &Series,
    rows: &[String],
    start: &[f64],
    end: &[f64],
) -> Map<String, Value> {
    // Mismatched lengths draw the bars all three describe, never panic.
    let n = rows.len().min(start.len()).min(end.len());
    let scale = |v: f64| c.x.unit.scale(v);
    let mut t = Map::new();
    t.insert("orientation".into(), json!("h"));
    t.insert("name".into(), json!(escape(&s.name)));
    t.insert(
        "y".into(),
        json!(rows[..n].iter().map(|r| escape(r)).collect::<Vec<_>>()),
    );
    t.insert(
        "x".into(),
        nums((0..n).map(|i| scale(end[i]) - scale(start[i]))),
    );
    t.insert("base".into(), nums(start[..n].iter().map(|&v| scale(v))));
    bar_style(s, &mut t);
    t
}

/// A bar trace's type, colour and hover text (hover only: bars would
/// otherwise print the text inside).
fn bar_style(s: &Series, t: &mut Map<String, Value>) {
    t.insert("type".into(), json!("bar"));
    let mut marker = json!({});
    if let Some(col) = &s.color {
        marker["color"] = json!(col);
    }
    t.insert("marker".into(), marker);
    t.insert("textposition".into(), json!("none"));
    hover(s, t);
}

/// The fill of the band around trace `index` drawn in `color` (or the
/// palette's colour at that index): the same hue, see-through.
fn band_fill(color: Option<&str>, index: usize) -> String {
    let hex = |h: &str| -> Option<(u8, u8, u8)> {
        let h = h.strip_prefix('#')?;
        let b = |i: usize| u8::from_str_radix(h.get(i..i + 2)?, 16).ok();
        (h.len() == 6).then_some(())?;
        Some((b(0)?, b(2)?, b(4)?))
    };
    let (r, g, b) = color
        .and_then(hex)
        .unwrap_or(COLORWAY[index % COLORWAY.len()]);
    format!("rgba({r},{g},{b},{BAND_ALPHA})")
}

/// The band of series `s` (trace `index`) as two traces, its 10th and
/// then its 90th percentile, the area between them filled
/// (`fill: 'tonexty'`). They come after every other trace, so plotly's
/// colours for those stay what they are without bands.
fn band_traces(c: &Chart, s: &Series, index: usize, first: bool) -> Option<[Value; 2]> {
    let (SeriesData::Xy { x, .. }, Some(b)) = (&s.data, &s.band) else {
        return None;
    };
    let on_y2 = s.y2 && c.y2.is_some();
    let unit = match (&c.y2, on_y2) {
        (Some(a), true) => a.unit,
        _ => c.y.unit,
    };
    let xs = nums(x.iter().map(|&v| c.x.unit.scale(v)));
    let hover: Vec<String> = b
        .p10
        .iter()
        .zip(&b.p90)
        .map(|(&lo, &hi)| {
            escape(&format!(
                "{}: {BAND_LEGEND} {} – {}",
                s.name,
                unit.display(lo),
                unit.display(hi)
            ))
        })
        .collect();
    let mut lo = json!({
        "type": "scatter", "mode": "lines",
        "name": escape(&format!("{} (10th percentile)", s.name)),
        "x": xs, "y": nums(b.p10.iter().map(|&v| unit.scale(v))),
        "line": { "width": 0 },
        "showlegend": false, "legendgroup": BAND_GROUP, "hoverinfo": "skip",
    });
    let mut hi = json!({
        "type": "scatter", "mode": "lines",
        "name": BAND_LEGEND,
        "x": xs, "y": nums(b.p90.iter().map(|&v| unit.scale(v))),
        "fill": "tonexty", "fillcolor": band_fill(s.color.as_deref(), index),
        "line": { "width": 0 },
        "showlegend": first, "legendgroup": BAND_GROUP,
        "text": hover, "hoverinfo": "text",
    });
    if on_y2 {
        lo["yaxis"] = json!("y2");
        hi["yaxis"] = json!("y2");
    }
    Some([lo, hi])
}

/// A timeline's span (`Marker::Span`) as two vertical traces on a hidden
/// axis from 0 to 1 over the rows, the area between them filled
/// (`fill: 'tonextx'`): shaded from the top row to the bottom one.
fn span_traces(x0: f64, x1: f64, label: &str, c: &Chart, first: bool) -> Option<[Value; 2]> {
    let a = c.x.unit.scale(x0);
    let b = c.x.unit.scale(x1);
    shape_pos(&c.x, a)?;
    shape_pos(&c.x, b)?;
    let hover = escape(&format!(
        "{label}: {} – {}",
        c.x.unit.display(x0),
        c.x.unit.display(x1)
    ));
    let edge = |v: f64| {
        json!({
            "type": "scatter", "mode": "lines",
            "x": [v, v], "y": [0, 1], "yaxis": SPAN_AXIS,
            "line": { "width": 0 },
            "legendgroup": BAND_GROUP, "hoverinfo": "skip",
        })
    };
    let mut lo = edge(a);
    lo["name"] = json!(escape(&format!("{label} (10th percentile)")));
    lo["showlegend"] = json!(false);
    let mut hi = edge(b);
    hi["name"] = json!(BAND_LEGEND);
    hi["fill"] = json!("tonextx");
    hi["fillcolor"] = json!(format!("rgba(85,85,85,{BAND_ALPHA})"));
    hi["showlegend"] = json!(first);
    hi["text"] = json!([hover.clone(), hover]);
    hi["hoverinfo"] = json!("text");
    Some([lo, hi])
}

/// The hidden axis a span is drawn on (`span_traces`).
const SPAN_AXIS: &str = "y3";

fn label_annotation(x: Value, xref: &str, y: Value, yref: &str, label: &str) -> Value {
    json!({
        "x": x, "xref": xref, "y": y, "yref": yref,
        "text": escape(label),
        "showarrow": false,
    })
}

/// Shapes and their labels for the chart's markers. Markers that cannot be
/// placed (non-finite, or ≤ 0 on a log axis) are left out.
fn markers(c: &Chart) -> (Vec<Value>, Vec<Value>) {
    let mut shapes = Vec::new();
    let mut notes = Vec::new();
    // A horizontal label sits at the top right when its line is high (a
    // bound the data reaches), where a vertical label at the top would run
    // into it on a narrow screen: then the vertical one goes at the bottom.
    let low = c.markers.iter().any(|m| match m {
        Marker::Horizontal { label, .. } | Marker::Below { label, .. } => !label.is_empty(),
        Marker::Vertical { .. } | Marker::Span { .. } => false,
    });
    for m in &c.markers {
        match m {
            // Drawn as traces (`span_traces`), for the legend.
            Marker::Span { .. } => {}
            Marker::Vertical { x, label } => {
                let v = c.x.unit.scale(*x);
                let Some(sx) = shape_pos(&c.x, v) else {
                    continue;
                };
                shapes.push(json!({
                    "type": "line", "xref": "x", "yref": "paper",
                    "x0": sx, "x1": sx, "y0": 0, "y1": 1,
                    "line": { "color": REFERENCE, "dash": "dash", "width": 1 },
                }));
                if let (false, Some(ax)) = (label.is_empty(), annotation_pos(&c.x, v)) {
                    let y = if low { 0 } else { 1 };
                    let mut a = label_annotation(json!(ax), "x", json!(y), "paper", label);
                    a["xanchor"] = json!("left");
                    a["yanchor"] = json!(if low { "bottom" } else { "top" });
                    a["xshift"] = json!(3);
                    notes.push(a);
                }
            }
            Marker::Horizontal { y, label } | Marker::Below { y, label } => {
                let v = c.y.unit.scale(*y);
                let Some(sy) = shape_pos(&c.y, v) else {
                    continue;
                };
                let below = matches!(m, Marker::Below { .. });
                let color = if below { GOAL } else { REFERENCE };
                if below {
                    let mut rect = json!({
                        "type": "rect", "xref": "paper", "yref": "y",
                        "x0": 0, "x1": 1,
                        "fillcolor": "rgba(44,160,44,0.08)",
                        "line": { "width": 0 },
                        "layer": "below",
                    });
                    if c.y.log {
                        // No zero on a log axis: shade from the anchor down
                        // in pixels; the subplot clips it at the axis bottom.
                        rect["ysizemode"] = json!("pixel");
                        rect["yanchor"] = json!(sy);
                        rect["y0"] = json!(-10000);
                        rect["y1"] = json!(0);
                    } else {
                        rect["y0"] = json!(0);
                        rect["y1"] = json!(sy);
                    }
                    shapes.push(rect);
                }
                shapes.push(json!({
                    "type": "line", "xref": "paper", "yref": "y",
                    "x0": 0, "x1": 1, "y0": sy, "y1": sy,
                    "line": { "color": color, "dash": "dash", "width": 1 },
                }));
                if let (false, Some(ay)) = (label.is_empty(), annotation_pos(&c.y, v)) {
                    let mut a = label_annotation(json!(1), "paper", json!(ay), "y", label);
                    a["xanchor"] = json!("right");
                    a["yanchor"] = json!("bottom");
                    notes.push(a);
                }
            }
        }
    }
    (shapes, notes)
}

/// The plotly.js figure for `c`: traces in the axes' shown units, axis
/// titles with units, markers as shapes with labels, every user string
/// escaped, non-finite numbers as gaps.
pub fn figure(c: &Chart) -> Value {
    let mut data = Vec::new();
    let mut rows: Vec<&str> = Vec::new();
    let marked: usize = c
        .series
        .iter()
        .filter(|s| s.style == Style::LinePoints)
        .map(|s| match &s.data {
            SeriesData::Xy { x, .. } => x.len(),
            SeriesData::Segments { .. } => 0,
        })
        .sum();
    let lines_only = marked > MARKER_BUDGET;
    for s in &c.series {
        let t = match &s.data {
            SeriesData::Xy { x, y } => xy_trace(c, s, x, y, lines_only),
            SeriesData::Segments {
                rows: r,
                start,
                end,
            } => {
                for name in r {
                    if !rows.contains(&name.as_str()) {
                        rows.push(name);
                    }
                }
                segments_trace(c, s, r, start, end)
            }
        };
        data.push(Value::Object(t));
    }
    let mut banded = false;
    for (i, s) in c.series.iter().enumerate() {
        if let Some(pair) = band_traces(c, s, i, !banded) {
            data.extend(pair);
            banded = true;
        }
    }
    let mut spans = false;
    for m in &c.markers {
        if let Marker::Span { x0, x1, label } = m {
            if let Some(pair) = span_traces(*x0, *x1, label, c, !banded) {
                data.extend(pair);
                banded = true;
                spans = true;
            }
        }
    }
    let timeline = c
        .series
        .iter()
        .any(|s| matches!(s.data, SeriesData::Segments { .. }));
    let height = if timeline {
        (120 + 40 * rows.len()).clamp(200, 900)
    } else {
        340
    };
    // Room for tick labels and the axis title: numeric ticks are short
    // ("0.25", "1.5k"); a timeline's rows are names, measured here at
    // ~7 px per character of the 12 px font.
    let left = if timeline {
        let widest = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
        (7 * widest + 50).clamp(80, 340)
    } else {
        80
    };
    let right = if c.y2.is_some() { 80 } else { 20 };
    let mut layout = json!({
        // The page shows the title as the chart's HTML caption (plotly
        // cuts a long one on a narrow chart); files and the JS package's
        // users draw it from here.
        "title": {
            "text": escape(&c.title), "font": { "size": 14 },
            "yref": "container", "y": 0.98, "yanchor": "top",
        },
        "height": height,
        // The legend is a row above the plot, the title above it: at the
        // right it would take half of a narrow chart (and cover the
        // second axis, or a timeline's end label).
        "margin": { "l": left, "r": right, "t": 80, "b": 55 },
        "legend": {
            "bgcolor": TRANSPARENT,
            "orientation": "h",
            "x": 0, "xanchor": "left",
            "y": 1.02, "yanchor": "bottom",
        },
        "paper_bgcolor": TRANSPARENT,
        "plot_bgcolor": TRANSPARENT,
        "xaxis": axis_layout(&c.x),
        "yaxis": axis_layout(&c.y),
    });
    if timeline {
        layout["barmode"] = json!("overlay");
        // Rows read top-down in the order they first appear.
        layout["yaxis"]["type"] = json!("category");
        layout["yaxis"]["autorange"] = json!("reversed");
    }
    if let Some(y2) = &c.y2 {
        let mut a = axis_layout(y2);
        a["overlaying"] = json!("y");
        a["side"] = json!("right");
        layout["yaxis2"] = a;
    }
    if spans {
        layout["yaxis3"] = json!({
            "overlaying": "y", "range": [0, 1], "visible": false, "fixedrange": true,
        });
    }
    let (shapes, annotations) = markers(c);
    if !shapes.is_empty() {
        layout["shapes"] = Value::Array(shapes);
    }
    if !annotations.is_empty() {
        layout["annotations"] = Value::Array(annotations);
    }
    json!({ "data": data, "layout": layout })
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::report::Unit;

    fn chart(x: Axis, y: Axis, series: Vec<Series>) -> Chart {
        Chart {
            key: "k".into(),
            title: "t".into(),
            x,
            y,
            y2: None,
            series,
            markers: Vec::new(),
        }
    }

    #[test]
    fn segments_are_horizontal_bars_from_their_start() {
        let c = chart(
            Axis::new("time since iteration start", Unit::Seconds),
            Axis::new("", Unit::None),
            vec![Series::segments(
                "compute",
                vec!["w1".into(), "w2".into(), "w1".into()],
                vec![0.0, 1.0, 3.0],
                vec![2.0, 1.5, 4.0],
            )],
        );
        let f = figure(&c);
        let t = &f["data"][0];
        assert_eq!(t["type"], "bar");
        assert_eq!(t["orientation"], "h");
        assert_eq!(t["base"], json!([0.0, 1.0, 3.0]));
        assert_eq!(t["x"], json!([2.0, 0.5, 1.0]));
        assert_eq!(t["y"], json!(["w1", "w2", "w1"]));
        let l = &f["layout"];
        assert_eq!(l["barmode"], "overlay");
        assert_eq!(l["yaxis"]["type"], "category");
        assert_eq!(l["yaxis"]["autorange"], "reversed");
        // Two distinct rows: 120 + 80, at the 200 floor.
        assert_eq!(l["height"], 200);
        assert_eq!(
            l["xaxis"]["title"]["text"],
            "time since iteration start [s]"
        );
        assert_eq!(l["xaxis"]["automargin"], false);
        assert_eq!(l["paper_bgcolor"], "rgba(0,0,0,0)");
    }

    #[test]
    fn many_rows_clamp_the_height() {
        let rows: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
        let n = rows.len();
        let c = chart(
            Axis::new("t", Unit::Seconds),
            Axis::new("", Unit::None),
            vec![Series::segments("s", rows, vec![0.0; n], vec![1.0; n])],
        );
        assert_eq!(figure(&c)["layout"]["height"], 900);
    }

    #[test]
    fn hours_axis_scales_seconds() {
        let c = chart(
            Axis::new("workers", Unit::Count),
            Axis::new("training time", Unit::Hours).from_zero(),
            vec![Series::xy(
                "c3.xlarge",
                Style::LinePoints,
                vec![1.0, 2.0],
                vec![7200.0, 3600.0],
            )],
        );
        let f = figure(&c);
        assert_eq!(f["data"][0]["y"], json!([2.0, 1.0]));
        assert_eq!(f["data"][0]["x"], json!([1.0, 2.0]));
        assert_eq!(f["data"][0]["mode"], "lines+markers");
        assert_eq!(f["layout"]["yaxis"]["title"]["text"], "training time [h]");
        assert_eq!(f["layout"]["yaxis"]["rangemode"], "tozero");
        assert_eq!(f["layout"]["height"], 340);
        assert!(f["layout"].get("barmode").is_none());
    }

    #[test]
    fn gbit_log_axis() {
        let mut c = chart(
            Axis::new("PS link bandwidth", Unit::GbitPerS).log(),
            Axis::new("iteration time", Unit::Seconds),
            vec![Series::xy(
                "it",
                Style::Line,
                vec![1.25e8, 1.25e9],
                vec![2.0, 1.0],
            )],
        );
        c.markers.push(Marker::Vertical {
            x: 1.25e9,
            label: "now".into(),
        });
        let f = figure(&c);
        assert_eq!(f["data"][0]["x"], json!([1.0, 10.0]));
        assert_eq!(f["data"][0]["mode"], "lines");
        let l = &f["layout"];
        assert_eq!(l["xaxis"]["type"], "log");
        assert_eq!(l["xaxis"]["title"]["text"], "PS link bandwidth [Gb/s]");
        // Shapes take data values, annotations log10 on a log axis.
        assert_eq!(l["shapes"][0]["x0"], json!(10.0));
        assert_eq!(l["shapes"][0]["yref"], "paper");
        assert_eq!(l["shapes"][0]["line"]["dash"], "dash");
        assert_eq!(l["annotations"][0]["x"], json!(1.0));
        assert_eq!(l["annotations"][0]["text"], "now");
    }

    #[test]
    fn margins_fit_the_row_names_without_plotly_measuring() {
        let c = chart(
            Axis::new("time since iteration start", Unit::Seconds),
            Axis::new("", Unit::None),
            vec![Series::segments(
                "compute",
                vec!["a".into(), "2× Quadro RTX 4000 worker 12".into()],
                vec![0.0, 0.0],
                vec![1.0, 2.0],
            )],
        );
        let f = figure(&c);
        assert_eq!(f["layout"]["yaxis"]["automargin"], false);
        let left = f["layout"]["margin"]["l"].as_u64().unwrap_or(0);
        assert!(left >= 7 * 28, "{left}");
    }

    #[test]
    fn many_points_draw_as_lines() {
        let n = MARKER_BUDGET / 2 + 1;
        let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let series = |name: &str| {
            Series::xy(name, Style::LinePoints, x.clone(), x.clone()).hollow(vec![true; n])
        };
        let one = figure(&chart(
            Axis::new("workers", Unit::Count),
            Axis::new("cost", Unit::Usd),
            vec![series("a")],
        ));
        assert_eq!(one["data"][0]["mode"], "lines+markers");
        let two = figure(&chart(
            Axis::new("workers", Unit::Count),
            Axis::new("cost", Unit::Usd),
            vec![series("a"), series("b")],
        ));
        assert_eq!(two["data"][0]["mode"], "lines");
        assert!(two["data"][1]["marker"].get("symbol").is_none());
    }

    #[test]
    fn hollow_points_are_open_circles() {
        let c = chart(
            Axis::new("workers", Unit::Count),
            Axis::new("cost", Unit::Usd),
            vec![
                Series::xy("a", Style::Points, vec![1.0, 2.0, 3.0], vec![1.0; 3])
                    .hollow(vec![false, true]),
                Series::xy("plan", Style::Highlight, vec![2.0], vec![1.0]),
                Series::xy("bars", Style::Bars, vec![2.0], vec![1.0]).color("#123456"),
            ],
        );
        let f = figure(&c);
        assert_eq!(
            f["data"][0]["marker"]["symbol"],
            json!(["circle", "circle-open", "circle"])
        );
        assert_eq!(f["data"][0]["mode"], "markers");
        let h = &f["data"][1];
        assert_eq!(h["mode"], "markers");
        assert_eq!(h["marker"]["symbol"], "star");
        assert_eq!(h["marker"]["size"], 16);
        assert_eq!(h["marker"]["color"], "#d62728");
        assert_eq!(f["data"][2]["type"], "bar");
        assert_eq!(f["data"][2]["marker"]["color"], "#123456");
    }

    #[test]
    fn user_text_is_escaped() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&#34;x&#34;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        let mut c = chart(
            Axis::new("<i>x</i>", Unit::None),
            Axis::new("y", Unit::None),
            vec![Series::xy(
                "<script>alert(1)</script>",
                Style::Line,
                vec![1.0],
                vec![1.0],
            )
            .hover(vec!["<script>\nline 2 & more".into()])],
        );
        c.title = "<b>t</b>".into();
        c.markers.push(Marker::Horizontal {
            y: 1.0,
            label: "<goal>".into(),
        });
        let f = figure(&c);
        let t = &f["data"][0];
        assert_eq!(t["name"], "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_eq!(t["text"], json!(["&lt;script&gt;<br>line 2 &amp; more"]));
        assert_eq!(t["hoverinfo"], "text");
        assert_eq!(f["layout"]["title"]["text"], "&lt;b&gt;t&lt;/b&gt;");
        for plain in ["<b>t</b>", "a & b", "it's \"x\"", "&amp; &lt;", ""] {
            assert_eq!(unescape(&escape(plain)), plain);
        }
        assert_eq!(
            f["layout"]["xaxis"]["title"]["text"],
            "&lt;i&gt;x&lt;/i&gt;"
        );
        assert_eq!(f["layout"]["annotations"][0]["text"], "&lt;goal&gt;");
        assert!(!f.to_string().contains("<script>"));
    }

    #[test]
    fn y2_series_use_the_right_axis() {
        let mut c = chart(
            Axis::new("workers", Unit::Count),
            Axis::new("time", Unit::Seconds),
            vec![
                Series::xy("time", Style::Line, vec![1.0], vec![3600.0]),
                Series::xy("cost", Style::Line, vec![1.0], vec![0.5]).on_y2(),
            ],
        );
        c.y2 = Some(Axis::new("utilisation", Unit::Percent));
        let f = figure(&c);
        assert!(f["data"][0].get("yaxis").is_none());
        assert_eq!(f["data"][1]["yaxis"], "y2");
        assert_eq!(f["data"][1]["y"], json!([50.0]));
        let y2 = &f["layout"]["yaxis2"];
        assert_eq!(y2["overlaying"], "y");
        assert_eq!(y2["side"], "right");
        assert_eq!(y2["title"]["text"], "utilisation [%]");
        assert_eq!(y2["automargin"], false);
        assert_eq!(f["layout"]["margin"]["r"], 80);
        // Without a second axis the series stays on the first one.
        c.y2 = None;
        let f = figure(&c);
        assert!(f["data"][1].get("yaxis").is_none());
        assert!(f["layout"].get("yaxis2").is_none());
    }

    #[test]
    fn non_finite_values_become_null() {
        let mut c = chart(
            Axis::new("x", Unit::Seconds).log(),
            Axis::new("y", Unit::Hours).log(),
            vec![
                Series::xy(
                    "s",
                    Style::LinePoints,
                    vec![1.0, f64::NAN, 3.0],
                    vec![f64::INFINITY, 3600.0, f64::NEG_INFINITY],
                )
                .hollow(vec![true]),
                Series::segments("g", vec!["a".into()], vec![f64::NAN], vec![1.0]),
                Series::segments("short", vec!["a".into(), "b".into()], vec![0.0], vec![]),
            ],
        );
        c.markers = vec![
            Marker::Vertical {
                x: f64::NAN,
                label: "v".into(),
            },
            Marker::Below {
                y: 0.0,
                label: "zero on a log axis".into(),
            },
            Marker::Horizontal {
                y: f64::INFINITY,
                label: "h".into(),
            },
        ];
        let f = figure(&c);
        assert_eq!(f["data"][0]["x"], json!([1.0, null, 3.0]));
        assert_eq!(f["data"][0]["y"], json!([null, 1.0, null]));
        assert_eq!(f["data"][1]["base"], json!([null]));
        assert_eq!(f["data"][1]["x"], json!([null]));
        assert_eq!(f["data"][2]["y"], json!([]));
        assert!(f["layout"].get("shapes").is_none());
        // The JSON text is valid and has no NaN for plotly to choke on.
        let text = f.to_string();
        assert!(!text.contains("NaN"));
        assert!(serde_json::from_str::<Value>(&text).is_ok());
    }

    #[test]
    fn a_vertical_label_leaves_the_top_to_a_horizontal_one() {
        let mut c = chart(
            Axis::new("workers", Unit::Count),
            Axis::new("throughput", Unit::SamplesPerS),
            vec![Series::xy("a", Style::Line, vec![1.0, 8.0], vec![1.0, 9.0])],
        );
        c.markers.push(Marker::Vertical {
            x: 4.0,
            label: "saturates".into(),
        });
        let alone = &figure(&c)["layout"]["annotations"][0];
        assert_eq!((&alone["y"], &alone["yanchor"]), (&json!(1), &json!("top")));
        c.markers.push(Marker::Horizontal {
            y: 9.0,
            label: "bound".into(),
        });
        let l = &figure(&c)["layout"]["annotations"];
        assert_eq!(
            (&l[0]["y"], &l[0]["yanchor"]),
            (&json!(0), &json!("bottom"))
        );
        assert_eq!(l[1]["text"], "bound");
    }

    #[test]
    fn goal_region_is_shaded_below() {
        let mut c = chart(
            Axis::new("workers", Unit::Count),
            Axis::new("training time", Unit::Hours),
            vec![Series::xy("a", Style::Line, vec![1.0], vec![3600.0])],
        );
        c.markers.push(Marker::Below {
            y: 7200.0,
            label: "T_g".into(),
        });
        let l = &figure(&c)["layout"];
        assert_eq!(l["shapes"][0]["type"], "rect");
        assert_eq!(l["shapes"][0]["y0"], json!(0));
        assert_eq!(l["shapes"][0]["y1"], json!(2.0));
        assert_eq!(l["shapes"][0]["fillcolor"], "rgba(44,160,44,0.08)");
        assert_eq!(l["shapes"][1]["type"], "line");
        assert_eq!(l["shapes"][1]["y0"], json!(2.0));
        assert_eq!(l["shapes"][1]["line"]["dash"], "dash");
        assert_eq!(l["annotations"][0]["text"], "T_g");
        // On a log axis the shading hangs from the goal in pixels.
        c.y = c.y.clone().log();
        let l = &figure(&c)["layout"];
        assert_eq!(l["shapes"][0]["ysizemode"], "pixel");
        assert_eq!(l["shapes"][0]["yanchor"], json!(2.0));
        assert_eq!(l["annotations"][0]["y"], json!(2f64.log10()));
    }

    #[test]
    fn a_band_is_a_filled_area_between_its_percentiles_after_the_lines() {
        let mut a = Series::xy("a", Style::LinePoints, vec![1.0, 2.0], vec![3600.0, 7200.0]);
        a.band = Some(crate::report::SeriesBand {
            p10: vec![1800.0, 3600.0],
            p90: vec![5400.0, 10800.0],
            samples: 100,
        });
        let mut b = Series::xy("b", Style::Line, vec![1.0], vec![3600.0]).color("#102030");
        b.band = Some(crate::report::SeriesBand {
            p10: vec![3600.0],
            p90: vec![3600.0],
            samples: 100,
        });
        let c = chart(
            Axis::new("workers", Unit::Count),
            Axis::new("training time", Unit::Hours),
            vec![a, b],
        );
        let f = figure(&c);
        let d = f["data"].as_array().map_or(&[][..], Vec::as_slice);
        // The lines first, as without bands (plotly's colours by index).
        assert_eq!(
            (d[0]["name"].as_str(), d[1]["name"].as_str()),
            (Some("a"), Some("b"))
        );
        assert_eq!(d.len(), 6);
        assert_eq!(d[2]["y"], json!([0.5, 1.0]));
        assert_eq!(d[2]["showlegend"], false);
        assert_eq!(d[3]["y"], json!([1.5, 3.0]));
        assert_eq!(d[3]["fill"], "tonexty");
        assert_eq!(d[3]["name"], BAND_LEGEND);
        assert_eq!(d[3]["showlegend"], true);
        // The palette's first colour for "a", b's own for "b".
        assert_eq!(d[3]["fillcolor"], "rgba(31,119,180,0.2)");
        assert_eq!(d[5]["fillcolor"], "rgba(16,32,48,0.2)");
        assert_eq!(d[5]["showlegend"], false);
        assert_eq!(d[3]["legendgroup"], d[5]["legendgroup"]);
    }

    #[test]
    fn a_timelines_span_shades_its_total_across_the_rows() {
        let mut c = chart(
            Axis::new("time since iteration start", Unit::Seconds),
            Axis::new("", Unit::None),
            vec![Series::segments(
                "compute",
                vec!["w1".into()],
                vec![0.0],
                vec![2.0],
            )],
        );
        c.markers = vec![
            Marker::Vertical {
                x: 2.0,
                label: "iteration end".into(),
            },
            Marker::Span {
                x0: 1.5,
                x1: 2.5,
                label: "iteration end: 10th–90th percentile".into(),
            },
        ];
        let f = figure(&c);
        let d = &f["data"];
        assert_eq!(d[1]["x"], json!([1.5, 1.5]));
        assert_eq!(d[2]["x"], json!([2.5, 2.5]));
        assert_eq!(d[2]["fill"], "tonextx");
        assert_eq!(d[2]["yaxis"], "y3");
        assert_eq!(d[2]["name"], BAND_LEGEND);
        let l = &f["layout"];
        assert_eq!(l["yaxis3"]["overlaying"], "y");
        assert_eq!(l["yaxis3"]["visible"], false);
        // The vertical line is still a shape; the span is not.
        assert_eq!(l["shapes"].as_array().map(Vec::len), Some(1));
        // Without a span, no hidden axis.
        c.markers.truncate(1);
        assert!(figure(&c)["layout"].get("yaxis3").is_none());
    }
}
