//! The Chrome-trace import worker's side (`models::li::trace_job`): the
//! same wasm as the page, started under its own name by the Li panel
//! (`li_trace.rs`); the app's `main` hands it here when it sees that name.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MessageEvent;

use crate::models::li::trace_job::answer;

/// The import worker's side: the request, and the file that comes with a
/// `Read`, read here with `FileReaderSync` (a worker may block).
pub fn serve_imports(scope: web_sys::DedicatedWorkerGlobalScope) {
    let post_scope = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let data = ev.data();
        let field = |k: &str| js_sys::Reflect::get(&data, &JsValue::from_str(k)).ok();
        let request = field("request")
            .and_then(|v| v.as_string())
            .unwrap_or_default();
        let bytes = field("file")
            .and_then(|f| f.dyn_into::<web_sys::Blob>().ok())
            .and_then(|blob| {
                web_sys::FileReaderSync::new()
                    .ok()?
                    .read_as_array_buffer(&blob)
                    .ok()
            })
            .map(|buf| js_sys::Uint8Array::new(&buf).to_vec());
        let _ = post_scope.post_message(&JsValue::from_str(&answer(&request, bytes)));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str("ready"));
}
