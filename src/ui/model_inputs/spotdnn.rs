//! spotDNN's own inputs (`models.spotdnn`): the workload profile (Table IV),
//! the loss law (Eq. 3), the measured instance types, the planning settings
//! and a revocation to replan after. Catalog, cluster, PS, pricing and goals
//! are shared; two buttons write them (Table III's catalog, the exact plan).
//!
//! Plain fields go through `state.section_set`; rows and the optional parts
//! need closures (a row index), so they edit the section with `edit`. Both
//! are one scenario update: one undo step.

use leptos::prelude::*;

use crate::ui::expect_state;
use crate::ui::fields::{section_input, FieldErrors, OptNumberField};
use crate::ui::instance_select::InstanceSelect;
use crate::ui::state::AppState;
use crate::hardware::{Instance, Pricing};
use crate::models::spotdnn::fit_text::{
    format_loss, format_memory, format_speeds, parse_loss, parse_memory, parse_speeds,
};
use crate::models::spotdnn::presets::{
    table3_catalog, workload_presets, PS_BYTES_PER_S, PS_INSTANCE,
};
use crate::models::spotdnn::section::{
    settings, Measured, PlanFrom, Revocation, SpotDnnSettings, GAMMA1, GAMMA2, GAMMA3, GAMMA4, GAMMA5,
    ID, LOSS_AT_REVOCATION, PLAN_INPUTS, REVOKED_AT, WORKLOAD_INPUTS,
};
use crate::models::spotdnn::{LossForm, LossLaw};
use crate::report::fmt_sig;
use crate::scenario::files::merge_instances;
use crate::scenario::Scenario;
use crate::workload::CsvError;

/// Edits the section in one scenario update (one undo step).
fn edit(sc: RwSignal<Scenario>, f: impl FnOnce(&mut SpotDnnSettings)) {
    crate::ui::state::edit_section(sc, ID, f);
}

/// Messages for exactly `field` of the section (a prefix would mix
/// `measured[1]` with `measured[10]`).
fn at(state: AppState, field: impl Into<String>) -> Signal<Vec<String>> {
    state.section_errors(ID, field)
}

/// `keep` with the workload part (what a preset sets) taken from `w`.
fn with_workload(keep: &SpotDnnSettings, w: SpotDnnSettings) -> SpotDnnSettings {
    SpotDnnSettings {
        plan_from: keep.plan_from,
        overhead_s: keep.overhead_s,
        max_workers: keep.max_workers,
        revocation: keep.revocation.clone(),
        ..w
    }
}

#[component]
pub fn Panel() -> impl IntoView {
    let state = expect_state();
    // Read once per scenario change, shared by every part below.
    let cfg = Memo::new(move |_| state.scenario.with(settings));
    view! {
        <section class="panel spotdnn" aria-label="spotDNN inputs" data-testid="spotdnn-inputs">
            <h2>"spotDNN: cheapest heterogeneous spot cluster"</h2>
            <p class="hint">
                "ASP training on spot GPU instances with one parameter-server side: the cheapest mix of instance types that reaches the loss goal within the time goal and the quotas (Eq. 1-14). "
                "It reads the shared catalog (GPUs, GPU memory, PCIe, prices, quotas), the PS side and the goals. [–]: a plain number."
            </p>
            <FieldErrors errors=at(state, "") />
            <Workload cfg=cfg />
            <LossInputs cfg=cfg />
            <MeasuredTable cfg=cfg />
            <Planning cfg=cfg />
            <RevocationInputs cfg=cfg />
            <FitInputs cfg=cfg />
        </section>
    }
}

