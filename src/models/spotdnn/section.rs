//! spotDNN's own inputs: its section `models.spotdnn` of the scenario.
//! The catalog (GPUs, GPU memory, PCIe as `interconnect_bytes_per_s`,
//! prices, quotas), the cluster, the PS side and the goals are shared.

use serde::{Deserialize, Serialize};

use super::{LossForm, LossLaw};
use crate::bounds::Bounds;
use crate::errors::err;
use crate::errors::FieldError;
use crate::scenario::Scenario;

/// Section id, and the prefix of its fields' paths.
pub const ID: &str = "spotdnn";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpotDnnSettings {
    /// `S_param` [B]: bytes pushed (and pulled) per iteration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param_bytes: Option<f64>,
    /// `B_req` [B/s]: one worker's bandwidth need, measured alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub req_bytes_per_s: Option<f64>,
    /// Eq. 9: `P = min(α1·√|N| + β1, 1)`, clamped at 0. Both 0: no
    /// contention modelled.
    #[serde(default)]
    pub alpha1: f64,
    #[serde(default)]
    pub beta1: f64,
    /// Eq. 10: `b_k = 2^⌊log2(α2·mem + β2)⌋`, `α2` in samples per byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha2_per_byte: Option<f64>,
    #[serde(default)]
    pub beta2: f64,
    /// Eq. 3's coefficients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossLaw>,
    /// One iteration of each instance type measured alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measured: Vec<Measured>,
    /// Plans start empty, or keep the cluster's instances (`E`).
    #[serde(default)]
    pub plan_from: PlanFrom,
    /// `T_ohd` [s]: a takeover's start-up, added to the time.
    #[serde(default = "default_overhead")]
    pub overhead_s: f64,
    /// Most workers a plan may have when `P` never reaches 1.
    #[serde(default = "default_max_workers")]
    pub max_workers: u32,
    /// Instances of the cluster revoked during the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation: Option<Revocation>,
    /// Measurements the coefficients are fitted from (`fit.rs`).
    #[serde(default, skip_serializing_if = "FitData::is_empty")]
    pub fits: FitData,
}

/// Measurements of Sec. IV "Obtaining Model Parameters": GPU memory at a
/// few batch sizes (α2, β2), cluster speeds at a few sizes (α1, β1), loss
/// traces of a few clusters (γ1..γ5). Clusters are written as plans are
/// shown, e.g. "2× p3.2xlarge + 1× g4dn.4xlarge".
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FitData {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory: Vec<MemoryPoint>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub speeds: Vec<SpeedPoint>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loss: Vec<LossPoint>,
    /// The law the loss traces are fitted to.
    #[serde(default)]
    pub form: LossForm,
}

impl FitData {
    pub fn is_empty(&self) -> bool {
        self.memory.is_empty()
            && self.speeds.is_empty()
            && self.loss.is_empty()
            && self.form == LossForm::default()
    }
}

/// One GPU's memory in use [B] at a per-GPU batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryPoint {
    pub batch: f64,
    pub bytes: f64,
}

/// A cluster's measured speed in global steps per second (`1/T_exp`,
/// TensorFlow's `global_step/sec` under ASP).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpeedPoint {
    pub cluster: String,
    pub steps_per_s: f64,
}

/// A point of a cluster's loss trace: the loss after `iteration` global
/// steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LossPoint {
    pub cluster: String,
    pub iteration: f64,
    pub loss: f64,
}

pub use crate::hardware::cluster_text::parse_cluster;

/// A measurement: the instance's iteration time alone, or "same GPU as"
/// another measured type (its `T_comp` per GPU carries over; Algorithm 1,
/// line 3 computes `T_comp` per GPU type).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub instance: String,
    /// `T_meas` [s], one worker alone with its Eq. 10 batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iteration_s: Option<f64>,
    /// Name of a measured instance type with the same GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_gpu_as: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanFrom {
    /// A new cluster (`E` empty).
    #[default]
    Empty,
    /// The cluster's workers are running and stay (`E`).
    Cluster,
}

/// Every instance of `instance` in the cluster revoked at `at_s`, when the
/// loss was `loss_now`: the takeover plan keeps the survivors, never uses
/// the revoked type again, and has `goals.time − at_s` left.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Revocation {
    pub instance: String,
    pub at_s: f64,
    pub loss_now: f64,
}

fn default_overhead() -> f64 {
    30.0
}

fn default_max_workers() -> u32 {
    256
}

impl Default for SpotDnnSettings {
    /// The defaults, as a document without the section reads.
    fn default() -> Self {
        SpotDnnSettings {
            param_bytes: None,
            req_bytes_per_s: None,
            alpha1: 0.0,
            beta1: 0.0,
            alpha2_per_byte: None,
            beta2: 0.0,
            loss: None,
            measured: Vec::new(),
            plan_from: PlanFrom::Empty,
            overhead_s: default_overhead(),
            max_workers: default_max_workers(),
            revocation: None,
            fits: FitData::default(),
        }
    }
}

/// The section as the scenario has it (defaults if absent or unreadable;
/// `validate` reports an unreadable one).
pub fn settings(s: &Scenario) -> SpotDnnSettings {
    s.section(ID).unwrap_or_default()
}

