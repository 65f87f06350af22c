//! Measured runs: the clusters a user timed, each with what was measured,
//! typed in the table, pasted as CSV or JSON, or uploaded
//! (`crate::runs::files`); the comparison and the calibration are the
//! "Measured runs" results view.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::expect_state;
use super::fields::{FieldErrors, NumberField, PasteOrUpload};
use super::uploads::{import_upload, ImportSlot};
use crate::report::fmt_sig;
use crate::runs::files::{apply_runs, RUNS};
use crate::runs::{Measure, Run};

/// What the last paste or upload did, beside the import box.
#[derive(Clone, Debug, PartialEq)]
enum RunsNote {
    Ok(String),
    Err(String),
}

#[component]
pub fn RunsPanel() -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let note = state.upload_note::<RunsNote>();
    let paste = RwSignal::new(String::new());
    let count = Memo::new(move |_| sc.with(|s| s.runs.len()));

    let use_text = move |text: String| {
        let mut next = sc.get_untracked();
        match apply_runs(&mut next, &text) {
            Ok(msg) => {
                sc.set(next);
                note.set(Some(RunsNote::Ok(format!("Read {msg}."))));
            }
            Err(e) => note.set(Some(RunsNote::Err(e.to_string()))),
        }
    };
    let slot = StoredValue::new_local(ImportSlot::default());
    let on_upload = move |ev: leptos::ev::Event| {
        spawn_local(async move {
            match import_upload(&ev, &RUNS, &(), &slot.get_value()).await {
                Some(Ok((name, runs))) => {
                    let n = runs.len();
                    sc.update(|s| s.runs = runs);
                    note.set(Some(RunsNote::Ok(format!(
                        "Read {n} measured run{} from {name}.",
                        if n == 1 { "" } else { "s" }
                    ))));
                }
                Some(Err(e)) => note.set(Some(RunsNote::Err(e.to_string()))),
                None => {}
            }
        });
    };
    let edit_as_json = move |_| {
        paste.set(sc.with(|s| serde_json::to_string_pretty(&s.runs).unwrap_or_default()));
    };
    let clear = move |_| {
        sc.update(|s| s.runs.clear());
        note.set(None);
    };

    view! {
        <section class="panel" aria-label="measured runs">
            <h2>"Measured runs"</h2>
            <p class="hint">
                "Runs you timed: each a cluster (worker groups from the catalog with counts and batch sizes; "
                "the PS side is the Cluster tab's unless the run gives its own) and its measured iteration time [s] "
                "or throughput [samples/s]. Every model predicts each run; the “Measured runs” results view shows "
                "the errors and calibrates the models on them, with leave-one-out error."
            </p>
            <FieldErrors errors=Signal::derive(move || state.errors_where(|f| f == "runs")) />
            <FieldErrors errors=state.errors_at("calibration") />
            {move || (count.get() == 0).then(|| view! {
                <p class="hint" data-testid="runs-empty">"No runs yet: paste or upload them below, or open one of Zeng et al.'s Tables 6-7 sets from Examples."</p>
            })}
            <RunsTable />
            // Open while there is nothing else to do here; then as the user
            // leaves it.
            <details class="import" open=sc.with_untracked(|s| s.runs.is_empty())>
                <summary>"Paste or upload runs (CSV or JSON)"</summary>
                <p class="hint">
                    "CSV: a header row, one row per worker group; rows with the same label are one run: "
                    <code>"label, instance, count, batch_size, iteration_s, source"</code>
                    " (or " <code>"throughput"</code> " in samples/s). JSON: the runs as the scenario holds them, for a run with its own PS side."
                </p>
                <PasteOrUpload
                    paste=paste
                    on_upload=Callback::new(on_upload)
                    aria_label="measured runs to paste: CSV or JSON"
                    placeholder="label,instance,count,batch_size,iteration_s"
                    testid="runs"
                />
                <div class="row">
                    <button type="button" on:click=move |_| use_text(paste.get_untracked()) data-testid="runs-apply">"Use these runs"</button>
                    <button type="button" class="secondary" on:click=edit_as_json data-testid="runs-edit">"Edit current runs as JSON"</button>
                    <button type="button" class="secondary" on:click=clear data-testid="runs-clear" disabled=move || count.get() == 0>"Remove every run"</button>
                </div>
            </details>
            {move || note.get().map(|n| match n {
                RunsNote::Ok(m) => view! { <p class="ok" data-testid="runs-note">{m}</p> }.into_any(),
                RunsNote::Err(m) => view! { <p class="field-error" role="alert" data-testid="runs-error">{m}</p> }.into_any(),
            })}
        </section>
    }
}

