//! The page's side of the evaluation runtime (`crate::runtime`): one Web
//! Worker running the page's own wasm, fed the newest scenario.
//!
//! - The worker is a module worker (`worker.js`) that imports the page's
//!   own wasm-bindgen module and wasm file, read from the page's preload
//!   links, so it costs no second download. The app's `main` sees it is in
//!   a worker and serves requests instead of mounting the page.
//! - Edits coalesce: while a request runs, only the newest edit waits. A
//!   request that has run longer than `REPLACE_AFTER_MS` when a newer edit
//!   arrives is cancelled by terminating the worker and starting another.
//! - Without Web Workers (or if the worker fails to load) the models run on
//!   the main thread, after the edit's task, so the page still works.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::runtime::{encode, evaluate_request, ExportFormat, FromWorker, Server, ToWorker};
use crate::scenario::Scenario;

/// A newer edit replaces a request only after it has run this long; a
/// shorter one is cheaper to let finish than to restart the worker.
const REPLACE_AFTER_MS: f64 = 120.0;

type Handler = Rc<dyn Fn(FromWorker)>;

struct Inner {
    worker: Option<Worker>,
    ready: bool,
    /// The request the worker is computing, when it was sent (ms), and
    /// the request itself (sent again if the worker dies on it).
    in_flight: Option<(u64, f64, String)>,
    /// The newest request not yet sent.
    queued: Option<(u64, String)>,
    /// Export requests not yet answered (sent again to a new worker).
    exports: Vec<String>,
    /// The worker side on the page, once no worker could run: its
    /// presence means "evaluate on the main thread".
    inline_server: Option<Rc<RefCell<Server>>>,
    handler: Handler,
    /// Keeps the message closure alive as long as its worker.
    _on_message: Option<Closure<dyn FnMut(MessageEvent)>>,
    _on_error: Option<Closure<dyn FnMut(web_sys::Event)>>,
}

impl Inner {
    fn inline(&self) -> bool {
        self.inline_server.is_some()
    }

    /// No worker: from now on the models run on the page.
    fn fall_back(&mut self) {
        if let Some(w) = self.worker.take() {
            w.terminate();
        }
        self.ready = false;
        self.inline_server.get_or_insert_with(Default::default);
    }
}

/// Handle to the runtime; cheap to clone.
#[derive(Clone)]
pub struct Runtime(Rc<RefCell<Inner>>);

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

impl Runtime {
    /// Starts the worker; `handler` receives every answer on the main thread.
    pub fn start(handler: impl Fn(FromWorker) + 'static) -> Self {
        let rt = Runtime(Rc::new(RefCell::new(Inner {
            worker: None,
            ready: false,
            in_flight: None,
            queued: None,
            exports: Vec::new(),
            inline_server: None,
            handler: Rc::new(handler),
            _on_message: None,
            _on_error: None,
        })));
        rt.spawn();
        rt
    }

    /// Asks for `scenario` to be evaluated as request `id`.
    pub fn submit(&self, id: u64, scenario: &Scenario) {
        let msg = evaluate_request(id, scenario);
        let stale_run = {
            let mut inner = self.0.borrow_mut();
            inner.queued = Some((id, msg));
            match inner.in_flight {
                Some((_, started, _)) => inner.ready && now() - started > REPLACE_AFTER_MS,
                None => false,
            }
        };
        if stale_run {
            self.restart();
        }
        self.pump();
    }

    /// Asks for the results file; the answer arrives as `FromWorker::Export`.
    pub fn export(&self, id: u64, format: ExportFormat) {
        let msg = encode(&ToWorker::Export { id, format });
        let send_now = {
            let mut inner = self.0.borrow_mut();
            inner.exports.push(msg.clone());
            inner.ready && !inner.inline()
        };
        if send_now {
            self.post(&msg);
        } else if self.0.borrow().inline() {
            self.run_inline(msg);
        }
    }

    fn post(&self, msg: &str) -> bool {
        self.0
            .borrow()
            .worker
            .as_ref()
            .is_some_and(|w| w.post_message(&JsValue::from_str(msg)).is_ok())
    }

    /// Stops the running request (its results never arrive); the newest
    /// edit, if any, is computed next.
    pub fn cancel(&self) {
        if self.0.borrow().in_flight.is_some() {
            self.restart();
        }
    }

    fn restart(&self) {
        {
            let mut inner = self.0.borrow_mut();
            if let Some(w) = inner.worker.take() {
                w.terminate();
            }
            inner.ready = false;
            inner.in_flight = None;
        }
        self.spawn();
    }

