//! The page's side of the evaluation runtime (`crate::worker`): one Web
//! Worker running the page's own wasm, fed the newest scenario.
//!
//! - The worker is a module worker (`worker.js`, `module_worker`) that
//!   imports the page's own wasm-bindgen glue and is posted the page's
//!   compiled wasm module, so it neither downloads nor compiles the wasm
//!   again; the first one is started by `index.html` while the page's wasm
//!   downloads. The app's `main` sees it is in a worker and serves
//!   requests instead of mounting the page. A request may be posted before
//!   the worker says it is ready (`worker.js` holds it until then).
//! - A model measured cheap on the scenario (`crate::worker::quick`) is
//!   computed here, in the edit's own task, so the frame that shows the
//!   edit shows its numbers; the worker computes it too (for the exports)
//!   and answers `Same`.
//! - Edits coalesce: while a request runs, only the newest edit waits. A
//!   request that has run longer than `REPLACE_AFTER_MS` when a newer edit
//!   arrives is cancelled by terminating the worker and starting another.
//! - A model that computes in parts (Li et al.'s sweep over W) is split:
//!   the worker answers `Split`, the page shares the parts out to a pool of
//!   the same worker, one per core but the page's (started at the first
//!   split, kept), and sends each part back to the worker, which assembles
//!   the report so far (`crate::worker::parts`). Cancel and a replacing edit stop
//!   the busy ones.
//! - Without Web Workers (or if the worker fails to load) the models run on
//!   the main thread, after the edit's task, so the page still works.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};

use super::module_worker::module_worker;
use super::now_ms;
use super::task_queue::Queue;
use crate::scenario::Scenario;
use crate::worker::parts::{Handout, Splits};
use crate::worker::quick::{self, Costs, Plan};
use crate::worker::{
    encode, evaluate_request, keep_request, part_request, ExportFormat, FromWorker, Server,
    ToWorker,
};

/// A request kept for after the edit's frame is sent after this long
/// [ms] even if no frame comes (a hidden tab draws none).
const WAIT_FOR_FRAME_MS: i32 = 50;

/// Most pool workers, whatever the core count says.
const MOST_HELPERS: usize = 8;

/// A newer edit replaces a request only after it has run this long; a
/// shorter one is cheaper to let finish than to restart the worker.
const REPLACE_AFTER_MS: f64 = 120.0;

type Handler = Rc<dyn Fn(FromWorker)>;

/// A request: its id and its scenario as JSON (`Rc`: shared with every
/// part request made of it).
type Request = (u64, Rc<str>);

/// A pool worker: computes parts of split models.
struct Helper {
    key: u32,
    worker: Worker,
    ready: bool,
    holding: Option<Handout>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

struct Inner {
    worker: Option<Worker>,
    ready: bool,
    /// The request the worker is computing and when it was sent (ms); sent
    /// again if the worker dies on it.
    in_flight: Option<(Request, f64)>,
    /// The newest request not yet sent.
    queued: Option<Request>,
    /// The models the page computed itself for `queued`.
    queued_shown: Vec<&'static str>,
    /// A request whose quick models the page has computed, sent after the
    /// frame that shows them (`submit`).
    waiting: Option<(u64, Scenario, Vec<&'static str>)>,
    /// Every model the page computed itself since the last request sent
    /// (`ToWorker::Evaluate`'s `replaced`, less those it shows).
    computed_here: Vec<&'static str>,
    /// Each model's recent measured times: which models the page
    /// computes itself.
    costs: Costs,
    /// The pool, the parts it shares out, and the request whose `Done`
    /// waits for its split models.
    helpers: Vec<Helper>,
    next_key: u32,
    splits: Splits,
    done_waits: Option<u64>,
    /// The last request the worker split a model of (seen on arrival).
    split_seen: Option<u64>,
    /// Export requests not yet answered (sent again to a new worker).
    exports: Vec<String>,
    /// `ToWorker::Keep` messages, each sent once to every worker as it
    /// starts (before any request).
    kept: Vec<(String, Rc<str>)>,
    /// The worker side on the page, once no worker could run: its
    /// presence means "evaluate on the main thread".
    inline_server: Option<Rc<RefCell<Server>>>,
    /// Model sections already written as JSON (`SectionJson`).
    sections: crate::scenario::section_json::SectionJson,
    handler: Handler,
    /// Keeps the message closure alive as long as its worker.
    _on_message: Option<Closure<dyn FnMut(MessageEvent)>>,
    _on_error: Option<Closure<dyn FnMut(web_sys::Event)>>,
}

impl Inner {
    fn inline(&self) -> bool {
        self.inline_server.is_some()
    }

