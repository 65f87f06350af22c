//! Zeng's own inputs: its section `models.zeng` of the scenario.

use serde::{Deserialize, Serialize};

use super::DEFAULT_FLOPS_PER_WEIGHT;
use crate::scenario::validate::err;
use crate::scenario::{FieldError, Scenario};

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
    if !(z.flops_per_weight.is_finite() && (0.0..=1e6).contains(&z.flops_per_weight)) {
        errs.push(err(
            "models.zeng.flops_per_weight",
            format!(
                "backward FLOP per weight must be between 0 and 1,000,000 (got {})",
                z.flops_per_weight
            ),
        ));
    }
    if z.sweep_max_workers == 0 || z.sweep_max_workers > 256 {
        errs.push(err(
            "models.zeng.sweep_max_workers",
            format!(
                "chart range must be 1-256 workers (got {})",
                z.sweep_max_workers
            ),
        ));
    }
    errs
}
