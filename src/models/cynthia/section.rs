//! Cynthia's own inputs: its section `models.cynthia` of the scenario.
//! (Which prices plans use is shared: `hardware.pricing`.)

use serde::{Deserialize, Serialize};

use crate::bounds::Bounds;
use crate::errors::FieldError;
use crate::inputs::{check_all, NumberInput};
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
    match s.section::<CynthiaSettings>(ID) {
        Ok(c) => check_all(&[&MAX_WORKERS], &c),
        Err(e) => vec![e],
    }
}

/// The exact search's and the cost curves' largest worker count.
pub const MAX_WORKERS: NumberInput<CynthiaSettings> = NumberInput {
    path: "models.cynthia.max_workers",
    label: "exact search up to [workers]",
    what: "the search limit",
    bounds: Bounds::shown(1.0, 256.0, 1.0, "workers"),
    help: "",
    testid: "max-workers",
    integer: true,
    may_be_empty: false,
    get: |c| Some(f64::from(c.max_workers)),
    set: |c, v| c.max_workers = v.map_or_else(default_max_workers, |n| n as u32),
};

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