    /// Posts `msg` to the model worker, if there is one.
    fn post(&self, msg: &str) -> bool {
        self.worker.as_ref().is_some_and(|w| post_text(w, msg))
    }

    /// A part came back: the model worker assembles the report so far.
    fn part_done(&mut self, part: &Handout, text: Result<String, crate::models::Unavailable>) {
        if let Some(request) = self.splits.done(part, text) {
            self.post(&request);
        }
    }

    /// No worker: from now on the models run on the page, whole.
    fn fall_back(&mut self) {
        if let Some(w) = self.worker.take() {
            w.terminate();
        }
        self.ready = false;
        if self.inline_server.is_none() {
            let mut server = Server::default();
            for (_, msg) in &self.kept {
                server.handle(msg, &mut |_| {}, &now_ms);
            }
            self.inline_server = Some(Rc::new(RefCell::new(server)));
        }
        self.stop_parts();
    }

    /// Stops every part in progress: its workers are terminated (a new
    /// one starts at the next split), the others stay.
    fn stop_parts(&mut self) {
        self.helpers.retain(|h| {
            let busy = h.holding.is_some();
            if busy {
                h.worker.terminate();
            }
            !busy
        });
        self.splits.clear();
        self.done_waits = None;
    }

    /// The pool's size: one per core but the page's (a one-core machine
    /// computes whole). The page's thread keeps a core, so its tasks stay
    /// short while the pool computes.
    fn pool_size() -> usize {
        let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
        if cores >= 2.0 {
            (cores as usize - 1).clamp(1, MOST_HELPERS)
        } else {
            0
        }
    }
}

/// Handle to the runtime; cheap to clone.
#[derive(Clone)]
pub struct Runtime(Rc<RefCell<Inner>>);

impl Runtime {
    /// Starts the worker; `handler` receives every answer on the main thread.
    pub fn start(handler: impl Fn(FromWorker) + 'static) -> Self {
        let rt = Runtime(Rc::new(RefCell::new(Inner {
            worker: None,
            ready: false,
            in_flight: None,
            queued: None,
            queued_shown: Vec::new(),
            waiting: None,
            computed_here: Vec::new(),
            costs: Costs::default(),
            helpers: Vec::new(),
            next_key: 0,
            splits: Splits::default(),
            done_waits: None,
            split_seen: None,
            exports: Vec::new(),
            kept: Vec::new(),
            inline_server: None,
            sections: Default::default(),
            handler: Rc::new(handler),
            _on_message: None,
            _on_error: None,
        })));
        rt.spawn();
        rt
    }

    /// Gives every worker, now and later, an input the page keeps out of
    /// its requests (`ToWorker::Keep`, by storage key), once.
    pub fn keep(&self, key: &str, json: &str) {
        let msg: Rc<str> = {
            let mut inner = self.0.borrow_mut();
            if inner.kept.iter().any(|(k, _)| k == key) {
                return;
            }
            let msg: Rc<str> = keep_request(key, json).into();
            inner.kept.push((key.to_string(), msg.clone()));
            msg
        };
        let inner = self.0.borrow();
        if let Some(server) = &inner.inline_server {
            server.borrow_mut().handle(&msg, &mut |_| {}, &now_ms);
            return;
        }
        inner.post(&msg);
        for h in &inner.helpers {
            let _ = post_text(&h.worker, &msg);
        }
    }

    /// Asks for `scenario` to be evaluated as request `id`: the quick
    /// models now (their results reach the handler before this returns),
    /// the others by the worker.
    pub fn submit(&self, id: u64, scenario: &Scenario) {
        let shown = self.quick(id, scenario);
        let mut inner = self.0.borrow_mut();
        for m in &shown {
            if !inner.computed_here.contains(m) {
                inner.computed_here.push(m);
            }
        }
        if shown.is_empty() {
            inner.waiting = None;
            let json: Rc<str> = inner.sections.to_json(scenario).into();
            inner.queued = Some((id, json));
            inner.queued_shown = shown;
            drop(inner);
            self.send_queued();
            return;
        }
        // The frame with the quick models' numbers comes first: writing
        // and posting the request (1-2 ms with a long layer table) waits
        // for it, and a burst of keystrokes sends only its last edit.
        let first = inner.waiting.is_none();
        inner.waiting = Some((id, scenario.clone(), shown));
        drop(inner);
        if first {
            let rt = self.clone();
            super::task_queue::after_next_frame_or(WAIT_FOR_FRAME_MS, move || rt.send_waiting());
        }
    }

