//! The page's own wasm started again as a module worker: the models'
//! runtime, its pool and the import workers all start theirs here.
//!
//! The worker (`worker.js`) imports the page's wasm-bindgen glue and is
//! then posted the `WebAssembly.Module` the page has already compiled: it
//! instantiates that, and never fetches or compiles the wasm again (on a
//! slow link a second fetch of the wasm took seconds). The model worker
//! itself is started by `index.html` while the page's wasm downloads, so
//! its loader and glue arrive meanwhile; the page adopts it here.

use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use web_sys::{Worker, WorkerOptions, WorkerType};

/// The name of the worker `index.html` starts early.
const EARLY_NAME: &str = "ddnn-planner models";
/// Where `index.html` leaves it.
const EARLY_KEY: &str = "ddnnModelWorker";

/// A module worker running the page's own wasm, named `name` (the name
/// tells its `main` which job to serve).
pub(crate) fn module_worker(name: &str) -> Result<Worker, JsValue> {
    let worker = match adopt_early(name) {
        Some(w) => w,
        None => {
            let url = worker_url().ok_or_else(|| JsValue::from_str("no wasm preload links"))?;
            let opts = WorkerOptions::new();
            opts.set_type(WorkerType::Module);
            opts.set_name(name);
            Worker::new_with_options(&url, &opts)?
        }
    };
    // The compiled module, structured-cloned (the worker shares its code);
    // where it cannot be posted, the worker fetches the wasm itself.
    if worker.post_message(&wasm_bindgen::module()).is_err() {
        worker.post_message(&JsValue::from_str("fetch-wasm"))?;
    }
    Ok(worker)
}

/// The model worker `index.html` started, taken once (a worker started
/// again after a cancel is a new one); `None` if there is none or it has
/// already failed to load (its error came before the page could listen).
fn adopt_early(name: &str) -> Option<Worker> {
    if name != EARLY_NAME {
        return None;
    }
    let window = web_sys::window()?;
    let key = JsValue::from_str(EARLY_KEY);
    let early = js_sys::Reflect::get(&window, &key).ok()?;
    let _ = js_sys::Reflect::delete_property(&window, &key);
    let worker = early.dyn_into::<Worker>().ok()?;
    let failed = js_sys::Reflect::get(&worker, &JsValue::from_str("ddnnFailed"))
        .is_ok_and(|v| v.is_truthy());
    worker.set_onerror(None);
    if failed {
        worker.terminate();
        return None;
    }
    Some(worker)
}

/// `worker.js?js=…&wasm=…`: the page's own glue and wasm, from the
/// preload links Trunk writes (the wasm's address is only fetched by a
/// worker that could not be posted the module).
fn worker_url() -> Option<String> {
    let doc = web_sys::window()?.document()?;
    let href =
        |sel: &str| -> Option<String> { doc.query_selector(sel).ok()??.get_attribute("href") };
    let js = href("link[rel=modulepreload][href*='app-']")?;
    let wasm = href("link[rel=preload][type='application/wasm']")?;
    let enc = |s: &str| String::from(js_sys::encode_uri_component(s));
    Some(format!("./worker.js?js={}&wasm={}", enc(&js), enc(&wasm)))
}
