//! A catalog entry's GPU-instance figures: GPUs and their memory, the
//! dense peak per precision, the interconnect, vCPUs, host memory, quota,
//! and where each figure comes from. spotDNN and Stash read them; Zeng
//! and Cynthia take the GPUs' peak at the scenario's precision when the
//! entry gives no rate of its own.

use leptos::prelude::*;

use super::expect_state;
use super::fields::{FieldErrors, LazyDetails, OptNumberField};
use crate::hardware::{GpuPeak, Instance, Precision};
use crate::scenario::Scenario;

/// Edits catalog entry `i`, if it is still there.
fn edit(sc: RwSignal<Scenario>, i: usize, f: impl FnOnce(&mut Instance)) {
    sc.update(|s| {
        if let Some(d) = s.hardware.catalog.get_mut(i) {
            f(d);
        }
    });
}

/// A number field of entry `i`: `get` reads it in the label's unit, `set`
/// writes what was typed (None when cleared).
fn figure(
    i: usize,
    label: &'static str,
    field: &'static str,
    integer: bool,
    get: fn(&Instance) -> Option<f64>,
    set: fn(&mut Instance, Option<f64>),
) -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let path = format!("hardware.catalog[{i}].{field}");
    view! {
        <OptNumberField
            label=label
            integer=integer
            value=Signal::derive(move || sc.with(|s| s.hardware.catalog.get(i).and_then(get)))
            on_set=Callback::new(move |v| edit(sc, i, |d| set(d, v)))
            errors=Signal::derive(move || state.errors_where(|f| f == path))
        />
    }
}

/// A text field of entry `i` (empty: none).
fn text(
    i: usize,
    label: &'static str,
    get: fn(&Instance) -> Option<String>,
    set: fn(&mut Instance, Option<String>),
) -> impl IntoView {
    let sc = expect_state().scenario;
    view! {
        <label class="field">
            <span class="field-label">{label}</span>
            <input
                type="text"
                prop:value=move || sc.with(|s| s.hardware.catalog.get(i).and_then(get).unwrap_or_default())
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    let v = Some(v.trim().to_string()).filter(|t| !t.is_empty());
                    edit(sc, i, |d| set(d, v));
                }
            />
        </label>
    }
}

fn count(v: Option<f64>) -> Option<u32> {
    // The field accepts whole numbers ≥ 0 only (parse_number).
    v.map(|x| x.clamp(0.0, f64::from(u32::MAX)) as u32)
}

/// One precision's peak, TFLOP/s per GPU.
fn peak(i: usize, p: Precision) -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let path = format!("hardware.catalog[{i}].gpu_peak.{}", p.key());
    let label = match p {
        Precision::Fp32 => "FP32 peak [TFLOP/s per GPU]",
        Precision::Tf32 => "TF32 peak [TFLOP/s per GPU]",
        Precision::Fp16 => "FP16 peak [TFLOP/s per GPU]",
        Precision::Bf16 => "BF16 peak [TFLOP/s per GPU]",
    };
    view! {
        <OptNumberField
            label=label
            value=Signal::derive(move || sc.with(|s| s.hardware.catalog.get(i).and_then(|d| d.gpu_peak?.at(p)).map(|v| v / 1e12)))
            on_set=Callback::new(move |v: Option<f64>| edit(sc, i, |d| {
                let mut g = d.gpu_peak.unwrap_or_default();
                let slot = match p {
                    Precision::Fp32 => &mut g.fp32,
                    Precision::Tf32 => &mut g.tf32,
                    Precision::Fp16 => &mut g.fp16,
                    Precision::Bf16 => &mut g.bf16,
                };
                *slot = v.map(|t| t * 1e12);
                d.gpu_peak = (g != GpuPeak::default()).then_some(g);
            }))
            errors=Signal::derive(move || state.errors_where(|f| f == path))
            testid=match p {
                Precision::Fp32 => "device-peak-fp32",
                Precision::Tf32 => "device-peak-tf32",
                Precision::Fp16 => "device-peak-fp16",
                Precision::Bf16 => "device-peak-bf16",
            }
        />
    }
}

/// The GPU-instance figures of entry `i`, built when opened (a 1,000-type
/// catalog must not build 13 inputs per entry up front).
#[component]
pub fn GpuFields(i: usize, has_gpus: bool) -> impl IntoView {
    let sc = expect_state().scenario;
    let summary = Signal::derive(move || {
        sc.with(|s| {
            let Some(d) = s.hardware.catalog.get(i) else {
                return String::new();
            };
            match (d.gpus.filter(|&g| g > 0), &d.gpu_model) {
                (Some(g), Some(m)) => format!("{g}× {m}: peaks, interconnect, quota"),
                (Some(1), None) => "1 GPU: peaks, interconnect, quota".to_string(),
                (Some(g), None) => format!("{g} GPUs: peaks, interconnect, quota"),
                _ => "GPUs, peaks, interconnect, vCPUs, quota".to_string(),
            }
        })
    });
    view! {
        <LazyDetails open=has_gpus class="gpu-fields" summary=summary>
            <div class="grid3">
                {figure(i, "GPUs per instance", "gpus", true, |d| d.gpus.map(f64::from), |d, v| d.gpus = count(v))}
                {figure(i, "GPU memory [GB]", "gpu_memory_bytes", false, |d| d.gpu_memory_bytes.map(|b| b / 1e9), |d, v| d.gpu_memory_bytes = v.map(|g| g * 1e9))}
                {text(i, "GPU model", |d| d.gpu_model.clone(), |d, v| d.gpu_model = v)}
            </div>
            <div class="grid2">
                {peak(i, Precision::Fp32)}
                {peak(i, Precision::Tf32)}
                {peak(i, Precision::Fp16)}
                {peak(i, Precision::Bf16)}
            </div>
            <div class="grid3">
                {text(i, "interconnect (NVLink, PCIe)", |d| d.interconnect.clone(), |d, v| d.interconnect = v)}
                {figure(i, "interconnect [GB/s]", "interconnect_bytes_per_s", false, |d| d.interconnect_bytes_per_s.map(|b| b / 1e9), |d, v| d.interconnect_bytes_per_s = v.map(|g| g * 1e9))}
                {figure(i, "vCPUs", "vcpus", true, |d| d.vcpus.map(f64::from), |d, v| d.vcpus = count(v))}
                {figure(i, "memory [GB]", "memory_bytes", false, |d| d.memory_bytes.map(|b| b / 1e9), |d, v| d.memory_bytes = v.map(|g| g * 1e9))}
                {figure(i, "quota [instances]", "quota", true, |d| d.quota.map(f64::from), |d, v| d.quota = count(v))}
            </div>
            <FieldErrors errors=Signal::derive(move || {
                let field = format!("hardware.catalog[{i}].gpu_peak");
                expect_state().errors_where(|f| f == field)
            }) />
            <Cites i=i />
        </LazyDetails>
    }
}

/// Where the entry's figures come from, figure by figure.
#[component]
fn Cites(i: usize) -> impl IntoView {
    let sc = expect_state().scenario;
    let cites = Memo::new(move |_| {
        sc.with(|s| {
            s.hardware
                .catalog
                .get(i)
                .map(|d| d.cites.clone())
                .unwrap_or_default()
        })
    });
    view! {
        <Show when=move || cites.with(|c| !c.is_empty())>
            <ul class="hint cites" data-testid="device-cites">
                {move || cites.get().into_iter().map(|c| view! {
                    <li>{c.fields.join(", ")}": "{c.source}" ("{c.date}")"</li>
                }).collect_view()}
            </ul>
        </Show>
    }
}