    /// Drops what each model was measured to cost: a whole new scenario
    /// (an example, an import) may cost each model differently per unit
    /// of work, so its first evaluations are the worker's.
    pub fn forget_costs(&self) {
        self.0.borrow_mut().costs = Costs::default();
    }

    /// Sends the request `submit` kept for after its frame, if still kept.
    fn send_waiting(&self) {
        let mut inner = self.0.borrow_mut();
        let Some((id, scenario, shown)) = inner.waiting.take() else {
            return;
        };
        let json: Rc<str> = inner.sections.to_json(&scenario).into();
        inner.queued = Some((id, json));
        inner.queued_shown = shown;
        drop(inner);
        self.send_queued();
    }

    fn send_queued(&self) {
        self.replace_if_stale();
        self.pump();
    }

    /// Computes the models that are quick on `scenario` here and hands
    /// their results to the handler; returns their ids.
    fn quick(&self, id: u64, scenario: &Scenario) -> Vec<&'static str> {
        let (plans, handler) = {
            let mut inner = self.0.borrow_mut();
            if inner.inline() {
                return Vec::new();
            }
            let kept_aside = !inner.kept.is_empty();
            (
                inner.costs.plan(id, scenario, kept_aside),
                inner.handler.clone(),
            )
        };
        let mut shown = Vec::new();
        for (model, plan) in crate::models::MODELS.iter().zip(plans) {
            let Plan::Quick(units) = plan else { continue };
            let start = now_ms();
            let outcome = quick::evaluate(*model, scenario);
            let elapsed_ms = now_ms() - start;
            if let Some(units) = units {
                self.0.borrow_mut().costs.measured_here(
                    *model,
                    units,
                    elapsed_ms,
                    outcome.is_report(),
                );
            }
            shown.push(model.id());
            handler(FromWorker::Result {
                id,
                model: model.id().to_string(),
                outcome,
                elapsed_ms,
            });
        }
        shown
    }

    /// A newer edit waits while the running request is young; once it has
    /// run `REPLACE_AFTER_MS`, the edit replaces it (checked again then, so
    /// one edit early in a long simulation does not wait for all of it).
    fn replace_if_stale(&self) {
        let age = {
            let inner = self.0.borrow();
            match (&inner.in_flight, &inner.queued) {
                (Some((_, started)), Some(_)) if inner.ready => now_ms() - started,
                _ => return,
            }
        };
        if age > REPLACE_AFTER_MS {
            self.restart();
            return;
        }
        let rt = self.clone();
        let wait = (REPLACE_AFTER_MS - age).ceil() as i32 + 1;
        super::task_queue::after_ms(wait, move || rt.send_queued());
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
        self.0.borrow().post(msg)
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
            inner.stop_parts();
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
            if let Some((id, json)) = inner.queued.take() {
                let msg = evaluate_request(id, &json, false, &[], &[]);
                inner.in_flight = Some(((id, json), now_ms()));
                drop(inner);
                self.run_inline(msg);
            }
            return;
        }
        // A worker still starting takes the request too: `worker.js` keeps
        // it until the worker's `main` listens, so the first numbers are
        // computed as soon as the worker is up, not a round trip later.
        if inner.worker.is_none() {
            return;
        }
        let Some((id, json)) = inner.queued.take() else {
            return;
        };
        let shown = std::mem::take(&mut inner.queued_shown);
        let replaced: Vec<&str> = inner
            .computed_here
            .iter()
            .copied()
            .filter(|m| !shown.contains(m))
            .collect();
        let msg = evaluate_request(id, &json, Inner::pool_size() > 0, &shown, &replaced);
        if inner.post(&msg) {
            inner.in_flight = Some(((id, json), now_ms()));
            inner.computed_here.clear();
        } else {
            inner.queued = Some((id, json));
            inner.queued_shown = shown;
        }
    }

