//! The page's state: one scenario signal, each registry model's outcome
//! and last good report, and the URL fragment kept in step with it.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

use leptos::prelude::*;

use super::address::{raw_hash, read_hash, read_view, AddressBar};
use super::evaluation::Runtime;
use super::files::{download_text, file_stem};
use super::now_ms;
use crate::models::{Model, Unavailable, MODELS};
use crate::report::Report;
use crate::worker::{ExportFormat, FromWorker};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::errors::FieldError;
use crate::scenario::codec::encode_fragment;
use crate::scenario::{Scenario, ScenarioError};

/// What upgrading an older link changed, for the banner.
pub fn upgrade_banner(notes: &[String]) -> Option<String> {
    (!notes.is_empty()).then(|| notes.join(" "))
}

/// A link's scenario, with what the link left out (a large profile) put
/// back from this browser's copies; its notes say what was upgraded or
/// put back. A scenario that decodes but fails validation opens with its
/// fields marked (never the example), unless it is too large to show.
fn open_link(frag: &str) -> Result<Opened, crate::scenario::ScenarioError> {
    let mut l = crate::scenario::codec::parse_fragment(frag)?;
    let st = local_storage();
    let saved = |key: &str| st.as_ref().and_then(|st| st.get_item(key).ok().flatten());
    l.notes
        .extend(crate::models::restore_after_link(&mut l.scenario, &saved));
    let invalid = crate::models::validate(&l.scenario);
    if !invalid.is_empty() && too_large_to_show(&l.scenario) {
        return Err(crate::scenario::ScenarioError::Invalid(invalid));
    }
    Ok(Opened { loaded: l, invalid })
}

/// A link's scenario as `open_link` opens it, with its invalid fields.
struct Opened {
    loaded: crate::scenario::Loaded,
    invalid: Vec<FieldError>,
}

impl Opened {
    /// The banner: what an upgrade changed, and which fields are marked.
    fn banner(&self) -> Option<String> {
        let mut notes = self.loaded.notes.clone();
        if !self.invalid.is_empty() {
            let n = self.invalid.len();
            notes.push(format!(
                "The link's scenario has {n} invalid field{} (marked in red): results appear once {} fixed; the address bar keeps the link until then.",
                if n == 1 { "" } else { "s" },
                if n == 1 { "it is" } else { "they are" }
            ));
        }
        upgrade_banner(&notes)
    }
}

/// Whether a scenario is beyond what the page builds inputs for (a
/// catalog or name over its limit): such a link is refused whole.
fn too_large_to_show(s: &Scenario) -> bool {
    use crate::hardware::{MAX_CATALOG_ENTRIES, MAX_NAME_CHARS};
    let long = |t: &str| t.chars().count() > MAX_NAME_CHARS;
    s.hardware.catalog.len() > MAX_CATALOG_ENTRIES
        || long(&s.title)
        || s.hardware.catalog.iter().any(|i| long(&i.name))
}

/// Why a link did not open, as the start of a sentence: the codec's own
/// sentence when it speaks of the link, else introduced.
fn link_problem(e: &crate::scenario::ScenarioError) -> String {
    let e = e.to_string();
    match e.strip_prefix("the link") {
        Some(rest) => format!("The link{rest}"),
        None => format!("The link's scenario could not be opened: {e}"),
    }
}

/// Keeps in this browser what the scenario's link leaves out, so opening
/// that link here (a reload, Back) puts it back.
fn keep_left_out(s: &Scenario) {
    let Some(st) = local_storage() else { return };
    for l in crate::models::for_link(s).1 {
        if !stored(&st, &l.key) {
            // Full storage: the link still names the file to attach.
            let _ = st.set_item(&l.key, &l.json);
        }
    }
}

/// One registry model on the page.
#[derive(Clone, Copy)]
pub struct ModelSlot {
    pub model: &'static dyn Model,
    /// The newest outcome the runtime delivered (`None` before the first).
    pub outcome: RwSignal<Option<Outcome>>,
    /// The request `outcome` answers; older than `AppState::revision`
    /// while the newest edit is being computed.
    pub computed: RwSignal<u64>,
    /// The newest report that succeeded; stays on screen, marked, while
    /// the inputs are invalid or being computed, and is cleared when
    /// inputs go missing.
    pub last_good: RwSignal<Option<Arc<Report>>>,
    /// While a model that computes in parts is still at it: parts done
    /// and in all (its report so far is `outcome`).
    pub partial: RwSignal<Option<(u32, u32, crate::worker::Counted)>>,
    /// The page's fields holding text that is not a number (shared by
    /// every slot, `AppState::unreadable`).
    unreadable: RwSignal<Unreadable>,
    /// What the model lacked at its last outcome that was not invalid.
    last_missing: RwSignal<Option<Arc<Unavailable>>>,
    /// An outcome of an edit already replaced, not shown (`AppState::show`).
    held: StoredValue<Option<Outcome>>,
    /// When `outcome` last changed (ms, `performance.now()`).
    shown_at: StoredValue<f64>,
}

