//! Zeng's own inputs: its section `models.zeng` of the scenario.

use serde::{Deserialize, Serialize};

use super::DEFAULT_FLOPS_PER_WEIGHT;
use crate::bounds::Bounds;
use crate::inputs::{check_all, NumberInput};
use crate::errors::FieldError;
use crate::scenario::Scenario;

/// Section id, and the prefix of its fields' paths.
pub const ID: &str = "zeng";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ZengSettings {
    /// Backward FLOP per weight (Eq. 22-26; Table 1 uses 85).
    #[serde(default = "default_flops_per_weight")]
    pub flops_per_weight: f64,
    /// Largest worker count in the scaling charts.
    #[serde(default = "default_sweep_max_workers")]
    pub sweep_max_workers: u32,
    /// Samples in one epoch (the training set's size), for the cost and
    /// time of an epoch; none: per iteration only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epoch_samples: Option<u64>,
}

fn default_flops_per_weight() -> f64 {
    DEFAULT_FLOPS_PER_WEIGHT
}

fn default_sweep_max_workers() -> u32 {
    16
}

impl Default for ZengSettings {
    fn default() -> Self {
        ZengSettings {
            flops_per_weight: DEFAULT_FLOPS_PER_WEIGHT,
            sweep_max_workers: default_sweep_max_workers(),
            epoch_samples: None,
        }
    }
}

/// The section as the scenario has it (defaults if absent or unreadable;
/// `validate` reports an unreadable one).
pub fn settings(s: &Scenario) -> ZengSettings {
    s.section(ID).unwrap_or_default()
}

/// Checks of the section, at `models.zeng.<field>`.
pub fn validate(s: &Scenario) -> Vec<FieldError> {
    match s.section::<ZengSettings>(ID) {
        Ok(z) => check_all(&INPUTS, &z),
        Err(e) => vec![e],
    }
}

/// The section's inputs, in the order the page shows them.
pub const INPUTS: [&NumberInput<ZengSettings>; 3] =
    [&FLOPS_PER_WEIGHT, &SWEEP_MAX_WORKERS, &EPOCH_SAMPLES];

/// Backward FLOP per weight (Table 1: 85).
pub const FLOPS_PER_WEIGHT: NumberInput<ZengSettings> = NumberInput {
    path: "models.zeng.flops_per_weight",
    label: "backward work per weight (Eq. 22) [FLOP]",
    what: "backward FLOP per weight",
    bounds: Bounds::plain(0.0, 1e6),
    testid: "flops-per-weight",
    help: "Table 1 uses 85 (Eq. 23-26 with i = 19). Backward is not multiplied by the batch size (Eq. 27).",
    integer: false,
    may_be_empty: false,
    get: |z| Some(z.flops_per_weight),
    set: |z, v| z.flops_per_weight = v.unwrap_or(DEFAULT_FLOPS_PER_WEIGHT),
};

/// Largest worker count of the scaling charts.
pub const SWEEP_MAX_WORKERS: NumberInput<ZengSettings> = NumberInput {
    path: "models.zeng.sweep_max_workers",
    label: "largest worker count in the scaling charts [workers]",
    what: "the scaling charts' largest worker count",
    bounds: Bounds::plain(1.0, 256.0),
    help: "",
    testid: "sweep-max-workers",
    integer: true,
    may_be_empty: false,
    get: |z| Some(f64::from(z.sweep_max_workers)),
    // The page sends whole numbers only (`integer`).
    set: |z, v| z.sweep_max_workers = v.map_or(default_sweep_max_workers(), |n| n as u32),
};

/// Samples per epoch (the training set's size): 1 to 10^12.
pub const EPOCH_SAMPLES: NumberInput<ZengSettings> = NumberInput {
    path: "models.zeng.epoch_samples",
    label: "samples per epoch (for the cost per epoch)",
    what: "samples per epoch",
    bounds: Bounds::plain(1.0, 1e12),
    testid: "epoch-samples",
    help: "e.g. 1,281,167 for ImageNet-1k, 50,000 for CIFAR-10. Empty: no per-epoch figures.",
    integer: true,
    may_be_empty: true,
    get: |z| z.epoch_samples.map(|n| n as f64),
    set: |z, v| z.epoch_samples = v.map(|n| n.round() as u64),
};