/// The preset select, Table III's catalog, and the workload figures.
#[component]
fn Workload(cfg: Memo<SpotDnnSettings>) -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let note = state.upload_note::<String>();
    let matched = Memo::new(move |_| {
        cfg.with(|c| {
            workload_presets()
                .into_iter()
                .find(|(_, _, p)| with_workload(c, p.clone()) == *c)
                .map(|(id, _, _)| id)
        })
    });
    let apply = state.section_set(ID, |c: &mut SpotDnnSettings, p: SpotDnnSettings| {
        *c = with_workload(c, p)
    });
    let pick = move |ev| {
        let id = event_target_value(&ev);
        if let Some((_, _, p)) = workload_presets().into_iter().find(|(i, _, _)| *i == id) {
            apply.run(p);
        }
    };
    let table3 = move |_| {
        let mut added = 0;
        sc.update(|s| {
            added = merge_instances(&mut s.hardware.catalog, table3_catalog());
            let ps = &mut s.hardware.cluster.ps;
            ps.count = 1;
            ps.instance = Some(PS_INSTANCE.into());
            ps.link_bytes_per_s = Some(PS_BYTES_PER_S);
            s.hardware.pricing = Pricing::Spot;
        });
        note.set(Some(format!(
            "Table III in the catalog ({added} new), the PS is one {PS_INSTANCE} at 1.2 GB/s, prices are spot."
        )));
    };
    view! {
        <h3>"Workload (Table IV)"</h3>
        <div class="row">
            <label class="field grow">
                <span class="field-label">"workload preset"</span>
                <select on:change=pick aria-label="spotDNN workload preset" data-testid="spotdnn-preset">
                    <option value="" disabled prop:selected=move || matched.get().is_none()>"typed values"</option>
                    {workload_presets()
                        .into_iter()
                        .map(|(id, label, _)| view! { <option value=id prop:selected=move || matched.get() == Some(id)>{label}</option> })
                        .collect_view()}
                </select>
            </label>
            <button type="button" class="secondary" on:click=table3 data-testid="spotdnn-table3"
                title="Add Table III's seven GPU types and the m5.xlarge PS to the catalog (same names replaced), make it the PS at 1.2 GB/s and price at spot rates">
                "Table III catalog"
            </button>
        </div>
        {move || note.get().map(|m| view! { <p class="ok" role="status" data-testid="spotdnn-note">{m}</p> })}
        <div class="grid2">
            {WORKLOAD_INPUTS.iter().map(|&i| section_input(i)).collect_view()}
        </div>
    }
}

/// Eq. 3: none, the paper's form with R, or the authors' R-free form.
#[component]
fn LossInputs(cfg: Memo<SpotDnnSettings>) -> impl IntoView {
    let state = expect_state();
    let form = Memo::new(move |_| cfg.with(|c| c.loss.map(|l| l.form)));
    let pick = move |ev| {
        let form = match event_target_value(&ev).as_str() {
            "with_r" => Some(LossForm::WithR),
            "r_free" => Some(LossForm::RFree),
            _ => None,
        };
        edit(state.scenario, |c| {
            c.loss = form.map(|form| match c.loss {
                // Switching form keeps the typed γ's.
                Some(l) => LossLaw { form, ..l },
                None => LossLaw::zeros(form),
            })
        })
    };
    let option = move |value: &'static str, label: &'static str, f: Option<LossForm>| {
        view! { <option value=value prop:selected=move || form.get() == f>{label}</option> }
    };
    view! {
        <h3>"Loss law (Eq. 3)"</h3>
        <p class="hint">"f = (γ2·b_w + γ3)·√((R + γ4)·n) / (j + γ1) + γ5; the authors' code drops R + γ4."</p>
        <label class="field">
            <span class="field-label">"loss law form"</span>
            <select on:change=pick aria-label="loss law form" data-testid="spotdnn-loss-form">
                {option("none", "none (no loss law: no plans)", None)}
                {option("with_r", "with R: Eq. 3", Some(LossForm::WithR))}
                {option("r_free", "R-free: authors' code", Some(LossForm::RFree))}
            </select>
        </label>
        <FieldErrors errors=at(state, ".loss") />
        <Show when=move || form.get().is_some()>
            <div class="grid3">
                {section_input(&GAMMA1)}
                {section_input(&GAMMA2)}
                {section_input(&GAMMA3)}
                <Show when=move || form.get() == Some(LossForm::WithR)>
                    {section_input(&GAMMA4)}
                </Show>
                {section_input(&GAMMA5)}
            </div>
        </Show>
    }
}

/// A catalog GPU type not measured yet (else any catalog type) for a new row.
fn next_unmeasured(s: &Scenario, c: &SpotDnnSettings) -> String {
    let fresh = |i: &&Instance| !c.measured.iter().any(|m| m.instance == i.name);
    let cat = &s.hardware.catalog;
    cat.iter()
        .filter(|i| i.gpus.is_some())
        .find(fresh)
        .or_else(|| cat.iter().find(fresh))
        .map(|i| i.name.clone())
        .unwrap_or_default()
}

