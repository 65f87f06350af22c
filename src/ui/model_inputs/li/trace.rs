//! Li et al.'s Chrome-trace import on the page: upload a TensorFlow
//! timeline or PyTorch profiler file (plain or gzipped), see what was read,
//! merged and skipped, and edit the mapping rules (kept in
//! `models.li.trace_mapping`).
//!
//! The file is read off the page's thread: it goes as it is (a `Blob`) to
//! an import worker (`ui::uploads`, `models::li::files::TRACE`) that
//! inflates and reads it.
//! The page keeps the last file picked (a handle, not its bytes) and sends
//! it again when a rule changes, also after a read that failed (a trace
//! without step markers is read again once the step is given); each read
//! has its own worker, ended once it has answered, so the memory a trace
//! of hundreds of MB took while it was read is given back. The page shows
//! "reading…" meanwhile.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ui::fields::{NumberField, OptNumberField};
use crate::ui::files::picked_within;
use crate::ui::uploads::{import_file, ImportSlot};
use crate::models::li::chrome::{Mapping, Rule, Target, MAX_TRACE_BYTES};
use crate::models::li::files::{trace_options, TRACE};
use crate::models::li::section::{LiSettings, ID, TRACE_INPUTS};

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

#[component]
pub fn LiTrace() -> impl IntoView {
    let state = crate::ui::expect_state();
    let cfg = state.section_memo::<LiSettings>(ID);
    let slot = StoredValue::new_local(ImportSlot::default());
    // The last file picked: a rule change reads it again.
    let kept: StoredValue<Option<(String, web_sys::File)>, LocalStorage> =
        StoredValue::new_local(None);
    let summary = state.upload_note::<Vec<String>>();
    let problem = state.upload_note::<String>();
    // What the worker is reading ("reading x.json (12.3 MB)…").
    let reading = RwSignal::new(None::<String>);
    // A newer read replaces this one (its worker ended, its answer none).
    let ask = move |name: String, file: web_sys::File, message: String| {
        let options = state.scenario.with_untracked(trace_options);
        reading.set(Some(message));
        spawn_local(async move {
            let slot = slot.get_value();
            let Some(read) = import_file(&TRACE, &name, &file, &options, &slot).await
            else {
                return;
            };
            reading.set(None);
            kept.set_value(Some((name, file)));
            match read {
                Ok((profile, lines)) => {
                    state.section_edit(ID, |c: &mut LiSettings| c.use_trace(profile));
                    problem.set(None);
                    summary.set(Some(lines));
                }
                // The last profile stays; the mapping screen shows, so a
                // step can be given and the file read again.
                Err(e) => {
                    summary.set(None);
                    problem.set(Some(e.to_string()));
                }
            }
        });
    };
    let reread = move || {
        let Some((name, file)) = kept.get_value() else {
            return;
        };
        if summary.with_untracked(Option::is_none) && problem.with_untracked(Option::is_none) {
            return;
        }
        // Out of range: said at its field, and the last profile stays.
        let refused = state.validation.with_untracked(|errs| {
            errs.iter()
                .any(|e| e.field.starts_with(&format!("models.{ID}.trace_mapping")))
        });
        if refused {
            return;
        }
        ask(
            name,
            file,
            "reading the trace again with the new rules…".into(),
        );
    };
    let upload = move |ev: web_sys::Event| match picked_within(&ev, MAX_TRACE_BYTES as f64) {
        Some(Ok((name, file))) => {
            problem.set(None);
            let message = format!("reading {name} ({:.1} MB)…", file.size() / 1e6);
            ask(name, file, message);
        }
        Some(Err(e)) => problem.set(Some(e.to_string())),
        None => {}
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
            {move || reading.get().map(|m| view! { <p class="hint" role="status" data-testid="li-trace-reading">{m}</p> })}
            {move || problem.get().map(|m| view! { <p class="field-error" role="alert" data-testid="li-trace-error">{m}</p> })}
            {move || summary.get().map(|lines| view! {
                <ul class="hint" role="status" data-testid="li-trace-summary">
                    {lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
                </ul>
            })}
            <Show when=move || mapping.with(Option::is_some) || problem.with(Option::is_some)>
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
                        <span class="field-label">"step marker (events whose name starts with it split the steps; empty: without step ids, the whole trace is one step)"</span>
                        <input type="text" data-testid="li-trace-marker"
                            prop:value=move || mapping.get().unwrap_or_default().step_marker
                            on:change=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |m| m.step_marker = v)) } />
                    </label>
                    <div class="grid2">
                        {TRACE_INPUTS.iter().map(|&input| {
                            // Shown as the rules the trace is read with (the
                            // defaults before the section has any).
                            let stored = Signal::derive(move || {
                                let rules = mapping.get().unwrap_or_default();
                                let set = LiSettings { trace_mapping: Some(rules), ..LiSettings::default() };
                                (input.get)(&set).map(|v| input.shown(v))
                            });
                            // A rule's change reads the trace again.
                            let store = move |v: Option<f64>| {
                                state.section_edit(ID, |c: &mut LiSettings| (input.set)(c, v.map(|v| input.stored(v))));
                                reread();
                            };
                            let errors = state.errors_at(input.path);
                            if input.may_be_empty {
                                let on_set = Callback::new(store);
                                view! {
                                    <OptNumberField path=input.path label=input.label value=stored on_set errors
                                        integer=input.integer testid=input.testid help=input.help />
                                }.into_any()
                            } else {
                                let value = Signal::derive(move || stored.get().unwrap_or(0.0));
                                let on_set = Callback::new(move |v: f64| store(Some(v)));
                                view! {
                                    <NumberField path=input.path label=input.label value on_set errors
                                        integer=input.integer testid=input.testid help=input.help />
                                }.into_any()
                            }
                        }).collect_view()}
                    </div>
                    <p class="hint">"The trace stays in this page only; the scenario keeps the profile read from it and these rules."</p>
                </details>
            </Show>
        </div>
    }
}
