//! The address bar: the scenario fragment, then `&`-separated page
//! parameters (`&view=cynthia`). Writing it costs: `replaceState` and
//! `pushState` take tens of ms in Chromium for a long fragment (a large
//! catalog or cluster), so no write happens in the task of a keystroke or
//! a click. Edits are written once they pause; a history step's starting
//! point and a view change are written in a task of their own, in order.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::{set_timeout, set_timeout_with_handle, window, TimeoutHandle};

/// The whole fragment without `#` (base64url never contains `&`, so
/// older links read as before).
pub fn raw_hash() -> String {
    let hash = window().location().hash().unwrap_or_default();
    hash.strip_prefix('#').unwrap_or(&hash).to_string()
}

/// The fragment's scenario part, if any.
pub fn read_hash() -> Option<String> {
    let raw = raw_hash();
    let frag = raw.split('&').next().unwrap_or_default();
    (!frag.is_empty()).then(|| frag.to_string())
}

/// The page parameters after the scenario (`&view=cynthia`), with the `&`.
pub fn hash_params() -> String {
    let raw = raw_hash();
    raw.find('&')
        .map(|i| raw[i..].to_string())
        .unwrap_or_default()
}

/// The model whose view the address names. None for the overview, or
/// for a model this page does not have.
pub fn read_view() -> Option<String> {
    let raw = raw_hash();
    raw.split('&')
        .skip(1)
        .find_map(|kv| kv.strip_prefix("view="))
        .filter(|v| crate::worker::shown_by_id(v).is_some())
        .map(str::to_string)
}

/// Sets the address's whole fragment: `pushState` when `push`, else
/// `replaceState`.
fn set_address(frag: &str, push: bool) {
    let w = window();
    let Ok(history) = w.history() else { return };
    let loc = w.location();
    let url = format!(
        "{}{}#{frag}",
        loc.pathname().unwrap_or_default(),
        loc.search().unwrap_or_default()
    );
    let _ = if push {
        history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
    } else {
        history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
    };
}

/// Writes the scenario fragment, keeping the page parameters after it: a
/// new history entry for a new step, else in place (typing must not fill
/// the Back button).
fn write_hash(frag: &str, push: bool) {
    set_address(&format!("{frag}{}", hash_params()), push);
}

/// What is waiting to be written.
#[derive(Default)]
struct Writes {
    /// The newest scenario fragment, until edits pause.
    pending: Option<String>,
    pause: Option<TimeoutHandle>,
    /// Writing `pending` begins a new history entry (pushState).
    push: bool,
    /// Steps' starting points (fragment, push), oldest first.
    steps: VecDeque<(String, bool)>,
    /// The page parameters of a view to name in the address.
    view: Option<String>,
    /// A task is scheduled for `steps` and `view`.
    soon: bool,
}

impl Writes {
    /// The scenario waiting for its pause, written now. With none, a
    /// marked step stays marked for the fragment still to come.
    fn pending_write(&mut self) -> Option<(String, bool)> {
        let frag = self.pending.take()?;
        if let Some(pause) = self.pause.take() {
            pause.clear();
        }
        Some((frag, std::mem::take(&mut self.push)))
    }

    fn urgent(&self) -> bool {
        !self.steps.is_empty() || self.view.is_some()
    }
}

/// Writes the address as described in the module's comment.
#[derive(Default, Clone)]
pub struct AddressBar(Rc<RefCell<Writes>>);

impl AddressBar {
    const PAUSE_MS: u64 = 250;

    /// Writes everything waiting now (Share: the address bar must match).
    pub fn flush(&self) {
        while self.next_urgent() {}
        self.write_pending();
    }

    /// The next fragment written begins a new step of the browser
    /// history; the fragment still waiting (the step's starting point, as
    /// a page that just opened may not have written its own) goes first,
    /// so Back returns to it.
    pub fn mark_step(&self) {
        let queued = {
            let mut w = self.0.borrow_mut();
            let write = w.pending_write();
            let queued = write.is_some();
            w.steps.extend(write);
            w.push = true;
            queued
        };
        if queued {
            self.soon();
        }
    }

    /// Names a model's view in the address (None: the overview).
    pub fn show_view(&self, model: Option<&str>) {
        let params = model.map_or_else(String::new, |m| format!("&view={m}"));
        self.0.borrow_mut().view = Some(params);
        self.soon();
    }

    /// Writes `frag` once edits pause.
    pub fn show(&self, frag: String) {
        let mut w = self.0.borrow_mut();
        if !w.urgent() && read_hash().as_deref() == Some(frag.as_str()) {
            w.pending = None;
            return;
        }
        w.pending = Some(frag);
        if let Some(pause) = w.pause.take() {
            pause.clear();
        }
        let bar = self.clone();
        w.pause = set_timeout_with_handle(
            move || {
                bar.0.borrow_mut().pause = None;
                bar.write_pending();
            },
            Duration::from_millis(Self::PAUSE_MS),
        )
        .ok();
    }

    /// Does the next write in order, if any: a step's starting point, then
    /// the view (with the scenario still waiting for its pause, so the
    /// address names this scenario and this view).
    fn next_urgent(&self) -> bool {
        let step = self.0.borrow_mut().steps.pop_front();
        if let Some((frag, push)) = step {
            write_hash(&frag, push);
            return true;
        }
        let (params, pending) = {
            let mut w = self.0.borrow_mut();
            let Some(params) = w.view.take() else {
                return false;
            };
            (params, w.pending_write())
        };
        let (frag, push) = pending.unwrap_or_else(|| (read_hash().unwrap_or_default(), false));
        set_address(&format!("{frag}{params}"), push);
        true
    }

    /// Writes the scenario waiting for its pause, if any, now.
    fn write_pending(&self) {
        let pending = self.0.borrow_mut().pending_write();
        if let Some((frag, push)) = pending {
            write_hash(&frag, push);
        }
    }

    /// One urgent write per task, until none is left.
    fn soon(&self) {
        let mut w = self.0.borrow_mut();
        if w.soon {
            return;
        }
        w.soon = true;
        let bar = self.clone();
        set_timeout(
            move || {
                bar.next_urgent();
                bar.0.borrow_mut().soon = false;
                if bar.0.borrow().urgent() {
                    bar.soon();
                }
            },
            Duration::ZERO,
        );
    }
}