/// One iteration of each instance type alone (Eq. 6-7's `T_comp`).
#[component]
fn MeasuredTable(cfg: Memo<SpotDnnSettings>) -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let count = Memo::new(move |_| cfg.with(|c| c.measured.len()));
    let add = move |_| {
        let name = sc.with_untracked(|s| next_unmeasured(s, &settings(s)));
        edit(sc, |c| {
            c.measured.push(Measured {
                instance: name,
                ..Measured::default()
            })
        });
    };
    view! {
        <h3>"Measured instance types"</h3>
        <p class="hint">
            "One worker alone, one iteration at its Eq. 10 batch; a type with the same GPU as a measured one takes its compute time per GPU."
        </p>
        <table class="groups spotdnn-measured" data-testid="spotdnn-measured">
            <thead><tr><th>"instance type"</th><th>"known from"</th><th>"value"</th><th></th></tr></thead>
            <tbody>
                <For each=move || 0..count.get() key=|i| *i let:i>
                    <MeasuredRow i=i cfg=cfg />
                </For>
            </tbody>
        </table>
        <FieldErrors errors=at(state, ".measured") />
        <button type="button" class="secondary" on:click=add data-testid="spotdnn-add-measured">"+ measured type"</button>
    }
}

/// Edits measured row `i`, if it is still there.
fn edit_row(sc: RwSignal<Scenario>, i: usize, f: impl FnOnce(&mut Measured)) {
    edit(sc, |c| {
        if let Some(m) = c.measured.get_mut(i) {
            f(m);
        }
    });
}

/// Edits the revocation, if there is one.
fn edit_revocation(sc: RwSignal<Scenario>, f: impl FnOnce(&mut Revocation)) {
    edit(sc, |c| {
        if let Some(r) = c.revocation.as_mut() {
            f(r);
        }
    });
}

/// `<option>`s of a short list with `current` selected; a current value not
/// in the list stays visible, marked with `note`, rather than the select
/// showing another.
fn name_options(names: Vec<String>, current: String, note: &'static str) -> impl IntoView {
    let stranger = !current.is_empty() && !names.contains(&current);
    view! {
        {current.is_empty().then(|| view! { <option value="" selected>"choose"</option> })}
        {stranger.then(|| view! { <option value=current.clone() selected>{format!("{current} ({note})")}</option> })}
        {names
            .into_iter()
            .map(|n| {
                let (selected, value) = (n == current, n.clone());
                view! { <option value=value selected=selected>{n}</option> }
            })
            .collect_view()}
    }
}

#[component]
fn MeasuredRow(i: usize, cfg: Memo<SpotDnnSettings>) -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let row = Memo::new(move |_| cfg.with(|c| c.measured.get(i).cloned().unwrap_or_default()));
    let name = Memo::new(move |_| row.with(|m| m.instance.clone()));
    let same = Memo::new(move |_| row.with(|m| m.same_gpu_as.is_some()));
    // "Same GPU as" points at a type measured alone.
    let alone = Memo::new(move |_| {
        cfg.with(|c| {
            c.measured
                .iter()
                .filter(|m| m.same_gpu_as.is_none() && !m.instance.is_empty())
                .map(|m| m.instance.clone())
                .filter(|n| name.with(|me| n != me))
                .fold(Vec::new(), |mut v: Vec<String>, n| {
                    if !v.contains(&n) {
                        v.push(n);
                    }
                    v
                })
        })
    });
    let set_instance = Callback::new(move |v: String| edit_row(sc, i, |m| m.instance = v));
    let set_mode = move |ev| {
        let to_same = event_target_value(&ev) == "same";
        let first = alone.get_untracked().into_iter().next().unwrap_or_default();
        edit_row(sc, i, |m| {
            m.iteration_s = None;
            m.same_gpu_as = to_same.then_some(first);
        })
    };
    let set_same = move |ev| {
        let v = event_target_value(&ev);
        edit_row(sc, i, |m| m.same_gpu_as = Some(v))
    };
    let set_iteration = Callback::new(move |v: Option<f64>| edit_row(sc, i, |m| m.iteration_s = v));
    let remove = move |_| {
        edit(sc, |c| {
            if i < c.measured.len() {
                c.measured.remove(i);
            }
        })
    };
    let n = i + 1;
    view! {
        <tr data-testid=format!("spotdnn-measured-{i}")>
            <td>
                <InstanceSelect
                    current=Signal::derive(move || Some(name.get()).filter(|n| !n.is_empty()))
                    on_pick=set_instance
                    testid=format!("spotdnn-measured-{i}-instance")
                    label=format!("measurement {n}: instance type")
                />
                <FieldErrors errors=at(state, format!(".measured[{i}]")) />
                <FieldErrors errors=at(state, format!(".measured[{i}].instance")) />
            </td>
            <td>
                <select on:change=set_mode aria-label=format!("measurement {n}: known from") data-testid="spotdnn-measured-mode">
                    <option value="alone" prop:selected=move || !same.get()>"iteration time alone [s]"</option>
                    <option value="same" prop:selected=move || same.get()>"same GPU as"</option>
                </select>
            </td>
            <td>
                <Show
                    when=move || same.get()
                    fallback=move || view! {
                        <OptNumberField path="models.spotdnn"
                            label="iteration time alone [s]"
                            value=Signal::derive(move || row.with(|m| m.iteration_s))
                            on_set=set_iteration
                            errors=at(state, format!(".measured[{i}].iteration_s"))
                            testid="spotdnn-measured-iteration"
                        />
                    }
                >
                    <select on:change=set_same aria-label=format!("measurement {n}: same GPU as (instance type)") data-testid="spotdnn-measured-same">
                        {move || name_options(alone.get(), row.with(|m| m.same_gpu_as.clone().unwrap_or_default()), "not measured alone")}
                    </select>
                    <FieldErrors errors=at(state, format!(".measured[{i}].same_gpu_as")) />
                </Show>
            </td>
            <td>
                <button type="button" class="small secondary" on:click=remove data-testid="spotdnn-measured-remove"
                    title="remove this measurement"
                    aria-label=move || format!("remove measurement of {}", name.get())>"✕"</button>
            </td>
        </tr>
    }
}

