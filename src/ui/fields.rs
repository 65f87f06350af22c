//! Input fields that never write a bad number into the scenario: text that
//! does not parse stays in the field with a message beside it, and the
//! scenario's own validation messages for the field show there too.

use leptos::prelude::*;

/// Messages under a field or panel.
#[component]
pub fn FieldErrors(#[prop(into)] errors: Signal<Vec<String>>) -> impl IntoView {
    view! {
        <For each=move || errors.get() key=|m| m.clone() let:msg>
            <p class="field-error" role="alert" data-testid="field-error">{msg}</p>
        </For>
    }
}

/// The field's own parse error followed by the scenario's messages for it.
fn merged_errors(
    local: RwSignal<Option<String>>,
    scenario: Option<Signal<Vec<String>>>,
) -> Signal<Vec<String>> {
    Signal::derive(move || {
        let mut v: Vec<String> = local.get().into_iter().collect();
        if let Some(s) = scenario {
            v.extend(s.get());
        }
        v
    })
}

fn parse_number(text: &str, integer: bool) -> Result<f64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("enter a number".into());
    }
    if integer {
        return t
            .parse::<u32>()
            .map(f64::from)
            .map_err(|_| format!("'{t}' is not a whole number ≥ 0"));
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("'{t}' is not a number")),
    }
}

/// A labelled numeric input, in display units.
#[component]
pub fn NumberField(
    /// Label with its unit, e.g. "PS link bandwidth [Gb/s]".
    label: &'static str,
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
    #[prop(optional)]
    testid: &'static str,
    /// A short hint under the field.
    #[prop(optional)]
    help: &'static str,
) -> impl IntoView {
    let raw = RwSignal::new(format!("{}", value.get_untracked()));
    let local_error = RwSignal::new(None::<String>);
    // Follow outside changes (a preset, an import) unless the text already
    // says the same number, so typing "1." is not rewritten to "1".
    Effect::new(move |_| {
        let v = value.get();
        let same = raw.with_untracked(|r| parse_number(r, integer).ok() == Some(v));
        if !same {
            raw.set(format!("{v}"));
            local_error.set(None);
        }
    });
    let on_input = move |ev| {
        let text = event_target_value(&ev);
        match parse_number(&text, integer) {
            Ok(v) => {
                local_error.set(None);
                on_set.run(v);
            }
            Err(m) => local_error.set(Some(m)),
        }
        raw.set(text);
    };
    let all_errors = merged_errors(local_error, errors);
    let invalid = move || !all_errors.with(Vec::is_empty);
    view! {
        <label class="field" class:invalid=invalid>
            <span class="field-label">{label}</span>
            <input
                type="text"
                inputmode=if integer { "numeric" } else { "decimal" }
                prop:value=move || raw.get()
                on:input=on_input
                data-testid=testid
                aria-invalid=move || if invalid() { "true" } else { "false" }
            />
            {(!help.is_empty()).then(|| view! { <span class="field-help">{help}</span> })}
            <FieldErrors errors=all_errors />
        </label>
    }
}

/// A numeric input whose value may be absent: empty text means "none".
#[component]
pub fn OptNumberField(
    /// Label with its unit.
    label: &'static str,
    /// Current value, in the label's unit.
    #[prop(into)]
    value: Signal<Option<f64>>,
    /// Receives `None` for empty text, or a finite number.
    on_set: Callback<Option<f64>>,
    /// The scenario's messages for this field.
    #[prop(into, optional)]
    errors: Option<Signal<Vec<String>>>,
    /// `data-testid` of the input.
    #[prop(optional)]
    testid: &'static str,
    /// A short hint under the field.
    #[prop(optional)]
    help: &'static str,
) -> impl IntoView {
    let show = |v: Option<f64>| v.map(|v| format!("{v}")).unwrap_or_default();
    let raw = RwSignal::new(show(value.get_untracked()));
    let local_error = RwSignal::new(None::<String>);
    let parse = |t: &str| -> Result<Option<f64>, String> {
        if t.trim().is_empty() {
            Ok(None)
        } else {
            parse_number(t, false).map(Some)
        }
    };
    Effect::new(move |_| {
        let v = value.get();
        if raw.with_untracked(|r| parse(r).ok() != Some(v)) {
            raw.set(show(v));
            local_error.set(None);
        }
    });
    let on_input = move |ev| {
        let text = event_target_value(&ev);
        match parse(&text) {
            Ok(v) => {
                local_error.set(None);
                on_set.run(v);
            }
            Err(m) => local_error.set(Some(m)),
        }
        raw.set(text);
    };
    let all_errors = merged_errors(local_error, errors);
    let invalid = move || !all_errors.with(Vec::is_empty);
    view! {
        <label class="field" class:invalid=invalid>
            <span class="field-label">{label}</span>
            <input
                type="text"
                inputmode="decimal"
                placeholder="none"
                prop:value=move || raw.get()
                on:input=on_input
                data-testid=testid
            />
            {(!help.is_empty()).then(|| view! { <span class="field-help">{help}</span> })}
            <FieldErrors errors=all_errors />
        </label>
    }
}
