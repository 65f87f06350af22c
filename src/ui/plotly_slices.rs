//! Cuts one plotly drawing into several browser tasks.
//!
//! `Plotly.react` draws in one synchronous pass, long enough on a slow
//! machine to hold the page past the 100 ms a task may take. Plotly's own
//! drawing sequence already waits, between its steps (defaults,
//! framework, legend, axes, data, interactions), for the
//! promises in the chart element's `_promises` (MathJax and images use
//! them). A [`Slicer`] gives the element a `_promises` of its own: read
//! while a drawing has run longer than [`SLICE_MS`] since the last pause,
//! it holds one more promise, resolved in a new task, so the drawing goes
//! on after the browser has handled input and painted. That holds for
//! plotly's own redraws too (a resize redraws each chart in a timer task).
//!
//! The property lives on a prototype of the element's own, because plotly
//! deletes its own `_promises` when it starts a new plot. A pause never
//! fails: plotly's legend waits on these promises in a chain whose result
//! it drops, so a rejected pause would be an unhandled rejection (a page
//! error). A chart removed mid-drawing lets its drawing finish, detached,
//! and is purged then (`chart.rs`).
//!
//! `_promises` is plotly's internal queue, not a supported interface, so
//! the hook is checked against the plotly.js the page loads before any
//! chart is drawn ([`check`], run once by `plotly_js::ready`): a drawing
//! paused at every read of `_promises` must read it, stop at the first
//! pause (nothing drawn when `Plotly.react` returns), go on after each
//! pause and end complete. If plotly.js no longer does so, every chart
//! draws in one piece (as before this hook) and the page logs a console
//! error, which fails every end-to-end spec: a plotly.js release that
//! breaks the hook cannot pass the tests unnoticed.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::now_ms;

/// The longest stretch of plotly's work between two pauses [ms]. A step
/// of plotly's is not cut, so a task runs up to this plus one step.
pub const SLICE_MS: f64 = 12.0;

#[derive(Default)]
struct State {
    /// The array plotly reads and writes as `_promises`.
    store: RefCell<Option<js_sys::Array>>,
    /// Drawing in one piece (for print), not sliced.
    whole: Cell<bool>,
    /// A pause is queued and not yet over.
    pending: Cell<bool>,
    /// That pause: kept when plotly empties `_promises` while it runs
    /// (`Plotly.react` starts by clearing the queue), so it is still
    /// waited for.
    current: RefCell<Option<js_sys::Promise>>,
    /// When the current slice began [ms, `performance.now()`].
    since: Cell<f64>,
    /// Pauses at every read of `_promises` (the [`check`]).
    probe: Cell<bool>,
    /// What the [`check`] counts: reads of `_promises`, pauses queued,
    /// pauses over, and reads after the first pause was over.
    reads: Cell<u32>,
    pauses: Cell<u32>,
    resumes: Cell<u32>,
    reads_after_resume: Cell<u32>,
}

thread_local! {
    /// Whether the loaded plotly.js passed the [`check`]: until it has,
    /// charts draw in one piece.
    static VERIFIED: Cell<bool> = const { Cell::new(false) };
}

/// Whether drawings may be sliced: the loaded plotly.js passed the
/// [`check`].
pub fn verified() -> bool {
    VERIFIED.with(Cell::get)
}

/// A chart element whose plotly drawings run in slices.
pub struct Slicer {
    el: web_sys::HtmlElement,
    /// The element's prototype before the slicer gave it one.
    proto: js_sys::Object,
    state: Rc<State>,
    _get: Closure<dyn FnMut() -> JsValue>,
    _set: Closure<dyn FnMut(JsValue)>,
}

