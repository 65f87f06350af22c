//! Cynthia's inputs: the job profile, the loss model (typed or fitted from
//! a measured curve), the goals, and the planning settings.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::ui::expect_state;
use crate::ui::fields::{section_input, FieldErrors, NumberField, OptNumberField};
use crate::ui::uploads::{import_upload, ImportSlot};
use crate::workload::loss_fit::fit_loss_with;
use crate::models::cynthia::section::{self, add_aws_catalog};
use crate::models::zeng::eval::network_figures;
use crate::report::fmt_sig;
use crate::scenario::files::plural;
use crate::workload::profile::{LossParams, Profile, SyncMode};
use crate::workload::profile_presets::{loss_presets, profile_presets};

/// Said at the worker count when an ASP curve is uploaded without it.
const ASK_WORKERS: &str = "ASP: enter the number of workers the loss curve was measured with \
     (β0 is read through it, loss = β0·√n/(s + β1)), then pick the file again; \
     the cluster planned here is not that run";

/// A profile derived from the layer table: `w_iter` = Eq. 27 FLOP for the
/// first worker group's batch, `g_param` = bytes per push, on that group's
/// device as the baseline. PS load figures are not derivable: kept or zero.
fn profile_from_layers(s: &crate::scenario::Scenario) -> Result<Profile, String> {
    let g = s
        .hardware
        .cluster
        .workers
        .first()
        .ok_or("the cluster has no worker group")?;
    let inst = s
        .instance(&g.instance)
        .ok_or("the first worker group's device is not in the catalog")?;
    let c_base = inst
        .processor
        .as_ref()
        .map(|p| p.flops())
        .ok_or("the first worker group's device has no capability")?;
    let (_, net) = network_figures(s);
    let old = s.workload.profile.clone();
    Ok(Profile {
        name: format!("{} (from its layer table, bs {})", s.workload.network.name, g.batch_size),
        sync: old.as_ref().map_or(SyncMode::Bsp, |p| p.sync),
        w_iter_flop: crate::models::zeng::iteration_flop(&net, g.batch_size),
        g_param_bytes: net.transfer_bytes,
        c_prof_flops: old.as_ref().map_or(0.0, |p| p.c_prof_flops),
        b_prof_bytes_per_s: old.as_ref().map_or(0.0, |p| p.b_prof_bytes_per_s),
        c_base_flops: c_base,
        source: format!(
            "derived: w_iter = Eq. 27 FLOP at batch {}, g_param = values per push × 4 B, c_base = {}; c_prof and b_prof must be measured",
            g.batch_size, inst.name
        ),
    })
}

