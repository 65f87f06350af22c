//! Our own binding to the page's plotly.js: it takes an element, not a div
//! id, and never panics (plotly.rs's bindings `expect` on rejection).
//!
//! plotly.js is not loaded with the page: the first numbers never wait for
//! its 370 KB (gzip) or its start-up. [`ready`] loads it once, when the
//! first chart is to be drawn (after the first numbers are on screen) or
//! when the page has been started for a while without one ([`warm_up`]),
//! and checks the drawing slices against it (`plotly_slices::check`).
//! The file is named by its content hash after the build
//! (`.ci/postbuild.mjs`), which writes that name into
//! `<meta name="ddnn-plotly">`.

use std::cell::RefCell;

use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

pub use super::plotly_slices::Slicer;
use super::task_queue::Queue;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Plotly, js_name = react, catch)]
    pub(super) fn plotly_react(
        el: &web_sys::HtmlElement,
        data: &JsValue,
        layout: &JsValue,
        config: &JsValue,
    ) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(js_namespace = Plotly, js_name = purge, catch)]
    fn plotly_purge(el: &web_sys::HtmlElement) -> Result<JsValue, JsValue>;
    /// `figure`: a `{ data, layout }` object (or a drawn chart's element).
    #[wasm_bindgen(js_namespace = Plotly, js_name = downloadImage, catch)]
    fn plotly_download_image(figure: &JsValue, opts: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

thread_local! {
    /// Settles once plotly.js is loaded and checked (`None`: not asked
    /// for yet, or the last try failed and the next asks again).
    static READY: RefCell<Option<js_sys::Promise>> = const { RefCell::new(None) };
    /// Resolves once plotly.js has been asked for ([`warm_up`] waits).
    static WANTED: RefCell<Option<(js_sys::Promise, js_sys::Function)>> = const { RefCell::new(None) };
}

/// Without a chart to draw, plotly.js is loaded this long after the page
/// has started, once the page is idle [ms].
const LOAD_ANYWAY_MS: i32 = 2_000;

fn wanted() -> (js_sys::Promise, js_sys::Function) {
    WANTED.with(|w| {
        w.borrow_mut()
            .get_or_insert_with(|| {
                let mut resolve = None;
                let p = js_sys::Promise::new(&mut |r, _| resolve = Some(r));
                (
                    p,
                    resolve.unwrap_or_else(|| js_sys::Function::new_no_args("")),
                )
            })
            .clone()
    })
}

/// Loads plotly.js and checks the drawing slices against it, once: every
/// drawing awaits this first.
pub async fn ready() -> Result<(), PlotlyError> {
    let _ = wanted().1.call0(&JsValue::NULL);
    let ready = READY.with(|r| {
        r.borrow_mut()
            .get_or_insert_with(|| {
                wasm_bindgen_futures::future_to_promise(async {
                    load()
                        .await
                        .map_err(|e| JsValue::from_str(&e.to_string()))?;
                    super::plotly_slices::check().await;
                    Ok(JsValue::UNDEFINED)
                })
            })
            .clone()
    });
    let result = JsFuture::from(ready)
        .await
        .map(|_| ())
        .map_err(|e| describe(&e));
    if result.is_err() {
        // Asked for again by the next drawing (the network may be back).
        READY.with(|r| r.borrow_mut().take());
    }
    result
}

fn plotly_loaded(window: &web_sys::Window) -> bool {
    js_sys::Reflect::get(window, &"Plotly".into()).is_ok_and(|p| p.is_object())
}

/// Adds plotly.js's script to the page and waits for it to run.
async fn load() -> Result<(), PlotlyError> {
    let window = web_sys::window().ok_or(PlotlyError::NoPage("no window"))?;
    if plotly_loaded(&window) {
        return Ok(());
    }
    let doc = window
        .document()
        .ok_or(PlotlyError::NoPage("no document"))?;
    let meta = doc
        .query_selector("meta[name=ddnn-plotly]")
        .ok()
        .flatten()
        .ok_or(PlotlyError::NotInBuild)?;
    let src = meta.get_attribute("content").unwrap_or_default();
    let script = doc
        .create_element("script")
        .map_err(|_| PlotlyError::NoScript)?;
    let _ = script.set_attribute("src", &src);
    if let Some(integrity) = meta.get_attribute("data-integrity") {
        let _ = script.set_attribute("integrity", &integrity);
    }
    let loaded = js_sys::Promise::new(&mut |resolve, reject| {
        let _ = js_sys::Reflect::set(&script, &"onload".into(), &resolve);
        let _ = js_sys::Reflect::set(&script, &"onerror".into(), &reject);
    });
    let parent = doc
        .query_selector("head")
        .ok()
        .flatten()
        .ok_or(PlotlyError::NoPage("no <head>"))?;
    parent
        .append_child(&script)
        .map_err(|_| PlotlyError::NoScript)?;
    let outcome = JsFuture::from(loaded).await;
    if outcome.is_err() || !plotly_loaded(&window) {
        script.remove();
        return Err(PlotlyError::NotLoaded { src });
    }
    // The first drawing in a task of its own, not in the one that ran the
    // script (plotly's first, synchronous set-up is long on a slow CPU).
    next_task().await;
    Ok(())
}

/// Resolves in a new task (`setTimeout`).
async fn next_task() {
    let later = js_sys::Promise::new(&mut |resolve, _| {
        let timer = web_sys::window().map(|w| w.set_timeout_with_callback(&resolve));
        if !matches!(timer, Some(Ok(_))) {
            let _ = resolve.call0(&JsValue::NULL);
        }
    });
    let _ = JsFuture::from(later).await;
}

/// A chart's height [px] when its figure does not say.
pub const DEFAULT_HEIGHT: f64 = 340.0;

fn js(v: &Value) -> JsValue {
    js_sys::JSON::parse(&v.to_string()).unwrap_or(JsValue::NULL)
}

/// Why a chart was not drawn or saved.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PlotlyError {
    #[error("plotly.js is not part of this build (no <meta name=ddnn-plotly>)")]
    NotInBuild,
    #[error("plotly.js ({src}) did not load")]
    NotLoaded { src: String },
    #[error("cannot add plotly.js's script")]
    NoScript,
    /// Not in a page (a worker), or the page lacks a part.
    #[error("{0}")]
    NoPage(&'static str),
    /// plotly.js threw or rejected, in its words.
    #[error("{0}")]
    Failed(String),
}

fn describe(e: &JsValue) -> PlotlyError {
    PlotlyError::Failed(
        e.as_string()
            .or_else(|| {
                e.dyn_ref::<js_sys::Error>()
                    .map(|e| String::from(e.message()))
            })
            .unwrap_or_else(|| "plotly.js failed".into()),
    )
}

/// Draws or updates a figure; reports failure instead of throwing. With a
/// `slicer`, plotly's work is cut into several tasks (`plotly_slices`)
/// unless `whole`.
pub async fn react(
    el: &web_sys::HtmlElement,
    figure: &Value,
    slicer: Option<&Slicer>,
    whole: bool,
) -> Result<(), PlotlyError> {
    let mut layout = figure["layout"].clone();
    on_page(&mut layout, &figure["data"], f64::from(el.client_width()));
    // The box is sized from the figure (`chart.rs`); at this width the
    // drawing may need more (a wrapped axis title), or again less.
    if let Some(h) = layout["height"].as_f64() {
        if (f64::from(el.client_height()) - h).abs() >= 1.0 {
            let _ = el.style().set_property("height", &format!("{h}px"));
        }
    }
    if dark_theme() {
        dark(&mut layout);
    }
    let (data, layout, config) = (js(&figure["data"]), js(&layout), config());
    ready().await?;
    if let Some(s) = slicer {
        // In one piece if asked, or if plotly.js failed the slices' check.
        s.whole(whole || !super::plotly_slices::verified());
        s.start();
    }
    let drawing = plotly_react(el, &data, &layout, &config);
    if let Some(s) = slicer {
        // Plotly has done all it does synchronously.
        s.whole(false);
    }
    match drawing {
        Ok(p) => JsFuture::from(p).await.map(|_| ()),
        Err(e) => Err(e),
    }
    .map_err(|e| describe(&e))
}

/// The page's plotly configuration. Not `responsive`: the chart component
/// redraws on a resize itself.
const CONFIG: &str =
    r#"{"displaylogo":false,"modeBarButtonsToRemove":["sendDataToCloud","editInChartStudio"]}"#;

fn config() -> JsValue {
    js_sys::JSON::parse(CONFIG).unwrap_or(JsValue::NULL)
}

/// The layout as the page draws it: the title is the chart's HTML caption
/// (see `chart.rs`), and the legend above the plot gets the rows it needs
/// at this width, `width` px, rather than room for one.
fn on_page(layout: &mut Value, data: &Value, width: f64) {
    let Some(l) = layout.as_object_mut() else {
        return;
    };
    l.remove("title");
    // Drawn at the box's width now; a resize draws again (`chart.rs`).
    if width > 0.0 {
        l.entry("width").or_insert_with(|| width.into());
    }
    let m = |k: &str| l.get("margin").and_then(|m| m[k].as_f64()).unwrap_or(0.0);
    let room = (width - m("l") - m("r")).max(100.0);
    let (rows, first) = legend_rows(data, room);
    // Plotly's mode bar (shown on hover or tap) takes the chart's top right
    // corner: a legend whose first row reaches under it gets a row of its
    // own above the legend, or the bar hides entries.
    let under_bar = rows > 0.0 && m("l") + first > width - MODE_BAR_WIDTH;
    let bar = if under_bar { MODE_BAR_HEIGHT } else { 0.0 };
    // Plotly centres the x axis's title on the plot, in one line: on a
    // narrow chart with wide row labels it ran off the edge, unit first.
    // Wrapped to the room either side of that centre, below the axis.
    let centre = m("l") + room / 2.0;
    let half = centre.min(width - centre);
    let title = l.get("xaxis").and_then(|x| x["title"]["text"].as_str());
    // Not on a box with no width yet (nothing to fit).
    let lines = title.filter(|_| width > 0.0).map_or_else(Vec::new, |t| {
        wrap_words(
            t,
            ((2.0 * half - 8.0) / TITLE_PX_PER_CHAR).max(1.0) as usize,
        )
    });
    let extra = lines.len().saturating_sub(1) as f64;
    let b = m("b") + TITLE_LINE_PX * extra;
    let title = l.get_mut("xaxis").and_then(|x| x.get_mut("title"));
    if let Some(t) = title.and_then(Value::as_object_mut).filter(|_| extra > 0.0) {
        t.insert("text".into(), lines.join("<br>").into());
        // The lines are added to the chart's height, not taken from the
        // plot's (a timeline's rows would lose their labels).
        let h = l
            .get("height")
            .and_then(Value::as_f64)
            .unwrap_or(DEFAULT_HEIGHT);
        l.insert("height".into(), (h + TITLE_LINE_PX * extra).into());
    }
    if let Some(margin) = l.get_mut("margin").and_then(Value::as_object_mut) {
        margin.insert("t".into(), (12.0 + 20.0 * rows + bar).into());
        margin.insert("b".into(), b.into());
    }
    // Plotly's default hides tick labels that pass the chart's edge, which
    // measures every label: a third of drawing an axis with many (a
    // timeline's rows). The chart box clips them anyway.
    for (key, axis) in l.iter_mut() {
        if let Some(a) = axis.as_object_mut().filter(|_| key.contains("axis")) {
            a.entry("ticklabeloverflow")
                .or_insert_with(|| "allow".into());
        }
    }
}

/// Plotly's mode bar with every button a cartesian chart of lines gets
/// (one without selectable points: 192 px), and its height with a gap
/// [px].
const MODE_BAR_WIDTH: f64 = 240.0;
const MODE_BAR_HEIGHT: f64 = 24.0;

/// How many rows plotly's horizontal legend takes in `room` px, and how
/// wide its first row is: each entry its symbol and gap (~46 px) and ~6.5
/// px per character of its 12 px name. As plotly lays it out: one row if
/// all fit, else a grid whose columns are as wide as the widest entry.
fn legend_rows(data: &Value, room: f64) -> (f64, f64) {
    let widths: Vec<f64> = data
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let shown = t["showlegend"].as_bool().unwrap_or(true);
            t["name"].as_str().filter(|n| shown && !n.is_empty())
        })
        .map(|name| 46.0 + 6.5 * name.chars().count() as f64)
        .collect();
    let all: f64 = widths.iter().sum();
    if widths.is_empty() || all <= room {
        return (if widths.is_empty() { 0.0 } else { 1.0 }, all);
    }
    let cell = widths.iter().copied().fold(0.0, f64::max);
    let per_row = (room / cell).floor().max(1.0);
    let n = widths.len() as f64;
    ((n / per_row).ceil(), per_row.min(n) * cell)
}