impl Slicer {
    /// Gives `el` the sliced `_promises`; `None` where the browser refuses
    /// (the chart then draws in one pass).
    pub fn install(el: &web_sys::HtmlElement) -> Option<Slicer> {
        let state = Rc::new(State::default());
        let get = {
            let state = Rc::clone(&state);
            Closure::<dyn FnMut() -> JsValue>::new(move || {
                let store = state
                    .store
                    .borrow_mut()
                    .get_or_insert_with(js_sys::Array::new)
                    .clone();
                state.reads.set(state.reads.get() + 1);
                if state.resumes.get() > 0 {
                    state
                        .reads_after_resume
                        .set(state.reads_after_resume.get() + 1);
                }
                if !state.whole.get()
                    && !state.pending.get()
                    && (state.probe.get() || now_ms() - state.since.get() > SLICE_MS)
                {
                    if let Some(pause) = pause(&state) {
                        store.push(&pause);
                        *state.current.borrow_mut() = Some(pause);
                    }
                }
                store.into()
            })
        };
        let set = {
            let state = Rc::clone(&state);
            Closure::<dyn FnMut(JsValue)>::new(move |v: JsValue| {
                let store = v.dyn_into::<js_sys::Array>().ok();
                if let (Some(store), Some(pause)) = (&store, state.current.borrow().as_ref()) {
                    if state.pending.get() && store.index_of(pause, 0) < 0 {
                        store.push(pause);
                    }
                }
                *state.store.borrow_mut() = store;
            })
        };
        let proto = js_sys::Object::get_prototype_of(el);
        let own = js_sys::Object::create(&proto);
        let desc = js_sys::Object::new();
        let key = JsValue::from_str("_promises");
        let set_field = |k: &str, v: &JsValue| js_sys::Reflect::set(&desc, &k.into(), v).is_ok();
        let ok = set_field("get", get.as_ref())
            && set_field("set", set.as_ref())
            && set_field("configurable", &JsValue::TRUE);
        if !ok {
            return None;
        }
        js_sys::Reflect::define_property(&own, &key, &desc).ok()?;
        js_sys::Reflect::set_prototype_of(el, &own).ok()?;
        Some(Slicer {
            el: el.clone(),
            proto,
            state,
            _get: get,
            _set: set,
        })
    }

    /// A drawing starts now: its first slice runs its full length. (Plotly
    /// also redraws by itself, on a resize: that work is sliced too, its
    /// first pause as it starts.)
    pub fn start(&self) {
        self.state.since.set(now_ms());
    }

    /// Drawing in one piece, or not (printing needs every chart drawn
    /// before the `beforeprint` event returns).
    pub fn whole(&self, whole: bool) {
        self.state.whole.set(whole);
    }
}

impl Drop for Slicer {
    /// Gives the element its prototype back before the closures go.
    fn drop(&mut self) {
        let _ = js_sys::Reflect::set_prototype_of(&self.el, &self.proto);
    }
}

/// A promise resolved in a new task (`setTimeout`).
fn pause(state: &Rc<State>) -> Option<js_sys::Promise> {
    let window = web_sys::window()?;
    state.pending.set(true);
    state.pauses.set(state.pauses.get() + 1);
    let state = Rc::clone(state);
    let mut scheduled = true;
    let promise = js_sys::Promise::new(&mut |resolve: js_sys::Function, _| {
        let state = Rc::clone(&state);
        let wake = Closure::once_into_js(move || {
            state.pending.set(false);
            state.current.borrow_mut().take();
            state.resumes.set(state.resumes.get() + 1);
            state.since.set(now_ms());
            let _ = resolve.call0(&JsValue::NULL);
        });
        scheduled = window
            .set_timeout_with_callback(wake.unchecked_ref())
            .is_ok();
    });
    if !scheduled {
        state.pending.set(false);
        return None;
    }
    Some(promise)
}

/// How long the [`check`]'s drawing may take before plotly.js counts as
/// never finishing a paused drawing [ms].
const CHECK_TIMEOUT_MS: i32 = 15_000;

/// The bars the [`check`] draws.
const CHECK_BARS: usize = 6;

