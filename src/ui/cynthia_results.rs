//! Cynthia's results: the given cluster, the plans (exact next to the
//! paper's Algorithm 1), why nothing is feasible, and the cost curves.

use leptos::prelude::*;

use super::chart::Chart;
use super::expect_state;
use super::plots_cynthia;
use crate::report::csv_out::fmt_sig;
use crate::report::cynthia_rows::cynthia_rows;
use crate::report::CynthiaEvaluation;

fn hours(s: f64) -> String {
    format!("{} h", fmt_sig(s / 3600.0))
}

#[component]
pub fn CynthiaResults() -> impl IntoView {
    let state = expect_state();
    let shown = state.cynthia_last_good;
    let stale = Memo::new(move |_| match state.cynthia.get() {
        Some(Err(errs)) => errs.iter().map(|e| e.to_string()).collect(),
        _ => Vec::new(),
    });
    let has_curves = move || shown.with(|e| e.as_ref().is_some_and(|e| !e.curves.is_empty()));
    let cost = Signal::derive(move || {
        shown
            .get()
            .filter(|e| !e.curves.is_empty())
            .map(|e| plots_cynthia::cost_curve(&e))
    });
    let time = Signal::derive(move || {
        shown
            .get()
            .filter(|e| !e.curves.is_empty())
            .map(|e| plots_cynthia::time_curve(&e))
    });
    let util = Signal::derive(move || {
        shown
            .get()
            .filter(|e| !e.curves.is_empty())
            .map(|e| plots_cynthia::utilisation(&e))
    });
    // The chosen plan's iteration, else the given cluster's.
    let plan_iter = Signal::derive(move || {
        shown.get().and_then(|e| {
            let (label, t_comp, t_comm) = match e.exact.as_ref().and_then(|x| x.plan.as_ref()) {
                Some(p) => (
                    format!(
                        "cheapest plan: {} × {} + {} PS",
                        p.run.n_wk, p.instance, p.run.n_ps
                    ),
                    p.run.t_comp_s,
                    p.run.t_comm_s,
                ),
                None => {
                    let c = e.cluster.as_ref()?;
                    (
                        "this cluster".to_string(),
                        c.iteration.t_comp_s,
                        c.iteration.t_comm_s,
                    )
                }
            };
            Some(plots_cynthia::plan_iteration(&e, &label, t_comp, t_comm))
        })
    });
    let residuals = Signal::derive(move || {
        state.scenario.with(|s| {
            s.workload
                .loss_curve
                .as_ref()
                .and_then(plots_cynthia::residuals)
        })
    });
    view! {
        <Show when=move || state.cynthia.with(Option::is_some)>
            <section class="panel" aria-label="Cynthia results" data-testid="cynthia-results">
                <h2>"PS bottlenecks and cost-minimal plans (Cynthia)"</h2>
                <Show when=move || !stale.with(Vec::is_empty)>
                    <div class="stale" role="status" data-testid="cynthia-stale">
                        <strong>"Showing the last valid Cynthia result."</strong>
                        <ul><For each=move || stale.get() key=|m| m.clone() let:m><li>{m}</li></For></ul>
                    </div>
                </Show>
                {move || shown.get().map(|e| view! { <CynthiaSummary e=e /> })}
                <Chart figure=plan_iter testid="cynthia-iteration" filename="ddnn-cynthia-iteration" />
                <Show when=move || residuals.with(Option::is_some)>
                    <Chart figure=residuals testid="chart-residuals" filename="ddnn-loss-fit" />
                </Show>
                <Show when=has_curves>
                    <Chart figure=cost testid="chart-cost" filename="ddnn-cost-vs-workers" />
                    <Chart figure=time testid="chart-time" filename="ddnn-time-vs-workers" />
                    <Chart figure=util testid="chart-utilisation" filename="ddnn-utilisation-vs-workers" />
                </Show>
            </section>
        </Show>
    }
}

