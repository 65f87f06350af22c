//! The goals every planning model reads (time, loss, budget) and which
//! prices every cost uses: shared inputs, so one panel above the models'.

use leptos::prelude::*;

use super::expect_state;
use super::fields::OptNumberField;
use crate::hardware::Pricing;
use crate::report::fmt_count;

#[component]
pub fn GoalsPanel() -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let seconds = move || {
        sc.with(|s| s.goals.time_s)
            .map(|t| format!("= {} s", fmt_count(t)))
            .unwrap_or_default()
    };
    view! {
        <section class="panel" aria-label="goals and prices">
            <h2>"Goals and prices (every planning model)"</h2>
            <div class="grid3">
                <OptNumberField path="goals.time" label="time goal [h]" value=Signal::derive(move || sc.with(|s| s.goals.time_s.map(|t| t / 3600.0))) on_set=Callback::new(move |v: Option<f64>| sc.update(|s| s.goals.time_s = v.map(|h| h * 3600.0))) errors=state.errors_at("goals.time") testid="goal-time" />
                <OptNumberField path="goals.loss" label="loss goal" value=Signal::derive(move || sc.with(|s| s.goals.loss)) on_set=Callback::new(move |v| sc.update(|s| s.goals.loss = v)) errors=state.errors_at("goals.loss") testid="goal-loss" />
                <OptNumberField path="goals.budget" label="budget [USD]" value=Signal::derive(move || sc.with(|s| s.goals.budget_usd)) on_set=Callback::new(move |v| sc.update(|s| s.goals.budget_usd = v)) errors=state.errors_at("goals.budget") testid="goal-budget" />
            </div>
            <p class="hint">{seconds}</p>
            <label class="field check">
                <input type="checkbox" prop:checked=move || sc.with(|s| s.hardware.pricing == Pricing::Spot) on:change=move |ev| { let on = event_target_checked(&ev); sc.update(|s| s.hardware.pricing = if on { Pricing::Spot } else { Pricing::OnDemand }) } data-testid="spot" />
                <span class="field-label">"price at spot rates (every model's costs)"</span>
            </label>
        </section>
    }
}
