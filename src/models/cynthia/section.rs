//! Cynthia's own inputs: its section `models.cynthia` of the scenario.
//! (Which prices plans use is shared: `hardware.pricing`.)

use serde::{Deserialize, Serialize};

use crate::errors::err;
use crate::errors::FieldError;
use crate::scenario::Scenario;

/// Section id, and the prefix of its fields' paths.
pub const ID: &str = "cynthia";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CynthiaSettings {
    /// Largest worker count of the exact search and the cost curves.
    #[serde(default = "default_max_workers")]
    pub max_workers: u32,
}

fn default_max_workers() -> u32 {
    64
}

impl Default for CynthiaSettings {
    fn default() -> Self {
        CynthiaSettings {
            max_workers: default_max_workers(),
        }
    }
}

/// The section as the scenario has it (defaults if absent or unreadable;
/// `validate` reports an unreadable one).
pub fn settings(s: &Scenario) -> CynthiaSettings {
    s.section(ID).unwrap_or_default()
}

/// Checks of the section, at `models.cynthia.<field>`.
pub fn validate(s: &Scenario) -> Vec<FieldError> {
    let c: CynthiaSettings = match s.section(ID) {
        Ok(c) => c,
        Err(e) => return vec![e],
    };
    if c.max_workers == 0 || c.max_workers > 256 {
        return vec![err(
            "models.cynthia.max_workers",
            format!(
                "the search limit must be 1-256 workers (got {})",
                c.max_workers
            ),
        )];
    }
    Vec::new()
}

/// Adds the AWS docker presets to the catalog (skipping names already
/// there) and points the PS at m4.xlarge if it has no instance yet.
pub fn add_aws_catalog(s: &mut Scenario) {
    for inst in crate::hardware::aws::cynthia_catalog() {
        if s.instance(&inst.name).is_none() {
            s.hardware.catalog.push(inst);
        }
    }
    if s.hardware.cluster.ps.instance.is_none() {
        s.hardware.cluster.ps.instance = s
            .hardware
            .catalog
            .iter()
            .find(|i| i.name.starts_with("m4"))
            .map(|i| i.name.clone());
    }
}
