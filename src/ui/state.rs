//! The page's state: one scenario signal, the evaluation derived from it,
//! the last good result, and the URL fragment kept in step with it.

use std::sync::Arc;

use leptos::prelude::*;

use crate::report::{evaluate_cynthia, evaluate_zeng, CynthiaEvaluation, ZengEvaluation};
use crate::scenario::codec::{decode_fragment, encode_fragment};
use crate::scenario::{FieldError, Scenario};

/// Shared through context; every panel reads narrow slices of it.
#[derive(Clone, Copy)]
pub struct AppState {
    pub scenario: RwSignal<Scenario>,
    /// The evaluation of the current scenario, or what is wrong with it.
    pub result: Memo<Result<Arc<ZengEvaluation>, Arc<Vec<FieldError>>>>,
    /// The newest evaluation that succeeded; stays on screen while the
    /// current inputs are invalid.
    pub last_good: RwSignal<Option<Arc<ZengEvaluation>>>,
    /// A problem with the whole scenario (a corrupt link, a bad import).
    pub banner: RwSignal<Option<String>>,
    /// Cynthia's evaluation; `None` while the scenario has no job profile.
    pub cynthia: Memo<Option<CynthiaResult>>,
    /// The newest Cynthia evaluation that succeeded.
    pub cynthia_last_good: RwSignal<Option<Arc<CynthiaEvaluation>>>,
    /// Every validation message of the current scenario.
    pub validation: Memo<Vec<FieldError>>,
}

pub type CynthiaResult = Result<Arc<CynthiaEvaluation>, Arc<Vec<FieldError>>>;

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
        let result =
            Memo::new(move |_| scenario.with(|s| evaluate_zeng(s).map(Arc::new).map_err(Arc::new)));
        let last_good = RwSignal::new(None);
        Effect::new(move |_| {
            if let Ok(e) = result.get() {
                last_good.set(Some(e));
            }
        });
        let cynthia = Memo::new(move |_| {
            scenario.with(|s| {
                s.workload
                    .profile
                    .is_some()
                    .then(|| evaluate_cynthia(s).map(Arc::new).map_err(Arc::new))
            })
        });
        let cynthia_last_good = RwSignal::new(None);
        Effect::new(move |_| match cynthia.get() {
            Some(Ok(e)) => cynthia_last_good.set(Some(e)),
            None => cynthia_last_good.set(None),
            Some(Err(_)) => {}
        });
        let state = AppState {
            scenario,
            result,
            last_good,
            banner: RwSignal::new(banner),
            cynthia,
            cynthia_last_good,
            validation: Memo::new(move |_| scenario.with(Scenario::validate)),
        };
        state.sync_url();
        state
    }

    /// Validation messages whose field path starts with `prefix`, from
    /// whichever model reports them.
    pub fn errors_at(&self, prefix: &'static str) -> Signal<Vec<String>> {
        let validation = self.validation;
        let cynthia = self.cynthia;
        Signal::derive(move || {
            let mut out: Vec<String> = validation.with(|v| {
                v.iter()
                    .filter(|e| e.field.starts_with(prefix))
                    .map(|e| e.message.clone())
                    .collect()
            });
            // Some problems only show when the model runs (a loss goal the
            // curve never reaches): name them at their field too.
            if let Some(Err(errs)) = cynthia.get() {
                for e in errs.iter().filter(|e| e.field.starts_with(prefix)) {
                    if !out.contains(&e.message) {
                        out.push(e.message.clone());
                    }
                }
            }
            out
        })
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
