//! Li et al.'s own inputs: its section `models.li` of the scenario. The
//! PS side (count, link) and the worker (its catalog instance, batch) are
//! the shared cluster's; the layer table is the shared workload's.

use serde::{Deserialize, Serialize};

use super::profile::{Profile, MAX_OPS};
use crate::report::fmt_count;
use crate::bounds::Bounds;
use super::chrome::Mapping;
use crate::inputs::{check_all, NumberInput};
use crate::errors::err;
use crate::errors::FieldError;
use crate::scenario::Scenario;

/// Section id, and the prefix of its fields' paths.
pub const ID: &str = "li";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiSettings {
    /// A measured one-worker profile (uploaded or typed JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// A profile too large for a link, named in its place (`models::li::link`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_ref: Option<ProfileRef>,
    /// The rules the last Chrome trace was read with (the page's mapping
    /// screen); the trace itself is not kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_mapping: Option<Mapping>,
    /// Without a profile: one generated from the layer table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate: Option<Generate>,
    /// Parse overhead `α` [s/B] and `β` [s] (Sec. 3.2.1).
    #[serde(default)]
    pub alpha_s_per_byte: f64,
    #[serde(default)]
    pub beta_s: f64,
    /// Measured (bytes, seconds) pairs α and β were last fitted from, as
    /// typed (CSV), kept so the fit can be checked and redone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parse_pairs: Option<String>,
    /// The overhead occupies the receiver's compute (else a pure delay).
    #[serde(default = "yes")]
    pub parse_occupies: bool,
    /// HTTP/2 flow control on (window `window_bytes`), or off with `order`.
    #[serde(default = "yes")]
    pub flow_control: bool,
    #[serde(default = "default_window")]
    pub window_bytes: f64,
    #[serde(default)]
    pub order: StreamOrder,
    /// With flow control off, the streams `order` ranks. A section
    /// without it ranks every stream, as links made before it did.
    #[serde(default = "OrderedStreams::all")]
    pub ordered_streams: OrderedStreams,
    /// Steps per worker and the warm-up left out (l.242).
    #[serde(default = "default_steps")]
    pub steps: u32,
    #[serde(default = "default_warmup")]
    pub warmup: u32,
    /// The first seed, and how many seeds each W runs (the spread).
    #[serde(default = "one")]
    pub seed: u64,
    #[serde(default = "default_seeds")]
    pub seeds: u32,
    /// W from 1 to this.
    #[serde(default = "default_max_workers")]
    pub max_workers: u32,
    /// The W whose synthetic timeline is drawn.
    #[serde(default = "default_timeline")]
    pub timeline_workers: u32,
}

/// What a link carries instead of a profile too large for it: enough to
/// say which file to attach and to recognise it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileRef {
    pub name: String,
    pub ops: usize,
    /// `Profile::content_hash`.
    pub hash: String,
}

/// A profile built from the layer table: per layer a downlink and an
/// uplink of its weights and biases, forward and backward compute at the
/// worker's rate, and the PS update.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Generate {
    /// Share of the worker's peak the layers reach.
    #[serde(default = "default_achieved")]
    pub achieved: f64,
    /// Bytes per second the PS applies updates at.
    #[serde(default = "default_ps_rate")]
    pub ps_bytes_per_s: f64,
    /// Compute times differ between profiled steps by up to ± this share
    /// (measured steps do; with 0 all workers stay in lock-step).
    #[serde(default = "default_jitter")]
    pub jitter: f64,
    /// Profiled steps to make.
    #[serde(default = "default_profiled")]
    pub profiled_steps: u32,
    /// One op of each kind per layer, or ops and tensors as a framework's
    /// profiler records them.
    #[serde(default, skip_serializing_if = "Granularity::is_layer")]
    pub granularity: Granularity,
    /// Convolutions are followed by BatchNorm (β and moving statistics in
    /// place of a bias) and every convolution by a ReLU.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub batch_norm: bool,
    /// The worker's memory bandwidth [B/s], which times the memory-bound
    /// BatchNorm and ReLU ops.
    #[serde(
        default = "default_memory_rate",
        skip_serializing_if = "is_default_memory_rate"
    )]
    pub memory_bytes_per_s: f64,
}

