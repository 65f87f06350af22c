//! The page's navigation: the results views (an overview, then one tab per
//! registry model) and the input sections (one shown at a time). Only the
//! chosen view and section are built, so the page stays small however many
//! models and catalog rows there are.

use leptos::prelude::*;

use super::chart::Chart;
use super::fields::gradual;
use super::model_inputs::PANELS;
use super::report_view::{slot_figure, ChartTable, ModelResults, ReportBody, RuntimeStatus};
use super::state::{InputTab, ModelSlot, OVERVIEW};
use super::{
    catalog_panel, cluster_panel, expect_state, goals_panel, ranges_panel, runs_panel,
    workload_panel,
};

/// The analyses' ids (`worker::ANALYSES`).
const RUNS: &str = "runs";
const CALIBRATION: &str = "calibration";
const PAPERS: &str = "papers";

/// The results views' tabs: the overview, each registry model, the
/// measured runs and the paper check.
#[component]
pub fn ViewTabs() -> impl IntoView {
    let state = expect_state();
    let tab = move |id: &'static str, label: &'static str, slot: Option<ModelSlot>| {
        let selected = move || state.view.with(|v| v == id);
        // A model whose inputs are missing says so on its tab.
        let missing = move || slot.is_some_and(|s| s.is_missing());
        view! {
            <button
                type="button"
                role="tab"
                class="tab"
                class:missing=missing
                aria-selected=move || selected().to_string()
                data-testid=format!("view-{id}")
                on:click=move |_| state.view.set(id.to_string())
            >
                {label}
                {move || missing().then(|| view! { <span class="tab-note">" · needs inputs"</span> })}
            </button>
        }
    };
    let models = state
        .slots()
        .into_iter()
        .map(|s| tab(s.model.id(), s.model.name(), Some(s)))
        .collect_view();
    // The measured runs and their calibration share one view.
    let runs = state
        .slot(RUNS)
        .map(|s| tab(RUNS, "Measured runs", Some(s)));
    // The papers' own accuracy: the same for every scenario.
    let papers = state
        .slot(PAPERS)
        .map(|s| tab(PAPERS, "Paper check", Some(s)));
    view! {
        <nav class="tabs views" role="tablist" aria-label="results views">
            {tab(OVERVIEW, "Overview", None)}
            {models}
            {runs}
            {papers}
        </nav>
    }
}

/// The chosen results view.
#[component]
pub fn ResultsView() -> impl IntoView {
    let state = expect_state();
    let view = Memo::new(move |_| state.view.get());
    view! {
        <RuntimeStatus />
        {move || {
            let v = view.get();
            match state.slot(&v) {
                Some(_) if v == RUNS || v == CALIBRATION => view! { <RunsResults /> }.into_any(),
                Some(slot) => view! { <ModelResults entry=slot /> }.into_any(),
                None => view! { <Overview /> }.into_any(),
            }
        }}
    }
}

/// The view of the measured runs: every model against them, then the
/// calibration on them (shown once the runs are there).
#[component]
fn RunsResults() -> impl IntoView {
    let state = expect_state();
    let runs = state.slot(RUNS);
    let calibration = state.slot(CALIBRATION);
    view! {
        {runs.map(|s| view! { <ModelResults entry=s /> })}
        {calibration.map(|s| view! {
            <Show when=move || runs.is_some_and(|r| !r.is_missing())>
                <ModelResults entry=s />
            </Show>
        })}
    }
}

/// Every model's headline figures, then the chosen cluster's iteration
/// timeline beside the cost curves: the one view that answers "how long,
/// and what does it cost" without scrolling.
#[component]
fn Overview() -> impl IntoView {
    let state = expect_state();
    let slots = state.slots();
    let headlines = slots
        .iter()
        .map(|&slot| {
            let id = slot.model.id();
            let stale = Memo::new(move |_| !slot.stale_errors().is_empty());
            let pending = Memo::new(move |_| state.pending(&slot));
            view! {
                <Show when=move || !slot.is_missing()>
                    <section
                        class="panel overview-model"
                        class:stale-result=move || stale.get()
                        class:pending-result=move || pending.get()
                        data-testid=format!("overview-{id}")
                    >
                        <h2>
                            <button type="button" class="link" on:click=move |_| state.view.set(id.to_string())>
                                {slot.model.name()} " →"
                            </button>
                        </h2>
                        <Show when=move || stale.get()>
                            <p class="stale-note" data-testid=format!("{id}-stale")>"last valid inputs: fix the marked fields"</p>
                        </Show>
                        <ReportBody id=id report=slot.last_good compact=slot.model.overview_figures() />
                    </section>
                </Show>
            }
        })
        .collect_view();
    let why = Memo::new(move |_| {
        let running: Vec<&'static str> = state
            .slots()
            .into_iter()
            .filter(|s| s.last_good.with(Option::is_some) && !s.is_missing())
            .map(|s| s.model.assumes())
            .filter(|a| !a.is_empty())
            .collect();
        (running.len() > 1).then(|| running.join(" "))
    });
    view! {
        <div class="overview" data-testid="overview">
            <div class="overview-heads">{headlines}</div>
            {move || why.get().map(|w| view! { <p class="hint why" data-testid="overview-why"><strong>"Why the models differ: "</strong>{w}</p> })}
            <div class="overview-charts">
                <OverviewChart slot_name="timeline" />
                <OverviewChart slot_name="cost" />
            </div>
        </div>
    }
}