/// Where plans start, the takeover overhead and the worker limit.
#[component]
fn Planning(cfg: Memo<SpotDnnSettings>) -> impl IntoView {
    let state = expect_state();
    let keep = Memo::new(move |_| cfg.with(|c| c.plan_from == PlanFrom::Cluster));
    let set_from = state.section_set(ID, |c: &mut SpotDnnSettings, keep: bool| {
        c.plan_from = if keep {
            PlanFrom::Cluster
        } else {
            PlanFrom::Empty
        }
    });
    view! {
        <h3>"Planning (Eq. 11-14)"</h3>
        <div class="grid3">
            <label class="field">
                <span class="field-label">"plan"</span>
                <select on:change=move |ev| set_from.run(event_target_value(&ev) == "cluster") aria-label="plan from" data-testid="spotdnn-plan-from">
                    <option value="empty" prop:selected=move || !keep.get()>"a new cluster"</option>
                    <option value="cluster" prop:selected=move || keep.get()>"keep the cluster's instances running"</option>
                </select>
            </label>
            {PLAN_INPUTS.iter().map(|&i| section_input(i)).collect_view()}
        </div>
        <p class="hint">"The plans are in spotDNN's results, with a button that makes the exact plan the cluster."</p>
    }
}

/// A revocation to replan after: which type, when, and the loss then.
#[component]
fn RevocationInputs(cfg: Memo<SpotDnnSettings>) -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let revoked = Memo::new(move |_| cfg.with(|c| c.revocation.clone()));
    let cluster_types = Memo::new(move |_| {
        sc.with(|s| {
            let mut v: Vec<String> = Vec::new();
            for g in &s.hardware.cluster.workers {
                if !v.contains(&g.instance) {
                    v.push(g.instance.clone());
                }
            }
            v
        })
    });
    let toggle = move |ev| {
        let on = event_target_checked(&ev);
        let first = cluster_types
            .get_untracked()
            .into_iter()
            .next()
            .unwrap_or_default();
        edit(sc, |c| {
            c.revocation = on.then_some(Revocation {
                instance: first,
                at_s: 0.0,
                loss_now: 0.0,
            })
        })
    };
    let set_instance = move |ev| {
        let v = event_target_value(&ev);
        edit_revocation(sc, |r| r.instance = v)
    };
    let at_s = Signal::derive(move || revoked.with(|r| r.as_ref().map_or(0.0, |r| r.at_s)));
    view! {
        <h3>"Revocation replanning"</h3>
        <label class="field check">
            <input type="checkbox" prop:checked=move || revoked.with(Option::is_some) on:change=toggle
                aria-label="a revocation happened" data-testid="spotdnn-revoked" />
            <span class="field-label">"a revocation happened"</span>
        </label>
        <FieldErrors errors=at(state, ".revocation") />
        <Show when=move || revoked.with(Option::is_some)>
            <p class="hint">"Every instance of the type is revoked; the takeover plan keeps the survivors, never uses that type again, and has the time goal minus the revocation time left."</p>
            <div class="grid3">
                <label class="field">
                    <span class="field-label">"revoked instance type"</span>
                    <select on:change=set_instance aria-label="revoked instance type" data-testid="spotdnn-revoked-instance">
                        {move || name_options(cluster_types.get(), revoked.with(|r| r.as_ref().map(|r| r.instance.clone()).unwrap_or_default()), "not in the cluster")}
                    </select>
                    <FieldErrors errors=at(state, ".revocation.instance") />
                </label>
                <div>
                    {section_input(&REVOKED_AT)}
                    <p class="hint" data-testid="spotdnn-revoked-min">{move || format!("= {} min into the run", fmt_sig(at_s.get() / 60.0))}</p>
                </div>
                {section_input(&LOSS_AT_REVOCATION)}
            </div>
        </Show>
    }
}

