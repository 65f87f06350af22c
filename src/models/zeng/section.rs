//! Zeng's own inputs: its section `models.zeng` of the scenario.

use serde::{Deserialize, Serialize};

use super::DEFAULT_FLOPS_PER_WEIGHT;
use crate::bounds::Bounds;
use crate::errors::err;
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
    let z: ZengSettings = match s.section(ID) {
        Ok(z) => z,
        Err(e) => return vec![e],
    };
    let mut errs = Vec::new();
    if let Some(m) = FLOPS_PER_WEIGHT.check("backward FLOP per weight", z.flops_per_weight) {
        errs.push(err("models.zeng.flops_per_weight", m));
    }
    if let Some(m) = SWEEP_WORKERS.check(
        "the scaling charts' largest worker count",
        f64::from(z.sweep_max_workers),
    ) {
        errs.push(err("models.zeng.sweep_max_workers", m));
    }
    if let Some(n) = z.epoch_samples {
        if let Some(m) = EPOCH_SAMPLES.check("samples per epoch", n as f64) {
            errs.push(err("models.zeng.epoch_samples", m));
        }
    }
    errs
}

/// Backward FLOP per weight (Table 1: 85).
pub const FLOPS_PER_WEIGHT: Bounds = Bounds::plain(0.0, 1e6);
/// Largest worker count of the scaling charts.
pub const SWEEP_WORKERS: Bounds = Bounds::plain(1.0, 256.0);
/// Samples per epoch: 1 to 10^12.
pub const EPOCH_SAMPLES: Bounds = Bounds::plain(1.0, 1e12);