    /// Hands the waiting parts to idle pool workers, starting the pool
    /// first if it is short.
    fn share_out(&self) {
        let want = Inner::pool_size();
        while self.0.borrow().helpers.len() < want {
            if self.new_helper().is_err() {
                break;
            }
        }
        let mut inner = self.0.borrow_mut();
        let Some(((id, json), _)) = inner.in_flight.clone() else {
            return;
        };
        let inner = &mut *inner;
        for h in inner
            .helpers
            .iter_mut()
            .filter(|h| h.ready && h.holding.is_none())
        {
            let Some(part) = inner.splits.take() else {
                break;
            };
            let msg = part_request(id, &part.model, part.part, &json);
            if post_text(&h.worker, &msg) {
                h.holding = Some(part);
            } else {
                inner.splits.lost(&part);
            }
        }
        // No pool worker could start: the model worker computes the parts.
        if inner.helpers.is_empty() {
            while let Some(part) = inner.splits.take() {
                inner.post(&part_request(id, &part.model, part.part, &json));
            }
        }
    }

    fn new_helper(&self) -> Result<(), JsValue> {
        let worker = module_worker("ddnn-planner parts")?;
        let key = {
            let mut inner = self.0.borrow_mut();
            inner.next_key += 1;
            inner.next_key
        };
        let on_message = self.on_message(move |rt, msg| rt.helper_said(key, msg), |_, _| {});
        let weak = Rc::downgrade(&self.0);
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            // A pool worker that died: its part goes to another.
            ev.prevent_default();
            let Some(inner) = weak.upgrade() else { return };
            let rt = Runtime(inner);
            {
                let mut i = rt.0.borrow_mut();
                let Some(at) = i.helpers.iter().position(|h| h.key == key) else {
                    return;
                };
                let h = i.helpers.remove(at);
                h.worker.terminate();
                if let Some(part) = &h.holding {
                    i.splits.lost(part);
                }
            }
            web_sys::console::warn_1(&"ddnn-planner: a pool worker failed".into());
            rt.share_out();
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        for (_, msg) in &self.0.borrow().kept {
            let _ = post_text(&worker, msg);
        }
        self.0.borrow_mut().helpers.push(Helper {
            key,
            worker,
            ready: false,
            holding: None,
            _on_message: on_message,
            _on_error: on_error,
        });
        Ok(())
    }

    /// A pool worker's answer.
    fn helper_said(&self, key: u32, msg: FromWorker) {
        {
            let mut inner = self.0.borrow_mut();
            let Some(h) = inner.helpers.iter_mut().find(|h| h.key == key) else {
                return;
            };
            let held = match msg {
                FromWorker::Ready => {
                    h.ready = true;
                    None
                }
                FromWorker::PartDone { text, .. } => h.holding.take().map(|p| (p, text)),
                _ => None,
            };
            if let Some((part, text)) = held {
                inner.part_done(&part, text);
            }
        }
        self.share_out();
    }

    fn spawn(&self) {
        if self.new_worker().is_err() {
            self.0.borrow_mut().fall_back();
            self.pump();
        }
    }

    /// A worker's message handler: each answer is read (parsed) as it comes
    /// and given to `f` in a task of its own, in order (a report's parse and
    /// the page it renders would otherwise share one task); the runtime is
    /// held weakly, so a dropped page frees its workers.
    fn on_message(
        &self,
        f: impl Fn(Runtime, FromWorker) + 'static,
        first: impl Fn(&Runtime, &FromWorker) + 'static,
    ) -> Closure<dyn FnMut(MessageEvent)> {
        let weak = Rc::downgrade(&self.0);
        let f = Rc::new(f);
        Closure::new(move |ev: MessageEvent| {
            let Some(text) = ev.data().as_string() else {
                return;
            };
            if let Ok(msg) = serde_json::from_str::<FromWorker>(&text) {
                if let Some(inner) = weak.upgrade() {
                    first(&Runtime(inner), &msg);
                }
                let (weak, f) = (weak.clone(), Rc::clone(&f));
                Queue::Inbox.push(Box::new(move || {
                    if let Some(inner) = weak.upgrade() {
                        f(Runtime(inner), msg);
                    }
                    None
                }));
            }
        })
    }