/// The overview's chart for `slot_name`: the last registry model (with a
/// report) that offers one, so a planner's cost curves win over a
/// predictor's.
#[component]
fn OverviewChart(slot_name: &'static str) -> impl IntoView {
    let state = expect_state();
    let source = Memo::new(move |_| {
        state.slots().into_iter().rev().find_map(|s| {
            let key = s
                .model
                .overview_charts()
                .iter()
                .find(|(slot, _)| *slot == slot_name)
                .map(|(_, key)| *key)?;
            s.last_good
                .with(|r| r.as_ref().is_some_and(|r| r.chart(key).is_some()))
                .then_some((s.model.id(), key))
        })
    });
    // Side by side in one screen: a shorter drawing.
    let figure = Signal::derive(move || {
        let (id, key) = source.get()?;
        slot_figure(state.slot(id)?, key, Some(320))
    });
    let stem = move || {
        source
            .get()
            .map_or_else(String::new, |(id, key)| format!("ddnn-{id}-{key}"))
    };
    // The place stays (the drawing beside it keeps its width); without a
    // chart it says what would bring one.
    let missing = match slot_name {
        "cost" => "Cost curves appear here once the catalog has prices for the cluster's devices (Zeng et al.), or Cynthia has a job profile and goals (tab “Goals & models”).",
        _ => "The iteration timeline appears here once the cluster has workers and a PS link.",
    };
    // Dimmed, and said so, while its model's inputs are invalid or a new
    // result is on its way (as the headlines above it).
    let stale = Memo::new(move |_| {
        source
            .get()
            .and_then(|(id, _)| state.slot(id))
            .is_some_and(|s| !s.stale_errors().is_empty())
    });
    let pending = Memo::new(move |_| {
        source
            .get()
            .and_then(|(id, _)| state.slot(id))
            .is_some_and(|s| state.pending(&s))
    });
    view! {
        <div
            class="overview-chart"
            class:stale-result=move || stale.get()
            class:pending-result=move || pending.get()
            data-testid=format!("overview-chart-box-{slot_name}")
        >
            <Show when=move || stale.get()>
                <p class="stale-note" data-testid=format!("overview-chart-stale-{slot_name}")>"last valid inputs: fix the marked fields"</p>
            </Show>
            {move || match source.get() {
                Some((id, key)) => view! {
                    <Chart figure=figure testid=format!("overview-chart-{slot_name}") filename=stem() />
                    {state.slot(id).map(|s| view! { <ChartTable entry=s key=key.to_string() testid=format!("overview-chart-{slot_name}-table") /> })}
                }.into_any(),
                None => view! { <p class="hint chart-missing" data-testid=format!("overview-missing-{slot_name}")>{missing}</p> }.into_any(),
            }}
        </div>
    }
}

/// The input sections' tabs.
#[component]
pub fn InputTabs() -> impl IntoView {
    let state = expect_state();
    let tabs = InputTab::ALL
        .into_iter()
        .map(|t| {
            let selected = move || state.inputs_tab.get() == t;
            view! {
                <button
                    type="button"
                    role="tab"
                    class="tab"
                    aria-selected=move || selected().to_string()
                    data-testid=format!("inputs-{}", t.key())
                    on:click=move |_| state.inputs_tab.set(t)
                >
                    {t.label()}
                    <ErrorCount tab=t />
                </button>
            }
        })
        .collect_view();
    view! { <nav class="tabs inputs-tabs" role="tablist" aria-label="inputs">{tabs}</nav> }
}

