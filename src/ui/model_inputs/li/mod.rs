//! Li et al.'s own inputs (`models.li`): the one-worker profile (uploaded,
//! or generated from the layer table), the parse overhead, HTTP/2 or flow
//! control off with an order, and the simulation's steps, seeds and W.
//! The PS side (count, link) is the shared cluster's.

mod trace;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ui::expect_state;
use crate::ui::fields::{FieldErrors, NumberField};
use crate::ui::files::download_text;
use crate::ui::uploads::{import_upload, ImportSlot};
use crate::ui::state::AppState;
use crate::models::li::generate::from_layers;
use crate::models::li::share_link::{attach_message, upload_note};
use crate::models::li::parse_fit;
use crate::models::li::profile::Profile;
use crate::models::li::section::{settings, Generate, Granularity, LiSettings, StreamOrder, ID};
use crate::report::fmt_sig;
use crate::scenario::Scenario;

fn at(state: AppState, field: &'static str) -> Signal<Vec<String>> {
    state.section_errors(ID, field)
}

/// The profile the section holds, or the one it would generate.
fn current_profile(s: &Scenario) -> Option<Profile> {
    let c = settings(s);
    if let Some(p) = c.profile {
        return Some(p);
    }
    let g = c.generate?;
    let group = s.hardware.cluster.workers.first()?;
    let rate = s
        .instance(&group.instance)?
        .flops_at(s.hardware.precision)?;
    Some(from_layers(
        &s.workload.network,
        rate,
        group.batch_size,
        &g,
        c.seed,
    ))
}