/// One box of fit measurements: CSV text read into the section's rows
/// when the box loses focus; a row it cannot read is named under the box
/// and the rows before the edit stay.
#[component]
fn FitBox(
    cfg: Memo<SpotDnnSettings>,
    label: &'static str,
    placeholder: &'static str,
    list: &'static str,
    format: fn(&SpotDnnSettings) -> String,
    apply: fn(&mut SpotDnnSettings, &str) -> Result<(), CsvError>,
) -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let problem = state.upload_note::<String>();
    let text = Memo::new(move |_| cfg.with(format));
    let on_change = move |ev| {
        let v = event_target_value(&ev);
        let mut c = sc.with_untracked(settings);
        match apply(&mut c, &v) {
            Ok(()) => {
                problem.set(None);
                sc.update(|s| s.set_section(ID, &c));
            }
            Err(e) => problem.set(Some(e.to_string())),
        }
    };
    view! {
        <label class="field">
            <span class="field-label">{label}</span>
            <textarea rows="5" placeholder=placeholder prop:value=move || { state.fresh_start.track(); text.get() }
                on:change=on_change aria-label=label data-testid=format!("spotdnn-fit-{list}")></textarea>
        </label>
        {move || problem.get().map(|m| view! { <p class="field-error" role="alert" data-testid=format!("spotdnn-fit-{list}-error")>{m}</p> })}
        <FieldErrors errors=at(state, format!(".fits.{list}")) />
    }
}

/// Measurements the coefficients are fitted from (Sec. IV); the fits, their
/// quality and the buttons that copy them in are in spotDNN's results.
#[component]
fn FitInputs(cfg: Memo<SpotDnnSettings>) -> impl IntoView {
    let state = expect_state();
    let with_r = Memo::new(move |_| cfg.with(|c| c.fits.form == LossForm::WithR));
    let set_form = state.section_set(ID, |c: &mut SpotDnnSettings, r: bool| {
        c.fits.form = if r { LossForm::WithR } else { LossForm::RFree }
    });
    view! {
        <details class="fits" data-testid="spotdnn-fits">
            <summary>"Fit coefficients from measurements"</summary>
            <p class="hint">"CSV rows, one measurement per line (a header line and # comments are fine). Clusters are written as plans are shown: 2× p3.2xlarge + 1× g4dn.4xlarge. The fits, their quality and buttons that copy them into the fields above appear in spotDNN's results; a field left empty (α2, the loss law) takes its fit."</p>
            <FitBox cfg=cfg list="memory"
                label="α2, β2 (Eq. 10): batch per GPU, GPU memory in use [GB]"
                placeholder="64, 1.84\n128, 2.48\n256, 3.76"
                format=|c| format_memory(&c.fits.memory)
                apply=|c, t| { c.fits.memory = parse_memory(t)?; Ok(()) } />
            <FitBox cfg=cfg list="speeds"
                label="α1, β1 (Eq. 9): cluster, measured speed [global steps/s]"
                placeholder="9× g3.8xlarge, 4.1\n12× g3.8xlarge, 4.6"
                format=|c| format_speeds(&c.fits.speeds)
                apply=|c, t| { c.fits.speeds = parse_speeds(t)?; Ok(()) } />
            <FitBox cfg=cfg list="loss"
                label="γ1…γ5 (Eq. 3): cluster, global step, loss"
                placeholder="2× g3.8xlarge, 0, 4.6\n2× g3.8xlarge, 2000, 2.1"
                format=|c| format_loss(&c.fits.loss)
                apply=|c, t| { c.fits.loss = parse_loss(t)?; Ok(()) } />
            <label class="field">
                <span class="field-label">"loss law to fit"</span>
                <select on:change=move |ev| set_form.run(event_target_value(&ev) == "with_r") aria-label="loss law to fit" data-testid="spotdnn-fit-form">
                    <option value="with_r" prop:selected=move || with_r.get()>"Eq. 3 with R (γ1…γ5)"</option>
                    <option value="r_free" prop:selected=move || !with_r.get()>"R-free, as the authors' code (γ1, γ2, γ3, γ5)"</option>
                </select>
            </label>
        </details>
    }
}