/// How finely a generated profile splits a layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    /// Per layer: one downlink, forward, backward, uplink and PS update of
    /// its weights and biases together (Fig. 6).
    #[default]
    Layer,
    /// Per op, as TensorFlow's timeline shows a PS job: one tensor per
    /// variable (weights; biases, or BatchNorm's β, moving mean and moving
    /// variance), and convolution, BatchNorm and ReLU each a forward and a
    /// backward op.
    Op,
}

impl StreamOrder {
    pub fn word(self) -> &'static str {
        match self {
            StreamOrder::Profiled => "in profile order",
            StreamOrder::Reverse => "in reverse order",
            StreamOrder::Random => "in random order",
            StreamOrder::CriticalPath => "critical path first",
        }
    }
}

impl Granularity {
    fn is_layer(&self) -> bool {
        *self == Granularity::Layer
    }
}

impl Default for Generate {
    fn default() -> Self {
        Generate {
            achieved: default_achieved(),
            ps_bytes_per_s: default_ps_rate(),
            jitter: default_jitter(),
            profiled_steps: default_profiled(),
            granularity: Granularity::Layer,
            batch_norm: false,
            memory_bytes_per_s: default_memory_rate(),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamOrder {
    /// As profiled (creation order).
    #[default]
    Profiled,
    Reverse,
    /// A random order drawn from the seed.
    Random,
    /// The stream with the longest path to the step's end first.
    CriticalPath,
}

/// With flow control off, which streams the order ranks; the others are
/// served first come, first served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderedStreams {
    /// The parameter downlinks, which the paper's policies order (TicTac,
    /// Sec. 3.3, 4.2): a new scenario's choice.
    Downlinks,
    /// Every stream, uplinks too.
    All,
}

impl OrderedStreams {
    fn all() -> Self {
        OrderedStreams::All
    }

    pub fn word(self) -> &'static str {
        match self {
            OrderedStreams::Downlinks => "downlinks",
            OrderedStreams::All => "every stream",
        }
    }
}

fn yes() -> bool {
    true
}
fn one() -> u64 {
    1
}
fn default_window() -> f64 {
    28e6
}
fn default_steps() -> u32 {
    1000
}
fn default_warmup() -> u32 {
    50
}
fn default_seeds() -> u32 {
    3
}
fn default_max_workers() -> u32 {
    16
}
fn default_timeline() -> u32 {
    2
}
fn default_achieved() -> f64 {
    0.5
}
fn default_ps_rate() -> f64 {
    10e9
}
fn default_jitter() -> f64 {
    0.05
}
fn default_profiled() -> u32 {
    20
}
fn default_memory_rate() -> f64 {
    900e9
}
fn is_default_memory_rate(v: &f64) -> bool {
    *v == default_memory_rate()
}

impl Default for LiSettings {
    fn default() -> Self {
        LiSettings {
            profile: None,
            profile_ref: None,
            trace_mapping: None,
            generate: None,
            alpha_s_per_byte: 0.0,
            beta_s: 0.0,
            parse_pairs: None,
            parse_occupies: true,
            flow_control: true,
            window_bytes: default_window(),
            order: StreamOrder::Profiled,
            ordered_streams: OrderedStreams::Downlinks,
            steps: default_steps(),
            warmup: default_warmup(),
            seed: 1,
            seeds: default_seeds(),
            max_workers: default_max_workers(),
            timeline_workers: default_timeline(),
        }
    }
}

impl LiSettings {
    /// A profile read from a Chrome trace in place of any other, with the
    /// rules it was read with kept (the defaults, the first time).
    pub fn use_trace(&mut self, profile: Profile) {
        self.profile = Some(profile);
        self.profile_ref = None;
        self.trace_mapping.get_or_insert_with(Mapping::default);
    }
}

pub fn settings(s: &Scenario) -> LiSettings {
    s.section(ID).unwrap_or_default()
}

/// `α`: 0, or 10⁻⁹ ns to 1 µs per byte (typed in ns/B); `β`: 0, or 1 fs
/// to 10 s (typed in ms). The floors keep a parse op's time, which may be
/// a step's only time, away from the subnormals whose ratios overflow.
pub const ALPHA: Bounds = Bounds::shown(0.0, 1e-6, 1e-9, "ns/B").or_zero_from(1e-18);
pub const BETA: Bounds = Bounds::shown(0.0, 10.0, 1e-3, "ms").or_zero_from(1e-15);
/// HTTP/2 window: 1 kB to 10 GB, typed in MB.
pub const WINDOW: Bounds = Bounds::shown(1e3, 1e10, 1e6, "MB");
pub const STEPS: Bounds = Bounds::plain(1.0, 100_000.0);
pub const SEEDS: Bounds = Bounds::plain(1.0, 20.0);
pub const MAX_WORKERS: Bounds = Bounds::plain(1.0, 64.0);
pub const ACHIEVED: Bounds = Bounds::plain(1e-4, 1.0);
/// PS update rate: 1 MB/s to 10 TB/s, typed in GB/s.
pub const PS_RATE: Bounds = Bounds::shown(1e6, 1e13, 1e9, "GB/s");
/// Samples per step of a traced worker.
pub const TRACE_BATCH: Bounds = Bounds::plain(1.0, 1e6);
/// Steps of a trace left out as warm-up: at most a profile's steps.
pub const TRACE_WARMUP: Bounds = Bounds::plain(0.0, 10_000.0);
/// A trace's step given by hand: 0 to 10⁶ s after its first event, typed
/// in ms.
pub const TRACE_TIME: Bounds = Bounds::shown(0.0, 1e6, 1e-3, "ms");
pub const JITTER: Bounds = Bounds::plain(0.0, 0.9);
pub const PROFILED: Bounds = Bounds::plain(1.0, 1000.0);
/// Worker memory bandwidth: 1 GB/s to 100 TB/s, typed in GB/s.
pub const MEMORY_RATE: Bounds = Bounds::shown(1e9, 1e14, 1e9, "GB/s");

/// The generated profile's inputs (shown while a profile is generated).
pub const GENERATE_INPUTS: [&NumberInput<LiSettings>; 4] =
    [&GEN_ACHIEVED, &GEN_PS_RATE, &GEN_JITTER, &GEN_PROFILED_STEPS];
/// The transfers' inputs (Sec. 3.2); the window only with flow control.
pub const TRANSFER_INPUTS: [&NumberInput<LiSettings>; 2] = [&PARSE_ALPHA, &PARSE_BETA];
/// The simulation's inputs.
pub const SIMULATION_INPUTS: [&NumberInput<LiSettings>; 6] = [
    &STEPS_INPUT,
    &WARMUP,
    &MAX_WORKERS_INPUT,
    &SEEDS_INPUT,
    &FIRST_SEED,
    &TIMELINE_WORKERS,
];

/// The generated profile's value of `f`, or its default before there is one.
fn generated(c: &LiSettings, f: fn(&Generate) -> f64) -> Option<f64> {
    Some(c.generate.as_ref().map_or_else(|| f(&Generate::default()), f))
}

pub const GEN_ACHIEVED: NumberInput<LiSettings> = NumberInput {
    path: "models.li.generate.achieved",
    label: "achieved fraction of the worker's peak [–]",
    what: "achieved fraction",
    bounds: ACHIEVED,
    help: "",
    testid: "li-achieved",
    integer: false,
    may_be_empty: false,
    get: |c| generated(c, |g| g.achieved),
    set: |c, v| c.generate.get_or_insert_with(Generate::default).achieved = v.unwrap_or_else(default_achieved),
};

pub const GEN_PS_RATE: NumberInput<LiSettings> = NumberInput {
    path: "models.li.generate.ps_bytes_per_s",
    label: "PS update rate [GB/s]",
    what: "PS update rate",
    bounds: PS_RATE,
    help: "",
    testid: "li-ps-rate",
    integer: false,
    may_be_empty: false,
    get: |c| generated(c, |g| g.ps_bytes_per_s),
    set: |c, v| c.generate.get_or_insert_with(Generate::default).ps_bytes_per_s = v.unwrap_or_else(default_ps_rate),
};

pub const GEN_JITTER: NumberInput<LiSettings> = NumberInput {
    path: "models.li.generate.jitter",
    label: "compute varies between profiled steps by ± [–]",
    what: "jitter",
    bounds: JITTER,
    help: "0: every step alike, and workers that start together stay in lock-step",
    testid: "li-jitter",
    integer: false,
    may_be_empty: false,
    get: |c| generated(c, |g| g.jitter),
    set: |c, v| c.generate.get_or_insert_with(Generate::default).jitter = v.unwrap_or_else(default_jitter),
};

pub const GEN_PROFILED_STEPS: NumberInput<LiSettings> = NumberInput {
    path: "models.li.generate.profiled_steps",
    label: "profiled steps to make [–]",
    what: "profiled steps",
    bounds: PROFILED,
    help: "",
    testid: "li-profiled-steps",
    integer: true,
    may_be_empty: false,
    get: |c| generated(c, |g| f64::from(g.profiled_steps)),
    set: |c, v| c.generate.get_or_insert_with(Generate::default).profiled_steps = v.map_or_else(default_profiled, |n| n as u32),
};

pub const GEN_MEMORY_RATE: NumberInput<LiSettings> = NumberInput {
    path: "models.li.generate.memory_bytes_per_s",
    label: "worker memory bandwidth, for BatchNorm and ReLU [GB/s]",
    what: "memory bandwidth",
    bounds: MEMORY_RATE,
    help: "used per op only: BatchNorm makes 3 passes over a layer's output, ReLU 2, backward twice forward",
    testid: "li-memory-rate",
    integer: false,
    may_be_empty: false,
    get: |c| generated(c, |g| g.memory_bytes_per_s),
    set: |c, v| c.generate.get_or_insert_with(Generate::default).memory_bytes_per_s = v.unwrap_or_else(default_memory_rate),
};

pub const PARSE_ALPHA: NumberInput<LiSettings> = NumberInput {
    path: "models.li.alpha_s_per_byte",
    label: "α: parse overhead per byte [ns/B]",
    what: "α",
    bounds: ALPHA,
    help: "",
    testid: "li-alpha",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.alpha_s_per_byte),
    set: |c, v| c.alpha_s_per_byte = v.unwrap_or(0.0),
};

