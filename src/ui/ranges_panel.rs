//! Uncertainty ranges (`crate::uncertainty`): give any numeric input a
//! range by its scenario path; every headline figure then shows its
//! 10th-90th percentile band. The calibration view's "use the runs'
//! spread" fills ranges on the calibrated factors.

use leptos::prelude::*;

use super::expect_state;
use super::fields::{FieldErrors, NumberField};
use crate::uncertainty::{paths, Range, Uncertainty};

/// Paths offered as you type (any path the messages use is accepted).
fn suggestions(s: &crate::scenario::Scenario) -> Vec<String> {
    let mut out = vec![
        "hardware.cluster.ps.link".to_string(),
        "hardware.cluster.ps.latency".to_string(),
    ];
    if s.workload.loss.is_some() {
        out.push("workload.loss.beta0".into());
        out.push("workload.loss.beta1".into());
    }
    for m in crate::models::MODELS {
        for f in m.factors(s) {
            out.push(format!("calibration.{}.{}", m.id(), f.name));
        }
    }
    for (i, inst) in s.hardware.catalog.iter().enumerate().take(50) {
        if inst.price_per_hour.is_some() {
            out.push(format!("hardware.catalog[{i}].price_per_hour"));
        }
        if inst.flops_per_s.is_some() {
            out.push(format!("hardware.catalog[{i}].flops_per_s"));
        }
    }
    out
}

#[component]
pub fn RangesPanel() -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let path = RwSignal::new(String::new());
    let add_error = RwSignal::new(None::<String>);
    let ranges = Memo::new(move |_| {
        sc.with(|s| {
            s.uncertainty
                .as_ref()
                .map(|u| u.ranges.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default()
        })
    });
    // A new range spans ±10% of the input's value (its own checks may
    // refuse an end: the message shows under the row).
    let add = move |_| {
        let p = path.get_untracked().trim().to_string();
        let s = sc.get_untracked();
        match paths::resolve(&s, &p) {
            Err(m) => add_error.set(Some(m.to_string())),
            Ok(setter) => {
                let v = setter.get(&s).unwrap_or(0.0);
                let (a, b) = (v * 0.9, v * 1.1);
                let range = Range {
                    min: a.min(b),
                    max: a.max(b),
                };
                add_error.set(None);
                path.set(String::new());
                sc.update(|s| {
                    s.uncertainty
                        .get_or_insert_with(Uncertainty::default)
                        .ranges
                        .insert(p, range);
                });
            }
        }
    };
    let clear = move |_| sc.update(|s| s.uncertainty = None);
    let options = move || {
        sc.with(suggestions)
            .into_iter()
            .map(|p| view! { <option value=p.clone()></option> })
            .collect_view()
    };
    let settings = move || {
        sc.with(|s| s.uncertainty.is_some()).then(|| {
            let seed = Signal::derive(move || {
                sc.with(|s| s.uncertainty.as_ref().map_or(0.0, |u| u.seed as f64))
            });
            let samples = Signal::derive(move || {
                sc.with(|s| s.uncertainty.as_ref().map_or(0.0, |u| f64::from(u.samples)))
            });
            let set_seed = Callback::new(move |v: f64| {
                sc.update(|s| {
                    if let Some(u) = s.uncertainty.as_mut() {
                        u.seed = v as u64;
                    }
                })
            });
            let set_samples = Callback::new(move |v: f64| {
                sc.update(|s| {
                    if let Some(u) = s.uncertainty.as_mut() {
                        u.samples = v as u32;
                    }
                })
            });
            view! {
                <div class="grid3">
                    <NumberField label="samples [count]" value=samples on_set=set_samples integer=true errors=state.errors_at("uncertainty.samples") testid="band-samples" />
                    <NumberField label="seed" value=seed on_set=set_seed integer=true errors=state.errors_at("uncertainty.seed") testid="band-seed" />
                </div>
            }
        })
    };
    view! {
        <section class="panel" aria-label="uncertainty ranges">
            <h2>"Uncertainty ranges (bands on every headline figure)"</h2>
            <p class="hint">
                "Give an input a range by its path, its ends typed in the unit its own field shows: "
                "each headline number then shows its 10th–90th percentile over seeded samples, "
                "each input drawn uniformly within its range. The Measured runs view offers the "
                "calibrated factors' spread as ranges."
            </p>
            <FieldErrors errors=Signal::derive(move || state.errors_where(|f| f == "uncertainty.ranges")) />
            <table class="ranges" data-testid="ranges"><tbody>
                <For each=move || ranges.get() key=|p| p.clone() let:p>
                    <RangeRow path=p />
                </For>
            </tbody></table>
            <div class="row">
                <label class="field">
                    <span class="field-label">"input path"</span>
                    <input type="text" list="range-paths" prop:value=move || path.get() on:input=move |ev| path.set(event_target_value(&ev)) placeholder="hardware.cluster.ps.link" data-testid="range-path" />
                    <datalist id="range-paths">{options}</datalist>
                </label>
                <button type="button" class="secondary" on:click=add data-testid="range-add">"+ range (±10%)"</button>
                <button type="button" class="secondary" on:click=clear data-testid="ranges-clear">"no ranges"</button>
            </div>
            {move || add_error.get().map(|m| view! { <p class="field-error" role="alert" data-testid="field-error">{m}</p> })}
            {settings}
        </section>
    }
}

/// One range: its path, min and max in the input's own unit, and a
/// remove button.
#[component]
fn RangeRow(path: String) -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let p = StoredValue::new(path.clone());
    // SI per shown unit, as the input's own field shows it.
    let (scale, unit) = sc.with_untracked(|s| {
        crate::uncertainty::paths::resolve(s, &path).map_or((1.0, ""), |r| r.shown(s))
    });
    let end = move |max: bool| {
        Signal::derive(move || {
            sc.with(|s| {
                s.uncertainty
                    .as_ref()
                    .and_then(|u| u.ranges.get(&p.get_value()))
                    .map_or(0.0, |r| if max { r.max } else { r.min })
                    / scale
            })
        })
    };
    let set = move |max: bool| {
        Callback::new(move |v: f64| {
            let v = v * scale;
            sc.update(|s| {
                if let Some(r) = s
                    .uncertainty
                    .as_mut()
                    .and_then(|u| u.ranges.get_mut(&p.get_value()))
                {
                    if max {
                        r.max = v;
                    } else {
                        r.min = v;
                    }
                }
            })
        })
    };
    let remove = move |_| {
        sc.update(|s| {
            if let Some(u) = s.uncertainty.as_mut() {
                u.ranges.remove(&p.get_value());
            }
        })
    };
    let field = format!("uncertainty.ranges.{path}");
    let errors = Signal::derive(move || state.errors_where(|f| f == field));
    view! {
        <tr class="range-path"><td colspan="3"><code>{path.clone()}</code></td></tr>
        <tr data-testid="range-row">
            <td><NumberField label=with_unit("min", unit) value=end(false) on_set=set(false) testid="range-min" /></td>
            <td><NumberField label=with_unit("max", unit) value=end(true) on_set=set(true) testid="range-max" /></td>
            <td><button type="button" class="small secondary" on:click=remove aria-label=format!("remove the range on {path}") data-testid="range-remove">"✕"</button></td>
        </tr>
        <tr><td colspan="3"><FieldErrors errors=errors /></td></tr>
    }
}

/// "min [Gb/s]", or "min" for a plain number.
fn with_unit(what: &str, unit: &str) -> String {
    if unit.is_empty() {
        what.to_string()
    } else {
        format!("{what} [{unit}]")
    }
}
