//! Share, embed, export and import: all carry the one scenario document.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::address::hash_params;
use super::expect_state;
use super::files::download_text;
use super::files::file_stem;
use super::state::{page_url, upgrade_banner, Embed};
use super::uploads::{import_upload, ImportSlot};
use crate::models::encode_share;
use crate::worker::ExportFormat;

/// The example scenarios shipped in `public/examples/`.
const EXAMPLES: [(&str, &str); 8] = [
    (
        "VGG-16, 2× RTX 4000 + GTX 1060, 1 GbE (Table 6)",
        include_str!("../../public/examples/vgg16-hetero-1gbe.json"),
    ),
    (
        "ResNet-50, same GPUs, 10 GbE (Table 7)",
        include_str!("../../public/examples/resnet50-10gbe.json"),
    ),
    (
        "cifar10 DNN on m4.xlarge dockers: PS bottlenecks and cost plan (Cynthia)",
        include_str!("../../public/examples/cifar10-bsp-m4.json"),
    ),
    (
        "AlexNet, 2× Xeon E5-2620, 1 GbE (Table 4)",
        include_str!("../../public/examples/alexnet-cpu-2workers.json"),
    ),
    (
        "ResNet-110 on spot GPUs: cheapest plan within quotas (spotDNN, Table I)",
        include_str!("../../public/examples/spotdnn-table1.json"),
    ),
    (
        "VGG-11 on AWS P2/P3/P4: stalls, all-reduce time and cost ranking (Stash, Table I)",
        include_str!("../../public/examples/stash-p3.json"),
    ),
    (
        "VGG-16 asynchronous SGD, 1 PS at 10 Gb/s: throughput vs workers (Li et al.)",
        include_str!("../../public/examples/li-vgg16-10gbe.json"),
    ),
    (
        "VGG-16 measured runs of Tables 6-7: every model's error, calibration, leave-one-out",
        include_str!("../../public/examples/zeng-tables6-7-vgg16-runs.json"),
    ),
];

/// The host page's listener for the embed views' height message
/// (`embed_height.rs`): sizes the iframe that sent it. One line, so the
/// snippet stays one pasteable block; docs/scenario.md shows it spread out.
const HEIGHT_LISTENER: &str = "<script>addEventListener(\"message\",e=>{if(e.data&&e.data.type===\"ddnn-planner:height\"&&e.data.height>0)for(const f of document.querySelectorAll(\"iframe[data-ddnn-planner]\"))if(f.contentWindow===e.source)f.style.height=e.data.height+\"px\"})</script>";

/// An iframe as wide as the host's column up to `max_width`, `height` px
/// tall until the embed view says how tall its content is, and the
/// listener that applies it.
fn embed_snippet(url: &str, max_width: &str, height: u32) -> String {
    format!(
        "<iframe src=\"{url}\" title=\"ddnn-planner\" data-ddnn-planner style=\"width:100%;max-width:{max_width};height:{height}px;border:0\"></iframe>{HEIGHT_LISTENER}"
    )
}

