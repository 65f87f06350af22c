//! The device catalog shared by every model: each device's rate, as a
//! clock-level description (Zeng's Eq. 28/33, with "calibrate from one
//! measured iteration" for CPUs) or as FLOP/s, its network and prices.

use leptos::prelude::*;

use super::expect_state;
use super::fields::{
    gradual, FieldErrors, LazyDetails, NumberField, OptNumberField, ShowMore, PAGE_ROWS,
};
use crate::models::cynthia::section::add_aws_catalog;
use leptos::task::spawn_local;

use super::files::download_text;
use super::gpu_fields::GpuFields;
use super::uploads::{import_upload, ImportSlot};
use crate::hardware::{bytes_to_gbit_per_s, gbit_per_s_to_bytes, Instance, Precision, Processor};
use crate::models::zeng::calibrate_simd;
use crate::models::zeng::eval::network_figures;
use crate::scenario::files::merge_catalog_read;

#[component]
pub fn CatalogPanel() -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let count = Memo::new(move |_| sc.with(|s| s.hardware.catalog.len()));
    let shown = RwSignal::new(PAGE_ROWS);
    let built = gradual(Signal::derive(move || count.get().min(shown.get())), 4);
    let add = move |gpu: bool| {
        move |_| {
            sc.update(|s| {
                let n = s.hardware.catalog.len() + 1;
                let (name, processor) = if gpu {
                    (
                        format!("GPU {n}"),
                        Processor::Gpu {
                            hz: 1.5e9,
                            stream_processors: 2048,
                            fma: false,
                        },
                    )
                } else {
                    (
                        format!("CPU {n}"),
                        Processor::Cpu {
                            hz: 2.0e9,
                            simd: 2.0,
                        },
                    )
                };
                s.hardware.catalog.push(Instance {
                    name,
                    source: "added by the user".into(),
                    processor: Some(processor),
                    ..Instance::default()
                });
            });
            // The new device is on the page, however long the catalog.
            let n = count.get_untracked();
            shown.update(|l| *l = (*l).max(n));
        }
    };
    let catalog_note = state.upload_note::<Result<String, String>>();
    let add_current = move |_| {
        let list = crate::hardware::current::current_catalog();
        let n = list.len();
        let mut added = 0;
        sc.update(|s| {
            added = crate::scenario::files::merge_instances(&mut s.hardware.catalog, list)
        });
        catalog_note.set(Some(Ok(format!(
            "Today's GPU clouds: {n} types ({added} new), each figure with its source and date; a figure no source gave is empty."
        ))));
    };
    let download_catalog = move |_| {
        let json =
            sc.with(|s| serde_json::to_string_pretty(&s.hardware.catalog).unwrap_or_default());
        if let Err(e) = download_text("ddnn-catalog.json", "application/json", &json) {
            catalog_note.set(Some(Err(e.to_string())));
        }
    };
    // Read in an import worker; same name: the upload replaces the entry.
    let slot = StoredValue::new_local(ImportSlot::default());
    let upload_catalog = move |ev: leptos::ev::Event| {
        spawn_local(async move {
            match import_upload(&ev, &crate::readers::CATALOG, &(), &slot.get_value()).await {
                Some(Ok((name, list))) => {
                    let mut msg = String::new();
                    sc.update(|s| msg = merge_catalog_read(s, &name, list));
                    catalog_note.set(Some(Ok(msg)));
                }
                Some(Err(e)) => catalog_note.set(Some(Err(e.to_string()))),
                None => {}
            }
        });
    };
    view! {
        <section class="panel" aria-label="device catalog">
            <h2>"Device catalog"</h2>
            <p class="hint">
                "A device's rate is given by its clock — CPU: clock × SIMD (Eq. 28); GPU: clock × stream processors × (2 with FMA, else 1) (Eq. 33) — or directly in GFLOP/s. Every model reads the same rate. "
                "The paper's CPUs need an effective SIMD of about 2.1-2.6 per network: calibrate it from one measured stand-alone iteration."
            </p>
            <label class="field">
                <span class="field-label">"precision of GPU peaks"</span>
                <select
                    data-testid="precision"
                    on:change=move |ev| {
                        if let Some(p) = Precision::from_key(&event_target_value(&ev)) {
                            sc.update(|s| s.hardware.precision = p);
                        }
                    }
                >
                    {Precision::ALL.into_iter().map(|p| view! {
                        <option value=p.key() selected=move || sc.with(|s| s.hardware.precision == p)>{p.word()}</option>
                    }).collect_view()}
                </select>
                <span class="hint">"An entry known only by its GPUs runs at their dense peak at this precision, times the GPUs per instance."</span>
            </label>
            <For each=move || 0..built.get() key=|i| *i let:i>
                <DeviceRow i=i />
            </For>
            <ShowMore total=count limit=shown what="devices" testid="catalog-more" />
            // The catalog's own messages, and those of devices not shown
            // (each shown device has its messages at its fields).
            <FieldErrors errors=Signal::derive(move || {
                let shown = built.get();
                state.errors_where(|f| match f.strip_prefix("hardware.catalog[") {
                    Some(rest) => rest
                        .split(']')
                        .next()
                        .and_then(|n| n.parse::<usize>().ok())
                        .is_none_or(|n| n >= shown),
                    None => f.starts_with("hardware.catalog") || f.starts_with("hardware.pricing"),
                })
            }) />
            <div class="row">
                <button type="button" class="secondary" on:click=add(false)>"+ CPU"</button>
                <button type="button" class="secondary" on:click=add(true)>"+ GPU"</button>
                <button type="button" class="secondary" on:click=move |_| sc.update(add_aws_catalog) data-testid="add-aws">"+ AWS dockers (Cynthia)"</button>
                <button type="button" class="secondary" on:click=add_current data-testid="add-current"
                    title="Add the GPU instance types of AWS, Google Cloud and Azure (V100 to H200), every figure with its source and date (docs/current-catalog.md); same names replaced">
                    "+ today's GPU clouds"
                </button>
                <button type="button" class="secondary" on:click=download_catalog data-testid="catalog-download">"download catalog JSON"</button>
                <label class="button secondary">
                    "upload catalog JSON"
                    <input type="file" accept=".json" class="hidden-file" on:change=upload_catalog data-testid="catalog-upload" />
                </label>
            </div>
            <div>
                {move || catalog_note.get().map(|n| match n {
                    Ok(m) => view! { <p class="ok" data-testid="catalog-note">{m}</p> }.into_any(),
                    Err(m) => view! { <p class="field-error" role="alert" data-testid="catalog-error">{m}</p> }.into_any(),
                })}
            </div>
        </section>
    }
}

