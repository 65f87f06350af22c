//! The page's state: one scenario signal, each registry model's outcome
//! and last good report, and the URL fragment kept in step with it.

use std::sync::Arc;

use leptos::prelude::*;

use crate::models::{evaluate, Model, Unavailable, MODELS};
use crate::report::Report;
use crate::scenario::codec::{decode_fragment, encode_fragment};
use crate::scenario::{FieldError, Scenario};

/// One registry model on the page.
#[derive(Clone, Copy)]
pub struct ModelSlot {
    pub model: &'static dyn Model,
    /// The report of the current scenario, or why there is none.
    pub outcome: Memo<Result<Arc<Report>, Arc<Unavailable>>>,
    /// The newest report that succeeded; stays on screen, marked, while
    /// the inputs are invalid, and is cleared when inputs go missing.
    pub last_good: RwSignal<Option<Arc<Report>>>,
}

impl ModelSlot {
    fn new(model: &'static dyn Model, scenario: RwSignal<Scenario>) -> Self {
        let outcome = Memo::new(move |_| {
            scenario.with(|s| evaluate(model, s).map(Arc::new).map_err(Arc::new))
        });
        let last_good = RwSignal::new(None);
        Effect::new(move |_| match outcome.get() {
            Ok(r) => last_good.set(Some(r)),
            Err(u) if u.is_missing() => last_good.set(None),
            Err(_) => {}
        });
        ModelSlot {
            model,
            outcome,
            last_good,
        }
    }

    /// The messages that make the shown report stale (empty when current).
    pub fn stale_errors(&self) -> Vec<FieldError> {
        match self.outcome.get() {
            Err(u) if !u.is_missing() => u.errors().to_vec(),
            _ => Vec::new(),
        }
    }
}

/// Shared through context; every panel reads narrow slices of it.
#[derive(Clone, Copy)]
pub struct AppState {
    pub scenario: RwSignal<Scenario>,
    /// One slot per registry model, in registry order.
    pub models: StoredValue<Vec<ModelSlot>>,
    /// A problem with the whole scenario (a corrupt link, a bad import).
    pub banner: RwSignal<Option<String>>,
    /// Every validation message of the current scenario.
    pub validation: Memo<Vec<FieldError>>,
}

impl AppState {
    pub fn new() -> Self {
        let (initial, banner) = match read_hash() {
            None => (Scenario::example(), None),
            Some(frag) => match decode_fragment(&frag) {
                Ok(s) => (s, None),
                Err(e) => (
                    Scenario::example(),
                    Some(format!("The link's scenario could not be opened: {e}. Showing the built-in example instead.")),
                ),
            },
        };
        let scenario = RwSignal::new(initial);
        let models = MODELS
            .iter()
            .map(|&m| ModelSlot::new(m, scenario))
            .collect();
        let state = AppState {
            scenario,
            models: StoredValue::new(models),
            banner: RwSignal::new(banner),
            validation: Memo::new(move |_| scenario.with(Scenario::validate)),
        };
        state.sync_url();
        state
    }

    /// Every slot, in registry order.
    pub fn slots(&self) -> Vec<ModelSlot> {
        self.models.get_value()
    }

    /// The last good reports of every model, for exports.
    pub fn reports(&self) -> Vec<Arc<Report>> {
        self.slots()
            .iter()
            .filter_map(|s| s.last_good.get_untracked())
            .collect()
    }

    /// Validation messages whose field path starts with `prefix`, from the
    /// document and from every model that ran into them.
    pub fn errors_at(&self, prefix: &'static str) -> Signal<Vec<String>> {
        let state = *self;
        Signal::derive(move || state.errors_where(|f| f.starts_with(prefix)))
    }

    /// Validation messages whose field matches `pred`, each once.
    pub fn errors_where(&self, pred: impl Fn(&str) -> bool) -> Vec<String> {
        let mut out: Vec<String> = self.validation.with(|v| {
            v.iter()
                .filter(|e| pred(&e.field))
                .map(|e| e.message.clone())
                .collect()
        });
        // Some problems only show when a model runs (a loss goal the
        // curve never reaches): name them at their field too.
        for slot in self.slots() {
            if let Err(u) = slot.outcome.get() {
                if u.is_missing() {
                    continue;
                }
                for e in u.errors().iter().filter(|e| pred(&e.field)) {
                    if !out.contains(&e.message) {
                        out.push(e.message.clone());
                    }
                }
            }
        }
        out
    }

    /// Writes the fragment after every change (replaceState: typing must
    /// not fill the back button) and reads it back on `hashchange`.
    fn sync_url(&self) {
        let scenario = self.scenario;
        let banner = self.banner;
        Effect::new(move |_| {
            let frag = scenario.with(encode_fragment);
            if read_hash().as_deref() != Some(frag.as_str()) {
                replace_hash(&frag);
            }
        });
        let handle = window_event_listener(leptos::ev::hashchange, move |_| {
            let Some(frag) = read_hash() else { return };
            if scenario.with_untracked(|s| encode_fragment(s) == frag) {
                return;
            }
            match decode_fragment(&frag) {
                Ok(s) => {
                    banner.set(None);
                    scenario.set(s);
                }
                Err(e) => banner.set(Some(format!(
                    "The link's scenario could not be opened: {e}. The last good scenario is kept."
                ))),
            }
        });
        // The listener lives as long as the page.
        std::mem::forget(handle);
    }

    /// Replaces the scenario from an import, keeping the old one on error.
    pub fn load(&self, s: Scenario) {
        self.banner.set(None);
        self.scenario.set(s);
    }
}

/// The fragment without `#`, if any.
pub fn read_hash() -> Option<String> {
    let hash = window().location().hash().ok()?;
    let frag = hash.strip_prefix('#').unwrap_or(&hash);
    (!frag.is_empty()).then(|| frag.to_string())
}

fn replace_hash(frag: &str) {
    let w = window();
    let Ok(history) = w.history() else { return };
    let loc = w.location();
    let base = format!(
        "{}{}",
        loc.pathname().unwrap_or_default(),
        loc.search().unwrap_or_default()
    );
    let _ = history.replace_state_with_url(
        &wasm_bindgen::JsValue::NULL,
        "",
        Some(&format!("{base}#{frag}")),
    );
}

/// `?embed=1` shows only the result panels.
pub fn is_embed() -> bool {
    window()
        .location()
        .search()
        .map(|q| {
            q.trim_start_matches('?')
                .split('&')
                .any(|kv| kv == "embed=1" || kv == "embed")
        })
        .unwrap_or(false)
}

/// The current page address with the scenario fragment.
pub fn share_url(embed: bool) -> String {
    let loc = window().location();
    let origin = loc.origin().unwrap_or_default();
    let path = loc.pathname().unwrap_or_default();
    let frag = read_hash().unwrap_or_default();
    format!(
        "{origin}{path}{}#{frag}",
        if embed { "?embed=1" } else { "" }
    )
}
