//! The scenario: one versioned serde document that the URL fragment, the
//! JSON import/export and the CLI all carry. See `docs/scenario.md`.
//!
//! Later models add optional sections (`#[serde(default)]`), so a version-1
//! document stays readable; a document from a newer version is refused with
//! a message instead of being half-read.

pub mod codec;
pub mod files;
pub mod migrate;
pub mod patch;
pub mod section_json;
pub mod validate;

use serde::{Deserialize, Serialize};

use crate::hardware::presets::{zeng_devices, GTX_1060, QUADRO_RTX_4000};
use std::collections::BTreeMap;

use serde::de::DeserializeOwned;

use crate::errors::FieldError;
use crate::hardware::{
    gbit_per_s_to_bytes, Cluster, Instance, ParameterServer, Precision, Pricing, WorkerGroup,
};
use crate::report::fmt_count;
use crate::runs::Run;
use crate::workload::presets::network_preset;
use crate::workload::profile::{LossCurve, LossParams, Profile};
use crate::workload::{GivenFigures, Network};

/// The document version this build writes and the newest it reads.
/// Version 1 documents are upgraded on reading (`migrate`).
pub const SCENARIO_VERSION: u32 = 2;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub version: u32,
    #[serde(default)]
    pub title: String,
    pub workload: Workload,
    pub hardware: Hardware,
    #[serde(default)]
    pub goals: Goals,
    /// Runs a user measured, to hold every model against (`crate::runs`);
    /// absent when empty, so older documents keep their bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<Run>,
    /// Factors fitted to the runs, per model id (`crate::calibration`);
    /// absent when empty ("as published"), so older documents keep
    /// their bytes.
    #[serde(
        default,
        skip_serializing_if = "crate::calibration::Calibration::is_empty"
    )]
    pub calibration: crate::calibration::Calibration,
    /// Inputs only one model reads, by model id. Each model reads and
    /// writes its own section (`section`, `set_section`); a section of a
    /// model this build does not know is kept as it is.
    /// Shared (`Arc`): a section can hold a megabyte profile, and the
    /// page clones and compares the scenario on every edit.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, std::sync::Arc<serde_json::Value>>,
    /// Ranges on inputs, for the headline figures' bands
    /// (`crate::uncertainty`); absent unless given, so older documents
    /// keep their bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncertainty: Option<crate::uncertainty::Uncertainty>,
}

/// What is trained: the network (Zeng) and, for the planning models, a
/// profile of the job and its loss curve (Cynthia).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub network: Network,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// `β0, β1` of Cynthia's Eq. 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossParams>,
    /// The measured curve `loss` was fitted from, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_curve: Option<LossCurve>,
}

/// The shared instance catalog, the cluster built from it, and which
/// prices costs use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hardware {
    pub catalog: Vec<Instance>,
    pub cluster: Cluster,
    #[serde(default)]
    pub pricing: Pricing,
    /// Which GPU peak a model takes for an instance known only by its
    /// GPUs' peaks.
    #[serde(default, skip_serializing_if = "Precision::is_default")]
    pub precision: Precision,
}

/// Targets for planning models (seconds, loss, USD).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Goals {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_usd: Option<f64>,
}

impl Scenario {
    /// The page's landing example: VGG-16 on two Quadro RTX 4000 and one
    /// GTX 1060 over 1 GbE, batch 32 (Zeng Table 6's setup).
    pub fn example() -> Self {
        let network = network_preset("vgg16").unwrap_or_else(|| Network {
            name: "VGG-16".into(),
            layers: Vec::new(),
            given: Some(GivenFigures {
                forward_flop: 3.0947e10,
                // Table 1's backward FLOP over its 85 FLOP per weight.
                weights: 1.1759e10 / 85.0,
                source: "Zeng et al. Table 1".into(),
            }),
            pushes: Some(34),
            extra_forward_flop_per_sample: 0.0,
            transfer_values: None,
            pull_values: None,
            ignored: Vec::new(),
        });
        Scenario {
            version: SCENARIO_VERSION,
            // Empty: the title follows the inputs (`display_title`).
            title: String::new(),
            workload: Workload {
                network,
                profile: None,
                loss: None,
                loss_curve: None,
            },
            hardware: Hardware {
                catalog: zeng_devices(),
                cluster: Cluster {
                    workers: vec![
                        WorkerGroup {
                            instance: QUADRO_RTX_4000.into(),
                            count: 2,
                            batch_size: 32,
                        },
                        WorkerGroup {
                            instance: GTX_1060.into(),
                            count: 1,
                            batch_size: 32,
                        },
                    ],
                    ps: ParameterServer {
                        count: 1,
                        instance: None,
                        link_bytes_per_s: Some(gbit_per_s_to_bytes(1.0)),
                        latency_s: 0.0,
                    },
                },
                pricing: Pricing::OnDemand,
                precision: Precision::Fp32,
            },
            goals: Goals::default(),
            runs: Vec::new(),
            calibration: Default::default(),
            models: BTreeMap::new(),
            uncertainty: None,
        }
    }