    /// Sends the queued request if the worker is free.
    fn pump(&self) {
        let mut inner = self.0.borrow_mut();
        if inner.in_flight.is_some() {
            return;
        }
        if inner.inline() {
            if let Some((id, msg)) = inner.queued.take() {
                inner.in_flight = Some((id, now(), msg.clone()));
                drop(inner);
                self.run_inline(msg);
            }
            return;
        }
        if !inner.ready {
            return;
        }
        let Some((id, msg)) = inner.queued.take() else {
            return;
        };
        let sent = inner
            .worker
            .as_ref()
            .is_some_and(|w| w.post_message(&JsValue::from_str(&msg)).is_ok());
        if sent {
            inner.in_flight = Some((id, now(), msg));
        } else {
            inner.queued = Some((id, msg));
        }
    }

    fn spawn(&self) {
        if self.new_worker().is_err() {
            self.0.borrow_mut().fall_back();
            self.pump();
        }
    }

    fn new_worker(&self) -> Result<(), JsValue> {
        let url = worker_url().ok_or_else(|| JsValue::from_str("no wasm preload links"))?;
        let opts = WorkerOptions::new();
        opts.set_type(WorkerType::Module);
        opts.set_name("ddnn-planner models");
        let worker = Worker::new_with_options(&url, &opts)?;
        let weak = Rc::downgrade(&self.0);
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
            let Some(inner) = weak.upgrade() else { return };
            let Some(text) = ev.data().as_string() else {
                return;
            };
            let Ok(msg) = serde_json::from_str::<FromWorker>(&text) else {
                return;
            };
            Runtime(inner).receive(msg);
        });
        let weak = Rc::downgrade(&self.0);
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            // A worker that cannot load (no module workers) or died: fall
            // back, and compute on the page what it was computing, unless
            // a newer edit waits.
            ev.prevent_default();
            let Some(inner) = weak.upgrade() else { return };
            let rt = Runtime(inner);
            let lost = {
                let mut i = rt.0.borrow_mut();
                i.fall_back();
                let lost = i.in_flight.take();
                if let Some((id, _, msg)) = &lost {
                    i.queued.get_or_insert_with(|| (*id, msg.clone()));
                }
                lost
            };
            if lost.is_some() {
                web_sys::console::warn_1(
                    &"ddnn-planner: the model worker failed; computing on the page".into(),
                );
            }
            rt.pump();
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let mut inner = self.0.borrow_mut();
        inner.worker = Some(worker);
        inner._on_message = Some(on_message);
        inner._on_error = Some(on_error);
        Ok(())
    }

    fn receive(&self, msg: FromWorker) {
        match &msg {
            FromWorker::Ready => {
                let exports = {
                    let mut inner = self.0.borrow_mut();
                    inner.ready = true;
                    inner.exports.clone()
                };
                // A new worker: ask again what the old one never answered.
                for e in &exports {
                    self.post(e);
                }
                self.pump();
                return;
            }
            FromWorker::Export { .. } => {
                self.0.borrow_mut().exports.clear();
            }
            FromWorker::Done { id } => {
                let mut inner = self.0.borrow_mut();
                if inner.in_flight.as_ref().is_some_and(|(f, _, _)| f == id) {
                    inner.in_flight = None;
                }
            }
            FromWorker::Failed { message } => {
                web_sys::console::warn_1(&format!("ddnn-planner worker: {message}").into());
                self.0.borrow_mut().in_flight = None;
            }
            _ => {}
        }
        let handler = self.0.borrow().handler.clone();
        handler(msg);
        self.pump();
    }

    /// The fallback: the same `Server`, in one task after the edit.
    fn run_inline(&self, msg: String) {
        let rt = self.clone();
        let server = self
            .0
            .borrow_mut()
            .inline_server
            .get_or_insert_with(Default::default)
            .clone();
        let task = Closure::once_into_js(move || {
            let mut out = Vec::new();
            server.borrow_mut().handle(&msg, &mut |m| out.push(m), &now);
            for m in out {
                if let Ok(m) = serde_json::from_str::<FromWorker>(&m) {
                    rt.receive(m);
                }
            }
        });
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback(task.unchecked_ref());
        }
    }
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

/// The worker side: called by the app's `main` when it runs in a worker.
/// Returns false on the page.
pub fn serve_if_worker() -> bool {
    let Ok(scope) = js_sys::global().dyn_into::<web_sys::DedicatedWorkerGlobalScope>() else {
        return false;
    };
    let post_scope = scope.clone();
    let mut server = Server::default();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let Some(text) = ev.data().as_string() else {
            return;
        };
        let perf = js_sys::Reflect::get(&js_sys::global(), &"performance".into())
            .ok()
            .and_then(|p| p.dyn_into::<web_sys::Performance>().ok());
        let clock = move || perf.as_ref().map_or(0.0, |p| p.now());
        server.handle(
            &text,
            &mut |m| {
                let _ = post_scope.post_message(&JsValue::from_str(&m));
            },
            &clock,
        );
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str(&encode(&FromWorker::Ready)));
    true
}