#[component]
fn CynthiaSummary(e: std::sync::Arc<CynthiaEvaluation>) -> impl IntoView {
    let cluster = e.cluster.clone();
    let exact = e.exact.clone();
    let paper = e.paper.clone();
    let rows = cynthia_rows(&e);
    let headline = cluster.as_ref().map(|c| {
        let it = &c.iteration;
        let u = &it.utilisation;
        let binds = match u.binding {
            crate::models::cynthia::Bottleneck::None => format!(
                "no PS bottleneck: the PS CPU binds beyond {} workers, its network beyond {}",
                fmt_sig(c.saturation.cpu_from_workers),
                fmt_sig(c.saturation.network_from_workers)
            ),
            b => format!(
                "the {} binds (demand exceeds supply beyond {} workers), so every worker runs at u = {:.0}%",
                b.label(),
                fmt_sig(c.saturation.cpu_from_workers.min(c.saturation.network_from_workers)),
                100.0 * u.u
            ),
        };
        view! {
            <div class="headline">
                <div class="kpi">
                    <span class="kpi-label">"this cluster: iteration time"</span>
                    <span class="kpi-value" data-testid="cynthia-iteration-time">{format!("{} s", fmt_sig(it.t_iter_s))}</span>
                </div>
                {c.run.as_ref().map(|r| view! {
                    <div class="kpi">
                        <span class="kpi-label">"training time to l_g"</span>
                        <span class="kpi-value" data-testid="cynthia-train-time">{hours(r.train_time_s)}</span>
                    </div>
                    <div class="kpi">
                        <span class="kpi-label">"cost"</span>
                        <span class="kpi-value" data-testid="cynthia-cost">{format!("${:.2}", r.cost_usd)}</span>
                    </div>
                })}
                <div class="kpi">
                    <span class="kpi-label">"worker utilisation u"</span>
                    <span class="kpi-value" data-testid="cynthia-u">{format!("{:.0}%", 100.0 * u.u)}</span>
                </div>
                <p class="regime" data-testid="cynthia-binding">{binds}</p>
                {c.run_note.clone().map(|n| view! { <p class="hint">{n}</p> })}
            </div>
        }
    });
    let plans = exact.as_ref().map(|x| {
        let exact_plan = x.plan.clone().map(|p| {
            format!(
                "{} workers + {} PS of {}: {}, ${:.2}, u = {:.0}%",
                p.run.n_wk,
                p.run.n_ps,
                p.instance,
                hours(p.run.train_time_s),
                p.run.cost_usd,
                100.0 * p.run.u
            )
        });
        let paper_plan = paper.as_ref().and_then(|a| a.plan.clone()).map(|p| {
            let warn = if p.run.n_ps > p.run.n_wk { " (n_ps > n_wk: Constraint 11 is not checked)" } else { "" };
            format!("{} workers + {} PS of {}: {}, ${:.2}{warn}", p.run.n_wk, p.run.n_ps, p.instance, hours(p.run.train_time_s), p.run.cost_usd)
        });
        let gap = e.paper_gap.map(|g| {
            if g > 1e-9 {
                format!("Algorithm 1 misses a plan {:.1}% cheaper.", 100.0 * g / (1.0 + g))
            } else {
                "Algorithm 1 finds the cheapest plan here.".to_string()
            }
        });
        let shortfalls = x.shortfalls.clone();
        let evaluated = x.evaluated;
        view! {
            <h3>"Plans"</h3>
            <table class="figures" data-testid="plans">
                <tbody>
                    <tr>
                        <td>{format!("exact search (1 ≤ n_ps ≤ n_wk; {evaluated} plans evaluated)")}</td>
                        <td data-testid="exact-plan">{exact_plan.unwrap_or_else(|| "no plan meets the goals".into())}</td>
                    </tr>
                    <tr>
                        <td>"Algorithm 1 as printed (paper mode)"</td>
                        <td data-testid="paper-plan">{paper_plan.unwrap_or_else(|| "reports infeasible".into())}</td>
                    </tr>
                </tbody>
            </table>
            {gap.map(|g| view! { <p class="hint" data-testid="paper-gap">{g}</p> })}
            {(!shortfalls.is_empty()).then(|| view! {
                <ul class="shortfalls" data-testid="shortfalls">
                    {shortfalls.into_iter().map(|s| view! { <li><strong>{s.instance}</strong> ": " {s.reason}</li> }).collect_view()}
                </ul>
            })}
        }
    });
    let traces = paper.map(|p| {
        p.per_type
            .into_iter()
            .map(|t| {
                let b = t.bounds.clone();
                view! {
                    <tr>
                        <td>{t.instance}</td>
                        <td class="num">{b.as_ref().map(|b| fmt_sig(b.r)).unwrap_or_default()}</td>
                        <td class="num">{b.as_ref().map(|b| b.n_lo.to_string()).unwrap_or_default()}</td>
                        <td class="num">{b.as_ref().map(|b| b.n_hi.to_string()).unwrap_or_default()}</td>
                        <td class="num">{b.as_ref().map(|b| b.n_ps.to_string()).unwrap_or_default()}</td>
                        <td>{t.note}</td>
                    </tr>
                }
            })
            .collect_view()
    });
    let missing = e.missing.clone();
    let skipped = e.skipped.clone();
    let note = e.cluster_note.clone();
    view! {
        {headline}
        {note.map(|n| view! { <p class="hint" data-testid="cynthia-cluster-note">{n}</p> })}
        {(!missing.is_empty()).then(|| view! {
            <p class="hint" data-testid="cynthia-missing">"Planning needs: " {missing.join("; ")}</p>
        })}
        {plans}
        {traces.map(|rows| view! {
            <details>
                <summary>"Algorithm 1, type by type (Theorem 4.1 bounds)"</summary>
                <table class="figures">
                    <thead><tr><th>"type"</th><th class="num">"r (Eq. 12)"</th><th class="num">"n_lo"</th><th class="num">"n_hi"</th><th class="num">"n_ps"</th><th>"outcome"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </details>
        })}
        <details>
            <summary>"All Cynthia figures"</summary>
            <table class="figures" data-testid="cynthia-table">
                <tbody>
                    {rows.into_iter().map(|r| view! { <tr><td>{r.quantity}</td><td class="num">{fmt_sig(r.value)}</td><td>{r.unit}</td></tr> }).collect_view()}
                </tbody>
            </table>
        </details>
        {(!skipped.is_empty()).then(|| view! { <p class="hint">"Not planned (catalog entries missing figures): " {skipped.join("; ")}</p> })}
    }
}