    fn new_worker(&self) -> Result<(), JsValue> {
        let worker = module_worker("ddnn-planner models")?;
        let on_message = self.on_message(|rt, msg| rt.receive(msg), Runtime::arrived);
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
                if let Some((request, _)) = &lost {
                    i.queued.get_or_insert_with(|| request.clone());
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
        for (_, msg) in &inner.kept {
            let _ = post_text(&worker, msg);
        }
        inner.worker = Some(worker);
        inner._on_message = Some(on_message);
        inner._on_error = Some(on_error);
        Ok(())
    }

    /// Sees each answer as it arrives, before the page acts on those
    /// before it: the newest edit is sent as soon as the worker is done,
    /// not after the page has drawn every report of the request it
    /// replaces.
    fn arrived(&self, msg: &FromWorker) {
        let done = {
            let mut inner = self.0.borrow_mut();
            match msg {
                // Its parts are shared out by the page, in order.
                FromWorker::Split { id, .. } => {
                    inner.split_seen = Some(*id);
                    false
                }
                FromWorker::Done { id } => {
                    let free = inner.split_seen != Some(*id)
                        && inner.in_flight.as_ref().is_some_and(|((f, _), _)| f == id);
                    if free {
                        inner.in_flight = None;
                    }
                    free
                }
                _ => false,
            }
        };
        if done {
            self.pump();
        }
    }

    fn receive(&self, msg: FromWorker) {
        let mut then_done = None;
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
            FromWorker::Split { id, model, parts } => {
                self.0.borrow_mut().splits.split(*id, model, *parts);
                self.share_out();
                return;
            }
            FromWorker::PartDone {
                id,
                model,
                part,
                text,
            } => {
                // The model worker computed a part itself (no pool).
                let part = Handout {
                    id: *id,
                    model: model.clone(),
                    part: *part,
                };
                self.0.borrow_mut().part_done(&part, text.clone());
                return;
            }
            FromWorker::Result {
                id,
                model,
                elapsed_ms,
                ..
            }
            | FromWorker::Same {
                id,
                model,
                elapsed_ms,
            } => {
                // A `Same` repeats whether the last answer was a report.
                let report = match &msg {
                    FromWorker::Result { outcome, .. } => Some(outcome.is_report()),
                    _ => None,
                };
                let mut inner = self.0.borrow_mut();
                inner.costs.measured(*id, model, *elapsed_ms, report);
                inner.splits.answered(*id, model);
                if inner.done_waits == Some(*id) && !inner.splits.pending(*id) {
                    // The last split model: the request is done now.
                    then_done = Some(*id);
                }
            }
            FromWorker::Done { id } => {
                let mut inner = self.0.borrow_mut();
                if inner.splits.pending(*id) {
                    // Its split models answer later.
                    inner.done_waits = Some(*id);
                    return;
                }
                inner.done_waits = None;
                if inner.in_flight.as_ref().is_some_and(|((f, _), _)| f == id) {
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
        if let Some(id) = then_done {
            self.receive(FromWorker::Done { id });
            return;
        }
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
            server
                .borrow_mut()
                .handle(&msg, &mut |m| out.push(m), &now_ms);
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

/// Posts a request to a worker as UTF-8 bytes whose buffer moves with the
/// message: a scenario's JSON (tens of KB with a long layer table) posted
/// as a string was decoded into a JS string and then copied into the
/// message, about 1 ms of each edit's task; bytes are copied once.
fn post_text(worker: &Worker, msg: &str) -> bool {
    let bytes = js_sys::Uint8Array::from(msg.as_bytes());
    let transfer = js_sys::Array::of1(&bytes.buffer());
    worker.post_message_with_transfer(&bytes, &transfer).is_ok()
}

/// A request as the worker receives it: `post_text`'s bytes, or a string.
fn received_text(data: &JsValue) -> Option<String> {
    if let Some(s) = data.as_string() {
        return Some(s);
    }
    let bytes = data.dyn_ref::<js_sys::Uint8Array>()?;
    String::from_utf8(bytes.to_vec()).ok()
}

/// The worker side: called by the app's `main` when it runs in a worker.
/// Returns false on the page.
pub fn serve_if_worker() -> bool {
    let Ok(scope) = js_sys::global().dyn_into::<web_sys::DedicatedWorkerGlobalScope>() else {
        return false;
    };
    if scope.name() == crate::worker::imports::WORKER_NAME {
        super::uploads::serve(scope);
        return true;
    }
    let post_scope = scope.clone();
    let mut server = Server::default();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let Some(text) = received_text(&ev.data()) else {
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