/// An axis title's 14 px font: width per character (measured: 6.5-7.5)
/// and line height [px].
const TITLE_PX_PER_CHAR: f64 = 7.5;
const TITLE_LINE_PX: f64 = 18.0;

/// `text` in lines of at most `width` characters, broken between words (a
/// longer word gets a line of its own).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// Whether the system asks for dark colours (the page's CSS follows it).
fn dark_theme() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// Text and grid colours readable on the dark page (the chart's
/// background is transparent either way).
fn dark(layout: &mut Value) {
    let ink = "#e4e7eb";
    let grid = "#343b45";
    layout["font"] = serde_json::json!({ "color": ink });
    for axis in ["xaxis", "yaxis", "yaxis2"] {
        if let Some(a) = layout.get_mut(axis).and_then(Value::as_object_mut) {
            a.insert("gridcolor".into(), grid.into());
            a.insert("zerolinecolor".into(), grid.into());
            a.insert("linecolor".into(), grid.into());
        }
    }
}

/// The warm-up's figures (`data`, `layout`): a timeline and curves on a
/// log axis.
const WARM_UP: [(&str, &str); 2] = [
    (
        r#"[{"type":"bar","orientation":"h","y":["w1","w2","w1"],"x":[1,2,1],"base":[0,1,2],"name":"a","textposition":"none","hovertext":["x","y","z"],"hoverinfo":"text"},
            {"type":"bar","orientation":"h","y":["w2"],"x":[1],"base":[3],"name":"b","textposition":"none"}]"#,
        r#"{"height":240,"barmode":"overlay","margin":{"l":80,"r":16},"xaxis":{"title":{"text":"t [s]"}},
            "yaxis":{"type":"category","autorange":"reversed"},
            "shapes":[{"type":"line","xref":"x","yref":"paper","x0":2,"x1":2,"y0":0,"y1":1}],
            "annotations":[{"x":2,"xref":"x","y":1,"yref":"paper","text":"T","showarrow":false}]}"#,
    ),
    (
        r#"[{"type":"scatter","mode":"lines+markers","x":[0.1,1,10,100],"y":[4,3,2,1],"name":"a","marker":{"size":7}},
            {"type":"scatter","mode":"markers","x":[1,10],"y":[2,3],"name":"b","marker":{"symbol":["circle","circle-open"]}}]"#,
        r#"{"height":240,"margin":{"l":60,"r":16},"xaxis":{"type":"log","title":{"text":"b [Gb/s]"}},"yaxis":{"title":{"text":"y [s]"}},
            "shapes":[{"type":"line","xref":"paper","yref":"y","x0":0,"x1":1,"y0":2,"y1":2}]}"#,
    ),
];