/// `S_param`: 1 kB to 1 TB, typed in MB.
pub const PARAM: Bounds = Bounds::shown(1e3, 1e12, 1e6, "MB");
/// `B_req`: 1 kB/s to 1 TB/s, typed in MB/s.
pub const REQ: Bounds = Bounds::shown(1e3, 1e12, 1e6, "MB/s");
/// `α1 ≥ 0` (P grows with the workers), `β1`, `β2`: plain numbers.
pub const ALPHA1: Bounds = Bounds::plain(0.0, 100.0);
pub const COEFF: Bounds = Bounds::plain(-1e9, 1e9);
/// `α2`: samples per byte, typed per GB.
pub const ALPHA2: Bounds = Bounds::shown(1e-15, 1e-3, 1e-9, "samples/GB");
/// A measured iteration: 1 µs to a day.
pub const ITERATION: Bounds = Bounds::shown(1e-6, 86_400.0, 1.0, "s");
/// Overhead and revocation time: 0 to 30 days.
pub const SECONDS: Bounds = Bounds::shown(0.0, 2.6e6, 1.0, "s");

/// Checks of the section, at `models.spotdnn.<field>`: ranges only. What
/// depends on other inputs (a goal at or below γ5, a negative compute
/// time) is said by the model's evaluation, so a document still loads.
pub fn validate(s: &Scenario) -> Vec<FieldError> {
    if !s.models.contains_key(ID) {
        return Vec::new();
    }
    let c: SpotDnnSettings = match s.section(ID) {
        Ok(c) => c,
        Err(e) => return vec![e],
    };
    let mut errs = Vec::new();
    let mut check = |field: &str, what: &str, b: Bounds, v: Option<f64>| {
        if let Some(m) = v.and_then(|v| b.check(what, v)) {
            errs.push(err(format!("models.{ID}.{field}"), m));
        }
    };
    check("param_bytes", "S_param", PARAM, c.param_bytes);
    check("req_bytes_per_s", "B_req", REQ, c.req_bytes_per_s);
    check("alpha1", "α1", ALPHA1, Some(c.alpha1));
    check("beta1", "β1", COEFF, Some(c.beta1));
    check("alpha2_per_byte", "α2", ALPHA2, c.alpha2_per_byte);
    check("beta2", "β2", COEFF, Some(c.beta2));
    check(
        "overhead_s",
        "revocation overhead",
        SECONDS,
        Some(c.overhead_s),
    );
    if let Some(l) = &c.loss {
        for (f, what, v) in [
            ("gamma1", "γ1", l.gamma1),
            ("gamma2", "γ2", l.gamma2),
            ("gamma3", "γ3", l.gamma3),
            ("gamma4", "γ4", l.gamma4),
            ("gamma5", "γ5", l.gamma5),
        ] {
            check(&format!("loss.{f}"), what, COEFF, Some(v));
        }
    }
    for (i, m) in c.measured.iter().enumerate() {
        check(
            &format!("measured[{i}].iteration_s"),
            &format!("{}: measured iteration time", m.instance),
            ITERATION,
            m.iteration_s,
        );
    }
    if let Some(r) = &c.revocation {
        check("revocation.at_s", "revocation time", SECONDS, Some(r.at_s));
        check(
            "revocation.loss_now",
            "loss at the revocation",
            COEFF,
            Some(r.loss_now),
        );
    }
    validate_fits(&c.fits, &mut errs);
    if c.max_workers == 0 || c.max_workers > 4096 {
        errs.push(err(
            format!("models.{ID}.max_workers"),
            format!("the worker limit must be 1-4096 (got {})", c.max_workers),
        ));
    }
    errs
}

/// A GPU's memory in use: 1 MB to 1 TB, typed in GB.
pub const MEMORY: Bounds = Bounds::shown(1e6, 1e12, 1e9, "GB");
/// A per-GPU batch: 1 to a million samples.
pub const BATCH: Bounds = Bounds::plain(1.0, 1e6);
/// A measured speed: 1e-6 to 1e6 global steps/s.
pub const SPEED: Bounds = Bounds::plain(1e-6, 1e6);
/// A loss value and a step count of a trace.
pub const LOSS: Bounds = Bounds::plain(-1e9, 1e9);
pub const STEP: Bounds = Bounds::plain(0.0, 1e15);

/// Ranges of the fit data, row by row (rows numbered from 1), each
/// message at its list so it shows beside the text it came from.
fn validate_fits(f: &FitData, errs: &mut Vec<FieldError>) {
    let mut check = |list: &str, row: usize, what: &str, b: Bounds, v: f64| {
        if let Some(m) = b.check(what, v) {
            errs.push(err(
                format!("models.{ID}.fits.{list}"),
                format!("row {row}: {m}"),
            ));
        }
    };
    for (i, p) in f.memory.iter().enumerate() {
        check("memory", i + 1, "batch per GPU", BATCH, p.batch);
        check("memory", i + 1, "GPU memory in use", MEMORY, p.bytes);
    }
    for (i, p) in f.speeds.iter().enumerate() {
        check(
            "speeds",
            i + 1,
            "speed [global steps/s]",
            SPEED,
            p.steps_per_s,
        );
    }
    for (i, p) in f.loss.iter().enumerate() {
        check("loss", i + 1, "global step", STEP, p.iteration);
        check("loss", i + 1, "loss", LOSS, p.loss);
    }
    for (list, clusters) in [
        (
            "speeds",
            f.speeds.iter().map(|p| &p.cluster).collect::<Vec<_>>(),
        ),
        ("loss", f.loss.iter().map(|p| &p.cluster).collect()),
    ] {
        for (i, c) in clusters.into_iter().enumerate() {
            if let Err(m) = parse_cluster(c) {
                errs.push(err(
                    format!("models.{ID}.fits.{list}"),
                    format!("row {}: {m}", i + 1),
                ));
            }
        }
    }
}
