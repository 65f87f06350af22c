//! The page's own module and wasm started again as a module worker: the
//! models' runtime and the import workers both start theirs here.

use wasm_bindgen::JsValue;
use web_sys::{Worker, WorkerOptions, WorkerType};

/// A module worker running the page's own wasm, named `name` (the name
/// tells its `main` which job to serve).
pub(crate) fn module_worker(name: &str) -> Result<Worker, JsValue> {
    let url = worker_url().ok_or_else(|| JsValue::from_str("no wasm preload links"))?;
    let opts = WorkerOptions::new();
    opts.set_type(WorkerType::Module);
    opts.set_name(name);
    Worker::new_with_options(&url, &opts)
}

/// `worker.js?js=…&wasm=…`: the page's own module and wasm, from the
/// preload links Trunk writes.
fn worker_url() -> Option<String> {
    let doc = web_sys::window()?.document()?;
    let href =
        |sel: &str| -> Option<String> { doc.query_selector(sel).ok()??.get_attribute("href") };
    let js = href("link[rel=modulepreload][href*='app-']")?;
    let wasm = href("link[rel=preload][type='application/wasm']")?;
    let enc = |s: &str| String::from(js_sys::encode_uri_component(s));
    Some(format!("./worker.js?js={}&wasm={}", enc(&js), enc(&wasm)))
}
