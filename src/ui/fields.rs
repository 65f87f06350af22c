//! Input fields that never write a bad number into the scenario: text that
//! does not parse stays in the field with a message beside it, and the
//! scenario's own validation messages for the field show there too.

use std::borrow::Cow;

use leptos::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::expect_state;
use crate::inputs::NumberInput;

/// Messages under a field or panel.
#[component]
pub fn FieldErrors(#[prop(into)] errors: Signal<Vec<String>>) -> impl IntoView {
    view! {
        <For each=move || errors.get() key=|m| m.clone() let:msg>
            <p class="field-error" role="alert" data-testid="field-error">{msg}</p>
        </For>
    }
}

/// Why a field's text is not a number the models can take, in the
/// words typed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum Unreadable {
    #[error("enter a number")]
    Empty,
    #[error("'{0}' is not a whole number ≥ 0")]
    NotWhole(String),
    #[error("'{0}' is too close to 0 to compute with")]
    NearZero(String),
    #[error("'{0}' is too large to compute with")]
    TooLarge(String),
    #[error("'{0}' is not a number")]
    NotANumber(String),
}

fn parse_number(text: &str, integer: bool) -> Result<f64, Unreadable> {
    let t = text.trim();
    if t.is_empty() {
        return Err(Unreadable::Empty);
    }
    if integer {
        return t
            .parse::<u32>()
            .map(f64::from)
            .map_err(|_| Unreadable::NotWhole(t.into()));
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v.abs() <= MAX_TYPED && (v == 0.0 || v.abs() >= MIN_TYPED) => {
            Ok(v)
        }
        // Below f64's normal range the number is not the one typed (1e-320
        // reads as 9.99989e-321): refused here, in the user's words.
        Ok(v) if v != 0.0 && v.abs() < MIN_TYPED => Err(Unreadable::NearZero(t.into())),
        // Converted to SI (Gb/s to B/s, GFLOP to FLOP) it would overflow to
        // infinity, which no scenario can carry (JSON has none): refused
        // here, so the scenario and its last results stay as they were.
        Ok(v) if v.is_finite() => Err(Unreadable::TooLarge(t.into())),
        _ => Err(Unreadable::NotANumber(t.into())),
    }
}

/// Numbers the page's fields by creation, for `AppState::unreadable`.
static NEXT_FIELD: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Largest magnitude a field takes as typed: far beyond every field's range,
/// and small enough that any unit conversion (at most ×10^15) stays finite.
const MAX_TYPED: f64 = 1e290;

/// Smallest non-zero magnitude a field takes as typed: every unit
/// conversion (at most ÷10^15) stays a normal number.
const MIN_TYPED: f64 = 1e-290;

/// What differs between the numeric fields.
struct Look {
    label: Cow<'static, str>,
    /// The scenario path it writes (or a prefix of it): unreadable text
    /// marks only the results that read it; `None` marks every result.
    path: Option<&'static str>,
    testid: String,
    help: &'static str,
    inputmode: &'static str,
    placeholder: &'static str,
}

/// The one implementation behind `NumberField` and `OptNumberField`: the
/// text the user typed, its parse error, and the scenario's messages.
fn parsed_field<T>(
    look: Look,
    value: Signal<T>,
    on_set: Callback<T>,
    errors: Option<Signal<Vec<String>>>,
    parse: impl Fn(&str) -> Result<T, Unreadable> + Copy + Send + Sync + 'static,
    show: fn(&T) -> String,
) -> impl IntoView
where
    T: Clone + PartialEq + Send + Sync + 'static,
{
    let raw = RwSignal::new(value.with_untracked(show));
    let local_error = RwSignal::new(None::<String>);
    let state = use_context::<super::state::AppState>();
    let fresh_start = state.map(|s| s.fresh_start);
    // Unreadable text marks every result as from the last valid inputs,
    // as an invalid number does, and counts on its input tab.
    let key = NEXT_FIELD.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (label, path) = (look.label.clone(), look.path);
    Effect::new(move |_| {
        let Some(state) = state else { return };
        let message = local_error.get();
        let listed = state.unreadable.with_untracked(|u| u.contains_key(&key));
        match message {
            Some(m) => {
                let tab = state.inputs_tab.get_untracked();
                state
                    .unreadable
                    .update(|u| _ = u.insert(key, (tab, format!("{label}: {m}"), path)));
            }
            None if listed => state.unreadable.update(|u| _ = u.remove(&key)),
            None => {}
        }
    });
    on_cleanup(move || {
        if let Some(state) = state {
            if state.unreadable.with_untracked(|u| u.contains_key(&key)) {
                state.unreadable.update(|u| _ = u.remove(&key));
            }
        }
    });
    // Follow outside changes (a preset, an import) unless the text already
    // says the same value, so typing "1." is not rewritten to "1"; an
    // example picked replaces what was typed even where it has the same
    // value (`AppState::fresh_start`).
    Effect::new(move |prev: Option<u64>| {
        let v = value.get();
        let picked = fresh_start.map_or(0, |f| f.get());
        let new_example = prev.is_some_and(|p| p != picked);
        if new_example || raw.with_untracked(|r| parse(r).ok().as_ref() != Some(&v)) {
            raw.set(show(&v));
            local_error.set(None);
        }
        picked
    });
    let on_input = move |ev| {
        let text = event_target_value(&ev);
        match parse(&text) {
            Ok(v) => {
                local_error.set(None);
                on_set.run(v);
            }
            Err(m) => local_error.set(Some(m.to_string())),
        }
        raw.set(text);
    };
    let all_errors = Signal::derive(move || {
        let mut v: Vec<String> = local_error.get().into_iter().collect();
        if let Some(s) = errors {
            v.extend(s.get());
        }
        v
    });
    let invalid = move || !all_errors.with(Vec::is_empty);
    let help = look.help;
    view! {
        <label class="field" class:invalid=invalid>
            <span class="field-label">{look.label}</span>
            <input
                type="text"
                inputmode=look.inputmode
                placeholder=look.placeholder
                prop:value=move || raw.get()
                on:input=on_input
                data-testid=look.testid
                aria-invalid=move || if invalid() { "true" } else { "false" }
            />
            {(!help.is_empty()).then(|| view! { <span class="field-help">{help}</span> })}
            <FieldErrors errors=all_errors />
        </label>
    }
}

