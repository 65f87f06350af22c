//! Stash's own inputs: its section `models.stash` of the scenario. The
//! catalog (GPUs, peaks, interconnect, network, prices), the precision,
//! the workload's layer table and the goals are shared.

use serde::{Deserialize, Serialize};

use crate::bounds::Bounds;
use crate::inputs::{check_all, NumberInput};
use crate::hardware::cluster_text::{parse_cluster, ClusterTextError};
use crate::report::fmt_count;
use crate::errors::err;
use crate::errors::FieldError;
use crate::scenario::Scenario;

/// Section id, and the prefix of its fields' paths.
pub const ID: &str = "stash";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StashSettings {
    /// Measured runs of Stash's method, any configurations, any order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<Run>,
    /// `L`, typed; none: the layer table's layers plus `extra_layers`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layers: Option<u32>,
    /// Layers with gradients the table does not list (BatchNorm, l.336).
    #[serde(default)]
    pub extra_layers: u32,
    /// `G` [B], typed; none: (weights + biases) × `bytes_per_value`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gradient_bytes: Option<f64>,
    /// Bytes per gradient value (4 for FP32 gradients, 2 for FP16).
    #[serde(default = "default_bytes_per_value")]
    pub bytes_per_value: f64,
    /// `τ` [s] per layer on NVLink/NVSwitch, PCIe and the network: the
    /// paper gives none; these are this product's assumptions.
    #[serde(default = "default_nvlink")]
    pub latency_nvlink_s: f64,
    #[serde(default = "default_pcie")]
    pub latency_pcie_s: f64,
    #[serde(default = "default_network")]
    pub latency_network_s: f64,
    /// The instance whose links the comm charts show; none: the first
    /// measured configuration's, else the fastest predicted one's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comm_instance: Option<String>,
    /// `F_s` [FLOP], training FLOP per sample, typed; none: 3 × the layer
    /// table's forward FLOP per sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flop_per_sample: Option<f64>,
    /// The batch: global `B_g` (split over the GPUs), or per GPU.
    #[serde(default = "default_batch")]
    pub batch: u32,
    #[serde(default)]
    pub batch_per_gpu: bool,
    /// `a`: achieved fraction of the GPU's peak, typed.
    #[serde(default = "default_achieved")]
    pub achieved: f64,
    /// A measured iteration `a` is calibrated from (overrides `achieved`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibrate: Option<Calibration>,
    /// `o`: share of the all-reduce hidden behind compute.
    #[serde(default)]
    pub overlap: f64,
    #[serde(default)]
    pub ring: Ring,
    /// Samples per epoch and epochs of the whole run.
    #[serde(default = "default_epoch_samples")]
    pub epoch_samples: f64,
    #[serde(default = "default_epochs")]
    pub epochs: f64,
    /// Machines per configuration the ranking tries (1 to this).
    #[serde(default = "default_max_machines")]
    pub max_machines: u32,
}

/// One measured run: `seconds` over `samples` (all GPUs of the run
/// together: one GPU's share for run (1)).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// "p3.16xlarge", "2× p3.8xlarge".
    pub configuration: String,
    /// Stash's step, 1 to 5.
    pub run: u8,
    pub seconds: f64,
    pub samples: f64,
    /// Run (5) only: the one-machine configuration whose run (2) is
    /// `t2_ref`; none: the measured one with the same GPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
}

/// One iteration measured on a configuration at this section's batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub configuration: String,
    pub iteration_s: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ring {
    /// One ring over every GPU: the slowest link level bounds it.
    #[default]
    Flat,
    /// A ring per level, one after the other: the levels add up.
    Hierarchical,
}

impl Ring {
    pub fn word(self) -> &'static str {
        match self {
            Ring::Flat => "flat ring",
            Ring::Hierarchical => "hierarchical ring",
        }
    }
}

fn default_bytes_per_value() -> f64 {
    4.0
}
fn default_nvlink() -> f64 {
    20e-6
}
fn default_pcie() -> f64 {
    30e-6
}
fn default_network() -> f64 {
    100e-6
}
fn default_batch() -> u32 {
    256
}
fn default_achieved() -> f64 {
    0.4
}
fn default_epoch_samples() -> f64 {
    1_281_167.0
}
fn default_epochs() -> f64 {
    90.0
}
fn default_max_machines() -> u32 {
    2
}

