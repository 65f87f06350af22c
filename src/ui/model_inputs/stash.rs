//! Stash's own inputs (`models.stash`): the measured runs (typed as CSV or
//! uploaded as CSV/JSON), the comm model's L, G and τ, and the all-reduce
//! prediction's settings. The catalog, precision, pricing, workload and
//! goals are shared; one button writes Table I into the catalog.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ui::expect_state;
use crate::ui::fields::{section_input, FieldErrors, OptNumberField};
use crate::ui::files::download_text;
use crate::ui::uploads::{import_upload, ImportSlot};
use crate::ui::instance_select::InstanceSelect;
use crate::ui::state::AppState;
use crate::models::stash::presets::{p3_vgg11_runs, table1_catalog};
use crate::models::stash::runs_text::{format_runs_csv, parse_runs};
use crate::models::stash::section::{
    settings, Calibration, Ring, Run, StashSettings, ACHIEVED, BATCH, COMM_INPUTS, EPOCHS,
    EPOCH_SAMPLES, FLOP_PER_SAMPLE, ID, MAX_MACHINES, OVERLAP,
};
use crate::scenario::files::merge_instances;

/// Edits the section in one scenario update (one undo step).
fn at(state: AppState, field: &'static str) -> Signal<Vec<String>> {
    state.section_errors(ID, field)
}

#[component]
pub fn Panel() -> impl IntoView {
    let state = expect_state();
    let cfg = Memo::new(move |_| state.scenario.with(settings));
    view! {
        <section class="panel stash" aria-label="Stash inputs" data-testid="stash-inputs">
            <h2>"Stash: stalls and all-reduce on cloud GPUs"</h2>
            <p class="hint">
                "Data-parallel training with all-reduce (no parameter server). Five measured runs per configuration give its interconnect, network, CPU-prep and disk-fetch stalls (Sec. IV-B); the comm model (τ + G/(L·B))·L explains them (Sec. VI-A); an extension of it predicts every catalog configuration's time and cost. "
                "It reads the shared catalog (GPUs, dense peaks at the chosen precision, interconnect, network, prices), the workload's layer table and the goals."
            </p>
            <FieldErrors errors=at(state, "") />
            <Runs cfg=cfg />
            <Comm />
            <Prediction cfg=cfg />
        </section>
    }
}

const RUNS_HELP: &str = "One run per line: configuration, run (1-5), seconds, samples[, reference]. Samples count every GPU of the run (run (1): one GPU's share). Runs: (1) synthetic data, one GPU; (2) synthetic, all GPUs of one machine; (3) real data, cold cache; (4) real data, warm cache (after 3); (5) synthetic, several machines with as many GPUs as a machine of (2) — the reference column names that machine when it is not found by its GPUs.";

