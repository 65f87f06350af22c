//! Uploaded files read in an import worker (`crate::readers`): the page
//! posts the picked file as it is (a `Blob`), the worker reads and parses
//! it and answers the value as JSON. Each import has its own worker, ended
//! once it has answered, so what a large file took is given back; a newer
//! pick at the same box ends the older import.

use std::cell::RefCell;
use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};

use super::files::{picked_within, MAX_UPLOAD_BYTES};
use crate::readers::Importer;
use crate::worker::imports::{
    answer, failed, read_answer, ImportError, ImportRequest, WORKER_NAME,
};

/// The import under way at one upload box, if any: a newer one ends it.
#[derive(Clone, Default)]
pub struct ImportSlot(Rc<RefCell<Option<Running>>>);

struct Running {
    worker: Worker,
    /// Settles the import's promise (with `None`: replaced).
    resolve: js_sys::Function,
}

impl ImportSlot {
    /// Ends the import under way here, if any.
    fn replace(&self, next: Option<Running>) {
        if let Some(old) = std::mem::replace(&mut *self.0.borrow_mut(), next) {
            old.worker.terminate();
            let _ = old.resolve.call1(&JsValue::NULL, &JsValue::NULL);
        }
    }

    fn finish(&self, worker: &Worker) {
        let mine = self
            .0
            .borrow()
            .as_ref()
            .is_some_and(|r| js_sys::Object::is(&r.worker, worker));
        if mine {
            self.0.borrow_mut().take();
        }
    }
}

/// The file picked in `ev` (refused by name over the upload limit), read
/// by `imp` with `options`: its name and value. `None`: nothing was
/// picked, or a newer pick at `slot` replaced this one.
pub async fn import_upload<T: DeserializeOwned, O: Serialize>(
    ev: &web_sys::Event,
    imp: &Importer<T, O>,
    options: &O,
    slot: &ImportSlot,
) -> Option<Result<(String, T), ImportError>> {
    let (name, file) = match picked_within(ev, MAX_UPLOAD_BYTES)? {
        Ok(p) => p,
        Err(e) => return Some(Err(e)),
    };
    let value = import_file(imp, &name, &file, options, slot).await?;
    Some(value.map(|v| (name, v)))
}

/// `file`, named `name`, read by `imp` with `options` in a new import
/// worker. `None` if a newer import at `slot` replaced it.
pub async fn import_file<T: DeserializeOwned, O: Serialize>(
    imp: &Importer<T, O>,
    name: &str,
    file: &web_sys::File,
    options: &O,
    slot: &ImportSlot,
) -> Option<Result<T, ImportError>> {
    let Ok(worker) = super::module_worker::module_worker(WORKER_NAME) else {
        return Some(Err(ImportError::NoWorker));
    };
    let msg = js_sys::Object::new();
    let request =
        serde_json::to_string(&ImportRequest::new(imp, name, options)).unwrap_or_default();
    let _ = js_sys::Reflect::set(&msg, &"request".into(), &JsValue::from_str(&request));
    let _ = js_sys::Reflect::set(&msg, &"file".into(), file);

    let mut settle = None;
    let promise = js_sys::Promise::new(&mut |resolve, _| settle = Some(resolve));
    let Some(resolve) = settle else {
        return Some(Err(ImportError::NoWorker));
    };
    let on_message = {
        let (worker, resolve) = (worker.clone(), resolve.clone());
        Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
            // The answer is handed on as the browser's string: copying a
            // 5 MB answer into the wasm and back took 80 ms of this task.
            let data = ev.data();
            let Some(text) = data.dyn_ref::<js_sys::JsString>() else {
                return;
            };
            if text.length() == 5 && *text == "ready" {
                let _ = worker.post_message(&msg);
            } else {
                let _ = resolve.call1(&JsValue::NULL, &data);
            }
        })
    };
    let on_error = {
        let resolve = resolve.clone();
        let name = name.to_string();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            ev.prevent_default();
            let text = failed(&ImportError::Stopped { file: name.clone() });
            let _ = resolve.call1(&JsValue::NULL, &JsValue::from_str(&text));
        })
    };
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    slot.replace(Some(Running {
        worker: worker.clone(),
        resolve,
    }));

    let settled = wasm_bindgen_futures::JsFuture::from(promise).await;
    // The answer is read in a task of its own, not the message's.
    super::state::next_task().await;
    worker.set_onmessage(None);
    worker.set_onerror(None);
    worker.terminate();
    slot.finish(&worker);
    let text = settled.ok()?.as_string()?;
    Some(read_answer(&text))
}

/// The import worker's side: the request, and the file that comes with it,
/// read here with `FileReaderSync` (a worker may block).
pub fn serve(scope: web_sys::DedicatedWorkerGlobalScope) {
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
    // The handler lives as long as the worker.
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str("ready"));
}