#[component]
pub fn Panel() -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let cfg = state.section_memo::<LiSettings>(ID);
    let problem = RwSignal::new(None::<String>);
    let note = RwSignal::new(None::<String>);
    let source = Memo::new(move |_| {
        cfg.with(|c| match (&c.profile, &c.generate) {
            (None, _) if c.profile_ref.is_some() => c
                .profile_ref
                .as_ref()
                .map(attach_message)
                .unwrap_or_default(),
            (Some(p), _) => format!(
                "profile '{}': {} ops, {} profiled steps, batch {}",
                p.name,
                p.ops.len(),
                p.steps.len(),
                p.batch
            ),
            (None, Some(_)) => {
                "generated from the layer table and the first worker group's instance and batch"
                    .into()
            }
            (None, None) => {
                "none yet: upload a profile, or generate one from the layer table".into()
            }
        })
    });
    // Read in an import worker: the page never waits on a large profile.
    let slot = StoredValue::new_local(ImportSlot::default());
    let upload = move |ev: web_sys::Event| {
        spawn_local(async move {
            let slot = slot.get_value();
            match import_upload(&ev, &crate::models::li::files::PROFILE, &(), &slot).await {
                Some(Ok((name, p))) => {
                    problem.set(None);
                    let named = cfg.with_untracked(|c| c.profile_ref.clone());
                    let vs_link = upload_note(named.as_ref(), &p)
                        .map(|m| format!(": {m}"))
                        .unwrap_or_default();
                    note.set(Some(format!("{name}: {} ops read{vs_link}", p.ops.len())));
                    state.section_edit(ID, |c: &mut LiSettings| {
                        c.profile = Some(p);
                        c.profile_ref = None;
                    });
                }
                Some(Err(e)) => problem.set(Some(e)),
                None => {}
            }
        });
    };
    let generate = move |_| {
        problem.set(None);
        note.set(None);
        state.section_edit(ID, |c: &mut LiSettings| {
            c.profile = None;
            c.profile_ref = None;
            c.generate = Some(c.generate.clone().unwrap_or_default());
        });
    };
    let download = move |_| {
        let Some(p) = sc.with(current_profile) else {
            problem.set(Some(
                "no profile to download: upload one or generate one first".into(),
            ));
            return;
        };
        let text = serde_json::to_string_pretty(&p).unwrap_or_default();
        if let Err(e) = download_text("profile.json", "application/json", &text) {
            problem.set(Some(e));
        }
    };
    let pairs_text =
        RwSignal::new(cfg.with_untracked(|c| c.parse_pairs.clone().unwrap_or_default()));
    let fit_note = RwSignal::new(None::<Result<String, String>>);
    let fit_parse = move |_| {
        let text = pairs_text.get_untracked();
        match parse_fit::fit(&text) {
            Ok(f) => {
                fit_note.set(Some(Ok(format!(
                    "α = {} ns/B, β = {} ms from {} pairs (R² = {:.4})",
                    fmt_sig(f.alpha * 1e9),
                    fmt_sig(f.beta * 1e3),
                    f.pairs,
                    f.r_squared
                ))));
                state.section_edit(ID, |c: &mut LiSettings| {
                    c.alpha_s_per_byte = f.alpha;
                    c.beta_s = f.beta;
                    c.parse_pairs = Some(text);
                });
            }
            Err(m) => fit_note.set(Some(Err(m))),
        }
    };
    let generating = Memo::new(move |_| cfg.with(|c| c.profile.is_none() && c.generate.is_some()));
    let flow_on = Memo::new(move |_| cfg.with(|c| c.flow_control));
    let occupies = Memo::new(move |_| cfg.with(|c| c.parse_occupies));
    let order = Memo::new(move |_| cfg.with(|c| c.order));
    let granularity = Memo::new(move |_| {
        cfg.with(|c| {
            c.generate
                .as_ref()
                .map_or(Granularity::Layer, |g| g.granularity)
        })
    });
    let batch_norm =
        Memo::new(move |_| cfg.with(|c| c.generate.as_ref().is_some_and(|g| g.batch_norm)));
    view! {
        <section class="panel li" aria-label="Li et al. inputs" data-testid="li-inputs">
            <h2>"Li et al.: asynchronous SGD, simulated from one worker"</h2>
            <p class="hint">"Throughput of W workers and the cluster's parameter servers (count and link in the Cluster tab), simulated op by op (Algorithm 3.1) from a profile of one worker and one PS."</p>
            <FieldErrors errors=at(state, "") />
            <h3>"Profile"</h3>
            <p class="hint" data-testid="li-source">{move || source.get()}</p>
            <div class="row">
                <label class="button secondary">
                    "upload profile JSON"
                    <input type="file" accept=".json" class="hidden-file" on:change=upload data-testid="li-profile-upload" />
                </label>
                <button type="button" class="secondary" on:click=generate data-testid="li-generate"
                    title="Build a profile from the workload's layer table and the first worker group (rate at the chosen precision, batch)">
                    "generate from the layer table"
                </button>
                <button type="button" class="secondary" on:click=download data-testid="li-profile-download">"download profile JSON"</button>
            </div>
            <trace::LiTrace />
            {move || problem.get().map(|m| view! { <p class="field-error" role="alert" data-testid="li-profile-error">{m}</p> })}
            {move || note.get().map(|m| view! { <p class="ok" role="status" data-testid="li-note">{m}</p> })}
            <FieldErrors errors=at(state, ".profile") />
            <Show when=move || generating.get()>
                <div class="grid2">
                    <NumberField
                        label="achieved fraction of the worker's peak [–]"
                        value=state.section_get(ID, |c: &LiSettings| c.generate.as_ref().map_or(0.5, |g| g.achieved))
                        on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.generate.get_or_insert_with(Generate::default).achieved = v)
                        errors=at(state, ".generate.achieved")
                        testid="li-achieved"
                    />
                    <NumberField
                        label="PS update rate [GB/s]"
                        value=state.section_get(ID, |c: &LiSettings| c.generate.as_ref().map_or(10.0, |g| g.ps_bytes_per_s / 1e9))
                        on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.generate.get_or_insert_with(Generate::default).ps_bytes_per_s = v * 1e9)
                        errors=at(state, ".generate.ps_bytes_per_s")
                        testid="li-ps-rate"
                    />
                    <NumberField
                        label="compute varies between profiled steps by ± [–]"
                        value=state.section_get(ID, |c: &LiSettings| c.generate.as_ref().map_or(0.05, |g| g.jitter))
                        on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.generate.get_or_insert_with(Generate::default).jitter = v)
                        errors=at(state, ".generate.jitter")
                        testid="li-jitter"
                        help="0: every step alike, and workers that start together stay in lock-step"
                    />
                    <NumberField
                        label="profiled steps to make [–]"
                        value=state.section_get(ID, |c: &LiSettings| f64::from(c.generate.as_ref().map_or(20, |g| g.profiled_steps)))
                        on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.generate.get_or_insert_with(Generate::default).profiled_steps = v as u32)
                        errors=at(state, ".generate.profiled_steps")
                        integer=true
                        testid="li-profiled-steps"
                    />
                    <label class="field">
                        <span class="field-label">"ops and tensors"</span>
                        <select aria-label="ops and tensors of the generated profile" data-testid="li-granularity"
                            on:change=move |ev| {
                                let g = if event_target_value(&ev) == "op" { Granularity::Op } else { Granularity::Layer };
                                state.section_edit(ID, |c: &mut LiSettings| c.generate.get_or_insert_with(Generate::default).granularity = g)
                            }>
                            <option value="layer" prop:selected=move || granularity.get() == Granularity::Layer>"one of each per layer (Fig. 6)"</option>
                            <option value="op" prop:selected=move || granularity.get() == Granularity::Op>"per op and variable, as TensorFlow records a PS job"</option>
                        </select>
                    </label>
                    <label class="field check">
                        <input type="checkbox" prop:checked=move || batch_norm.get()
                            on:change=move |ev| { let on = event_target_checked(&ev); state.section_edit(ID, |c: &mut LiSettings| c.generate.get_or_insert_with(Generate::default).batch_norm = on) }
                            data-testid="li-batch-norm" />
                        <span>"convolutions followed by BatchNorm (β and moving statistics, no bias)"</span>
                    </label>
                    <NumberField
                        label="worker memory bandwidth, for BatchNorm and ReLU [GB/s]"
                        value=state.section_get(ID, |c: &LiSettings| c.generate.as_ref().map_or(900.0, |g| g.memory_bytes_per_s / 1e9))
                        on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.generate.get_or_insert_with(Generate::default).memory_bytes_per_s = v * 1e9)
                        errors=at(state, ".generate.memory_bytes_per_s")
                        testid="li-memory-rate"
                        help="used per op only: BatchNorm makes 3 passes over a layer's output, ReLU 2, backward twice forward"
                    />
                </div>
            </Show>
            <h3>"Transfers (Sec. 3.2)"</h3>
            <div class="grid2">
                <NumberField
                    label="α: parse overhead per byte [ns/B]"
                    value=state.section_get(ID, |c: &LiSettings| c.alpha_s_per_byte * 1e9)
                    on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.alpha_s_per_byte = v / 1e9)
                    errors=at(state, ".alpha_s_per_byte")
                    testid="li-alpha"
                />
                <NumberField
                    label="β: parse overhead per transfer [ms]"
                    value=state.section_get(ID, |c: &LiSettings| c.beta_s * 1e3)
                    on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.beta_s = v / 1e3)
                    errors=at(state, ".beta_s")
                    testid="li-beta"
                />
                <label class="field check">
                    <input type="checkbox" prop:checked=move || occupies.get()
                        on:change=move |ev| { let on = event_target_checked(&ev); state.section_edit(ID, |c: &mut LiSettings| c.parse_occupies = on) }
                        data-testid="li-occupies" />
                    <span>"the overhead occupies the receiver's compute (else a pure delay)"</span>
                </label>
                <label class="field check">
                    <input type="checkbox" prop:checked=move || flow_on.get()
                        on:change=move |ev| { let on = event_target_checked(&ev); state.section_edit(ID, |c: &mut LiSettings| c.flow_control = on) }
                        data-testid="li-flow-control" />
                    <span>"HTTP/2 flow control on (streams share a window)"</span>
                </label>
                <Show when=move || flow_on.get()
                    fallback=move || view! {
                        <label class="field">
                            <span class="field-label">"stream order with flow control off"</span>
                            <select aria-label="stream order with flow control off" data-testid="li-order"
                                on:change=move |ev| {
                                    let o = match event_target_value(&ev).as_str() {
                                        "reverse" => StreamOrder::Reverse,
                                        "random" => StreamOrder::Random,
                                        "critical" => StreamOrder::CriticalPath,
                                        _ => StreamOrder::Profiled,
                                    };
                                    state.section_edit(ID, |c: &mut LiSettings| c.order = o)
                                }>
                                <option value="profiled" prop:selected=move || order.get() == StreamOrder::Profiled>"as profiled"</option>
                                <option value="reverse" prop:selected=move || order.get() == StreamOrder::Reverse>"reverse"</option>
                                <option value="random" prop:selected=move || order.get() == StreamOrder::Random>"random (from the seed)"</option>
                                <option value="critical" prop:selected=move || order.get() == StreamOrder::CriticalPath>"critical path first"</option>
                            </select>
                        </label>
                    }>
                    <NumberField
                        label="HTTP/2 window WIN [MB]"
                        value=state.section_get(ID, |c: &LiSettings| c.window_bytes / 1e6)
                        on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.window_bytes = v * 1e6)
                        errors=at(state, ".window_bytes")
                        testid="li-window"
                        help="the paper measured 28 MB on average"
                    />
                </Show>
            </div>
            <details class="fit" data-testid="li-parse-fit-box">
                <summary>"fit α and β from measured (bytes, seconds) pairs"</summary>
                <p class="hint">"One pair per line: a transfer's size [B] and the time its receiver took to parse it [s]. A least-squares line gives α (slope) and β (intercept)."</p>
                <textarea rows="4" placeholder="bytes, seconds\n1000000, 0.0012\n8000000, 0.0071"
                    aria-label="measured parse overheads: bytes, seconds per line"
                    prop:value=move || cfg.with(|c| c.parse_pairs.clone().unwrap_or_default())
                    on:change=move |ev| pairs_text.set(event_target_value(&ev))
                    data-testid="li-parse-pairs"></textarea>
                <button type="button" class="secondary" on:click=fit_parse data-testid="li-parse-fit">"fit α and β"</button>
                {move || fit_note.get().map(|r| match r {
                    Ok(m) => view! { <p class="ok" role="status" data-testid="li-parse-note">{m}</p> }.into_any(),
                    Err(m) => view! { <p class="field-error" role="alert" data-testid="li-parse-error">{m}</p> }.into_any(),
                })}
            </details>
            <h3>"Simulation"</h3>
            <div class="grid2">
                <NumberField
                    label="steps per worker [–]"
                    value=state.section_get(ID, |c: &LiSettings| f64::from(c.steps))
                    on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.steps = v as u32)
                    errors=at(state, ".steps")
                    integer=true
                    testid="li-steps"
                    help="the paper: 1000"
                />
                <NumberField
                    label="warm-up steps left out [–]"
                    value=state.section_get(ID, |c: &LiSettings| f64::from(c.warmup))
                    on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.warmup = v as u32)
                    errors=at(state, ".warmup")
                    integer=true
                    testid="li-warmup"
                    help="the paper: 50"
                />
                <NumberField
                    label="most workers W [–]"
                    value=state.section_get(ID, |c: &LiSettings| f64::from(c.max_workers))
                    on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.max_workers = v as u32)
                    errors=at(state, ".max_workers")
                    integer=true
                    testid="li-max-workers"
                />
                <NumberField
                    label="seeds per W [–]"
                    value=state.section_get(ID, |c: &LiSettings| f64::from(c.seeds))
                    on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.seeds = v as u32)
                    errors=at(state, ".seeds")
                    integer=true
                    testid="li-seeds"
                />
                <NumberField
                    label="first seed [–]"
                    value=state.section_get(ID, |c: &LiSettings| c.seed as f64)
                    on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.seed = v as u64)
                    integer=true
                    testid="li-seed"
                />
                <NumberField
                    label="workers in the timeline [–]"
                    value=state.section_get(ID, |c: &LiSettings| f64::from(c.timeline_workers))
                    on_set=state.section_set(ID, |c: &mut LiSettings, v: f64| c.timeline_workers = v as u32)
                    errors=at(state, ".timeline_workers")
                    integer=true
                    testid="li-timeline-workers"
                />
            </div>
        </section>
    }
}
