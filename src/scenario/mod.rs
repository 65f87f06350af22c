//! The scenario: one versioned serde document that the URL fragment, the
//! JSON import/export and the CLI all carry. See `docs/scenario.md`.
//!
//! Later models add optional sections (`#[serde(default)]`), so a version-1
//! document stays readable; a document from a newer version is refused with
//! a message instead of being half-read.

pub mod codec;
pub mod import;
pub mod validate;

use serde::{Deserialize, Serialize};

use crate::hardware::presets::{zeng_devices, GTX_1060, QUADRO_RTX_4000};
use crate::hardware::{gbit_per_s_to_bytes, Cluster, Instance, ParameterServer, WorkerGroup};
use crate::models::zeng::DEFAULT_FLOPS_PER_WEIGHT;
use crate::workload::presets::network_preset;
use crate::workload::profile::{LossCurve, LossParams, Profile};
use crate::workload::{GivenFigures, Network};

pub use validate::FieldError;

/// The document version this build writes and the newest it reads.
pub const SCENARIO_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub version: u32,
    #[serde(default)]
    pub title: String,
    pub workload: Workload,
    pub hardware: Hardware,
    #[serde(default)]
    pub goals: Goals,
    #[serde(default)]
    pub settings: Settings,
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

/// The shared instance catalog and the cluster built from it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hardware {
    pub catalog: Vec<Instance>,
    pub cluster: Cluster,
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

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    #[serde(default)]
    pub zeng: ZengSettings,
    #[serde(default)]
    pub cynthia: CynthiaSettings,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CynthiaSettings {
    /// Largest worker count of the exact search and the cost curves.
    #[serde(default = "default_max_workers")]
    pub max_workers: u32,
    /// Price plans at spot rather than on-demand prices.
    #[serde(default)]
    pub spot: bool,
}

fn default_max_workers() -> u32 {
    64
}

impl Default for CynthiaSettings {
    fn default() -> Self {
        CynthiaSettings {
            max_workers: default_max_workers(),
            spot: false,
        }
    }
}

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

impl Scenario {
    /// The page's landing example: VGG-16 on two Quadro RTX 4000 and one
    /// GTX 1060 over 1 GbE, batch 32 (Zeng Table 6's setup).
    pub fn example() -> Self {
        let network = network_preset("vgg16").unwrap_or_else(|| Network {
            name: "VGG-16".into(),
            layers: Vec::new(),
            given: Some(GivenFigures {
                forward_flop: 3.0947e10,
                weights: 1.1759e10 / DEFAULT_FLOPS_PER_WEIGHT,
                source: "Zeng et al. Table 1".into(),
            }),
            pushes: Some(34),
            extra_forward_flop_per_sample: 0.0,
            transfer_values: None,
            ignored: Vec::new(),
        });
        Scenario {
            version: SCENARIO_VERSION,
            title: "VGG-16 on 2× Quadro RTX 4000 + 1× GTX 1060, 1 GbE".into(),
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
                        bandwidth_bytes_per_s: gbit_per_s_to_bytes(1.0),
                        latency_s: 0.0,
                        instance: None,
                        count: 1,
                    },
                },
            },
            goals: Goals::default(),
            settings: Settings::default(),
        }
    }

    /// One line naming the network, the cluster and the link, derived from
    /// the inputs (the title is the user's and may be stale).
    pub fn summary_line(&self) -> String {
        let groups: Vec<String> = self
            .hardware
            .cluster
            .workers
            .iter()
            .map(|g| format!("{}× {} (bs {})", g.count, g.instance, g.batch_size))
            .collect();
        format!(
            "{} · {} · PS link {} Gb/s",
            self.workload.network.name,
            groups.join(" + "),
            self.hardware.cluster.ps.bandwidth_bytes_per_s * 8.0 / 1e9
        )
    }

    pub fn instance(&self, name: &str) -> Option<&Instance> {
        self.hardware.catalog.iter().find(|i| i.name == name)
    }

    /// Pretty JSON, as exported and as the CLI reads it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads a scenario document, refusing newer versions and invalid
    /// fields with messages that name them.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        if text.len() > MAX_SCENARIO_BYTES {
            return Err(ScenarioError::TooLarge { bytes: text.len() });
        }
        // Read the version first, so a newer document is refused by name
        // rather than by whichever field it changed.
        let probe: serde_json::Value =
            serde_json::from_str(text).map_err(|e| ScenarioError::Json(e.to_string()))?;
        match probe.get("version").and_then(serde_json::Value::as_u64) {
            None => {
                return Err(ScenarioError::Json(
                    "missing \"version\" (a whole number)".into(),
                ))
            }
            Some(v) if v > u64::from(SCENARIO_VERSION) => {
                return Err(ScenarioError::FutureVersion { found: v });
            }
            Some(0) => return Err(ScenarioError::Json("\"version\" must be at least 1".into())),
            Some(_) => {}
        }
        let scenario: Scenario =
            serde_json::from_value(probe).map_err(|e| ScenarioError::Json(e.to_string()))?;
        let errs = scenario.validate();
        if errs.is_empty() {
            Ok(scenario)
        } else {
            Err(ScenarioError::Invalid(errs))
        }
    }
}

/// Largest scenario document accepted (JSON text).
pub const MAX_SCENARIO_BYTES: usize = 8 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
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