/// The runs box, its upload, the examples and Table I's catalog.
#[component]
fn Runs(cfg: Memo<StashSettings>) -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let problem = state.upload_note::<String>();
    let note = state.upload_note::<String>();
    let text = Memo::new(move |_| cfg.with(|c| format_runs_csv(&c.runs)));
    let use_runs = move |read: Result<Vec<Run>, String>, from: &str| match read {
        Ok(runs) => {
            problem.set(None);
            let n = runs.len();
            state.section_edit(ID, |c: &mut StashSettings| c.runs = runs);
            note.set((!from.is_empty()).then(|| format!("{from}: {n} runs read")));
        }
        Err(e) => problem.set(Some(if from.is_empty() {
            e
        } else {
            format!("{from}: {e}")
        })),
    };
    let set_runs = move |t: &str, from: &str| use_runs(parse_runs(t).map_err(|e| e.to_string()), from);
    let on_change = move |ev| set_runs(&event_target_value(&ev), "");
    // Read in an import worker: a long file never blocks a frame.
    let slot = StoredValue::new_local(ImportSlot::default());
    let upload = move |ev: web_sys::Event| {
        spawn_local(async move {
            let slot = slot.get_value();
            match import_upload(&ev, &crate::models::stash::runs_text::RUNS, &(), &slot).await {
                Some(Ok((name, runs))) => use_runs(Ok(runs), &name),
                // The worker's message names the file already.
                Some(Err(e)) => use_runs(Err(e.to_string()), ""),
                None => {}
            }
        });
    };
    let example = move |_| {
        let mut added = 0;
        sc.update(|s| {
            added = merge_instances(&mut s.hardware.catalog, table1_catalog());
            let mut c = settings(s);
            c.runs = p3_vgg11_runs();
            s.set_section(ID, &c);
        });
        note.set(Some(format!(
            "Illustrative VGG-11 runs on P3 (made up to show the paper's findings, not its measurements); Table I in the catalog ({added} new)."
        )));
    };
    let table1 = move |_| {
        let mut added = 0;
        sc.update(|s| added = merge_instances(&mut s.hardware.catalog, table1_catalog()));
        note.set(Some(format!(
            "Table I in the catalog ({added} new): P2, P3 and P4 with GPUs, vCPUs, interconnect, memory, network and N. Virginia prices; GPU peaks and interconnect bandwidths from cited vendor figures."
        )));
    };
    let download = move |json: bool| {
        move |_| {
            let runs = p3_vgg11_runs();
            let result = if json {
                let text = serde_json::to_string_pretty(&runs).unwrap_or_default();
                download_text("stash-runs-example.json", "application/json", &text)
            } else {
                let text = format!(
                    "configuration, run, seconds, samples, reference\n{}",
                    format_runs_csv(&runs)
                );
                download_text("stash-runs-example.csv", "text/csv", &text)
            };
            if let Err(e) = result {
                problem.set(Some(e.to_string()));
            }
        }
    };
    view! {
        <h3>"Measured runs (Stash's five steps)"</h3>
        <label class="field">
            <span class="field-label">"runs: configuration, run, time [s], samples[, reference]"</span>
            <textarea rows="8" prop:value=move || { state.fresh_start.track(); text.get() } on:change=on_change
                placeholder="p3.16xlarge, 1, 100, 10000\np3.16xlarge, 2, 112, 80000\n2× p3.8xlarge, 5, 672, 80000"
                aria-label="Stash runs: configuration, run, time in seconds, samples, optional reference"
                data-testid="stash-runs"></textarea>
            <span class="hint">{RUNS_HELP}</span>
        </label>
        {move || problem.get().map(|m| view! { <p class="field-error" role="alert" data-testid="stash-runs-error">{m}</p> })}
        <FieldErrors errors=at(state, ".runs[") />
        <div class="row">
            <label class="button secondary">
                "upload runs (CSV or JSON)"
                <input type="file" accept=".csv,.tsv,.txt,.json" class="hidden-file" on:change=upload data-testid="stash-runs-upload" />
            </label>
            <button type="button" class="secondary" on:click=example data-testid="stash-example"
                title="Replace the runs with illustrative VGG-11 runs on p3.16xlarge, p3.8xlarge and 2× p3.8xlarge, and add Table I to the catalog">
                "example runs (P3)"
            </button>
            <button type="button" class="secondary" on:click=table1 data-testid="stash-table1">"Table I catalog"</button>
            <button type="button" class="secondary" on:click=download(false) data-testid="stash-example-csv">"example CSV"</button>
            <button type="button" class="secondary" on:click=download(true) data-testid="stash-example-json">"example JSON"</button>
        </div>
        {move || note.get().map(|m| view! { <p class="ok" role="status" data-testid="stash-note">{m}</p> })}
    }
}

/// L, G and τ of the comm model, and whose links it shows.
#[component]
fn Comm() -> impl IntoView {
    let state = expect_state();
    let pick = state.section_set(ID, |c: &mut StashSettings, name: String| {
        c.comm_instance = (!name.is_empty()).then_some(name)
    });
    view! {
        <h3>"Communication model (Sec. VI-A): T = (τ + G/(L·B))·L"</h3>
        <div class="grid2">
            {COMM_INPUTS.iter().map(|&i| section_input(i)).collect_view()}
            <label class="field">
                <span class="field-label">"links shown: instance"</span>
                <InstanceSelect
                    current=state.section_get(ID, |c: &StashSettings| c.comm_instance.clone())
                    none_label="first measured, else the fastest"
                    on_pick=pick
                    testid="stash-comm-instance"
                    label="Stash: the instance whose links the comm charts show"
                />
            </label>
        </div>
    }
}