#[component]
pub fn Panel() -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let note = state.upload_note::<Result<String, String>>();
    let profile = Memo::new(move |_| sc.with(|s| s.workload.profile.clone()));
    let has_profile = Memo::new(move |_| profile.with(Option::is_some));

    let pick_profile = move |ev| {
        let id = event_target_value(&ev);
        if id.is_empty() {
            sc.update(|s| s.workload.profile = None);
            return;
        }
        let Some(p) = profile_presets()
            .into_iter()
            .find(|(i, _)| *i == id)
            .map(|(_, p)| p)
        else {
            return;
        };
        let loss = loss_presets()
            .into_iter()
            .find(|(i, _)| *i == id)
            .map(|(_, l)| l);
        sc.update(|s| {
            s.workload.profile = Some(p);
            if s.workload.loss.is_none() {
                s.workload.loss = loss;
            }
            // The presets were profiled on m4.xlarge dockers: bring the
            // AWS catalog along if it is not there yet.
            add_aws_catalog(s);
            if s.goals.time_s.is_none() {
                s.goals.time_s = Some(4.0 * 3600.0);
            }
            if s.goals.loss.is_none() {
                s.goals.loss = Some(0.5);
            }
        });
        note.set(None);
    };
    // Files are read in an import worker (a long loss curve is fitted
    // there too): the page never waits on them.
    let profile_slot = StoredValue::new_local(ImportSlot::default());
    let upload_profile = move |ev: leptos::ev::Event| {
        spawn_local(async move {
            let slot = profile_slot.get_value();
            match import_upload(&ev, &crate::readers::PROFILE, &(), &slot).await {
                Some(Ok((name, p))) => {
                    sc.update(|s| s.workload.profile = Some(p));
                    note.set(Some(Ok(format!("{name}: profile loaded"))));
                }
                Some(Err(e)) => note.set(Some(Err(e.to_string()))),
                None => {}
            }
        });
    };
    let derive = move |_| match sc.with_untracked(profile_from_layers) {
        Ok(p) => {
            sc.update(|s| s.workload.profile = Some(p));
            note.set(Some(Ok(
                "profile derived from the layer table: enter c_prof and b_prof from a measurement"
                    .into(),
            )));
        }
        Err(e) => note.set(Some(Err(e))),
    };
    // Workers of the run the loss curve was measured on: an ASP fit reads
    // β0 through it (Eq. 1's √n), and the cluster planned here is not that
    // run, so it is asked for, never guessed. Typed before a fit (an
    // example picked forgets it); with an ASP curve fitted, the curve's,
    // and a change refits.
    let typed_workers = state.upload_note::<u32>();
    let workers_problem = state.upload_note::<String>();
    let asp = Memo::new(move |_| {
        profile.with(|p| p.as_ref().is_some_and(|p| p.sync == SyncMode::Asp))
    });
    let curve_workers = Memo::new(move |_| {
        sc.with(|s| {
            s.workload
                .loss_curve
                .as_ref()
                .filter(|c| c.sync == SyncMode::Asp && c.workers > 0)
                .map(|c| c.workers)
        })
    });
    let run_workers = Signal::derive(move || typed_workers.get().or_else(|| curve_workers.get()));
    let set_run_workers = Callback::new(move |v: Option<f64>| {
        // The field takes whole numbers ≥ 0 only.
        let n = v.map(|v| v.clamp(0.0, f64::from(u32::MAX)) as u32);
        typed_workers.set(n);
        workers_problem.set(None);
        let Some(n) = n else { return };
        if n == 0 {
            workers_problem.set(Some(
                "the measured run had at least 1 worker (got 0 workers)".into(),
            ));
            return;
        }
        if curve_workers.get_untracked().is_none_or(|old| old == n) {
            return;
        }
        let mut next = sc.get_untracked();
        let Some(curve) = next.workload.loss_curve.as_mut() else {
            return;
        };
        match fit_loss_with(&curve.points, curve.sync, Some(n)) {
            Ok(fit) => {
                note.set(Some(Ok(format!(
                    "refitted for n = {n}: β0 = {}, β1 = {}, R² = {:.4}",
                    fmt_sig(fit.params.beta0),
                    fmt_sig(fit.params.beta1),
                    fit.r_squared
                ))));
                curve.workers = n;
                next.workload.loss = Some(fit.params);
                sc.set(next);
            }
            Err(e) => note.set(Some(Err(format!("refit for n = {n}: {e}")))),
        }
    });
    let curve_slot = StoredValue::new_local(ImportSlot::default());
    let upload_curve = move |ev: leptos::ev::Event| {
        let sync = sc.with_untracked(|s| {
            s.workload
                .profile
                .as_ref()
                .map_or(SyncMode::Bsp, |p| p.sync)
        });
        // 0: not given (a JSON curve may say; BSP does not need it).
        let n = run_workers.get_untracked().unwrap_or(0);
        if sync == SyncMode::Asp && n == 0 {
            // Ask before fitting; the same file may be picked again.
            if let Some(input) = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            {
                input.set_value("");
            }
            note.set(None);
            workers_problem.set(Some(ASK_WORKERS.into()));
            return;
        }
        spawn_local(async move {
            let slot = curve_slot.get_value();
            match import_upload(&ev, &crate::readers::LOSS_CURVE, &(sync, n), &slot).await {
                Some(Ok((name, read))) => {
                    let run = if read.curve.sync == SyncMode::Asp {
                        let n = plural(read.curve.workers as usize, "worker", "workers");
                        format!(" for an ASP run of {n}")
                    } else {
                        String::new()
                    };
                    note.set(Some(Ok(format!("{name}: {}{run}", read.message))));
                    workers_problem.set(None);
                    if read.curve.sync == SyncMode::Asp {
                        // The field shows the curve's count from now on.
                        typed_workers.set(None);
                    }
                    sc.update(|s| {
                        s.workload.loss = Some(read.params);
                        s.workload.loss_curve = Some(read.curve);
                    });
                }
                Some(Err(e)) => note.set(Some(Err(e.to_string()))),
                None => {}
            }
        });
    };

    let edit_profile = move |f: fn(&mut Profile, f64)| {
        Callback::new(move |v: f64| {
            sc.update(|s| {
                if let Some(p) = s.workload.profile.as_mut() {
                    f(p, v);
                }
            })
        })
    };
    let pf = move |f: fn(&Profile) -> f64| {
        Signal::derive(move || profile.with(|p| p.as_ref().map_or(0.0, f)))
    };
    let loss = Memo::new(move |_| sc.with(|s| s.workload.loss.clone()));
    let edit_loss = move |f: fn(&mut LossParams, f64)| {
        Callback::new(move |v: f64| {
            sc.update(|s| {
                let l = s.workload.loss.get_or_insert(LossParams {
                    beta0: 1.0,
                    beta1: 0.0,
                });
                f(l, v);
            })
        })
    };

    view! {
        <section class="panel" aria-label="Cynthia job profile and loss" data-testid="cynthia-inputs">
            <h2>"Job profile and loss (Cynthia)"</h2>
            <p class="hint">
                "Cynthia predicts PS bottlenecks and plans the cheapest homogeneous cluster from a short profiling run on a baseline worker (Sec. 3, Table 4)."
            </p>
            <label class="field">
                <span class="field-label">"profile"</span>
                <select on:change=pick_profile data-testid="profile-preset">
                    <option value="" selected=move || !has_profile.get()>"none (Cynthia off)"</option>
                    <option value="custom" disabled selected=move || has_profile.get()>
                        {move || profile.with(|p| p.as_ref().map(|p| p.name.clone()).unwrap_or_default())}
                    </option>
                    {profile_presets().into_iter().map(|(id, p)| view! { <option value=id>{format!("Table 4: {}", p.name)}</option> }).collect_view()}
                </select>
            </label>
            <div class="row">
                <label class="button secondary small">
                    "upload profile JSON"
                    <input type="file" accept=".json" class="hidden-file" on:change=upload_profile data-testid="profile-upload" />
                </label>
                <button type="button" class="small secondary" on:click=derive>"derive from the layer table"</button>
            </div>
            {move || note.get().map(|n| match n {
                Ok(m) => view! { <p class="ok" data-testid="cynthia-note">{m}</p> }.into_any(),
                Err(m) => view! { <p class="field-error" role="alert" data-testid="cynthia-error">{m}</p> }.into_any(),
            })}
            <Show when=move || has_profile.get()>
                <label class="field">
                    <span class="field-label">"synchronisation"</span>
                    <select on:change=move |ev| {
                        let asp = event_target_value(&ev) == "asp";
                        sc.update(|s| if let Some(p) = s.workload.profile.as_mut() { p.sync = if asp { SyncMode::Asp } else { SyncMode::Bsp } });
                    } data-testid="sync">
                        <option value="bsp" selected=move || profile.with(|p| p.as_ref().is_some_and(|p| p.sync == SyncMode::Bsp))>"BSP (overlapped: max of compute and communication)"</option>
                        <option value="asp" selected=move || profile.with(|p| p.as_ref().is_some_and(|p| p.sync == SyncMode::Asp))>"ASP (sequential: compute + communication)"</option>
                    </select>
                </label>
                <div class="grid2">
                    <NumberField path="workload.profile.w_iter" label="w_iter: work per iteration [GFLOP]" value=pf(|p| p.w_iter_flop / 1e9) on_set=edit_profile(|p, v| p.w_iter_flop = v * 1e9) errors=state.errors_at("workload.profile.w_iter") testid="w-iter" />
                    <NumberField path="workload.profile.g_param" label="g_param: parameters per iteration, one direction [MB]" value=pf(|p| p.g_param_bytes / 1e6) on_set=edit_profile(|p, v| p.g_param_bytes = v * 1e6) errors=state.errors_at("workload.profile.g_param") testid="g-param" />
                    <NumberField path="workload.profile.c_prof" label="c_prof: PS CPU while profiling [GFLOP/s]" value=pf(|p| p.c_prof_flops / 1e9) on_set=edit_profile(|p, v| p.c_prof_flops = v * 1e9) errors=state.errors_at("workload.profile.c_prof") testid="c-prof" />
                    <NumberField path="workload.profile.b_prof" label="b_prof: PS network while profiling [MB/s]" value=pf(|p| p.b_prof_bytes_per_s / 1e6) on_set=edit_profile(|p, v| p.b_prof_bytes_per_s = v * 1e6) errors=state.errors_at("workload.profile.b_prof") testid="b-prof" />
                    <NumberField path="workload.profile.c_base" label="c_base: baseline worker capability [GFLOP/s]" value=pf(|p| p.c_base_flops / 1e9) on_set=edit_profile(|p, v| p.c_base_flops = v * 1e9) errors=state.errors_at("workload.profile.c_base") testid="c-base" />
                </div>
                {move || profile.with(|p| p.as_ref().map(|p| p.source.clone())).filter(|s| !s.is_empty()).map(|s| view! { <p class="hint source">{s}</p> })}
                <h3>"Loss (Eq. 1)"</h3>
                <div class="grid2">
                    <NumberField path="workload.loss.beta0" label="β0 [loss × steps]" value=Signal::derive(move || loss.with(|l| l.as_ref().map_or(0.0, |l| l.beta0))) on_set=edit_loss(|l, v| l.beta0 = v) errors=state.errors_at("workload.loss.beta0") testid="beta0" />
                    <NumberField path="workload.loss.beta1" label="β1 [steps]" value=Signal::derive(move || loss.with(|l| l.as_ref().map_or(0.0, |l| l.beta1))) on_set=edit_loss(|l, v| l.beta1 = v) errors=state.errors_at("workload.loss.beta1") testid="beta1" />
                </div>
                <div class="row">
                    <Show when=move || asp.get()>
                        <OptNumberField label="the loss curve's run [workers]" integer=true value=Signal::derive(move || run_workers.get().map(f64::from)) on_set=set_run_workers errors=Signal::derive(move || workers_problem.get().into_iter().collect::<Vec<_>>()) testid="fit-workers" help="ASP: the workers of the run the curve was measured on, not the cluster planned here; a change refits" />
                    </Show>
                    <label class="button secondary small">
                        "fit a measured loss curve (CSV/JSON)"
                        <input type="file" accept=".csv,.tsv,.txt,.json" class="hidden-file" on:change=upload_curve data-testid="loss-upload" />
                    </label>
                </div>
                <div class="grid2">
                    {section_input(&section::MAX_WORKERS)}
                </div>
                <FieldErrors errors=state.errors_at("workload.profile") />
            </Show>
        </section>
    }
}
