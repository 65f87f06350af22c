//! Zeng's own inputs (`models.zeng`): the backward FLOP convention, the
//! range of the scaling charts and the epoch size for the cost per epoch.
//! The network, cluster and PS are shared.

use leptos::prelude::*;

use crate::models::zeng::section::INPUTS;
use crate::ui::fields::section_input;

#[component]
pub fn Panel() -> impl IntoView {
    view! {
        <section class="panel" aria-label="Zeng et al. inputs" data-testid="zeng-inputs">
            <h2>"Zeng et al.: model settings"</h2>
            <div class="grid2">{INPUTS.iter().map(|&i| section_input(i)).collect_view()}</div>
        </section>
    }
}