impl Default for StashSettings {
    /// The defaults, as a document without the section reads.
    fn default() -> Self {
        StashSettings {
            runs: Vec::new(),
            layers: None,
            extra_layers: 0,
            gradient_bytes: None,
            bytes_per_value: default_bytes_per_value(),
            latency_nvlink_s: default_nvlink(),
            latency_pcie_s: default_pcie(),
            latency_network_s: default_network(),
            comm_instance: None,
            flop_per_sample: None,
            batch: default_batch(),
            batch_per_gpu: false,
            achieved: default_achieved(),
            calibrate: None,
            overlap: 0.0,
            ring: Ring::Flat,
            epoch_samples: default_epoch_samples(),
            epochs: default_epochs(),
            max_machines: default_max_machines(),
        }
    }
}

/// The section as the scenario has it (defaults if absent or unreadable;
/// `validate` reports an unreadable one).
pub fn settings(s: &Scenario) -> StashSettings {
    s.section(ID).unwrap_or_default()
}

/// A run's time: 1 ms to a year.
pub const SECONDS: Bounds = Bounds::shown(1e-3, 3.2e7, 1.0, "s");
/// Samples a run covers: 1 to 10^12.
pub const SAMPLES: Bounds = Bounds::plain(1.0, 1e12);
/// The communication model's inputs (Sec. VI-A), as the page shows them.
pub const COMM_INPUTS: [&NumberInput<StashSettings>; 7] = [
    &LAYERS,
    &EXTRA_LAYERS,
    &GRADIENT,
    &BYTES_PER_VALUE,
    &TAU_NVLINK,
    &TAU_PCIE,
    &TAU_NETWORK,
];

/// The all-reduce prediction's numeric inputs (the calibration apart).
pub const PREDICTION_INPUTS: [&NumberInput<StashSettings>; 7] = [
    &FLOP_PER_SAMPLE,
    &BATCH,
    &ACHIEVED,
    &OVERLAP,
    &EPOCH_SAMPLES,
    &EPOCHS,
    &MAX_MACHINES,
];

/// `L`: 1 to 100,000 layers.
pub const LAYERS: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.layers",
    label: "L: layers with gradients [–]",
    what: "L",
    bounds: Bounds::plain(1.0, 1e5),
    help: "empty: the layer table's conv and fc layers plus the extra layers",
    testid: "stash-layers",
    integer: true,
    may_be_empty: true,
    get: |c| c.layers.map(f64::from),
    set: |c, v| c.layers = v.map(|l| l as u32),
};

/// Extra layers with gradients: 0 to 100,000.
pub const EXTRA_LAYERS: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.extra_layers",
    label: "extra layers with gradients (BatchNorm) [–]",
    what: "extra layers",
    bounds: Bounds::plain(0.0, 1e5),
    help: "BatchNorm layers count (l.336); the layer table lists conv and fc only",
    testid: "stash-extra-layers",
    integer: true,
    may_be_empty: false,
    get: |c| Some(f64::from(c.extra_layers)),
    set: |c, v| c.extra_layers = v.map_or(0, |l| l as u32),
};

/// `G`: 1 kB to 10 TB, typed in MB.
pub const GRADIENT: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.gradient_bytes",
    label: "G: gradient bytes per all-reduce [MB]",
    what: "G",
    bounds: Bounds::shown(1e3, 1e13, 1e6, "MB"),
    help: "empty: (weights + biases) × bytes per value",
    testid: "stash-gradient",
    integer: false,
    may_be_empty: true,
    get: |c| c.gradient_bytes,
    set: |c, v| c.gradient_bytes = v,
};

/// Bytes per gradient value: 1 to 8.
pub const BYTES_PER_VALUE: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.bytes_per_value",
    label: "bytes per gradient value [B]",
    what: "bytes per gradient value",
    bounds: Bounds::plain(1.0, 8.0),
    help: "4 for FP32 gradients, 2 for FP16",
    testid: "stash-bytes-per-value",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.bytes_per_value),
    set: |c, v| c.bytes_per_value = v.unwrap_or_else(default_bytes_per_value),
};

/// `τ`: 0 to 1 s, typed in µs.
const LATENCY: Bounds = Bounds::shown(0.0, 1.0, 1e-6, "µs");

