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

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

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
    /// When the current slice began [ms, `performance.now()`].
    since: Cell<f64>,
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

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
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
                if !state.whole.get()
                    && !state.pending.get()
                    && now() - state.since.get() > SLICE_MS
                {
                    if let Some(pause) = pause(&state) {
                        store.push(&pause);
                    }
                }
                store.into()
            })
        };
        let set = {
            let state = Rc::clone(&state);
            Closure::<dyn FnMut(JsValue)>::new(move |v: JsValue| {
                *state.store.borrow_mut() = v.dyn_into::<js_sys::Array>().ok();
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
        self.state.since.set(now());
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
    let state = Rc::clone(state);
    let mut scheduled = true;
    let promise = js_sys::Promise::new(&mut |resolve: js_sys::Function, _| {
        let state = Rc::clone(&state);
        let wake = Closure::once_into_js(move || {
            state.pending.set(false);
            state.since.set(now());
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
