//! The Leptos (CSR) page. Components only read memos of core results and
//! write the scenario; every number shown comes from the core.

mod address;
mod catalog_panel;
mod chart;
mod cluster_panel;
mod embed_height;
mod evaluation;
mod fields;
mod files;
mod goals_panel;
mod gpu_fields;
mod instance_select;
mod model_inputs;
mod module_worker;
mod plotly_js;
mod plotly_slices;
mod ranges_panel;
mod report_view;
mod runs_panel;
mod state;
mod task_queue;
mod toolbar;
mod uploads;
mod views;
mod workload_panel;

use leptos::prelude::*;

use crate::scenario::Scenario;
pub use evaluation::serve_if_worker;
use state::{embed_mode, share_url, AppState, Embed};

/// The whole page; `?embed=1` shows only the result panels.
#[component]
pub fn App() -> impl IntoView {
    let state = AppState::new();
    provide_context(state);
    task_queue::watch_typing();
    let title = Memo::new(move |_| state.scenario.with(Scenario::display_title));
    let summary = move || state.scenario.with(Scenario::summary_line);
    // The tab's title names the scenario shown, and follows it: set after
    // the frame that shows an edit (setting it takes the browser 1-2 ms,
    // which the edit's own frame should not wait for), once for a burst.
    let pending = StoredValue::new(None::<String>);
    Effect::new(move |_| {
        let t = title.get();
        if pending
            .try_update_value(|p| p.replace(t))
            .flatten()
            .is_some()
        {
            return;
        }
        task_queue::after_next_frame(move || {
            let t = pending.try_update_value(Option::take).flatten();
            if let (Some(t), Some(doc)) = (t, web_sys::window().and_then(|w| w.document())) {
                doc.set_title(&format!("{t} — ddnn-planner"));
            }
        });
    });
    let embed = embed_mode();
    if embed != Embed::No {
        // The host page may size its iframe to the content.
        embed_height::report_height();
    }
    if embed == Embed::Card {
        return view! { <views::Card /> }.into_any();
    }
    if embed == Embed::Results {
        let full = share_url(false);
        return view! {
            <main class="embed" data-testid="embed-view">
                <header class="embed-head">
                    <div>
                        <strong>{title}</strong>
                        <p class="hint" data-testid="scenario-summary">{summary}</p>
                    </div>
                    <a href=full target="_blank" rel="noopener">"open in ddnn-planner ↗"</a>
                </header>
                <Banner />
                <report_view::AllResults hide_missing=true />
            </main>
        }
        .into_any();
    }
    view! {
        <header class="top">
            <div class="brand">
                <h1>"ddnn-planner"</h1>
                <p class="tagline">
                    "Distributed DNN training time and cost, and the cheapest cluster for a goal — computed in your browser; nothing leaves this page."
                </p>
            </div>
            <toolbar::Toolbar />
        </header>
        <Banner />
        <SavedOffer />
        <main class="layout">
            <views::ViewTabs />
            <section class="outputs" aria-label="results">
                <views::ResultsView />
            </section>
            <aside class="inputs" aria-label="inputs">
                <views::InputTabs />
                <views::InputsView />
            </aside>
        </main>
        <footer class="foot">
            "Models: "
            {crate::models::MODELS.iter().map(|m| m.paper()).collect::<Vec<_>>().join("; ")}
            ". Corrections to the papers: docs/ in the repository. "
            "Units: seconds, FLOP, bytes; bandwidth in Gb/s (10⁹ bit/s); prices in USD per hour."
        </footer>
    }
    .into_any()
}

/// The scenario kept from the last visit, offered back (the page opened
/// without a link, so it shows the example).
#[component]
fn SavedOffer() -> impl IntoView {
    let state = expect_state();
    move || {
        state.saved.get().map(|(title, _)| {
            view! {
                <div class="restore" role="status" data-testid="saved-offer">
                    <span>"Your last scenario in this browser: " <strong>{title}</strong></span>
                    <button type="button" class="small" on:click=move |_| state.restore_saved() data-testid="restore">"Open it"</button>
                    <button type="button" class="small secondary" on:click=move |_| state.saved.set(None)>"dismiss"</button>
                </div>
            }
        })
    }
}

/// Scenario-level problems: a corrupt link, a failed import.
#[component]
fn Banner() -> impl IntoView {
    let state = expect_state();
    move || {
        state.banner.get().map(|msg| {
            view! {
                <div class="banner" role="alert" data-testid="scenario-error">
                    <span>{msg}</span>
                    <button type="button" class="small" on:click=move |_| state.banner.set(None)>"dismiss"</button>
                </div>
            }
        })
    }
}

/// Marks the end of the page's start (`performance.mark`): the e2e tests
/// and benchmarks measure main-thread tasks from here. Starting includes
/// mounting and plotly's one-time set-up (`plotly_js::warm_up`).
pub fn mark_first_render() {
    leptos::task::spawn_local(async {
        plotly_js::warm_up().await;
        if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
            let _ = p.mark("ddnn-first-render");
        }
    });
}

/// The page's clock, ms (`performance.now()`; 0 without a window).
fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// The page state; provided by `App` before any panel is built.
fn expect_state() -> AppState {
    use_context::<AppState>().unwrap_or_else(AppState::new)
}