pub const TAU_NVLINK: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.latency_nvlink_s",
    label: "τ NVLink / NVSwitch, per layer [µs]",
    what: "NVLink τ",
    bounds: LATENCY,
    help: "the paper gives no τ: this product's assumption",
    testid: "stash-tau-nvlink",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.latency_nvlink_s),
    set: |c, v| c.latency_nvlink_s = v.unwrap_or_else(default_nvlink),
};

pub const TAU_PCIE: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.latency_pcie_s",
    label: "τ PCIe, per layer [µs]",
    what: "PCIe τ",
    bounds: LATENCY,
    help: "",
    testid: "stash-tau-pcie",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.latency_pcie_s),
    set: |c, v| c.latency_pcie_s = v.unwrap_or_else(default_pcie),
};

pub const TAU_NETWORK: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.latency_network_s",
    label: "τ network, per layer [µs]",
    what: "network τ",
    bounds: LATENCY,
    help: "",
    testid: "stash-tau-network",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.latency_network_s),
    set: |c, v| c.latency_network_s = v.unwrap_or_else(default_network),
};

/// `F_s`: 1 kFLOP to 10^18 FLOP per sample, typed in GFLOP.
pub const FLOP_PER_SAMPLE: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.flop_per_sample",
    label: "F_s: training FLOP per sample [GFLOP]",
    what: "F_s",
    bounds: Bounds::shown(1e3, 1e18, 1e9, "GFLOP"),
    help: "empty: 3 × the layer table's forward FLOP per sample",
    testid: "stash-flop",
    integer: false,
    may_be_empty: true,
    get: |c| c.flop_per_sample,
    set: |c, v| c.flop_per_sample = v,
};

/// Batch: 1 to 2^24 samples.
pub const BATCH: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.batch",
    label: "batch [samples]",
    what: "batch",
    bounds: Bounds::plain(1.0, 16_777_216.0),
    help: "",
    testid: "stash-batch",
    integer: true,
    may_be_empty: false,
    get: |c| Some(f64::from(c.batch)),
    set: |c, v| c.batch = v.map_or_else(default_batch, |b| b as u32),
};

/// `a`: above 0, at most the peak.
pub const ACHIEVED: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.achieved",
    label: "a: achieved fraction of the peak [–]",
    what: "achieved fraction",
    bounds: Bounds::plain(1e-4, 1.0),
    help: "used unless calibrated below",
    testid: "stash-achieved",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.achieved),
    set: |c, v| c.achieved = v.unwrap_or_else(default_achieved),
};

/// `o`: 0 to 1.
pub const OVERLAP: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.overlap",
    label: "o: all-reduce hidden behind compute [–]",
    what: "overlap",
    bounds: Bounds::plain(0.0, 1.0),
    help: "0: none (default); 1: all",
    testid: "stash-overlap",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.overlap),
    set: |c, v| c.overlap = v.unwrap_or(0.0),
};

pub const EPOCH_SAMPLES: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.epoch_samples",
    label: "samples per epoch [samples]",
    what: "samples per epoch",
    bounds: Bounds::plain(1.0, 1e13),
    help: "",
    testid: "stash-epoch-samples",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.epoch_samples),
    set: |c, v| c.epoch_samples = v.unwrap_or_else(default_epoch_samples),
};

pub const EPOCHS: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.epochs",
    label: "epochs in the whole run [–]",
    what: "epochs",
    bounds: Bounds::plain(1e-3, 1e6),
    help: "",
    testid: "stash-epochs",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.epochs),
    set: |c, v| c.epochs = v.unwrap_or_else(default_epochs),
};

pub const MAX_MACHINES: NumberInput<StashSettings> = NumberInput {
    path: "models.stash.max_machines",
    label: "most machines per configuration [–]",
    what: "machines per configuration",
    bounds: Bounds::plain(1.0, 64.0),
    help: "",
    testid: "stash-max-machines",
    integer: true,
    may_be_empty: false,
    get: |c| Some(f64::from(c.max_machines)),
    set: |c, v| c.max_machines = v.map_or_else(default_max_machines, |m| m as u32),
};

/// A measured iteration: 1 µs to a day.
pub const ITERATION: Bounds = Bounds::shown(1e-6, 86_400.0, 1.0, "s");

/// Why a configuration does not read as Stash's.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigurationError {
    #[error(transparent)]
    Cluster(#[from] ClusterTextError),
    #[error("\"{text}\" mixes instance types: a Stash configuration is one type, e.g. 2× p3.8xlarge")]
    MixedTypes { text: String },
}