pub const PARSE_BETA: NumberInput<LiSettings> = NumberInput {
    path: "models.li.beta_s",
    label: "β: parse overhead per transfer [ms]",
    what: "β",
    bounds: BETA,
    help: "",
    testid: "li-beta",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.beta_s),
    set: |c, v| c.beta_s = v.unwrap_or(0.0),
};

pub const WINDOW_INPUT: NumberInput<LiSettings> = NumberInput {
    path: "models.li.window_bytes",
    label: "HTTP/2 window WIN [MB]",
    what: "HTTP/2 window",
    bounds: WINDOW,
    help: "the paper measured 28 MB on average",
    testid: "li-window",
    integer: false,
    may_be_empty: false,
    get: |c| Some(c.window_bytes),
    set: |c, v| c.window_bytes = v.unwrap_or_else(default_window),
};

pub const STEPS_INPUT: NumberInput<LiSettings> = NumberInput {
    path: "models.li.steps",
    label: "steps per worker [–]",
    what: "steps per worker",
    bounds: STEPS,
    help: "the paper: 1000",
    testid: "li-steps",
    integer: true,
    may_be_empty: false,
    get: |c| Some(f64::from(c.steps)),
    set: |c, v| c.steps = v.map_or_else(default_steps, |n| n as u32),
};