/// A labelled numeric input, in display units.
#[component]
pub fn NumberField(
    /// Label with its unit, e.g. "PS link bandwidth [Gb/s]".
    #[prop(into)]
    label: Cow<'static, str>,
    /// Current value, in the label's unit.
    #[prop(into)]
    value: Signal<f64>,
    /// Receives every finite number typed.
    on_set: Callback<f64>,
    /// The scenario's messages for this field.
    #[prop(into, optional)]
    errors: Option<Signal<Vec<String>>>,
    /// Accept whole numbers only.
    #[prop(optional)]
    integer: bool,
    /// `data-testid` of the input.
    #[prop(into, optional)]
    testid: String,
    /// A short hint under the field.
    #[prop(optional)]
    help: &'static str,
    /// The scenario path it writes (see `Look::path`).
    #[prop(optional, into)]
    path: Option<&'static str>,
) -> impl IntoView {
    let inputmode = if integer { "numeric" } else { "decimal" };
    let look = Look {
        label,
        path,
        testid,
        help,
        inputmode,
        placeholder: "",
    };
    parsed_field(
        look,
        value,
        on_set,
        errors,
        move |t| parse_number(t, integer),
        |v| field_text(*v),
    )
}

/// A number as a field shows it: whole numbers in full, others to six
/// significant digits (a fitted β0 or a calibrated SIMD factor carries 16,
/// of which the model's accuracy supports a few). The scenario keeps every
/// digit; only typing changes it.
fn field_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{v}");
    }
    let rounded: f64 = format!("{v:.5e}").parse().unwrap_or(v);
    format!("{rounded}")
}

