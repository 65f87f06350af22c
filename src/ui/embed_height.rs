//! The embed views (`?embed=1`, `?embed=card`) tell the page that frames
//! them how tall their content is, so the host can size the iframe to fit:
//! `window.parent.postMessage({type: "ddnn-planner:height", height}, "*")`
//! with `height` in CSS pixels, once at start and whenever the content's
//! height changes (a `ResizeObserver` on the body: results arriving, a
//! chart drawn, the frame made narrower). Nothing else is sent, and
//! nothing leaves the browser: the message goes to the framing page only.
//! docs/scenario.md ("Embedding") shows a host's three-line listener.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;

/// The message's `type`.
pub const HEIGHT_MESSAGE: &str = "ddnn-planner:height";

#[wasm_bindgen]
extern "C" {
    /// The DOM's `ResizeObserver` (declared here: web-sys's needs a feature).
    type ResizeObserver;
    #[wasm_bindgen(constructor, catch)]
    fn new(callback: &js_sys::Function) -> Result<ResizeObserver, JsValue>;
    #[wasm_bindgen(method)]
    fn observe(this: &ResizeObserver, target: &JsValue);
}

/// When the page is framed, posts its content height to the parent now and
/// on every change. Does nothing at the top level or without the APIs.
pub fn report_height() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(Some(parent)) = window.parent() else {
        return;
    };
    if js_sys::Object::is(parent.as_ref(), window.as_ref()) {
        return;
    }
    let Some(body) = window.document().and_then(|d| d.body()) else {
        return;
    };
    let last = Rc::new(Cell::new(-1.0f64));
    let post = {
        let body = body.clone();
        move || {
            let height = f64::from(body.offset_height());
            if height == last.get() {
                return;
            }
            last.set(height);
            let msg = js_sys::Object::new();
            let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&msg, &JsValue::from_str(k), v);
            if set("type", &JsValue::from_str(HEIGHT_MESSAGE)).is_err()
                || set("height", &JsValue::from_f64(height)).is_err()
            {
                return;
            }
            // A host that closed or navigated away: nothing to tell.
            let _ = parent.post_message(&msg, "*");
        }
    };
    post();
    let callback = Closure::<dyn FnMut()>::new(post);
    if let Ok(observer) = ResizeObserver::new(callback.as_ref().unchecked_ref()) {
        observer.observe(body.as_ref());
        // Both live as long as the page.
        std::mem::forget(observer);
        callback.forget();
    }
}