pub const WARMUP: NumberInput<LiSettings> = NumberInput {
    path: "models.li.warmup",
    label: "warm-up steps left out [–]",
    what: "warm-up steps",
    bounds: Bounds::plain(0.0, 100_000.0),
    help: "the paper: 50",
    testid: "li-warmup",
    integer: true,
    may_be_empty: false,
    get: |c| Some(f64::from(c.warmup)),
    set: |c, v| c.warmup = v.map_or_else(default_warmup, |n| n as u32),
};

pub const MAX_WORKERS_INPUT: NumberInput<LiSettings> = NumberInput {
    path: "models.li.max_workers",
    label: "most workers W [–]",
    what: "most workers",
    bounds: MAX_WORKERS,
    help: "",
    testid: "li-max-workers",
    integer: true,
    may_be_empty: false,
    get: |c| Some(f64::from(c.max_workers)),
    set: |c, v| c.max_workers = v.map_or_else(default_max_workers, |n| n as u32),
};

pub const SEEDS_INPUT: NumberInput<LiSettings> = NumberInput {
    path: "models.li.seeds",
    label: "seeds per W [–]",
    what: "seeds per W",
    bounds: SEEDS,
    help: "",
    testid: "li-seeds",
    integer: true,
    may_be_empty: false,
    get: |c| Some(f64::from(c.seeds)),
    set: |c, v| c.seeds = v.map_or_else(default_seeds, |n| n as u32),
};

pub const FIRST_SEED: NumberInput<LiSettings> = NumberInput {
    path: "models.li.seed",
    label: "first seed [–]",
    what: "the first seed",
    bounds: Bounds::plain(0.0, 4_294_967_295.0),
    help: "",
    testid: "li-seed",
    integer: true,
    may_be_empty: false,
    get: |c| Some(c.seed as f64),
    set: |c, v| c.seed = v.map_or(0, |n| n as u64),
};

