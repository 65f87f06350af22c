//! Zeng's own inputs (`models.zeng`): the backward FLOP convention, the
//! range of the scaling charts and the epoch size for the cost per epoch. The network, cluster and PS are shared.

use leptos::prelude::*;

use crate::ui::expect_state;
use crate::ui::fields::{NumberField, OptNumberField};
use crate::models::zeng::section::{ZengSettings, ID};

#[component]
pub fn Panel() -> impl IntoView {
    let state = expect_state();
    view! {
        <section class="panel" aria-label="Zeng et al. inputs" data-testid="zeng-inputs">
            <h2>"Zeng et al.: model settings"</h2>
            <div class="grid2">
                <NumberField
                    label="backward work per weight (Eq. 22) [FLOP]"
                    value=state.section_get(ID, |z: &ZengSettings| z.flops_per_weight)
                    on_set=state.section_set(ID, |z: &mut ZengSettings, v: f64| z.flops_per_weight = v)
                    errors=state.errors_at("models.zeng.flops_per_weight")
                    testid="flops-per-weight"
                    help="Table 1 uses 85 (Eq. 23-26 with i = 19). Backward is not multiplied by the batch size (Eq. 27)."
                />
                <NumberField
                    label="largest worker count in the scaling charts [workers]"
                    integer=true
                    value=state.section_get(ID, |z: &ZengSettings| f64::from(z.sweep_max_workers))
                    on_set=state.section_set(ID, |z: &mut ZengSettings, v: f64| z.sweep_max_workers = v as u32)
                    errors=state.errors_at("models.zeng.sweep_max_workers")
                    testid="sweep-max-workers"
                />
                <OptNumberField
                    label="samples per epoch (for the cost per epoch)"
                    value=state.section_get(ID, |z: &ZengSettings| z.epoch_samples.map(|n| n as f64))
                    on_set=state.section_set(ID, |z: &mut ZengSettings, v: Option<f64>| z.epoch_samples = v.map(|n| n.round() as u64))
                    errors=state.errors_at("models.zeng.epoch_samples")
                    testid="epoch-samples"
                    help="e.g. 1,281,167 for ImageNet-1k, 50,000 for CIFAR-10. Empty: no per-epoch figures."
                />
            </div>
        </section>
    }
}