/// How many validation messages a hidden section holds, on its tab, so a
/// problem is never out of sight.
#[component]
fn ErrorCount(tab: InputTab) -> impl IntoView {
    let state = expect_state();
    let n = Memo::new(move |_| {
        let typed = state
            .unreadable
            .with(|u| u.values().filter(|(t, _, _)| *t == tab).count());
        typed
            + state
                .validation
                .with(|v| v.iter().filter(|e| input_tab_of(&e.field) == tab).count())
    });
    move || {
        let n = n.get();
        (n > 0).then(
            || view! { <span class="tab-errors" title=format!("{n} problem(s) here")>{n}</span> },
        )
    }
}

/// The input section a scenario field is edited in.
pub fn input_tab_of(field: &str) -> InputTab {
    if field.starts_with("runs") || field.starts_with("calibration") {
        InputTab::Runs
    } else if field.starts_with("hardware.catalog") || field.starts_with("hardware.pricing") {
        InputTab::Catalog
    } else if field.starts_with("hardware") {
        InputTab::Cluster
    } else if field.starts_with("workload.network") {
        InputTab::Workload
    } else {
        InputTab::Models
    }
}

/// The chosen input section, built after the page's first paint: the
/// start then runs as two tasks (results column, inputs) instead of one,
/// which at a 4× CPU slowdown held the page for 300 ms.
#[component]
pub fn InputsView() -> impl IntoView {
    let state = expect_state();
    let ready = RwSignal::new(false);
    request_animation_frame(move || {
        set_timeout(move || ready.set(true), std::time::Duration::ZERO);
    });
    move || match state.inputs_tab.get() {
        _ if !ready.get() => view! { <div class="panels" aria-busy="true"></div> }.into_any(),
        InputTab::Workload => view! { <workload_panel::WorkloadPanel /> }.into_any(),
        InputTab::Cluster => view! { <cluster_panel::ClusterPanel /> }.into_any(),
        InputTab::Catalog => view! { <catalog_panel::CatalogPanel /> }.into_any(),
        InputTab::Models => view! { <ModelPanels /> }.into_any(),
        InputTab::Runs => view! { <runs_panel::RunsPanel /> }.into_any(),
    }
}

/// The goals, then each registry model's inputs, one panel per frame, so
/// no task builds them all; `aria-busy` until the last is built.
#[component]
fn ModelPanels() -> impl IntoView {
    let total = 1 + PANELS.len();
    let built = gradual(Signal::derive(move || total), 1);
    let panels = PANELS
        .iter()
        .enumerate()
        .map(|(k, &(_, panel))| {
            // The goals are panel 1; this model's is k + 2.
            let shown = move || built.get() > k + 1;
            view! { <Show when=shown>{panel()}</Show> }
        })
        .collect_view();
    view! {
        <div class="panels" aria-busy=move || (built.get() < total).then_some("true")>
            <goals_panel::GoalsPanel />
            <ranges_panel::RangesPanel />
            {panels}
        </div>
    }
}

/// `?embed=card`: the scenario's title, one model's chosen headline figures
/// and its overview chart, sized for a documentation column, with a link to
/// the full view. The model is the link's view (`&view=cynthia`), else the
/// first with a report.
#[component]
pub fn Card() -> impl IntoView {
    let state = expect_state();
    let title = move || {
        state
            .scenario
            .with(crate::scenario::Scenario::display_title)
    };
    let full = super::state::share_url(false).replace("?embed=card", "");
    let slot = Memo::new(move |_| {
        let want = state.view.get();
        let slots = state.slots();
        let has = |s: &ModelSlot| s.last_good.with(Option::is_some);
        slots
            .iter()
            .find(|s| s.model.id() == want && has(s))
            .or_else(|| slots.iter().find(|s| has(s)))
            .map(|s| s.model.id())
    });
    let body = move || {
        let id = slot.get()?;
        let s = state.slot(id)?;
        let chart_key = s.model.overview_charts().first().map(|(_, k)| *k);
        let figure = Signal::derive(move || slot_figure(s, chart_key?, Some(280)));
        let stale = Memo::new(move |_| !s.stale_errors().is_empty());
        Some(view! {
            <div class:stale-result=move || stale.get()>
                <p class="hint card-model">{s.model.name()}</p>
                <ReportBody id=id report=s.last_good compact=s.model.overview_figures() />
                {chart_key.map(|k| view! {
                    <Chart figure=figure testid=format!("card-chart-{k}") filename=format!("ddnn-{id}-{k}") />
                    <ChartTable entry=s key=k.to_string() testid=format!("card-chart-{k}-table") />
                })}
            </div>
        })
    };
    view! {
        <main class="card" data-testid="embed-card">
            <header class="embed-head">
                <strong>{title}</strong>
                <a href=full target="_blank" rel="noopener" data-testid="card-open">"open in ddnn-planner ↗"</a>
            </header>
            {body}
        </main>
    }
}
