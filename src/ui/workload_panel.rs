//! The workload: a preset network, or a layer table pasted or uploaded as
//! CSV/TSV/JSON or Paleo network JSON; the per-layer FLOP table.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::expect_state;
use super::fields::{FieldErrors, NumberField, PasteOrUpload};
use super::files::download_text;
use super::uploads::{import_upload, ImportSlot};
use crate::readers::LAYERS;
use crate::report::fmt_sig;
use crate::scenario::files::import_network;
use crate::workload::presets::network_presets;
use crate::workload::table::layers_to_csv;
use crate::workload::Network;

/// What an import reports beside the import box.
#[derive(Clone, Debug, PartialEq)]
enum ImportNote {
    Ok(String),
    Err(String),
}

#[component]
pub fn WorkloadPanel() -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let presets = StoredValue::new(network_presets());
    let note = state.upload_note::<ImportNote>();
    let paste = RwSignal::new(String::new());

    let current_preset = Memo::new(move |_| {
        sc.with(|s| {
            presets.with_value(|ps| {
                ps.iter()
                    .find(|p| p.network == s.workload.network)
                    .map(|p| p.id)
            })
        })
    });
    let on_preset = move |ev| {
        let id = event_target_value(&ev);
        if let Some(p) = presets.with_value(|ps| ps.iter().find(|p| p.id == id).cloned()) {
            sc.update(|s| s.workload.network = p.network);
            note.set(None);
        }
    };
    let use_network = move |read: Result<(Network, String), String>| match read {
        Ok((net, msg)) => {
            sc.update(|s| s.workload.network = net);
            note.set(Some(ImportNote::Ok(msg)));
        }
        Err(e) => note.set(Some(ImportNote::Err(e))),
    };
    let apply = move |source: String, text: String| {
        use_network(import_network(&source, &text).map_err(|e| e.to_string()))
    };
    // A file is read in an import worker: a 5 MB table never blocks a frame.
    let slot = StoredValue::new_local(ImportSlot::default());
    let on_upload = move |ev: leptos::ev::Event| {
        spawn_local(async move {
            match import_upload(&ev, &LAYERS, &(), &slot.get_value()).await {
                Some(Ok((_, read))) => use_network(Ok(read)),
                Some(Err(e)) => use_network(Err(e.to_string())),
                None => {}
            }
        });
    };
    let edit_as_csv = move |_| paste.set(sc.with(|s| layers_to_csv(&s.workload.network.layers)));
    let download_csv = move |_| {
        let (name, csv) = sc.with(|s| {
            (
                s.workload.network.name.clone(),
                layers_to_csv(&s.workload.network.layers),
            )
        });
        if let Err(e) = download_text(&format!("{name}-layers.csv"), "text/csv", &csv) {
            note.set(Some(ImportNote::Err(e.to_string())));
        }
    };

    let net = Memo::new(move |_| sc.with(|s| s.workload.network.clone()));
    let set_net = move |f: fn(&mut Network, f64)| {
        Callback::new(move |v: f64| sc.update(|s| f(&mut s.workload.network, v)))
    };

    view! {
        <section class="panel" aria-label="workload">
            <h2>"Workload"</h2>
            <label class="field">
                <span class="field-label">"scenario title (empty: follows the inputs)"</span>
                <input
                    type="text"
                    prop:value=move || sc.with(|s| s.title.clone())
                    placeholder=move || sc.with(crate::scenario::Scenario::summary_line)
                    on:change=move |ev| sc.update(|s| s.title = event_target_value(&ev))
                    data-testid="title"
                />
                <span class="field-help" data-testid="scenario-summary">{move || sc.with(crate::scenario::Scenario::summary_line)}</span>
            </label>
            <label class="field">
                <span class="field-label">"network"</span>
                <select on:change=on_preset data-testid="network-preset">
                    <option value="" selected=move || current_preset.get().is_none()>
                        {move || format!("{} (custom)", net.with(|n| n.name.clone()))}
                    </option>
                    {presets
                        .with_value(|ps| ps.iter().map(|p| (p.id, p.label)).collect::<Vec<_>>())
                        .into_iter()
                        .map(|(id, label)| view! { <option value=id selected=move || current_preset.get() == Some(id)>{label}</option> })
                        .collect_view()}
                </select>
            </label>
            {move || {
                current_preset
                    .get()
                    .and_then(|id| presets.with_value(|ps| ps.iter().find(|p| p.id == id).map(|p| p.note)))
                    .map(|n| view! { <p class="hint" data-testid="preset-note">{n}</p> })
            }}
            <details class="import">
                <summary>"Import a layer table (CSV, TSV, JSON or Paleo network JSON)"</summary>
                <p class="hint">
                    "Columns: name, kind (conv|fc), inch, kh, kw, outn, outh, outw, optional params. "
                    "A fully connected layer has kh = kw = outh = outw = 1. Paleo files (TalwalkarLab/paleo nets/*.json) are recognised automatically."
                </p>
                <PasteOrUpload
                    paste=paste
                    on_upload=Callback::new(on_upload)
                    aria_label="layer table to paste: CSV, TSV, JSON or Paleo JSON (sizes in elements)"
                    placeholder="name,kind,inch,kh,kw,outn,outh,outw"
                    testid="layer"
                />
                <div class="row">
                    <button type="button" on:click=move |_| apply("pasted table".into(), paste.get_untracked()) data-testid="layer-apply">"Use this table"</button>
                    <button type="button" class="secondary" on:click=edit_as_csv>"Edit current table as CSV"</button>
                    <button type="button" class="secondary" on:click=download_csv>"Download layer table CSV"</button>
                </div>
            </details>
            {move || note.get().map(|n| match n {
                ImportNote::Ok(m) => view! { <p class="ok" data-testid="import-note">{m}</p> }.into_any(),
                ImportNote::Err(m) => view! { <p class="field-error" role="alert" data-testid="import-error">{m}</p> }.into_any(),
            })}
            <FieldErrors errors=state.errors_at("workload.network") />
            <div class="grid2">
                <NumberField path="workload.network"
                    label="gradient pushes per iteration (0 = unknown: one push after the whole backward pass)"
                    integer=true
                    value=Signal::derive(move || net.with(|n| f64::from(n.pushes.unwrap_or(0))))
                    on_set=set_net(|n, v| n.pushes = (v >= 1.0).then_some(v as u32))
                    testid="pushes"
                />
                <NumberField path="workload.network"
                    label="values per push/pull (0 = the weights)"
                    value=Signal::derive(move || net.with(|n| n.transfer_values.unwrap_or(0.0)))
                    on_set=set_net(|n, v| n.transfer_values = (v != 0.0).then_some(v))
                    testid="transfer-values"
                    help="Tables 6-7 sent TensorFlow's weights + biases (1001 classes)."
                />
                <NumberField path="workload.network"
                    label="values per pull, when not a push's (0 = as a push)"
                    value=Signal::derive(move || net.with(|n| n.pull_values.unwrap_or(0.0)))
                    on_set=set_net(|n, v| n.pull_values = (v != 0.0).then_some(v))
                    testid="pull-values"
                    help="Eq. 30 pulls the parameters P, Eq. 31 pushes the gradients G: they differ when gradients are compressed or sent at another precision."
                />
                <NumberField path="workload.network"
                    label="extra forward work per sample (activations) [FLOP]"
                    value=Signal::derive(move || net.with(|n| n.extra_forward_flop_per_sample))
                    on_set=set_net(|n, v| n.extra_forward_flop_per_sample = v)
                    help="Eq. 4 leaves activations out; the authors add 83 per output element for AlexNet only."
                />
            </div>
            <LayerTable net=net />
        </section>
    }
}

