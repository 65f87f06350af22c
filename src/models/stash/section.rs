//! Stash's own inputs: its section `models.stash` of the scenario. The
//! catalog (GPUs, peaks, interconnect, network, prices), the precision,
//! the workload's layer table and the goals are shared.

use serde::{Deserialize, Serialize};

use crate::bounds::Bounds;
use crate::hardware::cluster_text::parse_cluster;
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
/// `L`: 1 to 100,000 layers; extra layers 0 to 100,000.
pub const LAYERS: Bounds = Bounds::plain(1.0, 1e5);
pub const EXTRA_LAYERS: Bounds = Bounds::plain(0.0, 1e5);
/// `G`: 1 kB to 10 TB, typed in MB.
pub const GRADIENT: Bounds = Bounds::shown(1e3, 1e13, 1e6, "MB");
/// Bytes per gradient value: 1 to 8.
pub const BYTES_PER_VALUE: Bounds = Bounds::plain(1.0, 8.0);
/// `τ`: 0 to 1 s, typed in µs.
pub const LATENCY: Bounds = Bounds::shown(0.0, 1.0, 1e-6, "µs");
/// `F_s`: 1 kFLOP to 10^18 FLOP per sample, typed in GFLOP.
pub const FLOP_PER_SAMPLE: Bounds = Bounds::shown(1e3, 1e18, 1e9, "GFLOP");
/// Batch: 1 to 2^24 samples.
pub const BATCH: Bounds = Bounds::plain(1.0, 16_777_216.0);
/// `a`: above 0, at most the peak.
pub const ACHIEVED: Bounds = Bounds::plain(1e-4, 1.0);
/// `o`: 0 to 1.
pub const OVERLAP: Bounds = Bounds::plain(0.0, 1.0);
/// A measured iteration: 1 µs to a day.
pub const ITERATION: Bounds = Bounds::shown(1e-6, 86_400.0, 1.0, "s");
pub const EPOCH_SAMPLES: Bounds = Bounds::plain(1.0, 1e13);
pub const EPOCHS: Bounds = Bounds::plain(1e-3, 1e6);
pub const MAX_MACHINES: Bounds = Bounds::plain(1.0, 64.0);

/// A configuration as Stash measures one: instances of one type.
pub fn parse_configuration(text: &str) -> Result<(String, u32), String> {
    let mut parts = parse_cluster(text)?;
    if parts.len() != 1 {
        return Err(format!(
            "\"{text}\" mixes instance types: a Stash configuration is one type, e.g. 2× p3.8xlarge"
        ));
    }
    Ok(parts.remove(0))
}

/// Most measured runs a scenario holds: five per configuration for 2,000
/// configurations, far more than any study measures.
pub const MAX_RUNS: usize = 10_000;

/// `n` runs against `MAX_RUNS`, in the words a file and the section share.
pub fn within_run_limit(n: usize) -> Result<(), String> {
    if n > MAX_RUNS {
        return Err(format!(
            "{} runs is more than the {} accepted",
            fmt_count(n as f64),
            fmt_count(MAX_RUNS as f64)
        ));
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
    let mut errs = Vec::new();
    let mut check = |field: &str, what: &str, b: Bounds, v: Option<f64>| {
        if let Some(m) = v.and_then(|v| b.check(what, v)) {
            errs.push(err(format!("models.{ID}.{field}"), m));
        }
    };
    check("layers", "L", LAYERS, c.layers.map(f64::from));
    check(
        "extra_layers",
        "extra layers",
        EXTRA_LAYERS,
        Some(f64::from(c.extra_layers)),
    );
    check("gradient_bytes", "G", GRADIENT, c.gradient_bytes);
    check(
        "bytes_per_value",
        "bytes per gradient value",
        BYTES_PER_VALUE,
        Some(c.bytes_per_value),
    );
    check(
        "latency_nvlink_s",
        "NVLink τ",
        LATENCY,
        Some(c.latency_nvlink_s),
    );
    check("latency_pcie_s", "PCIe τ", LATENCY, Some(c.latency_pcie_s));
    check(
        "latency_network_s",
        "network τ",
        LATENCY,
        Some(c.latency_network_s),
    );
    check("flop_per_sample", "F_s", FLOP_PER_SAMPLE, c.flop_per_sample);
    check("batch", "batch", BATCH, Some(f64::from(c.batch)));
    check("achieved", "achieved fraction", ACHIEVED, Some(c.achieved));
    check("overlap", "overlap", OVERLAP, Some(c.overlap));
    check(
        "epoch_samples",
        "samples per epoch",
        EPOCH_SAMPLES,
        Some(c.epoch_samples),
    );
    check("epochs", "epochs", EPOCHS, Some(c.epochs));
    check(
        "max_machines",
        "machines per configuration",
        MAX_MACHINES,
        Some(f64::from(c.max_machines)),
    );
    if let Some(cal) = &c.calibrate {
        check(
            "calibrate.iteration_s",
            "measured iteration",
            ITERATION,
            Some(cal.iteration_s),
        );
        if let Err(m) = parse_configuration(&cal.configuration) {
            errs.push(err(format!("models.{ID}.calibrate.configuration"), m));
        }
    }
    if let Err(m) = within_run_limit(c.runs.len()) {
        errs.push(err(format!("models.{ID}.runs"), m));
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
        assert!(parse_configuration("p3.8xlarge + p2.8xlarge")
            .unwrap_err()
            .contains("one type"));
    }

    #[test]
    fn the_defaults_round_trip_through_an_empty_section() {
        let d: StashSettings = serde_json::from_str("{}").unwrap();
        assert_eq!(d, StashSettings::default());
    }
}
