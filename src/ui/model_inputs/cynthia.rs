//! Cynthia's inputs: the job profile, the loss model (typed or fitted from
//! a measured curve), the goals, and the planning settings.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ui::expect_state;
use crate::ui::fields::{section_input, FieldErrors, NumberField};
use crate::ui::uploads::{import_upload, ImportSlot};
use crate::workload::loss_fit::fit_loss;
use crate::models::cynthia::section::{self, add_aws_catalog};
use crate::models::zeng::eval::network_figures;
use crate::report::fmt_sig;
use crate::workload::profile::{LossParams, Profile, SyncMode};
use crate::workload::profile_presets::{loss_presets, profile_presets};

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
    let note = RwSignal::new(None::<Result<String, String>>);
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
                Some(Err(e)) => note.set(Some(Err(e))),
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
    // Workers of the measured run: an ASP fit depends on it (Eq. 1's √n).
    // With a fitted curve it is the curve's and a change refits; before
    // one, the cluster's worker count is the first guess (not 1).
    let pending_workers = RwSignal::new(None::<f64>);
    let fit_workers = Signal::derive(move || {
        sc.with(|s| match &s.workload.loss_curve {
            Some(c) => f64::from(c.workers),
            None => pending_workers.get().unwrap_or_else(|| {
                s.hardware
                    .cluster
                    .workers
                    .iter()
                    .map(|g| f64::from(g.count))
                    .sum::<f64>()
                    .max(1.0)
            }),
        })
    });
    let set_fit_workers = Callback::new(move |v: f64| {
        let n = v as u32;
        if sc.with_untracked(|s| s.workload.loss_curve.is_none()) {
            pending_workers.set(Some(v));
            return;
        }
        let mut next = sc.get_untracked();
        let Some(curve) = next.workload.loss_curve.as_mut() else {
            return;
        };
        curve.workers = n;
        match fit_loss(curve) {
            Ok(fit) => {
                note.set(Some(Ok(format!(
                    "refitted for n = {n}: β0 = {}, β1 = {}, R² = {:.4}",
                    fmt_sig(fit.params.beta0),
                    fmt_sig(fit.params.beta1),
                    fit.r_squared
                ))));
                next.workload.loss = Some(fit.params);
                sc.set(next);
            }
            Err(e) => note.set(Some(Err(format!("refit for n = {n}: {e}")))),
        }
    });
    let curve_slot = StoredValue::new_local(ImportSlot::default());
    let upload_curve = move |ev: leptos::ev::Event| {
        spawn_local(async move {
            let n = fit_workers.get_untracked() as u32;
            let sync = sc.with_untracked(|s| {
                s.workload
                    .profile
                    .as_ref()
                    .map_or(SyncMode::Bsp, |p| p.sync)
            });
            let slot = curve_slot.get_value();
            match import_upload(&ev, &crate::readers::LOSS_CURVE, &(sync, n), &slot).await {
                Some(Ok((name, read))) => {
                    sc.update(|s| {
                        s.workload.loss = Some(read.params);
                        s.workload.loss_curve = Some(read.curve);
                    });
                    note.set(Some(Ok(format!("{name}: {}", read.message))));
                }
                Some(Err(e)) => note.set(Some(Err(e))),
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
                    <NumberField label="w_iter: work per iteration [GFLOP]" value=pf(|p| p.w_iter_flop / 1e9) on_set=edit_profile(|p, v| p.w_iter_flop = v * 1e9) errors=state.errors_at("workload.profile.w_iter") testid="w-iter" />
                    <NumberField label="g_param: parameters per iteration, one direction [MB]" value=pf(|p| p.g_param_bytes / 1e6) on_set=edit_profile(|p, v| p.g_param_bytes = v * 1e6) errors=state.errors_at("workload.profile.g_param") testid="g-param" />
                    <NumberField label="c_prof: PS CPU while profiling [GFLOP/s]" value=pf(|p| p.c_prof_flops / 1e9) on_set=edit_profile(|p, v| p.c_prof_flops = v * 1e9) errors=state.errors_at("workload.profile.c_prof") testid="c-prof" />
                    <NumberField label="b_prof: PS network while profiling [MB/s]" value=pf(|p| p.b_prof_bytes_per_s / 1e6) on_set=edit_profile(|p, v| p.b_prof_bytes_per_s = v * 1e6) errors=state.errors_at("workload.profile.b_prof") testid="b-prof" />
                    <NumberField label="c_base: baseline worker capability [GFLOP/s]" value=pf(|p| p.c_base_flops / 1e9) on_set=edit_profile(|p, v| p.c_base_flops = v * 1e9) errors=state.errors_at("workload.profile.c_base") testid="c-base" />
                </div>
                {move || profile.with(|p| p.as_ref().map(|p| p.source.clone())).filter(|s| !s.is_empty()).map(|s| view! { <p class="hint source">{s}</p> })}
                <h3>"Loss (Eq. 1)"</h3>
                <div class="grid2">
                    <NumberField label="β0 [loss × steps]" value=Signal::derive(move || loss.with(|l| l.as_ref().map_or(0.0, |l| l.beta0))) on_set=edit_loss(|l, v| l.beta0 = v) errors=state.errors_at("workload.loss.beta0") testid="beta0" />
                    <NumberField label="β1 [steps]" value=Signal::derive(move || loss.with(|l| l.as_ref().map_or(0.0, |l| l.beta1))) on_set=edit_loss(|l, v| l.beta1 = v) errors=state.errors_at("workload.loss.beta1") testid="beta1" />
                </div>
                <div class="row">
                    <NumberField label="workers of the measured run (ASP fit; a change refits)" integer=true value=fit_workers on_set=set_fit_workers testid="fit-workers" />
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