/// The all-reduce prediction's settings (an extension of the paper).
#[component]
fn Prediction(cfg: Memo<StashSettings>) -> impl IntoView {
    let state = expect_state();
    let per_gpu = Memo::new(move |_| cfg.with(|c| c.batch_per_gpu));
    let hierarchical = Memo::new(move |_| cfg.with(|c| c.ring == Ring::Hierarchical));
    let cal_config = RwSignal::new(
        cfg.with_untracked(|c| c.calibrate.as_ref().map(|k| k.configuration.clone()))
            .unwrap_or_default(),
    );
    // The calibration is set when both its configuration and its time are.
    let set_cal = move |config: String, seconds: Option<f64>| {
        state.section_edit(ID, |c: &mut StashSettings| {
            c.calibrate = match seconds {
                Some(iteration_s) if !config.trim().is_empty() => Some(Calibration {
                    configuration: config.trim().to_string(),
                    iteration_s,
                }),
                _ => None,
            }
        })
    };
    let cal_seconds =
        Signal::derive(move || cfg.with(|c| c.calibrate.as_ref().map(|k| k.iteration_s)));
    view! {
        <h3>"All-reduce prediction (this product's extension)"</h3>
        <p class="hint">"t = (B_g/n)·F_s/(peak·a) + (1 − o)·all-reduce, for every GPU type of the catalog on 1 to the most machines; the precision selector of the catalog picks the peak."</p>
        <div class="grid2">
            {section_input(&FLOP_PER_SAMPLE)}
            {section_input(&BATCH)}
            <label class="field check">
                <input type="checkbox" prop:checked=move || per_gpu.get()
                    on:change=move |ev| { let on = event_target_checked(&ev); state.section_edit(ID, |c: &mut StashSettings| c.batch_per_gpu = on) }
                    data-testid="stash-batch-per-gpu" />
                <span>"batch is per GPU (else global, split over the GPUs)"</span>
            </label>
            {section_input(&ACHIEVED)}
            <label class="field">
                <span class="field-label">"calibrate a on: configuration"</span>
                <input type="text" prop:value=move || cal_config.get() placeholder="e.g. p3.16xlarge"
                    aria-label="calibrate a on: configuration, e.g. p3.16xlarge or 2× p3.8xlarge"
                    on:change=move |ev| { let v = event_target_value(&ev); cal_config.set(v.clone()); set_cal(v, cal_seconds.get_untracked()) }
                    data-testid="stash-cal-config" />
                <FieldErrors errors=at(state, ".calibrate.configuration") />
            </label>
            <OptNumberField path="models.stash"
                label="its measured iteration [s]"
                value=cal_seconds
                on_set=Callback::new(move |v: Option<f64>| set_cal(cal_config.get_untracked(), v))
                errors=at(state, ".calibrate.iteration_s")
                testid="stash-cal-seconds"
                help="at this batch; empty: a as typed"
            />
            {section_input(&OVERLAP)}
            <label class="field check">
                <input type="checkbox" prop:checked=move || hierarchical.get()
                    on:change=move |ev| { let on = event_target_checked(&ev); state.section_edit(ID, |c: &mut StashSettings| c.ring = if on { Ring::Hierarchical } else { Ring::Flat }) }
                    data-testid="stash-hierarchical" />
                <span>"hierarchical ring (levels add up; else one flat ring bound by the slowest link)"</span>
            </label>
            {[&EPOCH_SAMPLES, &EPOCHS, &MAX_MACHINES].into_iter().map(section_input).collect_view()}
        </div>
    }
}