/// One card per run: its label and measurement typed in place, its
/// cluster as written, and a way to drop it.
#[component]
fn RunsTable() -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let rows = Memo::new(move |_| sc.with(|s| s.runs.len()));
    let row = move |i: usize| {
        let run = Memo::new(move |_| sc.with(|s| s.runs.get(i).cloned()));
        let measure = Memo::new(move |_| {
            run.with(|r| r.as_ref().and_then(Run::measured).map(|(m, _)| m))
                .unwrap_or(Measure::IterationTime)
        });
        let label = move || match measure.get() {
            Measure::IterationTime => "measured iteration time [s]",
            Measure::Throughput => "measured throughput [samples/s]",
        };
        let value = Signal::derive(move || {
            run.with(|r| r.as_ref().and_then(Run::measured).map_or(0.0, |(_, v)| v))
        });
        let set_value = Callback::new(move |v: f64| {
            sc.update(|s| {
                if let Some(r) = s.runs.get_mut(i) {
                    match r.measured().map(|(m, _)| m) {
                        Some(Measure::Throughput) => r.throughput = Some(v),
                        _ => r.iteration_s = Some(v),
                    }
                }
            })
        });
        let cluster = move || run.with(|r| r.as_ref().map(cluster_text).unwrap_or_default());
        let ps = move || {
            run.with(|r| match r.as_ref().and_then(|r| r.ps.as_ref()) {
                Some(ps) => ps.link_bytes_per_s.map_or_else(
                    || "its own PS instance".to_string(),
                    |b| format!("{} Gb/s", fmt_sig(b * 8.0 / 1e9)),
                ),
                None => "the Cluster tab's".to_string(),
            })
        };
        view! {
            <li class="run-card" data-testid=format!("run-row-{i}")>
                <div class="row run-head">
                    <input
                        type="text"
                        class="run-label"
                        aria-label=format!("label of run {}", i + 1)
                        prop:value=move || run.with(|r| r.as_ref().map(|r| r.label.clone()).unwrap_or_default())
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            sc.update(|s| if let Some(r) = s.runs.get_mut(i) { r.label = v });
                        }
                        data-testid=format!("run-label-{i}")
                    />
                    <button type="button" class="small secondary"
                        aria-label=format!("remove run {}", i + 1)
                        on:click=move |_| sc.update(|s| { if i < s.runs.len() { s.runs.remove(i); } })
                        data-testid=format!("run-remove-{i}")>"Remove"</button>
                </div>
                <p class="hint run-cluster">{cluster} " · PS link: " {ps}</p>
                {move || view! {
                    <NumberField path="runs"
                        label=label()
                        value=value
                        on_set=set_value
                        errors=Signal::derive(move || {
                            let at = format!("runs[{i}]");
                            state.errors_where(|f| f.starts_with(&at))
                        })
                        testid=format!("run-value-{i}")
                    />
                }}
            </li>
        }
    };
    view! {
        <Show when=move || { rows.get() > 0 }>
            <ol class="runs-list" data-testid="runs-table" aria-label="measured runs">
                <For each=move || 0..rows.get() key=|i| *i let:i>
                    {row(i)}
                </For>
            </ol>
        </Show>
    }
}

/// "2× Quadro RTX 4000 (bs 16) + 1× GeForce GTX 1060 6GB (bs 32)".
fn cluster_text(r: &Run) -> String {
    r.workers
        .iter()
        .map(|g| format!("{}× {} (bs {})", g.count, g.instance, g.batch_size))
        .collect::<Vec<_>>()
        .join(" + ")
}