pub const TIMELINE_WORKERS: NumberInput<LiSettings> = NumberInput {
    path: "models.li.timeline_workers",
    label: "workers in the timeline [–]",
    what: "workers in the timeline",
    bounds: MAX_WORKERS,
    help: "",
    testid: "li-timeline-workers",
    integer: true,
    may_be_empty: false,
    get: |c| Some(f64::from(c.timeline_workers)),
    set: |c, v| c.timeline_workers = v.map_or_else(default_timeline, |n| n as u32),
};

/// The Chrome-trace import's numeric rules, read while the section has a
/// mapping (the page reads the trace again when one changes).
pub const TRACE_INPUTS: [&NumberInput<LiSettings>; 6] = [
    &TRACE_LINK,
    &TRACE_PS_RATE,
    &TRACE_BATCH_INPUT,
    &TRACE_WARMUP_INPUT,
    &TRACE_STEP_START,
    &TRACE_STEP_END,
];

pub const TRACE_LINK: NumberInput<LiSettings> = NumberInput {
    path: "models.li.trace_mapping.assumed_bytes_per_s",
    label: "link speed the trace was taken at [Gb/s]",
    what: "link speed the trace was taken at",
    bounds: crate::hardware::NETWORK,
    help: "a transfer in the trace without a size moved its duration × this",
    testid: "li-trace-link",
    integer: false,
    may_be_empty: false,
    get: |c| c.trace_mapping.as_ref().map(|m| m.assumed_bytes_per_s),
    set: |c, v| c.trace_mapping.get_or_insert_with(Mapping::default).assumed_bytes_per_s = v.unwrap_or_else(|| Mapping::default().assumed_bytes_per_s),
};

pub const TRACE_PS_RATE: NumberInput<LiSettings> = NumberInput {
    path: "models.li.trace_mapping.ps_bytes_per_s",
    label: "PS update rate, for updates from the layer table [GB/s]",
    what: "PS update rate",
    bounds: PS_RATE,
    help: "",
    testid: "li-trace-ps-rate",
    integer: false,
    may_be_empty: false,
    get: |c| c.trace_mapping.as_ref().map(|m| m.ps_bytes_per_s),
    set: |c, v| c.trace_mapping.get_or_insert_with(Mapping::default).ps_bytes_per_s = v.unwrap_or_else(|| Mapping::default().ps_bytes_per_s),
};

pub const TRACE_BATCH_INPUT: NumberInput<LiSettings> = NumberInput {
    path: "models.li.trace_mapping.batch",
    label: "samples per step of the traced worker [samples]",
    what: "samples per step",
    bounds: TRACE_BATCH,
    help: "",
    testid: "li-trace-batch",
    integer: true,
    may_be_empty: false,
    get: |c| c.trace_mapping.as_ref().map(|m| f64::from(m.batch)),
    set: |c, v| c.trace_mapping.get_or_insert_with(Mapping::default).batch = v.map_or_else(|| Mapping::default().batch, |b| b as u32),
};

pub const TRACE_WARMUP_INPUT: NumberInput<LiSettings> = NumberInput {
    path: "models.li.trace_mapping.warmup_steps",
    label: "steps left out as warm-up [steps]",
    what: "warm-up steps",
    bounds: TRACE_WARMUP,
    help: "the first steps the markers or step ids find (CUDA's start-up, autotuning)",
    testid: "li-trace-warmup",
    integer: true,
    may_be_empty: false,
    get: |c| c.trace_mapping.as_ref().map(|m| f64::from(m.warmup_steps)),
    set: |c, v| c.trace_mapping.get_or_insert_with(Mapping::default).warmup_steps = v.map_or_else(|| Mapping::default().warmup_steps, |n| n as u32),
};

pub const TRACE_STEP_START: NumberInput<LiSettings> = NumberInput {
    path: "models.li.trace_mapping.step_start_s",
    label: "the step given by hand: start [ms]",
    what: "start of the step",
    bounds: TRACE_TIME,
    help: "after the trace's first event, as Perfetto shows it; empty: markers or step ids",
    testid: "li-trace-step-start",
    integer: false,
    may_be_empty: true,
    get: |c| c.trace_mapping.as_ref().and_then(|m| m.step_start_s),
    set: |c, v| c.trace_mapping.get_or_insert_with(Mapping::default).step_start_s = v,
};