/// A configuration as Stash measures one: instances of one type.
pub fn parse_configuration(text: &str) -> Result<(String, u32), ConfigurationError> {
    let mut parts = parse_cluster(text)?;
    if parts.len() != 1 {
        return Err(ConfigurationError::MixedTypes {
            text: text.to_string(),
        });
    }
    Ok(parts.remove(0))
}

/// Most measured runs a scenario holds: five per configuration for 2,000
/// configurations, far more than any study measures.
pub const MAX_RUNS: usize = 10_000;

/// More runs than `MAX_RUNS`, in the words a file and the section share.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{} runs is more than the {} accepted", fmt_count(*.count as f64), fmt_count(MAX_RUNS as f64))]
pub struct TooManyRuns {
    pub count: usize,
}

/// `n` runs against `MAX_RUNS`.
pub fn within_run_limit(n: usize) -> Result<(), TooManyRuns> {
    if n > MAX_RUNS {
        return Err(TooManyRuns { count: n });
    }
    Ok(())
}

/// Checks of the section, at `models.stash.<field>`: ranges and the runs'
/// own form. What depends on the catalog (an unknown instance, a run (5)
/// with no reference) is said by the evaluation, naming the run.
pub fn validate(s: &Scenario) -> Vec<FieldError> {
    if !s.models.contains_key(ID) {
        return Vec::new();
    }
    let c: StashSettings = match s.section(ID) {
        Ok(c) => c,
        Err(e) => return vec![e],
    };
    let mut errs = check_all(&COMM_INPUTS, &c);
    errs.extend(check_all(&PREDICTION_INPUTS, &c));
    if let Some(cal) = &c.calibrate {
        if let Some(m) = ITERATION.check("measured iteration", cal.iteration_s) {
            errs.push(err(format!("models.{ID}.calibrate.iteration_s"), m));
        }
        if let Err(m) = parse_configuration(&cal.configuration) {
            errs.push(err(
                format!("models.{ID}.calibrate.configuration"),
                m.to_string(),
            ));
        }
    }
    if let Err(m) = within_run_limit(c.runs.len()) {
        errs.push(err(format!("models.{ID}.runs"), m.to_string()));
    }
    // Row by row, up to the limit (a longer list is refused above).
    for (i, r) in c.runs.iter().enumerate().take(MAX_RUNS) {
        let at = format!("models.{ID}.runs[{i}]");
        let row = i + 1;
        if let Err(m) = parse_configuration(&r.configuration) {
            errs.push(err(&at, format!("run row {row}: {m}")));
        }
        if !(1..=5).contains(&r.run) {
            errs.push(err(
                &at,
                format!(
                    "run row {row}: run ({}) is not one of Stash's five steps (1 to 5)",
                    r.run
                ),
            ));
        }
        if let Some(m) = SECONDS.check("time", r.seconds) {
            errs.push(err(&at, format!("run row {row}: {m}")));
        }
        if let Some(m) = SAMPLES.check("samples", r.samples) {
            errs.push(err(&at, format!("run row {row}: {m}")));
        }
        if r.reference.is_some() && r.run != 5 {
            errs.push(err(
                &at,
                format!(
                    "run row {row}: only a run (5) has a reference (the machine whose run (2) it is compared with)"
                ),
            ));
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_is_one_instance_type() {
        assert_eq!(
            parse_configuration("2× p3.8xlarge"),
            Ok(("p3.8xlarge".to_string(), 2))
        );
        assert_eq!(
            parse_configuration("p3.16xlarge"),
            Ok(("p3.16xlarge".to_string(), 1))
        );
        assert_eq!(
            parse_configuration("p3.8xlarge + p2.8xlarge").map_err(|e| e.to_string()),
            Err("\"p3.8xlarge + p2.8xlarge\" mixes instance types: a Stash configuration is one type, e.g. 2× p3.8xlarge".to_string())
        );
        assert_eq!(
            within_run_limit(MAX_RUNS + 1).map_err(|e| e.to_string()),
            Err("10,001 runs is more than the 10,000 accepted".to_string())
        );
    }

    #[test]
    fn the_defaults_round_trip_through_an_empty_section() {
        let d: StashSettings = serde_json::from_str("{}").unwrap();
        assert_eq!(d, StashSettings::default());
    }
}