/// Per-layer FLOP and weights, with totals, and the ignored layers.
#[component]
fn LayerTable(net: Memo<Network>) -> impl IntoView {
    move || {
        net.with(|n| {
            let summary = n.summary();
            let total = summary.forward_flop_eq4;
            let given = n.given.clone();
            let rows = n
                .layers
                .iter()
                .map(|l| {
                    let f = l.forward_flop();
                    view! {
                        <tr>
                            <td>{l.name.clone()}</td>
                            <td>{l.kind.as_str()}</td>
                            <td class="num">{l.inch}</td>
                            <td class="num">{format!("{}×{}", l.kh, l.kw)}</td>
                            <td class="num">{format!("{}×{}×{}", l.outn, l.outh, l.outw)}</td>
                            <td class="num">{fmt_sig(l.weights() as f64)}</td>
                            <td class="num">{fmt_sig(f)}</td>
                            <td class="num">{if total > 0.0 { format!("{:.1}%", 100.0 * f / total) } else { String::new() }}</td>
                        </tr>
                    }
                })
                .collect_view();
            let ignored = n.ignored.clone();
            view! {
                {given.map(|g| view! { <p class="hint" data-testid="given-figures">"Given figures: " {g.source}</p> })}
                <div class="scroll layers" tabindex="0" role="region" aria-label="layer table">
                    <table data-testid="layer-table">
                        <thead>
                            <tr>
                                <th>"layer"</th><th>"kind"</th><th class="num">"inch"</th><th class="num">"kernel"</th>
                                <th class="num">"output (n×h×w)"</th><th class="num">"weights"</th>
                                <th class="num">"forward FLOP/sample (Eq. 4)"</th><th class="num">"share"</th>
                            </tr>
                        </thead>
                        <tbody>{rows}</tbody>
                        <tfoot>
                            <tr>
                                <td colspan="5">{format!("total ({})", plural(n.layers.len(), "layer"))}</td>
                                <td class="num" data-testid="total-weights">{fmt_sig(summary.weights)}</td>
                                <td class="num" data-testid="forward-flop">{fmt_sig(total)}</td>
                                <td></td>
                            </tr>
                        </tfoot>
                    </table>
                </div>
                {(!ignored.is_empty()).then(|| view! {
                    <details class="ignored" data-testid="ignored-layers" open>
                        <summary>{format!("{} not counted by Eq. 4", plural(ignored.len(), "layer"))}</summary>
                        <ul>
                            {ignored.into_iter().map(|i| view! { <li><code>{i.name}</code> " (" {i.kind} "): " {i.reason}</li> }).collect_view()}
                        </ul>
                    </details>
                })}
            }
        })
    }
}

/// "1 layer", "3 layers".
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", crate::report::fmt_count(n as f64))
    }
}