#[component]
fn DeviceRow(i: usize) -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let device = Memo::new(move |_| sc.with(|s| s.hardware.catalog.get(i).cloned()));
    let processor =
        Memo::new(move |_| device.with(|d| d.as_ref().and_then(|d| d.processor.clone())));
    let is_gpu = Memo::new(move |_| processor.with(|p| p.as_ref().is_some_and(Processor::is_gpu)));
    let by_rate = Memo::new(move |_| processor.with(Option::is_none));
    let edit_processor = move |f: fn(&mut Processor, f64)| {
        Callback::new(move |v: f64| {
            sc.update(|s| {
                if let Some(p) = s
                    .hardware
                    .catalog
                    .get_mut(i)
                    .and_then(|d| d.processor.as_mut())
                {
                    f(p, v);
                }
            })
        })
    };
    let rename = move |ev| {
        let new = event_target_value(&ev);
        sc.update(|s| {
            let Some(d) = s.hardware.catalog.get_mut(i) else {
                return;
            };
            let old = std::mem::replace(&mut d.name, new.clone());
            // Keep the cluster pointing at the renamed device.
            for g in &mut s.hardware.cluster.workers {
                if g.instance == old {
                    g.instance = new.clone();
                }
            }
        })
    };
    let set_kind = move |ev| {
        let kind = event_target_value(&ev);
        sc.update(|s| {
            if let Some(d) = s.hardware.catalog.get_mut(i) {
                set_device_kind(d, &kind);
            }
        })
    };
    let remove = move |_| {
        sc.update(|s| {
            if i < s.hardware.catalog.len() {
                s.hardware.catalog.remove(i);
            }
        })
    };
    let used = Memo::new(move |_| {
        sc.with(|s| {
            s.hardware.catalog.get(i).is_some_and(|d| {
                s.hardware
                    .cluster
                    .workers
                    .iter()
                    .any(|g| g.instance == d.name)
            })
        })
    });

    // Messages for one field of this device, shown at that field.
    let at = move |suffix: &'static str| {
        let field = format!("hardware.catalog[{i}].{suffix}");
        Signal::derive(move || state.errors_where(|f| f == field))
    };

    // Calibration: a measured stand-alone iteration of the current network
    // with the batch of the first group using this device (or 32).
    let measured = RwSignal::new(String::new());
    let calib_msg = state.upload_note::<Result<String, String>>();
    state.on_fresh_start(move || measured.set(String::new()));
    let calibrate = move |_| {
        let text = measured.get_untracked();
        let result = sc.with_untracked(|s| {
            let d = s.hardware.catalog.get(i).ok_or("no such device")?;
            let Some(Processor::Cpu { hz, .. }) = d.processor else {
                return Err("calibration sets the SIMD factor of a CPU".to_string());
            };
            let t: f64 = text
                .trim()
                .parse()
                .map_err(|_| format!("'{}' is not a number of seconds", text.trim()))?;
            let bs = s
                .hardware
                .cluster
                .workers
                .iter()
                .find(|g| g.instance == d.name)
                .map_or(32, |g| g.batch_size);
            let (_, net) = network_figures(s);
            calibrate_simd(&net, hz, bs, t)
                .map(|simd| (simd, bs))
                .ok_or_else(|| {
                    format!("{t} s cannot be a measured iteration time (it must be positive)")
                })
        });
        match result {
            Ok((simd, bs)) => {
                sc.update(|s| {
                    if let Some(Some(Processor::Cpu { simd: x, .. })) =
                        s.hardware.catalog.get_mut(i).map(|d| d.processor.as_mut())
                    {
                        *x = simd;
                    }
                });
                calib_msg.set(Some(Ok(format!(
                    "effective SIMD = {simd:.4} (from {} s at batch {bs})",
                    text.trim()
                ))));
            }
            Err(e) => calib_msg.set(Some(Err(e))),
        }
    };

    view! {
        <div class="device" data-testid=format!("device-{i}")>
            <div class="row">
                <label class="field grow">
                    <span class="field-label">"name"</span>
                    <input type="text" prop:value=move || device.with(|d| d.as_ref().map(|d| d.name.clone()).unwrap_or_default()) on:change=rename data-testid="device-name" />
                    <FieldErrors errors=at("name") />
                </label>
                <label class="field">
                    <span class="field-label">"kind"</span>
                    <select on:change=set_kind data-testid="device-kind">
                        <option value="cpu" selected=move || !is_gpu.get() && !by_rate.get()>"CPU (clock × SIMD)"</option>
                        <option value="gpu" selected=move || is_gpu.get()>"GPU (clock × cores)"</option>
                        <option value="rate" selected=move || by_rate.get()>"rate [GFLOP/s]"</option>
                    </select>
                </label>
                <button
                    type="button"
                    class="small secondary"
                    on:click=remove
                    disabled=move || used.get()
                    title=move || if used.get() { "used by a worker group" } else { "remove this device" }
                    aria-label=move || format!("remove device {}", device.with(|d| d.as_ref().map(|d| d.name.clone()).unwrap_or_default()))
                >"✕"</button>
            </div>
            <Show when=move || by_rate.get()>
                {move || {
                    // An entry known by its GPUs' peaks: the rate models take.
                    let p = sc.with(|s| s.hardware.precision);
                    device.with(|d| {
                        let d = d.as_ref()?;
                        if d.flops_per_s.is_some() {
                            return None;
                        }
                        let rate = d.flops_at(p)?;
                        Some(view! {
                            <p class="hint" data-testid="device-gpu-rate">
                                {format!(
                                    "rate from its GPUs: {} × {} peak = {} TFLOP/s (give a rate to override)",
                                    d.gpus.unwrap_or(0),
                                    p.word(),
                                    crate::report::fmt_sig(rate / 1e12)
                                )}
                            </p>
                        })
                    })
                }}
                <OptNumberField path="hardware.catalog"
                    label="rate [GFLOP/s]"
                    value=Signal::derive(move || device.with(|d| d.as_ref().and_then(|d| d.flops_per_s).map(|f| f / 1e9)))
                    on_set=Callback::new(move |v: Option<f64>| sc.update(|s| if let Some(d) = s.hardware.catalog.get_mut(i) { d.flops_per_s = v.map(|g| g * 1e9) }))
                    errors=at("flops_per_s")
                    testid="device-gflops"
                />
            </Show>
            <Show when=move || !by_rate.get()>
            <div class="grid2">
                <NumberField path="hardware.catalog"
                    label="clock [GHz]"
                    value=Signal::derive(move || processor.with(|p| match p {
                        Some(Processor::Cpu { hz, .. } | Processor::Gpu { hz, .. }) => hz / 1e9,
                        None => 0.0,
                    }))
                    on_set=edit_processor(|p, v| match p {
                        Processor::Cpu { hz, .. } | Processor::Gpu { hz, .. } => *hz = v * 1e9,
                    })
                    errors=at("processor.hz")
                    testid="device-ghz"
                />
                {move || if is_gpu.get() {
                    view! {
                        <NumberField path="hardware.catalog"
                            label="stream processors"
                            integer=true
                            value=Signal::derive(move || processor.with(|p| match p {
                                Some(Processor::Gpu { stream_processors, .. }) => f64::from(*stream_processors),
                                _ => 0.0,
                            }))
                            on_set=edit_processor(|p, v| if let Processor::Gpu { stream_processors, .. } = p { *stream_processors = v as u32 })
                            errors=at("processor.stream_processors")
                        />
                        <label class="field check">
                            <input
                                type="checkbox"
                                prop:checked=move || processor.with(|p| matches!(p, Some(Processor::Gpu { fma: true, .. })))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    sc.update(|s| if let Some(Some(Processor::Gpu { fma, .. })) = s.hardware.catalog.get_mut(i).map(|d| d.processor.as_mut()) { *fma = on });
                                }
                            />
                            <span class="field-label">"FMA (fc = 2)"</span>
                        </label>
                    }.into_any()
                } else {
                    view! {
                        <NumberField path="hardware.catalog"
                            label="effective SIMD [FLOP/cycle]"
                            value=Signal::derive(move || processor.with(|p| match p {
                                Some(Processor::Cpu { simd, .. }) => *simd,
                                _ => 0.0,
                            }))
                            on_set=edit_processor(|p, v| if let Processor::Cpu { simd, .. } = p { *simd = v })
                            errors=at("processor.simd")
                            testid="device-simd"
                        />
                        <div class="field calibrate">
                            <span class="field-label" id=format!("calibrate-label-{i}")>"calibrate: measured stand-alone iteration [s]"</span>
                            <div class="row">
                                <input type="text" inputmode="decimal" aria-labelledby=format!("calibrate-label-{i}") prop:value=move || measured.get() on:input=move |ev| measured.set(event_target_value(&ev)) data-testid="calibrate-seconds" />
                                <button type="button" class="small" on:click=calibrate data-testid="calibrate">"set SIMD"</button>
                            </div>
                            {move || calib_msg.get().map(|m| match m {
                                Ok(t) => view! { <span class="ok">{t}</span> }.into_any(),
                                Err(e) => view! { <span class="field-error">{e}</span> }.into_any(),
                            })}
                        </div>
                    }.into_any()
                }}
            </div>
            </Show>
            <div class="grid3">
                <OptNumberField path="hardware.catalog"
                    label="network [Gb/s]"
                    value=Signal::derive(move || device.with(|d| d.as_ref().and_then(|d| d.network_bytes_per_s).map(bytes_to_gbit_per_s)))
                    on_set=Callback::new(move |v: Option<f64>| sc.update(|s| if let Some(d) = s.hardware.catalog.get_mut(i) { d.network_bytes_per_s = v.map(gbit_per_s_to_bytes) }))
                    errors=at("network_bytes_per_s")
                />
                <OptNumberField path="hardware.catalog"
                    label="price [USD/h]"
                    value=Signal::derive(move || device.with(|d| d.as_ref().and_then(|d| d.price_per_hour)))
                    on_set=Callback::new(move |v| sc.update(|s| if let Some(d) = s.hardware.catalog.get_mut(i) { d.price_per_hour = v }))
                    errors=at("price_per_hour")
                    testid="device-price"
                />
                <OptNumberField path="hardware.catalog"
                    label="spot [USD/h]"
                    value=Signal::derive(move || device.with(|d| d.as_ref().and_then(|d| d.spot_price_per_hour)))
                    on_set=Callback::new(move |v| sc.update(|s| if let Some(d) = s.hardware.catalog.get_mut(i) { d.spot_price_per_hour = v }))
                    errors=at("spot_price_per_hour")
                />
            </div>
            <GpuFields i=i has_gpus=false />
            {move || device.with(|d| d.as_ref().map(|d| d.source.clone())).filter(|s| !s.is_empty()).map(|s| view! {
                // Built when opened: a shared catalog may carry long notes.
                <LazyDetails open=false class="hint source" summary="where these figures come from">
                    {s.clone()}
                </LazyDetails>
            })}
        </div>
    }
}

/// Switches a device between a CPU, a GPU and a rate-only description,
/// keeping its rate where the new description can hold it.
fn set_device_kind(d: &mut Instance, kind: &str) {
    let rate = d.flops();
    let hz = match d.processor {
        Some(Processor::Cpu { hz, .. } | Processor::Gpu { hz, .. }) => hz,
        None => 2.0e9,
    };
    match kind {
        "rate" => {
            d.flops_per_s = rate;
            d.processor = None;
        }
        "gpu" => {
            d.flops_per_s = None;
            d.processor = Some(Processor::Gpu {
                hz,
                stream_processors: 2048,
                fma: false,
            });
        }
        _ => {
            d.flops_per_s = None;
            let simd = rate
                .filter(|_| d.processor.is_none())
                .map_or(2.0, |r| r / hz);
            d.processor = Some(Processor::Cpu { hz, simd });
        }
    }
}
