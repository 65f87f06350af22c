//! One chart component for every figure: draws with `Plotly.react` when its
//! figure changes, offers SVG/PNG export, and shows plotly's failures as
//! text instead of panicking.
//!
//! A chart redraws only while it is on screen (or about to be): each
//! `Plotly.react` costs ~25 ms, and an edit must not pay for charts the user
//! cannot see. Scrolling a chart into view draws its newest figure.

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
    #[prop(into)]
    testid: String,
    /// File name stem for exports.
    #[prop(into)]
    filename: String,
) -> impl IntoView {
    let node = NodeRef::<html::Div>::new();
    let error = RwSignal::new(None::<String>);
    let visible = RwSignal::new(false);
    let drawn = StoredValue::new(None::<Value>);
    Effect::new(move |_| {
        if let Some(el) = node.get() {
            observe_visibility(&el, visible);
        }
    });
    Effect::new(move |_| {
        let fig = figure.get();
        let (Some(el), Some(fig), true) = (node.get(), fig, visible.get()) else {
            return;
        };
        if drawn.with_value(|d| d.as_ref() == Some(&fig)) {
            return;
        }
        drawn.set_value(Some(fig.clone()));
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
    let filename = StoredValue::new(filename);
    let export = move |format: &'static str| {
        move |_| {
            let Some(el) = node.get_untracked() else {
                return;
            };
            let filename = filename.get_value();
            spawn_local(async move {
                let el: &web_sys::HtmlElement = &el;
                if let Err(e) = plotly_js::download(el, format, &filename).await {
                    error.set(Some(e));
                }
            });
        }
    };
    let svg_testid = format!("{testid}-svg");
    view! {
        <figure class="chart-wrap">
            <div class="chart" node_ref=node data-testid=testid></div>
            <figcaption class="chart-actions">
                <button type="button" class="small" on:click=export("svg") data-testid=svg_testid>"SVG"</button>
                <button type="button" class="small" on:click=export("png")>"PNG"</button>
                {move || error.get().map(|e| view! { <span class="field-error">"chart: " {e}</span> })}
            </figcaption>
        </figure>
    }
}

/// Keeps `visible` true while `el` is within 300 px of the viewport.
fn observe_visibility(el: &web_sys::HtmlElement, visible: RwSignal<bool>) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let on_change = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        for entry in entries.iter() {
            if let Ok(entry) = entry.dyn_into::<web_sys::IntersectionObserverEntry>() {
                visible.set(entry.is_intersecting());
            }
        }
    });
    let opts = web_sys::IntersectionObserverInit::new();
    opts.set_root_margin("300px");
    match web_sys::IntersectionObserver::new_with_options(on_change.as_ref().unchecked_ref(), &opts)
    {
        Ok(observer) => {
            observer.observe(el);
            // The observer and its callback live as long as the chart.
            on_change.forget();
            on_cleanup(move || observer.disconnect());
        }
        // No IntersectionObserver: draw always.
        Err(_) => visible.set(true),
    }
}
