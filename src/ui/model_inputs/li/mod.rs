//! Li et al.'s own inputs (`models.li`): the one-worker profile (uploaded,
//! or generated from the layer table), the parse overhead, HTTP/2 or flow
//! control off with an order, and the simulation's steps, seeds and W.
//! The PS side (count, link) is the shared cluster's.

mod trace;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ui::expect_state;
use crate::ui::fields::{section_input, FieldErrors};
use crate::ui::files::download_text;
use crate::ui::uploads::{import_upload, ImportSlot};
use crate::ui::state::{next_task, AppState};
use crate::models::li::generate::from_layers;
use crate::models::li::files::ProfileUpload;
use crate::models::li::share_link::{attach_message, storage_key, upload_note, upload_note_by_hash};
use crate::models::li::parse_fit;
use crate::models::li::profile::Profile;
use crate::models::li::section::{
    settings, Generate, Granularity, LiSettings, ProfileRef, OrderedStreams, StreamOrder, GENERATE_INPUTS,
    GEN_MEMORY_RATE, ID, SIMULATION_INPUTS, TRANSFER_INPUTS, WINDOW_INPUT,
};
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
    let problem = state.upload_note::<String>();
    let note = state.upload_note::<String>();
    // A large profile is kept aside by the page, named in the section.
    let kept = move |r: &ProfileRef| state.kept_json(&storage_key(&r.hash));
    let source = Memo::new(move |_| {
        cfg.with(|c| match (&c.profile, &c.generate) {
            (None, _) if c.profile_ref.is_some() => c
                .profile_ref
                .as_ref()
                .map(|r| match kept(r) {
                    Some(_) => format!(
                        "profile '{}': {} ops (content hash {}, kept aside by this page)",
                        r.name, r.ops, r.hash
                    ),
                    None => attach_message(r),
                })
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
            match import_upload(&ev, &crate::models::li::files::PROFILE_UPLOAD, &(), &slot).await {
                Some(Ok((name, up))) => {
                    problem.set(None);
                    let named = cfg
                        .with_untracked(|c| c.profile_ref.clone())
                        .filter(|r| kept(r).is_none());
                    let (ops, vs_link) = match &up {
                        ProfileUpload::Inline(p) => (p.ops.len(), upload_note(named.as_ref(), p)),
                        ProfileUpload::Named { named: r, .. } => {
                            (r.ops, upload_note_by_hash(named.as_ref(), &r.hash))
                        }
                    };
                    let vs_link = vs_link.map(|m| format!(": {m}")).unwrap_or_default();
                    note.set(Some(format!("{name}: {ops} ops read{vs_link}")));
                    match up {
                        ProfileUpload::Inline(p) => state.section_edit(ID, |c: &mut LiSettings| {
                            c.profile = Some(p);
                            c.profile_ref = None;
                        }),
                        // Kept aside by the page, named in the section; the
                        // answer's reading, the hand-over to the workers and
                        // the edit each in a task of their own.
                        ProfileUpload::Named { named: r, json, .. } => {
                            next_task().await;
                            state.keep_aside(&storage_key(&r.hash), json.get());
                            drop(json);
                            next_task().await;
                            state.section_edit(ID, |c: &mut LiSettings| {
                                c.profile = None;
                                c.profile_ref = Some(r);
                            });
                        }
                    }
                }
                Some(Err(e)) => problem.set(Some(e.to_string())),
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
        let aside = cfg.with_untracked(|c| c.profile.is_none().then(|| c.profile_ref.clone()));
        if let Some(json) = aside.flatten().and_then(|r| kept(&r)) {
            if let Err(e) = download_text("profile.json", "application/json", &json) {
                problem.set(Some(e.to_string()));
            }
            return;
        }
        let Some(p) = sc.with(current_profile) else {
            problem.set(Some(
                "no profile to download: upload one or generate one first".into(),
            ));
            return;
        };
        let text = serde_json::to_string_pretty(&p).unwrap_or_default();
        if let Err(e) = download_text("profile.json", "application/json", &text) {
            problem.set(Some(e.to_string()));
        }
    };
    let pairs_text =
        RwSignal::new(cfg.with_untracked(|c| c.parse_pairs.clone().unwrap_or_default()));
    let fit_note = state.upload_note::<Result<String, String>>();
    state.on_fresh_start(move || {
        pairs_text.set(cfg.with_untracked(|c| c.parse_pairs.clone().unwrap_or_default()))
    });
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
            Err(m) => fit_note.set(Some(Err(m.to_string()))),
        }
    };
    let generating = Memo::new(move |_| cfg.with(|c| c.profile.is_none() && c.generate.is_some()));
    let flow_on = Memo::new(move |_| cfg.with(|c| c.flow_control));
    let occupies = Memo::new(move |_| cfg.with(|c| c.parse_occupies));
    let order = Memo::new(move |_| cfg.with(|c| c.order));
    let ordered = Memo::new(move |_| cfg.with(|c| c.ordered_streams));
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
                    {GENERATE_INPUTS.iter().map(|&i| section_input(i)).collect_view()}
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
                    {section_input(&GEN_MEMORY_RATE)}
                </div>
            </Show>
            <h3>"Transfers (Sec. 3.2)"</h3>
            <div class="grid2">
                {TRANSFER_INPUTS.iter().map(|&i| section_input(i)).collect_view()}
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
                            <FieldErrors errors=at(state, ".order") />
                        </label>
                        <label class="field">
                            <span class="field-label">"streams the order ranks"</span>
                            <select aria-label="streams the order ranks" data-testid="li-ordered-streams"
                                on:change=move |ev| {
                                    let o = if event_target_value(&ev) == "all" { OrderedStreams::All } else { OrderedStreams::Downlinks };
                                    state.section_edit(ID, |c: &mut LiSettings| c.ordered_streams = o)
                                }>
                                <option value="downlinks" prop:selected=move || ordered.get() == OrderedStreams::Downlinks>"the parameter downlinks"</option>
                                <option value="all" prop:selected=move || ordered.get() == OrderedStreams::All>"every stream, uplinks too"</option>
                            </select>
                            <span class="field-help">"the paper's policies (TicTac, Sec. 4.2) order the parameter transfers; streams not ranked go first come, first served"</span>
                            <FieldErrors errors=at(state, ".ordered_streams") />
                        </label>
                    }>
                    {section_input(&WINDOW_INPUT)}
                </Show>
            </div>
            <details class="fit" data-testid="li-parse-fit-box">
                <summary>"fit α and β from measured (bytes, seconds) pairs"</summary>
                <p class="hint">"One pair per line: a transfer's size [B] and the time its receiver took to parse it [s]. A least-squares line gives α (slope) and β (intercept)."</p>
                <textarea rows="4" placeholder="bytes, seconds\n1000000, 0.0012\n8000000, 0.0071"
                    aria-label="measured parse overheads: bytes, seconds per line"
                    prop:value=move || { state.fresh_start.track(); cfg.with(|c| c.parse_pairs.clone().unwrap_or_default()) }
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
                {SIMULATION_INPUTS.iter().map(|&i| section_input(i)).collect_view()}
            </div>
        </section>
    }
}