/// Waits until plotly.js is asked for (the first chart to draw), or the
/// page has been started for `LOAD_ANYWAY_MS` and is idle; then loads it
/// ([`ready`]) and draws small charts of the kinds the reports use off
/// screen, twice each, then removes them: plotly's one-time set-up and its
/// first, slow passes happen while the page starts, not inside the first
/// chart drawn after an edit. Each drawing is sliced and waits its turn
/// among the page's own (`Queue::Draws`).
pub async fn warm_up() {
    let (asked, _) = wanted();
    let anyway = js_sys::Promise::new(&mut |resolve, _| {
        let Some(w) = web_sys::window() else {
            let _ = resolve.call0(&JsValue::NULL);
            return;
        };
        let when_idle = Closure::once_into_js(move || {
            let idle = web_sys::window().is_some_and(|w| w.request_idle_callback(&resolve).is_ok());
            if !idle {
                let _ = resolve.call0(&JsValue::NULL);
            }
        });
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(
            when_idle.unchecked_ref(),
            LOAD_ANYWAY_MS,
        );
    });
    let _ = JsFuture::from(js_sys::Promise::race(&js_sys::Array::of2(&asked, &anyway))).await;
    if ready().await.is_err() {
        return;
    }
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (Ok(el), Some(body)) = (doc.create_element("div"), doc.body()) else {
        return;
    };
    let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() else {
        return;
    };
    let _ = el.set_attribute(
        "style",
        "position:absolute;left:-10000px;top:0;width:480px;height:320px;visibility:hidden",
    );
    // Out of reach of the keyboard and assistive technology while it is
    // drawn (plotly's mode bar has buttons): hidden, and inert.
    let _ = el.set_attribute("inert", "");
    if body.append_child(&el).is_err() {
        return;
    }
    let slicer = Slicer::install(&el).map(std::rc::Rc::new);
    // The shapes the reports draw: a timeline (horizontal bars on a
    // reversed category axis) and curves on a log axis with markers, each
    // twice so the second pass also warms plotly's update path; laid out
    // as the page lays out its charts (`on_page`).
    for (data, layout) in WARM_UP {
        let (Ok(data), Ok(mut layout)) = (
            serde_json::from_str::<Value>(data),
            serde_json::from_str::<Value>(layout),
        ) else {
            continue;
        };
        on_page(&mut layout, &data, 480.0);
        for _ in 0..2 {
            draw_queued(&el, slicer.clone(), &data, &layout).await;
        }
        draw_queued_purge(&el).await;
    }
    drop(slicer);
    el.remove();
}

