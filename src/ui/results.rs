//! The result panels: headline figures, the timeline, tables and charts.
//! While the inputs are invalid the last good result stays, marked stale.

use leptos::prelude::*;

use super::chart::Chart;
use super::expect_state;
use super::plots;
use crate::report::csv_out::{fmt_sig, summary_rows, worker_rows, WORKER_COLUMNS};

#[component]
pub fn Results() -> impl IntoView {
    let state = expect_state();
    let shown = state.last_good;
    let stale_errors = Memo::new(move |_| match state.result.get() {
        Ok(_) => Vec::new(),
        Err(errs) => errs.iter().map(|e| e.to_string()).collect::<Vec<_>>(),
    });

    let timeline = Signal::derive(move || shown.get().map(|e| plots::timeline(&e)));
    let workers_iter = Signal::derive(move || shown.get().map(|e| plots::workers_iteration(&e)));
    let workers_speedup = Signal::derive(move || shown.get().map(|e| plots::workers_speedup(&e)));
    let bw_chart = Signal::derive(move || shown.get().map(|e| plots::bandwidth(&e)));

    view! {
        <Show when=move || !stale_errors.with(Vec::is_empty)>
            <div class="stale" role="status" data-testid="stale-notice">
                <strong>"These results are from the last valid inputs."</strong>
                " Fix the fields marked in red:"
                <ul>
                    <For each=move || stale_errors.get() key=|m| m.clone() let:m>
                        <li>{m}</li>
                    </For>
                </ul>
            </div>
        </Show>
        {move || {
            shown
                .get()
                .map(|e| {
                    let regime_class = if e.regime.communication_bound { "badge comm" } else { "badge comp" };
                    let regime_label = if e.regime.communication_bound { "communication-bound" } else { "compute-bound" };
                    view! {
                        <section class="panel headline" aria-label="headline">
                            <div class="kpi">
                                <span class="kpi-label">"iteration time (push queue)"</span>
                                <span class="kpi-value" data-testid="iteration-time">{format!("{} s", fmt_sig(e.queue.iteration_s))}</span>
                            </div>
                            <div class="kpi">
                                <span class="kpi-label">"throughput"</span>
                                <span class="kpi-value" data-testid="throughput">{format!("{} samples/s", fmt_sig(e.throughput.samples_per_s))}</span>
                            </div>
                            <div class="kpi">
                                <span class="kpi-label">"speedup vs fastest worker alone"</span>
                                <span class="kpi-value" data-testid="speedup">{format!("{}×", fmt_sig(e.throughput.speedup))}</span>
                            </div>
                            <div class="kpi">
                                <span class="kpi-label">"T_push = T_pull per worker"</span>
                                <span class="kpi-value">{format!("{} s", fmt_sig(e.queue.t_push_s))}</span>
                            </div>
                            <p class="regime" data-testid="regime">
                                <span class=regime_class>{regime_label}</span>
                                " "
                                {e.regime.explanation.clone()}
                            </p>
                        </section>
                    }
                })
        }}
        <section class="panel" aria-label="timeline">
            <h2>"Timeline of one iteration"</h2>
            <p class="hint">
                "Compute is a worker's whole iteration on a CPU (Algorithm 1) or forward plus the first backward segment on a GPU (Algorithm 2); "
                "gradients then queue for the PS link one push at a time, and the n pulls follow the last push."
            </p>
            <Chart figure=timeline testid="timeline" filename="ddnn-timeline" />
        </section>
        {move || shown.get().map(|e| view! { <ResultTables e=e /> })}
        <section class="panel" aria-label="scaling">
            <h2>"Scaling"</h2>
            <Chart figure=workers_iter testid="chart-workers" filename="ddnn-iteration-vs-workers" />
            <Chart figure=workers_speedup testid="chart-speedup" filename="ddnn-speedup-vs-workers" />
            <Chart figure=bw_chart testid="chart-bandwidth" filename="ddnn-iteration-vs-bandwidth" />
        </section>
    }
}

#[component]
fn ResultTables(e: std::sync::Arc<crate::report::ZengEvaluation>) -> impl IntoView {
    let rows = summary_rows(&e);
    let workers = worker_rows(&e);
    view! {
        <section class="panel" aria-label="figures">
            <h2>"Figures"</h2>
            <table class="figures" data-testid="summary-table">
                <thead><tr><th>"quantity"</th><th class="num">"value"</th><th>"unit"</th></tr></thead>
                <tbody>
                    {rows
                        .into_iter()
                        .map(|r| view! {
                            <tr>
                                <td>{r.quantity}</td>
                                <td class="num" title=format!("{}", r.value)>{fmt_sig(r.value)}</td>
                                <td>{r.unit}</td>
                            </tr>
                        })
                        .collect_view()}
                </tbody>
            </table>
            <h3>"Workers, in push order"</h3>
            <div class="scroll">
                <table class="workers" data-testid="workers-table">
                    <thead><tr>{WORKER_COLUMNS.iter().map(|c| view! { <th>{*c}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {workers
                            .into_iter()
                            .map(|r| {
                                view! {
                                    <tr>
                                        {r.into_iter()
                                            .enumerate()
                                            .map(|(i, c)| {
                                                let shown = if i >= 3 { c.parse::<f64>().map(fmt_sig).unwrap_or(c) } else { c };
                                                let class = if i >= 2 { "num" } else { "" };
                                                view! { <td class=class>{shown}</td> }
                                            })
                                            .collect_view()}
                                    </tr>
                                }
                            })
                            .collect_view()}
                    </tbody>
                </table>
            </div>
        </section>
    }
}