#[component]
pub fn Toolbar() -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let link = RwSignal::new(None::<String>);
    let status = RwSignal::new(None::<String>);

    // What the link is for: the page, the results iframe, or the card.
    let show_link = move |embed: Embed| {
        move |_| {
            // The current scenario, not the address bar: that may still hold
            // a link this page could not open.
            state.flush_address();
            let made = state.current_link();
            let url = match made.unwrap_or_else(|| sc.with_untracked(encode_share)) {
                Ok(frag) => {
                    let url = page_url(embed != Embed::No, &format!("{frag}{}", hash_params()));
                    if embed == Embed::Card {
                        url.replacen("?embed=1", "?embed=card", 1)
                    } else {
                        url
                    }
                }
                Err(e) => {
                    link.set(None);
                    status.set(Some(format!(
                        "no link: {e}. Use “Export scenario JSON” and share the file instead."
                    )));
                    return;
                }
            };
            let text = match embed {
                Embed::No => url,
                Embed::Results => embed_snippet(&url, "900px", 900),
                Embed::Card => embed_snippet(&url, "44rem", 560),
            };
            link.set(Some(text.clone()));
            let clipboard = window().navigator().clipboard();
            let promise = clipboard.write_text(&text);
            spawn_local(async move {
                let copied = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
                status.set(Some(if copied {
                    "copied to the clipboard".into()
                } else {
                    "select and copy the text below".into()
                }));
            });
        }
    };
    let export_json = move |_| {
        // With what the page keeps aside (a large profile) put back.
        let whole = state.whole_scenario();
        let (name, json) = (file_stem(&whole.display_title()), whole.to_json());
        if let Err(e) = download_text(&format!("{name}.scenario.json"), "application/json", &json) {
            status.set(Some(e.to_string()));
        }
    };
    // Results of every model with a report, as the CLI prints them: the
    // worker holds the whole tables and writes the file.
    let export_results = move |format: ExportFormat| move |_| state.export(format);
    // Read and checked in an import worker: a broken or oversized file is
    // refused there, and the page only takes a good scenario.
    let slot = StoredValue::new_local(ImportSlot::default());
    let import_json = move |ev: leptos::ev::Event| {
        spawn_local(async move {
            let slot = slot.get_value();
            match import_upload(&ev, &crate::models::SCENARIO, &(), &slot).await {
                Some(Ok((name, l))) => {
                    state.load(l.scenario);
                    state.banner.set(upgrade_banner(&l.notes));
                    status.set(Some(format!("{name}: scenario loaded")));
                }
                Some(Err(e)) => state
                    .banner
                    .set(Some(format!("{e}. The current scenario is kept."))),
                None => {}
            }
        });
    };
    // A menu of buttons, not a <select>: arrow keys on a select fire
    // `change` at every step, replacing the scenario each time.
    let examples_menu = NodeRef::<leptos::html::Details>::new();
    let pick_example = move |idx: usize| {
        if let Some((_, text)) = EXAMPLES.get(idx) {
            match crate::models::from_json(text) {
                Ok(s) => {
                    state.load_example(s);
                    // What the last scenario import said is about the old one.
                    status.set(None);
                }
                Err(e) => state.banner.set(Some(format!("example {idx}: {e}"))),
            }
        }
        if let Some(d) = examples_menu.get_untracked() {
            d.set_open(false);
        }
    };
    view! {
        <nav class="toolbar" aria-label="share and export">
            <details class="menu" node_ref=examples_menu data-testid="examples">
                <summary class="button secondary">"Examples"</summary>
                <div class="menu-items">
                    {EXAMPLES.iter().enumerate().map(|(i, (label, _))| view! {
                        <button type="button" class="secondary" data-testid=format!("example-{i}") on:click=move |_| pick_example(i)>{*label}</button>
                    }).collect_view()}
                </div>
            </details>
            <button type="button" class="secondary" on:click=move |_| state.undo() disabled=move || !state.can_undo.get() data-testid="undo" title="undo the last change">"Undo"</button>
            <button type="button" class="secondary" on:click=move |_| state.redo() disabled=move || !state.can_redo.get() data-testid="redo" title="redo">"Redo"</button>
            <button type="button" on:click=show_link(Embed::No) data-testid="share">"Share link"</button>
            <button type="button" class="secondary" on:click=show_link(Embed::Results) data-testid="embed">"Embed"</button>
            <button type="button" class="secondary" on:click=show_link(Embed::Card) data-testid="embed-card-link" title="a small card for a documentation page">"Embed card"</button>
            <button type="button" class="secondary" on:click=export_json data-testid="export-json">"Export scenario JSON"</button>
            <label class="button secondary">
                "Import scenario JSON"
                <input type="file" accept=".json,application/json" class="hidden-file" on:change=import_json data-testid="import-json" />
            </label>
            <button type="button" class="secondary" on:click=export_results(ExportFormat::Csv) data-testid="export-csv">"Results CSV"</button>
            <button type="button" class="secondary" on:click=export_results(ExportFormat::Json) data-testid="export-results-json">"Results JSON"</button>
            {move || status.get().map(|s| view! { <span class="status" role="status">{s}</span> })}
            {move || state.export_status.get().and_then(|r| r.err()).map(|e| view! { <span class="status" role="status" data-testid="export-error">{e}</span> })}
            {move || link.get().map(|l| view! {
                <input class="share-url" type="text" readonly prop:value=l data-testid="share-url" on:focus=move |ev| {
                    use wasm_bindgen::JsCast;
                    if let Some(t) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) { t.select(); }
                } />
            })}
        </nav>
    }
}