/// One warm-up drawing as a job of the page's drawing queue, sliced.
async fn draw_queued(
    el: &web_sys::HtmlElement,
    slicer: Option<std::rc::Rc<Slicer>>,
    data: &Value,
    layout: &Value,
) {
    let (data, layout, el) = (js(data), js(layout), el.clone());
    let config = config();
    let mut finish = None;
    let finished = js_sys::Promise::new(&mut |resolve, _| finish = Some(resolve));
    let Some(finish) = finish else {
        return;
    };
    Queue::Draws.push(Box::new(move || {
        Some(Box::pin(async move {
            if let Some(s) = &slicer {
                s.whole(!super::plotly_slices::verified());
                s.start();
            }
            if let Ok(p) = plotly_react(&el, &data, &layout, &config) {
                let _ = JsFuture::from(p).await;
            }
            let _ = finish.call0(&JsValue::NULL);
        }))
    }));
    let _ = JsFuture::from(finished).await;
}

/// Purges the warm-up chart in its turn of the drawing queue.
async fn draw_queued_purge(el: &web_sys::HtmlElement) {
    let el = el.clone();
    let mut finish = None;
    let finished = js_sys::Promise::new(&mut |resolve, _| finish = Some(resolve));
    let Some(finish) = finish else {
        return;
    };
    Queue::Draws.push(Box::new(move || {
        let _ = plotly_purge(&el);
        let _ = finish.call0(&JsValue::NULL);
        None
    }));
    let _ = JsFuture::from(finished).await;
}

pub fn purge(el: &web_sys::HtmlElement) {
    let _ = plotly_purge(el);
}

/// Saves the chart as an SVG or PNG file.
pub async fn download(figure: &Value, format: &str, filename: &str) -> Result<(), PlotlyError> {
    // The chart's own proportions; a PNG at twice the pixels (sharp on
    // high-density screens and in slides). Drawn from the figure, not the
    // page's drawing: a file has no HTML caption, so it keeps its title.
    let height = figure["layout"]["height"]
        .as_f64()
        .unwrap_or(DEFAULT_HEIGHT);
    let opts = js(&serde_json::json!({
        "format": format, "filename": filename, "width": 1000, "height": height, "scale": 2,
    }));
    let mut layout = figure["layout"].clone();
    if dark_theme() {
        dark(&mut layout);
    }
    let fig = js(&serde_json::json!({ "data": figure["data"], "layout": layout }));
    ready().await?;
    let p = plotly_download_image(&fig, &opts).map_err(|e| describe(&e))?;
    JsFuture::from(p)
        .await
        .map(|_| ())
        .map_err(|e| describe(&e))
}
