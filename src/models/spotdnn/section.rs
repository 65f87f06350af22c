//! spotDNN's own inputs: its section `models.spotdnn` of the scenario.
//! The catalog (GPUs, GPU memory, PCIe as `interconnect_bytes_per_s`,
//! prices, quotas), the cluster, the PS side and the goals are shared.

use serde::{Deserialize, Serialize};

use super::{LossForm, LossLaw};
use crate::bounds::Bounds;
use crate::inputs::{check_all, NumberInput};
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

/// The section's inputs that are single numbers, as the page shows them
/// (the workload's and the plan's).
pub const WORKLOAD_INPUTS: [&NumberInput<SpotDnnSettings>; 6] = [
    &PARAM_BYTES,
    &REQ_BYTES_PER_S,
    &ALPHA1_INPUT,
    &BETA1_INPUT,
    &ALPHA2_INPUT,
    &BETA2_INPUT,
];
pub const PLAN_INPUTS: [&NumberInput<SpotDnnSettings>; 2] = [&OVERHEAD, &MAX_WORKERS];

pub const PARAM_BYTES: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.param_bytes",
    label: "S_param: bytes pushed per iteration [MB]",
    what: "S_param",
    bounds: PARAM,
    help: "",
    testid: "spotdnn-param",
    integer: false,
    may_be_empty: true,
    get: |c| c.param_bytes,
    set: |c, v| c.param_bytes = v,
};

pub const REQ_BYTES_PER_S: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.req_bytes_per_s",
    label: "B_req: one worker's bandwidth alone [MB/s]",
    what: "B_req",
    bounds: REQ,
    help: "MB/s, not Mb/s",
    testid: "spotdnn-req",
    integer: false,
    may_be_empty: true,
    get: |c| c.req_bytes_per_s,
    set: |c, v| c.req_bytes_per_s = v,
};

pub const ALPHA1_INPUT: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.alpha1",
    label: "α1: PS contention growth [–]",
    what: "α1",
    bounds: ALPHA1,
    help: "P = min(α1·√n + β1, 1) (Eq. 9); α1 = β1 = 0: no contention",
    testid: "spotdnn-alpha1",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.alpha1),
    set: |c, v| c.alpha1 = v.unwrap_or(0.0),
};

pub const BETA1_INPUT: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.beta1",
    label: "β1: PS contention offset [–]",
    what: "β1",
    bounds: COEFF,
    help: "",
    testid: "spotdnn-beta1",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.beta1),
    set: |c, v| c.beta1 = v.unwrap_or(0.0),
};

pub const ALPHA2_INPUT: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.alpha2_per_byte",
    label: "α2: batch per GPU memory [samples/GB]",
    what: "α2",
    bounds: ALPHA2,
    help: "b = 2^⌊log2(α2·mem + β2)⌋ per GPU (Eq. 10)",
    testid: "spotdnn-alpha2",
    integer: false,
    may_be_empty: true,
    get: |c| c.alpha2_per_byte,
    set: |c, v| c.alpha2_per_byte = v,
};

pub const BETA2_INPUT: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.beta2",
    label: "β2: batch offset [samples]",
    what: "β2",
    bounds: COEFF,
    help: "",
    testid: "spotdnn-beta2",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.beta2),
    set: |c, v| c.beta2 = v.unwrap_or(0.0),
};

pub const OVERHEAD: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.overhead_s",
    label: "T_ohd: revocation overhead [s]",
    what: "revocation overhead",
    bounds: SECONDS,
    help: "",
    testid: "spotdnn-overhead",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.overhead_s),
    set: |c, v| c.overhead_s = v.unwrap_or(0.0),
};

pub const MAX_WORKERS: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.max_workers",
    label: "worker limit [workers]",
    what: "the worker limit",
    bounds: Bounds::shown(1.0, 4096.0, 1.0, "workers"),
    help: "used when P never reaches 1",
    testid: "spotdnn-max-workers",
    integer: true,
    may_be_empty: false,
    get: |c| Some(f64::from(c.max_workers)),
    set: |c, v| c.max_workers = v.map_or_else(default_max_workers, |n| n as u32),
};

/// Eq. 3's coefficients, read while the section has a loss law (γ4 only
/// in the form with R).
pub const LAW_INPUTS: [&NumberInput<SpotDnnSettings>; 5] = [&GAMMA1, &GAMMA2, &GAMMA3, &GAMMA4, &GAMMA5];

