//! One chart component for every figure: draws with `Plotly.react` when its
//! figure changes, offers SVG/PNG export, and shows plotly's failures as
//! text instead of panicking.

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use super::plotly_js;

#[component]
pub fn Chart(
    /// The figure (`data` + `layout`), rebuilt from the results.
    #[prop(into)]
    figure: Signal<Option<Value>>,
    /// `data-testid` of the drawing area.
    testid: &'static str,
    /// File name stem for exports.
    filename: &'static str,
) -> impl IntoView {
    let node = NodeRef::<html::Div>::new();
    let error = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        let fig = figure.get();
        let (Some(el), Some(fig)) = (node.get(), fig) else {
            return;
        };
        spawn_local(async move {
            let el: &web_sys::HtmlElement = &el;
            error.set(plotly_js::react(el, &fig).await.err());
        });
    });
    on_cleanup(move || {
        if let Some(el) = node.get_untracked() {
            plotly_js::purge(&el);
        }
    });
    let export = move |format: &'static str| {
        move |_| {
            let Some(el) = node.get_untracked() else {
                return;
            };
            spawn_local(async move {
                let el: &web_sys::HtmlElement = &el;
                if let Err(e) = plotly_js::download(el, format, filename).await {
                    error.set(Some(e));
                }
            });
        }
    };
    view! {
        <figure class="chart-wrap">
            <div class="chart" node_ref=node data-testid=testid></div>
            <figcaption class="chart-actions">
                <button type="button" class="small" on:click=export("svg") data-testid=format!("{testid}-svg")>"SVG"</button>
                <button type="button" class="small" on:click=export("png")>"PNG"</button>
                {move || error.get().map(|e| view! { <span class="field-error">"chart: " {e}</span> })}
            </figcaption>
        </figure>
    }
}