    /// The title people see (page, embed view, file names): the one the
    /// user typed, else the summary line, so it never names a network or
    /// link the scenario no longer has.
    pub fn display_title(&self) -> String {
        if self.title.trim().is_empty() {
            self.summary_line()
        } else {
            self.title.clone()
        }
    }

    /// One line naming the network, the cluster and the link, derived from
    /// the inputs (the title is the user's and may be stale).
    pub fn summary_line(&self) -> String {
        let workers = &self.hardware.cluster.workers;
        let groups = if workers.is_empty() {
            "no workers".to_string()
        } else if workers.len() <= 4 {
            workers
                .iter()
                .map(|g| format!("{}× {} (bs {})", g.count, g.instance, g.batch_size))
                .collect::<Vec<_>>()
                .join(" + ")
        } else {
            // Many groups: workers per instance, in order of appearance.
            let mut order: Vec<&str> = Vec::new();
            let mut counts: std::collections::HashMap<&str, u64> = Default::default();
            for g in workers {
                let c = counts.entry(g.instance.as_str()).or_insert_with(|| {
                    order.push(&g.instance);
                    0
                });
                *c += u64::from(g.count);
            }
            let mut parts: Vec<String> = order
                .iter()
                .take(4)
                .map(|n| format!("{}× {n}", fmt_count(counts[n] as f64)))
                .collect();
            if order.len() > 4 {
                parts.push(format!("{} more types", order.len() - 4));
            }
            format!(
                "{} in {} groups",
                parts.join(" + "),
                fmt_count(workers.len() as f64)
            )
        };
        let ps = &self.hardware.cluster.ps;
        let link = match ps.node_bandwidth(&self.hardware.catalog) {
            Some(b) if ps.count > 1 => format!("{}× {} Gb/s", ps.count, b * 8.0 / 1e9),
            Some(b) => format!("{} Gb/s", b * 8.0 / 1e9),
            None => "not set".into(),
        };
        format!("{} · {groups} · PS link {link}", self.workload.network.name)
    }

    /// The section of model `id`, or its defaults when the document has
    /// none. A section that does not read is an error at `models.<id>`.
    pub fn section<T: DeserializeOwned + Default>(&self, id: &str) -> Result<T, FieldError> {
        match self.models.get(id) {
            None => Ok(T::default()),
            Some(v) => T::deserialize(v.as_ref()).map_err(|e| FieldError {
                field: format!("models.{id}"),
                message: format!("the {id} section does not read: {e}"),
            }),
        }
    }

    /// Replaces the section of model `id`.
    pub fn set_section<T: Serialize>(&mut self, id: &str, section: &T) {
        if let Ok(v) = serde_json::to_value(section) {
            self.models.insert(id.to_string(), std::sync::Arc::new(v));
        }
    }

    pub fn instance(&self, name: &str) -> Option<&Instance> {
        self.hardware.catalog.iter().find(|i| i.name == name)
    }

    /// Pretty JSON, as exported and as the CLI reads it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads a scenario document of any version this build knows, refusing
    /// newer versions by name, with what an upgrade from an older version
    /// changed. Its fields are not checked here: `models::read_json` checks
    /// the whole document (shared fields and every model's section).
    pub fn parse_json(text: &str) -> Result<Loaded, ScenarioError> {
        if text.len() > MAX_SCENARIO_BYTES {
            return Err(ScenarioError::TooLarge { bytes: text.len() });
        }
        // The version is read first, so a newer document is refused by
        // name rather than by whichever field it changed. A current one is
        // read straight from the text; an older one goes through the JSON
        // tree that `migrate` rewrites.
        #[derive(Deserialize)]
        struct Version {
            version: Option<u64>,
        }
        let current = serde_json::from_str::<Version>(text)
            .is_ok_and(|v| v.version == Some(u64::from(SCENARIO_VERSION)));
        let json_err = |e: serde_json::Error| ScenarioError::Json(e.to_string());
        let (scenario, notes): (Scenario, Vec<String>) = if current {
            (serde_json::from_str(text).map_err(json_err)?, Vec::new())
        } else {
            let doc: serde_json::Value = serde_json::from_str(text).map_err(json_err)?;
            let (current, notes) = migrate::to_current(doc)?;
            (serde_json::from_value(current).map_err(json_err)?, notes)
        };
        Ok(Loaded { scenario, notes })
    }
}

/// A scenario as read, and what upgrading it from an older version changed
/// (empty for a current document or a plain upgrade).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Loaded {
    pub scenario: Scenario,
    pub notes: Vec<String>,
}

/// Largest scenario document accepted (JSON text).
pub const MAX_SCENARIO_BYTES: usize = 8 * 1024 * 1024;

/// Why a document or link does not open as a scenario (also the
/// worker's answer when a scenario cannot be a link).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
pub enum ScenarioError {
    #[error("not a scenario document: {0}")]
    Json(String),
    #[error(
        "this scenario was made by a newer ddnn-planner (document version {found}); \
         this page reads up to version {SCENARIO_VERSION}"
    )]
    FutureVersion { found: u64 },
    #[error("the scenario is {bytes} bytes; the limit is {MAX_SCENARIO_BYTES}")]
    TooLarge { bytes: usize },
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<FieldError>),
    #[error("{0}")]
    Fragment(String),
}