/// The field of a section input described in the core: label, hint and
/// messages from its description, the value shown in the unit its range
/// is typed in.
pub fn section_input<S>(input: &'static NumberInput<S>) -> AnyView
where
    S: DeserializeOwned + Serialize + Default + PartialEq + Clone + Send + Sync + 'static,
{
    let state = expect_state();
    let id = input.section();
    let stored = state.section_get(id, input.get);
    let store = state.section_set(id, input.set);
    let errors = state.errors_at(input.path);
    let (label, help, integer, testid) = (input.label, input.help, input.integer, input.testid);
    let path = input.path;
    if input.may_be_empty {
        let value = Signal::derive(move || stored.get().map(|v| input.shown(v)));
        let on_set = Callback::new(move |v: Option<f64>| store.run(v.map(|v| input.stored(v))));
        view! { <OptNumberField label value on_set errors testid help integer path /> }.into_any()
    } else {
        let value = Signal::derive(move || stored.get().map_or(0.0, |v| input.shown(v)));
        let on_set = Callback::new(move |v: f64| store.run(Some(input.stored(v))));
        view! { <NumberField label value on_set errors testid help integer path /> }.into_any()
    }
}

/// A numeric input whose value may be absent: empty text means "none".
#[component]
pub fn OptNumberField(
    /// Label with its unit.
    #[prop(into)]
    label: Cow<'static, str>,
    /// Current value, in the label's unit.
    #[prop(into)]
    value: Signal<Option<f64>>,
    /// Receives `None` for empty text, or a finite number.
    on_set: Callback<Option<f64>>,
    /// The scenario's messages for this field.
    #[prop(into, optional)]
    errors: Option<Signal<Vec<String>>>,
    /// `data-testid` of the input.
    #[prop(into, optional)]
    testid: String,
    /// A short hint under the field.
    #[prop(optional)]
    help: &'static str,
    /// Accept whole numbers only.
    #[prop(optional)]
    integer: bool,
    /// The scenario path it writes (see `Look::path`).
    #[prop(optional, into)]
    path: Option<&'static str>,
) -> impl IntoView {
    let look = Look {
        label,
        path,
        testid,
        help,
        inputmode: if integer { "numeric" } else { "decimal" },
        placeholder: "none",
    };
    let parse = move |t: &str| {
        if t.trim().is_empty() {
            Ok(None)
        } else {
            parse_number(t, integer).map(Some)
        }
    };
    parsed_field(look, value, on_set, errors, parse, |v| {
        v.map(field_text).unwrap_or_default()
    })
}

/// How many rows of a long list are on the page; lists grow on request so
/// a 1,000-type catalog or a 4,000-group cluster never builds thousands of
/// inputs in one go.
pub const PAGE_ROWS: usize = 25;

/// How many of a list's first `limit` rows to build now: it catches up with
/// `limit` by `step` rows per frame. A shared link's catalog adds hundreds of
/// fields at once; built in one go they would hold the page for a long task.
pub fn gradual(limit: Signal<usize>, step: usize) -> Signal<usize> {
    let built = RwSignal::new(limit.get_untracked().min(step));
    Effect::new(move |_| {
        let (want, have) = (limit.get(), built.get());
        if want <= have {
            if want < have {
                built.set(want);
            }
            return;
        }
        request_animation_frame(move || {
            let _ = built.try_update(|b| *b = (*b + step).min(limit.get_untracked()));
        });
    });
    built.into()
}

/// "show more" for a list whose first `limit` of `total` rows are shown.
#[component]
pub fn ShowMore(
    /// Rows in all.
    #[prop(into)]
    total: Signal<usize>,
    /// Rows on the page; the button raises it by `PAGE_ROWS`.
    limit: RwSignal<usize>,
    /// What the rows are, plural ("devices").
    what: &'static str,
    /// `data-testid` of the button.
    #[prop(optional)]
    testid: &'static str,
) -> impl IntoView {
    move || {
        let (n, shown) = (total.get(), limit.get());
        (n > shown).then(|| {
            let more = (n - shown).min(PAGE_ROWS);
            view! {
                <button type="button" class="small secondary show-more" data-testid=testid
                    on:click=move |_| limit.update(|l| *l += PAGE_ROWS)>
                    {format!("show {more} more {what} ({shown} of {n} shown)")}
                </button>
            }
        })
    }
}

/// A `<details>` whose body is built only once it is open: a report may
/// carry thousands of rows nobody opens, and building them would hold the
/// page for a frame or more. It stays mounted across edits (keyed by the
/// table), so what the reader opened stays open.
#[component]
pub fn LazyDetails(
    open: bool,
    #[prop(into)] class: String,
    #[prop(into)] summary: Signal<String>,
    children: ChildrenFn,
) -> impl IntoView {
    let opened = RwSignal::new(open);
    let on_toggle = move |ev: web_sys::Event| {
        use wasm_bindgen::JsCast;
        if let Some(d) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok())
        {
            opened.set(d.open());
        }
    };
    view! {
        <details class=class open=open on:toggle=on_toggle>
            <summary>{summary}</summary>
            {move || opened.get().then(|| children())}
        </details>
    }
}

/// A file upload beside a box to paste the same text into: the two ways
/// an import panel takes a table (`on_upload` reads the file in an
/// import worker; the pasted text stays in `paste` until used).
#[component]
pub fn PasteOrUpload(
    paste: RwSignal<String>,
    on_upload: Callback<leptos::ev::Event>,
    /// What the box holds, for screen readers.
    aria_label: &'static str,
    placeholder: &'static str,
    /// `data-testid` stem: `<stem>-upload` and `<stem>-text`.
    testid: &'static str,
) -> impl IntoView {
    view! {
        <label class="field">
            <span class="field-label">"upload a file (≤ 5 MB)"</span>
            <input type="file" accept=".csv,.tsv,.txt,.json" on:change=move |ev| on_upload.run(ev) data-testid=format!("{testid}-upload") />
        </label>
        <textarea
            rows="6"
            placeholder=placeholder
            aria-label=aria_label
            prop:value=move || paste.get()
            on:input=move |ev| paste.set(event_target_value(&ev))
            data-testid=format!("{testid}-text")
        ></textarea>
    }
}