/// Checks the hook against the plotly.js loaded (see the module's doc):
/// draws a small chart off screen, paused at every read of `_promises`.
/// Passed, drawings are sliced from then on ([`verified`]); failed, they
/// stay in one piece and a console error says why.
pub async fn check() {
    match probe().await {
        Ok(()) => VERIFIED.with(|v| v.set(true)),
        Err(why) => {
            let version = web_sys::window()
                .and_then(|w| js_sys::Reflect::get(&w, &"Plotly".into()).ok())
                .and_then(|p| js_sys::Reflect::get(&p, &"version".into()).ok())
                .and_then(|v| v.as_string())
                .unwrap_or_else(|| "?".into());
            web_sys::console::error_1(
                &format!(
                    "ddnn-planner: plotly.js {version} no longer behaves as src/ui/plotly_slices.rs expects ({why}); charts are drawn in one piece"
                )
                .into(),
            );
        }
    }
}

async fn probe() -> Result<(), &'static str> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let body = doc.body().ok_or("no body")?;
    let el = doc
        .create_element("div")
        .ok()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        .ok_or("no element")?;
    let _ = el.set_attribute(
        "style",
        "position:absolute;left:-10000px;top:0;width:320px;height:200px;visibility:hidden",
    );
    // Out of reach of the keyboard and assistive technology while it is
    // drawn (plotly's mode bar has buttons): hidden, and inert.
    let _ = el.set_attribute("inert", "");
    body.append_child(&el).map_err(|_| "no element")?;
    let result = probe_in(&el).await;
    super::plotly_js::purge(&el);
    el.remove();
    result
}

async fn probe_in(el: &web_sys::HtmlElement) -> Result<(), &'static str> {
    let slicer = Slicer::install(el).ok_or("the element's _promises cannot be replaced")?;
    let state = Rc::clone(&slicer.state);
    state.probe.set(true);
    // Two named traces (a legend: plotly's legend also reads `_promises`)
    // of horizontal bars, as the timelines draw them: `CHECK_BARS` bars.
    let parse = |text: &str| js_sys::JSON::parse(text).unwrap_or(JsValue::NULL);
    let data = parse(
        r#"[{"type":"bar","orientation":"h","name":"a","textposition":"none","y":["w0","w1","w2"],"x":[1,1,1],"base":[0,1,2]},
            {"type":"bar","orientation":"h","name":"b","textposition":"none","y":["w3","w4","w5"],"x":[1,1,1],"base":[0,1,2]}]"#,
    );
    let layout = parse(
        r#"{"width":320,"height":200,"barmode":"overlay","showlegend":true,"legend":{"orientation":"h"},
            "yaxis":{"type":"category","autorange":"reversed","ticklabeloverflow":"allow"},"xaxis":{"ticklabeloverflow":"allow"}}"#,
    );
    slicer.start();
    let drawing =
        super::plotly_js::plotly_react(el, &data, &layout, &parse(r#"{"displaylogo":false}"#))
            .map_err(|_| "Plotly.react threw")?;
    // What plotly drew before its first pause: nothing, if it waits.
    let bars = || {
        js_sys::Reflect::get(el, &"querySelectorAll".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            .and_then(|f| f.call1(el, &".point".into()).ok())
            .and_then(|l| js_sys::Reflect::get(&l, &"length".into()).ok())
            .and_then(|n| n.as_f64())
            .map_or(0, |n| n as usize)
    };
    let drawn_at_return = bars();
    if state.reads.get() == 0 || state.pauses.get() == 0 {
        return Err("it never read the chart's _promises while drawing");
    }
    if drawn_at_return > 0 {
        return Err(
            "it drew bars before its first pause was over: it no longer waits for _promises",
        );
    }
    let timeout = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_1(
                &resolve,
                CHECK_TIMEOUT_MS,
                &"timeout".into(),
            );
        }
    });
    let first = js_sys::Promise::race(&js_sys::Array::of2(&drawing, &timeout));
    match JsFuture::from(first).await {
        Ok(v) if v.as_string().as_deref() == Some("timeout") => {
            return Err("a drawing paused by _promises did not finish in time");
        }
        Ok(_) => {}
        Err(_) => return Err("a drawing paused by _promises failed"),
    }
    if state.resumes.get() == 0 || state.reads_after_resume.get() == 0 {
        return Err("it did not go on drawing after a pause");
    }
    if bars() != CHECK_BARS {
        return Err("a drawing cut by pauses ended incomplete");
    }
    Ok(())
}