/// Fields whose typed text is not a number, by field: the input section
/// it was typed in, its message and the scenario path it writes (`None`:
/// not known). Such text never reaches the scenario, so the results that
/// read that path are from the last valid inputs.
pub type Unreadable = std::collections::BTreeMap<u64, (InputTab, String, Option<&'static str>)>;

/// Edits model `id`'s own section of `sc` in one update (one undo step).
pub fn edit_section<T>(sc: RwSignal<Scenario>, id: &'static str, f: impl FnOnce(&mut T))
where
    T: DeserializeOwned + Serialize + Default,
{
    sc.update(|s| {
        let mut section: T = s.section(id).unwrap_or_default();
        f(&mut section);
        s.set_section(id, &section);
    });
}

/// How long a model's results may stay unchanged while newer edits
/// replace the ones computed (`AppState::show`).
const HOLD_MS: f64 = 500.0;

/// A model's report, or why there is none, as the page holds it.
pub type Outcome = Result<Arc<Report>, Arc<Unavailable>>;

impl ModelSlot {
    fn new(model: &'static dyn Model, unreadable: RwSignal<Unreadable>) -> Self {
        let outcome = RwSignal::new(None::<Outcome>);
        let last_good = RwSignal::new(None);
        let last_missing = RwSignal::new(None);
        Effect::new(move |_| match outcome.get() {
            Some(Ok(r)) => {
                last_good.set(Some(r));
                last_missing.set(None);
            }
            Some(Err(u)) if u.is_missing() => {
                last_good.set(None);
                last_missing.set(Some(u));
            }
            _ => {}
        });
        ModelSlot {
            model,
            outcome,
            computed: RwSignal::new(0),
            last_good,
            partial: RwSignal::new(None),
            unreadable,
            last_missing,
            held: StoredValue::new(None),
            shown_at: StoredValue::new(f64::NEG_INFINITY),
        }
    }

    /// What the model lacks, as the page shows it: the outcome's, or,
    /// while a field it reads is invalid and it never had a result, what
    /// it lacked before (a bad shared field does not turn "needs inputs"
    /// into an empty box).
    pub fn needs(&self) -> Option<Arc<Unavailable>> {
        match self.outcome.get() {
            Some(Err(u)) if u.is_missing() => Some(u),
            Some(Err(_)) if self.last_good.with(Option::is_none) => self.last_missing.get(),
            _ => None,
        }
    }

    /// The messages that make the shown report stale (empty when current):
    /// the outcome's, and any field's text that is not a number.
    pub fn stale_errors(&self) -> Vec<FieldError> {
        if self.needs().is_some() {
            return Vec::new();
        }
        let mut errors = match self.outcome.get() {
            Some(Err(u)) => u.errors().to_vec(),
            _ => Vec::new(),
        };
        self.unreadable.with(|t| {
            errors.extend(
                t.values()
                    .filter(|(_, _, path)| self.reads(*path))
                    .map(|(_, m, _)| FieldError {
                        field: String::new(),
                        message: m.clone(),
                    }),
            )
        });
        errors
    }

    /// Whether a field at `path` feeds this slot's report: its own
    /// section, a shared input it reads, or (unknown path, or a view of
    /// every model such as the measured runs) anything.
    fn reads(&self, path: Option<&str>) -> bool {
        let model = self.model;
        if model.reads().is_empty() {
            return false;
        }
        let Some(path) = path else { return true };
        let own = path
            .strip_prefix("models.")
            .is_some_and(|rest| rest.split('.').next() == Some(model.id()));
        // The runs views compare every model, whatever the field.
        let analysis = crate::worker::ANALYSES.iter().any(|a| a.id() == model.id());
        own || analysis
            || model
                .reads()
                .iter()
                .any(|r| path.starts_with(r) || r.starts_with(path))
    }

    /// Whether the scenario lacks inputs this model needs (false until the
    /// first outcome arrives).
    pub fn is_missing(&self) -> bool {
        self.needs().is_some()
    }

    /// The outcome is known and is not "the scenario lacks this model's
    /// inputs".
    pub fn applies(&self) -> bool {
        self.outcome.with(Option::is_some) && !self.is_missing()
    }
}

/// What the runtime is computing, for the progress line.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub id: u64,
    pub model: String,
    pub done: usize,
    pub total: usize,
}

/// Shared through context; every panel reads narrow slices of it.
#[derive(Clone, Copy)]
pub struct AppState {
    pub scenario: RwSignal<Scenario>,
    /// One slot per registry model, in registry order.
    pub models: StoredValue<Vec<ModelSlot>>,
    /// The analyses over every model (`worker::ANALYSES`): the measured
    /// runs and the calibration, shown in their own view.
    pub analyses: StoredValue<Vec<ModelSlot>>,
    /// A problem with the whole scenario (a corrupt link, a bad import).
    pub banner: RwSignal<Option<String>>,
    /// Every validation message of the current scenario.
    pub validation: Memo<Vec<FieldError>>,
    /// The catalog's instance type names (every instance select reads these).
    pub instance_names: Memo<Vec<String>>,
    /// The results view shown: `OVERVIEW` or a registry model's id. Part of
    /// the address (`#s1.…&view=cynthia`), so a shared link opens it.
    pub view: RwSignal<String>,
    /// The input section shown.
    pub inputs_tab: RwSignal<InputTab>,
    /// Whether Undo / Redo have a step to take.
    pub can_undo: RwSignal<bool>,
    pub can_redo: RwSignal<bool>,
    /// The scenario saved in this browser at the last visit, offered back
    /// when the page opens without a link: (its title, its fragment).
    pub saved: RwSignal<Option<(String, String)>>,
    history: StoredValue<History, LocalStorage>,
    /// The newest request sent to the runtime (one per edit).
    pub revision: RwSignal<u64>,
    /// The model being computed, while a request runs.
    pub progress: RwSignal<Option<Progress>>,
    /// The request the user cancelled, if the newest one.
    pub cancelled: RwSignal<Option<u64>>,
    /// The last results export: the file name, or why there is none.
    pub export_status: RwSignal<Option<Result<String, String>>>,
    /// The newest share fragment the worker made, and its request.
    pub link: RwSignal<Option<(u64, Result<String, ScenarioError>)>>,
    /// Counts the examples picked: each one drops what the page held for
    /// the scenario it replaced (a field's unreadable text and its
    /// message, a panel's message about its last upload), even where the
    /// example has the same value.
    pub fresh_start: RwSignal<u64>,
    /// Fields whose text is not a number (`Unreadable`).
    pub unreadable: RwSignal<Unreadable>,
    keep_address_until: StoredValue<u64>,
    address_bar: StoredValue<AddressBar, LocalStorage>,
    link_too_large: StoredValue<bool>,
    runtime: StoredValue<Option<Runtime>, LocalStorage>,
    /// What a share link leaves out (a large profile), kept out of the
    /// page's scenario as well, by storage key: its JSON. The scenario
    /// names it instead (as a link does), so an edit, Undo's copies, the
    /// validation and the request to the worker never copy it; the
    /// workers are given it once (`Runtime::keep`).
    kept: StoredValue<HashMap<String, Arc<str>>, LocalStorage>,
    /// Each model section read once per scenario change (`section_memo`),
    /// by (section id, type), and the owner they live under: a section
    /// can hold a 1 MB profile, too much to read again for every field.
    section_memos: StoredValue<SectionMemos, LocalStorage>,
    owner: StoredValue<Owner, LocalStorage>,
}

type SectionMemos = HashMap<(&'static str, TypeId), Box<dyn Any>>;

impl AppState {
    pub fn new() -> Self {
        let view = RwSignal::new(read_view().unwrap_or_else(|| OVERVIEW.to_string()));
        let (initial, banner, kept) = match read_hash() {
            None => (Scenario::example(), None, false),
            Some(frag) => match open_link(&frag) {
                Ok(o) => {
                    let (banner, kept) = (o.banner(), !o.invalid.is_empty());
                    (o.loaded.scenario, banner, kept)
                }
                // The last good scenario stays: this browser's last one,
                // else the example.
                Err(e) => match saved_scenario() {
                    Some(saved) => (
                        saved,
                        Some(format!("{}. Showing your last scenario in this browser; the address bar keeps the link until you edit.", link_problem(&e))),
                        true,
                    ),
                    None => (
                        Scenario::example(),
                        Some(format!("{}. Showing the built-in example; the address bar keeps the link until you edit.", link_problem(&e))),
                        true,
                    ),
                },
            },
        };
        let scenario = RwSignal::new(initial);
        let unreadable = RwSignal::new(Unreadable::new());
        let models: Vec<ModelSlot> = MODELS
            .iter()
            .map(|&m| ModelSlot::new(m, unreadable))
            .collect();
        let analyses: Vec<ModelSlot> = crate::worker::ANALYSES
            .iter()
            .map(|&m| ModelSlot::new(m, unreadable))
            .collect();
        let state = AppState {
            scenario,
            models: StoredValue::new(models),
            analyses: StoredValue::new(analyses),
            banner: RwSignal::new(banner),
            validation: Memo::new(move |_| scenario.with(crate::models::validate)),
            instance_names: Memo::new(move |_| {
                scenario.with(|s| s.hardware.catalog.iter().map(|d| d.name.clone()).collect())
            }),
            revision: RwSignal::new(0),
            progress: RwSignal::new(None),
            cancelled: RwSignal::new(None),
            link: RwSignal::new(None),
            export_status: RwSignal::new(None),
            fresh_start: RwSignal::new(0),
            unreadable,
            view,
            inputs_tab: RwSignal::new(InputTab::Workload),
            can_undo: RwSignal::new(false),
            can_redo: RwSignal::new(false),
            saved: RwSignal::new(None),
            history: StoredValue::new_local(History::default()),
            keep_address_until: StoredValue::new(0),
            address_bar: StoredValue::new_local(AddressBar::default()),
            link_too_large: StoredValue::new(false),
            runtime: StoredValue::new_local(None),
            kept: StoredValue::new_local(HashMap::new()),
            section_memos: StoredValue::new_local(HashMap::new()),
            owner: StoredValue::new_local(Owner::current().unwrap_or_default()),
        };
        state.sync_url(kept);
        state.track_history();
        if read_hash().is_none() {
            state.offer_saved();
        }
        // A view change rewrites the address in the next task (no
        // scenario change).
        Effect::new(move |prev: Option<()>| {
            let v = view.get();
            if prev.is_some() {
                let model = (v != OVERVIEW).then_some(v.as_str());
                state.address_bar.with_value(|a| a.show_view(model));
            }
        });
        state.start_runtime();
        state
    }

    /// Starts the worker and sends it every edit.
    fn start_runtime(&self) {
        let state = *self;
        let rt = Runtime::start(move |msg| state.receive(msg));
        self.runtime.set_value(Some(rt));
        Effect::new(move |_| {
            // A large input comes in whole (an upload, a link put back from
            // this browser): it is kept aside and the scenario names it.
            let left = state.scenario.with(|s| match crate::models::for_link(s) {
                (std::borrow::Cow::Owned(named), left) if !left.is_empty() => Some((named, left)),
                _ => None,
            });
            if let Some((named, left)) = left {
                for l in left {
                    state.keep_aside(&l.key, &l.json);
                }
                state.scenario.set(named);
                return;
            }
            let rev = state.revision.get_untracked() + 1;
            state.scenario.with(|s| {
                state.runtime.with_value(|rt| {
                    if let Some(rt) = rt {
                        rt.submit(rev, s);
                    }
                })
            });
            // A computation in parts that an edit replaced is not going on.
            for slot in state.models.get_value() {
                if slot.partial.get_untracked().is_some() {
                    slot.partial.set(None);
                }
            }
            state.revision.set(rev);
        });
    }

    /// Keeps `json` aside under `key` and gives it to the workers: what a
    /// share link leaves out (`crate::models::for_link`), which the
    /// scenario names instead.
    pub fn keep_aside(&self, key: &str, json: &str) {
        if self.kept.with_value(|k| k.contains_key(key)) {
            return;
        }
        self.kept
            .update_value(|k| drop(k.insert(key.to_string(), json.into())));
        self.runtime.with_value(|rt| {
            if let Some(rt) = rt {
                rt.keep(key, json);
            }
        });
    }

    /// The JSON kept aside under `key` (`kept`), if any.
    pub fn kept_json(&self, key: &str) -> Option<Arc<str>> {
        self.kept.with_value(|k| k.get(key).cloned())
    }

    /// The scenario with what is kept aside put back, as exported.
    pub fn whole_scenario(&self) -> Scenario {
        let mut s = self.scenario.get_untracked();
        self.kept.with_value(|k| {
            crate::models::restore_after_link(&mut s, &|key: &str| {
                k.get(key).map(|j| j.to_string())
            })
        });
        s
    }

    /// One answer of the runtime.
    fn receive(&self, msg: FromWorker) {
        match msg {
            FromWorker::Progress {
                id,
                model,
                done,
                total,
            } => self.progress.set(Some(Progress {
                id,
                model,
                done,
                total,
            })),
            FromWorker::Partial {
                id,
                model,
                report,
                done,
                total,
                of,
            } => {
                // Shown as it grows, still marked as being computed.
                let Some(slot) = self.slot(&model) else {
                    return;
                };
                if id != self.revision.get_untracked() {
                    return;
                }
                slot.partial.set(Some((done, total, of)));
                slot.outcome.set(Some(Ok(Arc::new(*report))));
            }
            FromWorker::Result {
                id, model, outcome, ..
            } => {
                let Some(slot) = self.slot(&model) else {
                    return;
                };
                if id < slot.computed.get_untracked() {
                    return;
                }
                let outcome = outcome.into_result().map(Arc::new).map_err(Arc::new);
                self.show(slot, id, outcome);
            }
            FromWorker::Same { id, model, .. } => {
                // What the slot holds or shows stands for this request too.
                let Some(slot) = self.slot(&model) else {
                    return;
                };
                if id < slot.computed.get_untracked() {
                    return;
                }
                match slot.held.try_update_value(Option::take).flatten() {
                    Some(outcome) => self.show(slot, id, outcome),
                    None => {
                        slot.partial.set(None);
                        slot.computed.set(id);
                    }
                }
            }
            FromWorker::Done { id } => {
                if self
                    .progress
                    .with_untracked(|p| p.as_ref().is_some_and(|p| p.id <= id))
                {
                    self.progress.set(None);
                }
            }
            FromWorker::Link {
                id,
                fragment,
                left_out,
            } => self.apply_link(id, fragment, &left_out),
            FromWorker::Export { format, text, .. } => {
                let name = self
                    .scenario
                    .with_untracked(|s| file_stem(&s.display_title()));
                let (file, mime) = match format {
                    ExportFormat::Csv => (format!("{name}.results.csv"), "text/csv"),
                    ExportFormat::Json => (format!("{name}.results.json"), "application/json"),
                };
                let outcome = text.map_err(|e| e.to_string()).and_then(|t| {
                    download_text(&file, mime, &t)
                        .map(|()| file)
                        .map_err(|e| e.to_string())
                });
                self.export_status.set(Some(outcome));
            }
            FromWorker::Ready
            | FromWorker::Failed { .. }
            | FromWorker::Split { .. }
            | FromWorker::PartDone { .. } => {}
        }
    }

    /// Shows `outcome`, request `id`'s, in `slot`; while a newer edit is
    /// being computed and the slot changed less than `HOLD_MS` ago, holds
    /// it instead: typing fast, the page draws only the newest numbers
    /// (drawing each replaced one delayed them), and a slot that has not
    /// changed for a while still shows progress.
    fn show(&self, slot: ModelSlot, id: u64, outcome: Outcome) {
        let t = now_ms();
        slot.computed.set(id);
        if id < self.revision.get_untracked() && t - slot.shown_at.get_value() < HOLD_MS {
            slot.held.set_value(Some(outcome));
            return;
        }
        slot.held.set_value(None);
        slot.shown_at.set_value(t);
        slot.partial.set(None);
        slot.outcome.set(Some(outcome));
    }

    /// Whether `slot` shows results of older inputs than the newest edit.
    pub fn pending(&self, slot: &ModelSlot) -> bool {
        slot.computed.get() < self.revision.get()
    }

    /// Asks the worker for every model's whole results as a file (the page
    /// holds long tables cut); `export_status` says how it went.
    pub fn export(&self, format: ExportFormat) {
        let id = self.revision.get_untracked();
        self.runtime.with_value(|rt| {
            if let Some(rt) = rt {
                rt.export(id, format);
            }
        });
    }

    /// Stops the running computation; results stay, marked as older.
    pub fn cancel(&self) {
        self.runtime.with_value(|rt| {
            if let Some(rt) = rt {
                rt.cancel();
            }
        });
        // No newer outcome is coming: show what was held back.
        for slot in self.models.get_value() {
            if let Some(outcome) = slot.held.try_update_value(Option::take).flatten() {
                slot.outcome.set(Some(outcome));
            }
        }
        self.progress.set(None);
        self.cancelled.set(Some(self.revision.get_untracked()));
    }

    /// A field of model `id`'s own section, for an input.
    pub fn section_get<T, V>(&self, id: &'static str, get: fn(&T) -> V) -> Signal<V>
    where
        T: DeserializeOwned + Default + PartialEq + Clone + Send + Sync + 'static,
        V: Clone + Send + Sync + 'static,
    {
        let section = self.section_memo::<T>(id);
        Signal::derive(move || section.with(get))
    }

    /// Model `id`'s section, read once per scenario change however many
    /// fields show it; the memo lives as long as the page.
    pub fn section_memo<T>(&self, id: &'static str) -> Memo<T>
    where
        T: DeserializeOwned + Default + PartialEq + Clone + Send + Sync + 'static,
    {
        let key = (id, TypeId::of::<T>());
        let known = self.section_memos.with_value(|m| {
            m.get(&key)
                .and_then(|b| b.downcast_ref::<Memo<T>>().copied())
        });
        if let Some(memo) = known {
            return memo;
        }
        let sc = self.scenario;
        let memo = self.owner.with_value(|o| {
            o.with(|| {
                // The section as stored: an edit elsewhere leaves its `Arc`
                // as it was (equal by pointer), and the typed read below,
                // which can parse a 100k-op profile, does not run again.
                let stored = Memo::new_with_compare(
                    move |_| sc.with(|s| s.models.get(id).cloned()),
                    |a, b| match (a, b) {
                        (Some(Some(a)), Some(Some(b))) => !Arc::ptr_eq(a, b),
                        (Some(None), Some(None)) => false,
                        _ => true,
                    },
                );
                Memo::new(move |_| {
                    stored.with(|v| {
                        v.as_deref()
                            .and_then(|v| T::deserialize(v).ok())
                            .unwrap_or_default()
                    })
                })
            })
        });
        self.section_memos.update_value(|m| {
            m.insert(key, Box::new(memo));
        });
        memo
    }

    /// Writes a field of model `id`'s own section, starting from the
    /// section as already read (`section_memo`), not parsing it again.
    pub fn section_set<T, V>(&self, id: &'static str, set: fn(&mut T, V)) -> Callback<V>
    where
        T: DeserializeOwned + Serialize + Default + PartialEq + Clone + Send + Sync + 'static,
        V: 'static,
    {
        let sc = self.scenario;
        let read = self.section_memo::<T>(id);
        Callback::new(move |v| {
            let mut section: T = read.get_untracked();
            set(&mut section, v);
            sc.update(|s| s.set_section(id, &section));
        })
    }

    /// Edits model `id`'s own section in one scenario update (one undo
    /// step), for rows and optional parts a field callback cannot reach.
    pub fn section_edit<T>(&self, id: &'static str, f: impl FnOnce(&mut T))
    where
        T: DeserializeOwned + Serialize + Default,
    {
        edit_section(self.scenario, id, f);
    }

    /// The messages for exactly `models.<id><suffix>` (a prefix would mix
    /// `runs[1]` with `runs[10]`), or, when `suffix` ends in `[`, for
    /// every row of that list.
    pub fn section_errors(
        &self,
        id: &'static str,
        suffix: impl Into<String>,
    ) -> Signal<Vec<String>> {
        let field = format!("models.{id}{}", suffix.into());
        let state = *self;
        Signal::derive(move || {
            state.errors_where(|f| f == field || (field.ends_with('[') && f.starts_with(&field)))
        })
    }

    /// Every slot, in registry order.
    pub fn slots(&self) -> Vec<ModelSlot> {
        self.models.get_value()
    }

    /// The slot of registry model or analysis `id`.
    pub fn slot(&self, id: &str) -> Option<ModelSlot> {
        self.slots()
            .into_iter()
            .chain(self.analyses.get_value())
            .find(|s| s.model.id() == id)
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
            if let Some(Err(u)) = slot.outcome.get() {
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
    /// not fill the back button) and reads it back on `hashchange`. With
    /// `kept`, the address bar holds a link this page could not open (a
    /// newer version, a damaged copy): it stays until the user edits.
    fn sync_url(&self, kept: bool) {
        // Request 1 is the page's start; a link it could not open stays in
        // the address bar until an edit makes request 2.
        self.keep_address_until.set_value(u64::from(kept));
        let state = *self;
        // A typed or pasted link fires `hashchange`; Back and Forward over
        // entries this page pushed fire `popstate` only.
        let follow = move || {
            // Back to the page as opened without a link: the example.
            let frag = read_hash().unwrap_or_else(|| encode_fragment(&Scenario::example()));
            if state.current_link().and_then(Result::ok).as_deref() == Some(frag.as_str()) {
                return;
            }
            match open_link(&frag) {
                Ok(o) => {
                    state.banner.set(o.banner());
                    state.scenario.set(o.loaded.scenario);
                }
                Err(e) => state.banner.set(Some(format!(
                    "{}. The last good scenario is kept.",
                    link_problem(&e)
                ))),
            }
        };
        let handle = window_event_listener(leptos::ev::hashchange, move |_| follow());
        let back = window_event_listener(leptos::ev::popstate, move |_| follow());
        std::mem::forget(back);
        // The listener lives as long as the page.
        std::mem::forget(handle);
    }

    /// Writes the newest fragment to the address bar now, not after the
    /// pause in edits.
    pub fn flush_address(&self) {
        self.address_bar.with_value(AddressBar::flush);
    }

    /// The share fragment of the current scenario, or why it has none,
    /// once the worker said (compressing a large scenario takes a while:
    /// the page does not do it again).
    pub fn current_link(&self) -> Option<Result<String, ScenarioError>> {
        let rev = self.revision.get_untracked();
        self.link.with_untracked(|l| match l {
            Some((id, made)) if *id == rev => Some(made.clone()),
            _ => None,
        })
    }

    /// Writes the newest fragment to the address bar (replaceState: typing
    /// must not fill the back button), or says why there is none.
    fn apply_link(&self, id: u64, fragment: Result<String, ScenarioError>, left_out: &[String]) {
        if id != self.revision.get_untracked() {
            return;
        }
        self.link.set(Some((id, fragment.clone())));
        if id <= self.keep_address_until.get_value() {
            return;
        }
        // The address, this browser's copy and history hold only valid
        // scenarios: a reload mid-edit opens the last one.
        if !self.validation.with_untracked(Vec::is_empty) {
            return;
        }
        match fragment {
            Ok(frag) => {
                if self.link_too_large.get_value() {
                    self.link_too_large.set_value(false);
                    self.banner.set(None);
                }
                if let Some(st) = local_storage() {
                    let _ = st.set_item(SAVED_KEY, &frag);
                }
                // Computing what a link leaves out costs milliseconds with
                // a large profile: only for one this browser lacks.
                let lacks = |k: &String| local_storage().is_some_and(|st| !stored(&st, k));
                let mut inline = false;
                for key in left_out.iter().filter(|k| lacks(k)) {
                    match (self.kept_json(key), local_storage()) {
                        // Full storage: the link still names the file to attach.
                        (Some(json), Some(st)) => drop(st.set_item(key, &json)),
                        _ => inline = true,
                    }
                }
                if inline {
                    self.scenario.with_untracked(keep_left_out);
                }
                self.address_bar.with_value(|a| a.show(frag));
            }
            Err(e) => {
                self.link_too_large.set_value(true);
                self.banner.set(Some(format!(
                    "This scenario is too large for a link ({e}); the address bar keeps the last one that fits. Use “Export scenario JSON” to share it."
                )));
            }
        }
    }

    /// Records each change for Undo; a burst of typing (changes less than
    /// `History::PAUSE_MS` apart) is one step.
    fn track_history(&self) {
        let state = *self;
        let first = self.scenario.get_untracked();
        self.history.update_value(|h| h.committed = Some(first));
        Effect::new(move |prev: Option<()>| {
            let now = state.scenario.get();
            if prev.is_none() || !state.validation.with(Vec::is_empty) {
                return;
            }
            let (u, r, step) = state
                .history
                .try_update_value(|h| h.record(now, js_sys::Date::now()))
                .unwrap_or((false, false, false));
            state.can_undo.set(u);
            state.can_redo.set(r);
            // A new step is a new entry in the browser's history, so Back
            // and Forward walk the same steps as Undo and Redo.
            if step {
                state.address_bar.with_value(AddressBar::mark_step);
            }
        });
    }

    pub fn undo(&self) {
        self.step(History::undo);
    }

    pub fn redo(&self) {
        self.step(History::redo);
    }

    fn step(&self, f: fn(&mut History) -> Option<Scenario>) {
        if let Some(Some(s)) = self.history.try_update_value(f) {
            self.banner.set(None);
            self.scenario.set(s);
        }
    }

    /// Keeps the newest link in this browser (local storage; nothing leaves
    /// the machine) and offers the last one back on a visit without a link.
    fn offer_saved(&self) {
        if let Some(frag) = local_storage().and_then(|st| st.get_item(SAVED_KEY).ok().flatten()) {
            if let Ok(o) = open_link(&frag) {
                let example = Scenario::example();
                if o.loaded.scenario != example {
                    self.saved
                        .set(Some((o.loaded.scenario.display_title(), frag)));
                }
            }
        }
    }

    /// Opens the scenario saved at the last visit.
    pub fn restore_saved(&self) {
        if let Some((_, frag)) = self.saved.get_untracked() {
            if let Ok(o) = open_link(&frag) {
                self.scenario.set(o.loaded.scenario);
            }
        }
        self.saved.set(None);
    }

    /// Replaces the scenario from an import, keeping the old one on error.
    pub fn load(&self, s: Scenario) {
        self.banner.set(None);
        self.runtime.with_value(|rt| {
            if let Some(rt) = rt {
                rt.forget_costs();
            }
        });
        self.scenario.set(s);
    }

    /// Replaces the scenario with a shipped example: nothing typed or
    /// read for the old one stays (`fresh_start`).
    pub fn load_example(&self, s: Scenario) {
        self.load(s);
        self.fresh_start.update(|n| *n += 1);
    }

    /// Runs `clear` each time an example replaces the scenario (not at
    /// once), for what a panel or field holds outside the scenario.
    pub fn on_fresh_start(&self, clear: impl Fn() + 'static) {
        let fresh = self.fresh_start;
        Effect::new(move |prev: Option<u64>| {
            let n = fresh.get();
            if prev.is_some_and(|p| p != n) {
                clear();
            }
            n
        });
    }

    /// A panel's message about its last upload or action: an example
    /// picked clears it.
    pub fn upload_note<T: Send + Sync + 'static>(&self) -> RwSignal<Option<T>> {
        let note = RwSignal::new(None);
        self.on_fresh_start(move || note.set(None));
        note
    }
}

/// Resolves in a new task (`setTimeout`): work on a large input split
/// over tasks lets the page paint in between.
pub async fn next_task() {
    let later = js_sys::Promise::new(&mut |resolve, _| {
        let timer = web_sys::window().map(|w| w.set_timeout_with_callback(&resolve));
        if !matches!(timer, Some(Ok(_))) {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(later).await;
}

/// The scenario saved at the last visit, if it opens.
fn saved_scenario() -> Option<Scenario> {
    let frag = local_storage()?.get_item(SAVED_KEY).ok().flatten()?;
    open_link(&frag)
        .ok()
        .filter(|o| o.invalid.is_empty())
        .map(|o| o.loaded.scenario)
}

/// Local storage key of the newest scenario fragment.
const SAVED_KEY: &str = "ddnn-planner.last-scenario";

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// Whether `key` is in `st`, without copying its value into wasm (a
/// profile's is megabytes: `get_item` took 150 ms per edit).
fn stored(st: &web_sys::Storage, key: &str) -> bool {
    js_sys::Reflect::has(st, &wasm_bindgen::JsValue::from_str(key)).unwrap_or(false)
}

/// Undo and redo stacks of whole scenarios.
#[derive(Default)]
struct History {
    undo: Vec<Scenario>,
    redo: Vec<Scenario>,
    /// The scenario as of the last recorded step.
    committed: Option<Scenario>,
    last_ms: f64,
    /// The next change is Undo/Redo's own.
    stepping: bool,
}

impl History {
    const PAUSE_MS: f64 = 700.0;
    const DEPTH: usize = 100;

    /// Notes `now` as the current scenario; returns (can undo, can redo,
    /// whether `now` began a new step).
    fn record(&mut self, now: Scenario, at_ms: f64) -> (bool, bool, bool) {
        let mut step = false;
        if std::mem::take(&mut self.stepping) {
            self.committed = Some(now);
        } else if self.committed.as_ref() != Some(&now) {
            let burst = at_ms - self.last_ms < Self::PAUSE_MS && !self.undo.is_empty();
            if let (Some(before), false) = (self.committed.take(), burst) {
                step = true;
                self.undo.push(before);
                if self.undo.len() > Self::DEPTH {
                    self.undo.remove(0);
                }
            }
            self.committed = Some(now);
            self.redo.clear();
            self.last_ms = at_ms;
        }
        (!self.undo.is_empty(), !self.redo.is_empty(), step)
    }

    fn undo(&mut self) -> Option<Scenario> {
        let prev = self.undo.pop()?;
        if let Some(cur) = self.committed.take() {
            self.redo.push(cur);
        }
        self.stepping = true;
        self.last_ms = 0.0;
        Some(prev)
    }

    fn redo(&mut self) -> Option<Scenario> {
        let next = self.redo.pop()?;
        if let Some(cur) = self.committed.take() {
            self.undo.push(cur);
        }
        self.stepping = true;
        self.last_ms = 0.0;
        Some(next)
    }
}

/// The view that shows every model's headline side by side.
pub const OVERVIEW: &str = "overview";

/// The input sections, one shown at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputTab {
    Workload,
    Cluster,
    Catalog,
    Models,
    Runs,
}

impl InputTab {
    pub const ALL: [InputTab; 5] = [
        InputTab::Workload,
        InputTab::Cluster,
        InputTab::Catalog,
        InputTab::Models,
        InputTab::Runs,
    ];

    pub fn label(self) -> &'static str {
        match self {
            InputTab::Workload => "Workload",
            InputTab::Cluster => "Cluster",
            InputTab::Catalog => "Catalog",
            InputTab::Models => "Goals & models",
            InputTab::Runs => "Measured runs",
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            InputTab::Workload => "workload",
            InputTab::Cluster => "cluster",
            InputTab::Catalog => "catalog",
            InputTab::Models => "models",
            InputTab::Runs => "runs",
        }
    }
}

/// How the page is embedded in another page, from the query string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Embed {
    /// The whole page.
    No,
    /// `?embed=1`: every model's results.
    Results,
    /// `?embed=card`: a small card (title, one model's headline, one chart)
    /// for a documentation column.
    Card,
}

pub fn embed_mode() -> Embed {
    let query = window().location().search().unwrap_or_default();
    let mut mode = Embed::No;
    for kv in query.trim_start_matches('?').split('&') {
        match kv {
            "embed=card" => return Embed::Card,
            "embed=1" | "embed" => mode = Embed::Results,
            _ => {}
        }
    }
    mode
}

/// The current page address with the scenario fragment.
pub fn share_url(embed: bool) -> String {
    page_url(embed, &raw_hash())
}

/// This page's address with `frag` (and `?embed=1` for the embed view).
pub fn page_url(embed: bool, frag: &str) -> String {
    let loc = window().location();
    let origin = loc.origin().unwrap_or_default();
    let path = loc.pathname().unwrap_or_default();
    format!(
        "{origin}{path}{}#{frag}",
        if embed { "?embed=1" } else { "" }
    )
}