pub const GAMMA1: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.loss.gamma1",
    label: "γ1: iteration offset [iterations]",
    what: "γ1",
    bounds: COEFF,
    help: "",
    testid: "spotdnn-gamma1",
    integer: false,
    may_be_empty: false,
    get: |c| c.loss.map(|l| l.gamma1),
    set: |c, v| {
        if let Some(l) = c.loss.as_mut() {
            l.gamma1 = v.unwrap_or(0.0);
        }
    },
};

pub const GAMMA2: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.loss.gamma2",
    label: "γ2: batch slope [per sample]",
    what: "γ2",
    bounds: COEFF,
    help: "",
    testid: "spotdnn-gamma2",
    integer: false,
    may_be_empty: false,
    get: |c| c.loss.map(|l| l.gamma2),
    set: |c, v| {
        if let Some(l) = c.loss.as_mut() {
            l.gamma2 = v.unwrap_or(0.0);
        }
    },
};

pub const GAMMA3: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.loss.gamma3",
    label: "γ3: numerator [–]",
    what: "γ3",
    bounds: COEFF,
    help: "",
    testid: "spotdnn-gamma3",
    integer: false,
    may_be_empty: false,
    get: |c| c.loss.map(|l| l.gamma3),
    set: |c, v| {
        if let Some(l) = c.loss.as_mut() {
            l.gamma3 = v.unwrap_or(0.0);
        }
    },
};

pub const GAMMA4: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.loss.gamma4",
    label: "γ4: added to R [–]",
    what: "γ4",
    bounds: COEFF,
    help: "",
    testid: "spotdnn-gamma4",
    integer: false,
    may_be_empty: false,
    get: |c| c.loss.map(|l| l.gamma4),
    set: |c, v| {
        if let Some(l) = c.loss.as_mut() {
            l.gamma4 = v.unwrap_or(0.0);
        }
    },
};

pub const GAMMA5: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.loss.gamma5",
    label: "γ5: loss floor [–]",
    what: "γ5",
    bounds: COEFF,
    help: "",
    testid: "spotdnn-gamma5",
    integer: false,
    may_be_empty: false,
    get: |c| c.loss.map(|l| l.gamma5),
    set: |c, v| {
        if let Some(l) = c.loss.as_mut() {
            l.gamma5 = v.unwrap_or(0.0);
        }
    },
};

/// A revocation's time and loss, read while the section has one.
pub const REVOCATION_INPUTS: [&NumberInput<SpotDnnSettings>; 2] = [&REVOKED_AT, &LOSS_AT_REVOCATION];

pub const REVOKED_AT: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.revocation.at_s",
    label: "revoked at [s]",
    what: "revocation time",
    bounds: SECONDS,
    help: "",
    testid: "spotdnn-revoked-at",
    integer: false,
    may_be_empty: false,
    get: |c| c.revocation.as_ref().map(|r| r.at_s),
    set: |c, v| {
        if let Some(r) = c.revocation.as_mut() {
            r.at_s = v.unwrap_or(0.0);
        }
    },
};

pub const LOSS_AT_REVOCATION: NumberInput<SpotDnnSettings> = NumberInput {
    path: "models.spotdnn.revocation.loss_now",
    label: "loss at the revocation [–]",
    what: "loss at the revocation",
    bounds: COEFF,
    help: "",
    testid: "spotdnn-revoked-loss",
    integer: false,
    may_be_empty: false,
    get: |c| c.revocation.as_ref().map(|r| r.loss_now),
    set: |c, v| {
        if let Some(r) = c.revocation.as_mut() {
            r.loss_now = v.unwrap_or(0.0);
        }
    },
};

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
    let mut errs = check_all(&WORKLOAD_INPUTS, &c);
    errs.extend(check_all(&LAW_INPUTS, &c));
    errs.extend(check_all(&PLAN_INPUTS, &c));
    errs.extend(check_all(&REVOCATION_INPUTS, &c));
    let mut check = |field: &str, what: &str, b: Bounds, v: Option<f64>| {
        if let Some(m) = v.and_then(|v| b.check(what, v)) {
            errs.push(err(format!("models.{ID}.{field}"), m));
        }
    };
    for (i, m) in c.measured.iter().enumerate() {
        check(
            &format!("measured[{i}].iteration_s"),
            &format!("{}: measured iteration time", m.instance),
            ITERATION,
            m.iteration_s,
        );
    }
    validate_fits(&c.fits, &mut errs);
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