pub const TRACE_STEP_END: NumberInput<LiSettings> = NumberInput {
    path: "models.li.trace_mapping.step_end_s",
    label: "the step given by hand: end [ms]",
    what: "end of the step",
    bounds: TRACE_TIME,
    help: "",
    testid: "li-trace-step-end",
    integer: false,
    may_be_empty: true,
    get: |c| c.trace_mapping.as_ref().and_then(|m| m.step_end_s),
    set: |c, v| c.trace_mapping.get_or_insert_with(Mapping::default).step_end_s = v,
};

/// The section's choices among words, each at its field: one it does not
/// know would otherwise stop the whole section at `models.li`.
fn choice_errors(raw: &serde_json::Value) -> Vec<FieldError> {
    fn check<T: serde::de::DeserializeOwned>(
        raw: &serde_json::Value,
        key: &str,
        what: &str,
        words: &str,
        errs: &mut Vec<FieldError>,
    ) {
        let Some(v) = raw.get(key) else { return };
        if T::deserialize(v).is_err() {
            // Cut: the value may be any JSON, however large.
            let got: String = v.to_string().chars().take(40).collect();
            errs.push(err(
                format!("models.{ID}.{key}"),
                format!("{what} must be {words} (got {got})"),
            ));
        }
    }
    let mut errs = Vec::new();
    check::<StreamOrder>(
        raw,
        "order",
        "the stream order",
        "\"profiled\", \"reverse\", \"random\" or \"critical_path\"",
        &mut errs,
    );
    check::<OrderedStreams>(
        raw,
        "ordered_streams",
        "the streams the order ranks",
        "\"downlinks\" or \"all\"",
        &mut errs,
    );
    errs
}

/// Checks of the section, at `models.li.<field>`: ranges and the profile's
/// own form (cycles, unknown ops, negative amounts).
pub fn validate(s: &Scenario) -> Vec<FieldError> {
    let Some(raw) = s.models.get(ID) else {
        return Vec::new();
    };
    let unknown = choice_errors(raw);
    if !unknown.is_empty() {
        return unknown;
    }
    let c: LiSettings = match s.section(ID) {
        Ok(c) => c,
        Err(e) => return vec![e],
    };
    // Any seed is a seed; the warm-up is checked against the steps below.
    let mut errs = check_all(
        &[
            &PARSE_ALPHA,
            &PARSE_BETA,
            &WINDOW_INPUT,
            &STEPS_INPUT,
            &SEEDS_INPUT,
            &MAX_WORKERS_INPUT,
            &TIMELINE_WORKERS,
        ],
        &c,
    );
    if c.generate.is_some() {
        errs.extend(check_all(&GENERATE_INPUTS, &c));
        errs.extend(check_all(&[&GEN_MEMORY_RATE], &c));
    }
    errs.extend(check_all(&TRACE_INPUTS, &c));
    // Both ends of a step given by hand, in order, once each is in range.
    let at = |p: &str| errs.iter().any(|e| e.field == p);
    if let Some(m) = &c.trace_mapping {
        if !at(TRACE_STEP_START.path) && !at(TRACE_STEP_END.path) {
            if let Err(e) = m.given_step() {
                let field = match m.step_end_s {
                    None => TRACE_STEP_END.path,
                    Some(_) if m.step_start_s.is_none() => TRACE_STEP_START.path,
                    Some(_) => TRACE_STEP_END.path,
                };
                errs.push(err(field, e.to_string()));
            }
        }
    }
    if c.warmup >= c.steps {
        errs.push(err(
            format!("models.{ID}.warmup"),
            format!(
                "the warm-up ({} steps) must be fewer than the steps per worker ({})",
                c.warmup, c.steps
            ),
        ));
    }
    if let Some(p) = &c.profile {
        for m in p.validate() {
            errs.push(err(format!("models.{ID}.profile"), m));
        }
    } else if let (None, Some(g)) = (&c.profile_ref, &c.generate) {
        // Counted before it is made: its amounts are profiled steps × ops.
        let ops = super::generate::count(&s.workload.network, g).ops;
        if ops > MAX_OPS {
            errs.push(err(
                "workload.network.layers",
                format!(
                    "a profile generated from these layers has {} ops per step, more than the {} Li et al. accepts: use fewer layers, or one op of each kind per layer",
                    fmt_count(ops as f64),
                    fmt_count(MAX_OPS as f64)
                ),
            ));
        }
    }
    errs
}
