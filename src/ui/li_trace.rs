//! Li et al.'s Chrome-trace import on the page: upload a TensorFlow
//! timeline or PyTorch profiler file (plain or gzipped), see what was read,
//! merged and skipped, and edit the mapping rules (kept in
//! `models.li.trace_mapping`); the trace itself stays in the page, so a
//! rule change re-reads it at once.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::files::read_upload_bytes;
use super::state::AppState;
use crate::models::li::chrome::{import, read_bytes, Mapping, Rule, Target};
use crate::models::li::section::{LiSettings, ID};

const TARGETS: [Target; 5] = [
    Target::Worker,
    Target::Downlink,
    Target::Uplink,
    Target::Ps,
    Target::Skip,
];

fn target_of(word: &str) -> Target {
    TARGETS
        .into_iter()
        .find(|t| t.word() == word)
        .unwrap_or(Target::Worker)
}

/// Reads `text` with the section's mapping (or the defaults) and the
/// workload's layer table; on success the profile replaces the section's.
fn apply(state: AppState, name: &str, text: &str) -> Result<Vec<String>, String> {
    let (mapping, network) = state.scenario.with_untracked(|s| {
        let c: LiSettings = s.section(ID).unwrap_or_default();
        (
            c.trace_mapping.unwrap_or_default(),
            s.workload.network.clone(),
        )
    });
    let layers = (!network.layers.is_empty()).then_some(&network);
    let imported = import(name, text, &mapping, layers).map_err(|e| format!("{name}: {e}"))?;
    let lines = imported.summary.lines();
    state.section_edit(ID, |c: &mut LiSettings| {
        c.profile = Some(imported.profile);
        c.profile_ref = None;
        c.trace_mapping = Some(mapping);
    });
    Ok(lines)
}

#[component]
pub fn LiTrace() -> impl IntoView {
    let state = super::expect_state();
    let cfg = state.section_memo::<LiSettings>(ID);
    // The last trace read: (file name, text), kept for re-reading.
    let trace = StoredValue::new_local(None::<(String, String)>);
    let summary = RwSignal::new(None::<Vec<String>>);
    let problem = RwSignal::new(None::<String>);
    let reread = move || {
        let Some((name, text)) = trace.get_value() else {
            return;
        };
        match apply(state, &name, &text) {
            Ok(lines) => {
                problem.set(None);
                summary.set(Some(lines));
            }
            Err(e) => problem.set(Some(e)),
        }
    };
    let upload = move |ev: web_sys::Event| {
        spawn_local(async move {
            match read_upload_bytes(&ev).await {
                Some(Ok((name, bytes))) => match read_bytes(&bytes) {
                    Ok(text) => {
                        trace.set_value(Some((name, text)));
                        reread();
                    }
                    Err(e) => problem.set(Some(format!("{name}: {e}"))),
                },
                Some(Err(e)) => problem.set(Some(e)),
                None => {}
            }
        });
    };
    let edit = move |f: Box<dyn FnOnce(&mut Mapping)>| {
        state.section_edit(ID, |c: &mut LiSettings| {
            f(c.trace_mapping.get_or_insert_with(Mapping::default));
        });
        reread();
    };
    let mapping = Memo::new(move |_| cfg.with(|c| c.trace_mapping.clone()));
    let rules = move || {
        mapping
            .get()
            .unwrap_or_default()
            .rules
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                let pattern = r.pattern.clone();
                view! {
                    <li class="row" data-testid="li-trace-rule">
                        <input type="text" prop:value=pattern aria-label=format!("rule {}: pattern in the event's name or category", i + 1)
                            on:change=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |m| if let Some(r) = m.rules.get_mut(i) { r.pattern = v; })) }
                            data-testid="li-trace-pattern" />
                        <select aria-label=format!("rule {}: resource", i + 1) data-testid="li-trace-target"
                            on:change=move |ev| { let t = target_of(&event_target_value(&ev)); edit(Box::new(move |m| if let Some(r) = m.rules.get_mut(i) { r.target = t; })) }>
                            {TARGETS.into_iter().map(|t| view! { <option value=t.word() prop:selected=t == r.target>{t.word()}</option> }).collect_view()}
                        </select>
                        <button type="button" class="small" aria-label=format!("remove rule {}", i + 1)
                            on:click=move |_| edit(Box::new(move |m| { if i < m.rules.len() { m.rules.remove(i); } }))>"remove"</button>
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <div class="li-trace">
            <label class="button secondary">
                "upload Chrome trace (.json, .json.gz)"
                <input type="file" accept=".json,.gz,.json.gz" class="hidden-file" on:change=upload data-testid="li-trace-upload" />
            </label>
            {move || problem.get().map(|m| view! { <p class="field-error" role="alert" data-testid="li-trace-error">{m}</p> })}
            {move || summary.get().map(|lines| view! {
                <ul class="hint" role="status" data-testid="li-trace-summary">
                    {lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
                </ul>
            })}
            <Show when=move || mapping.with(Option::is_some)>
                <details class="fit" data-testid="li-trace-mapping">
                    <summary>"mapping: trace events → resources (the first rule that matches wins)"</summary>
                    <ol class="rules">{rules}</ol>
                    <div class="row">
                        <button type="button" class="small" data-testid="li-trace-add"
                            on:click=move |_| edit(Box::new(|m| m.rules.push(Rule { pattern: String::new(), target: Target::Worker })))>"add rule"</button>
                        <button type="button" class="small" data-testid="li-trace-reset"
                            on:click=move |_| edit(Box::new(|m| *m = Mapping::default()))>"default rules"</button>
                    </div>
                    <label class="field">
                        <span class="field-label">"events no rule matches go to"</span>
                        <select aria-label="events no rule matches go to" data-testid="li-trace-default"
                            on:change=move |ev| { let t = target_of(&event_target_value(&ev)); edit(Box::new(move |m| m.default = t)) }>
                            {move || {
                                let d = mapping.get().unwrap_or_default().default;
                                TARGETS.into_iter().map(|t| view! { <option value=t.word() prop:selected=t == d>{t.word()}</option> }).collect_view()
                            }}
                        </select>
                    </label>
                    <label class="field">
                        <span class="field-label">"step marker (events whose name starts with it split the steps)"</span>
                        <input type="text" data-testid="li-trace-marker"
                            prop:value=move || mapping.get().unwrap_or_default().step_marker
                            on:change=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |m| m.step_marker = v)) } />
                    </label>
                    <p class="hint">"The trace stays in this page only; the scenario keeps the profile read from it and these rules."</p>
                </details>
            </Show>
        </div>
    }
}
