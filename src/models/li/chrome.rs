//! A one-worker profile from a Chrome Trace Event file (docs/li.md,
//! "Chrome traces"): TensorFlow's timeline and PyTorch's profiler write
//! this format, plain or gzipped. Events are mapped to the model's four
//! resources by rules on their name or category; everything mapped to one
//! resource is merged into one serial lane; the trace is split into steps
//! (`chrome_steps`: a step given by hand, marker events or step ids), the
//! first ones left out as warm-up; the first step left gives the op graph
//! and every step its amounts. A trace without PS transfers takes them
//! from the layer table.
//!
//! Units: the trace's µs are read as seconds (× 1e-6); bytes, bytes/s.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::Read;

use flate2::read::GzDecoder;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

pub use super::chrome_error::TraceError;
pub use super::chrome_steps::StepSource;

use super::chrome_error::ms;
use super::chrome_steps::{find, Clues, Marker, Steps};
use super::profile::BYTES_PER_VALUE;
use super::profile::{Op, Profile, Resource, MAX_OPS};
use crate::errors::ReadError;
use crate::workload::Network;

/// The most a trace's text may be, after gzip is undone (256 MiB).
pub const MAX_TRACE_BYTES: u64 = 256 * 1024 * 1024;
/// The most events a trace may hold.
pub const MAX_EVENTS: usize = 2_000_000;

/// Where an event goes: one of the model's resources, or nowhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    Skip,
    Downlink,
    Worker,
    Uplink,
    Ps,
}

impl Target {
    pub fn resource(self) -> Option<Resource> {
        match self {
            Target::Skip => None,
            Target::Downlink => Some(Resource::Downlink),
            Target::Worker => Some(Resource::Worker),
            Target::Uplink => Some(Resource::Uplink),
            Target::Ps => Some(Resource::Ps),
        }
    }

    pub fn word(self) -> &'static str {
        self.resource().map_or("skip", Resource::word)
    }
}

/// `pattern` is looked for, ignoring case, in the event's name and in its
/// category.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    pub pattern: String,
    pub target: Target,
}

/// How a trace becomes a profile. The first rule that matches an event
/// wins; an event no rule matches goes to `default`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Mapping {
    pub rules: Vec<Rule>,
    /// Events whose name starts with this split the trace into steps;
    /// empty: none asked for (without step ids, the whole trace is one).
    pub step_marker: String,
    /// Steps left out at the start as warm-up (of steps found by markers
    /// or step ids).
    pub warmup_steps: u32,
    /// [s after the trace's first event] One step given by hand, in place
    /// of markers and step ids: both or neither.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_start_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_end_s: Option<f64>,
    pub default: Target,
    /// [B/s] The link speed the trace was taken at: a transfer without a
    /// size moved its duration × this.
    pub assumed_bytes_per_s: f64,
    /// [B/s] How fast the PS applies an update from the layer table.
    pub ps_bytes_per_s: f64,
    /// [samples] Samples per step of the traced worker.
    pub batch: u32,
}

impl Default for Mapping {
    fn default() -> Self {
        let rule = |pattern: &str, target| Rule {
            pattern: pattern.into(),
            target,
        };
        Mapping {
            rules: vec![
                // Spans that enclose the work, and would merge a whole
                // step into one op: Python frames, record_function ranges
                // (also gpu_user_annotation), step markers, Kineto's
                // whole-trace span.
                rule("python_function", Target::Skip),
                rule("user_annotation", Target::Skip),
                rule("ProfilerStep", Target::Skip),
                rule("PyTorch Profiler", Target::Skip),
                // Host calls into the CUDA runtime and driver: kernel
                // launches nested in the ops, and synchronisations, which
                // are waiting, not work.
                rule("cuda_runtime", Target::Skip),
                rule("cuda_driver", Target::Skip),
                // Collectives (all-reduce): the exchange a PS replaces.
                rule("nccl", Target::Skip),
                // TensorFlow's _Recv, _HostRecv, RecvTensor, _Send, _HostSend.
                rule("recv", Target::Downlink),
                rule("send", Target::Uplink),
            ],
            step_marker: "ProfilerStep#".into(),
            // PyTorch's first step holds CUDA's start-up and autotuning.
            warmup_steps: 1,
            step_start_s: None,
            step_end_s: None,
            default: Target::Worker,
            assumed_bytes_per_s: 1.25e9,
            ps_bytes_per_s: 10e9,
            batch: 32,
        }
    }
}

impl Mapping {
    /// The target of an event of this name and category.
    pub fn target(&self, name: &str, cat: &str) -> Target {
        self.matcher().target(name, cat)
    }

    fn matcher(&self) -> Matcher {
        Matcher {
            rules: self
                .rules
                .iter()
                .map(|r| (r.pattern.to_lowercase(), r.target))
                .collect(),
            default: self.default,
        }
    }

    fn check(&self) -> Result<(), TraceError> {
        let positive = |v: f64| v.is_finite() && v > 0.0;
        if !positive(self.assumed_bytes_per_s) {
            return Err(TraceError::LinkSpeed(self.assumed_bytes_per_s));
        }
        if !positive(self.ps_bytes_per_s) {
            return Err(TraceError::PsRate(self.ps_bytes_per_s));
        }
        if self.batch == 0 {
            return Err(TraceError::Batch);
        }
        self.given_step().map(|_| ())
    }

    /// [s] The step given by hand, if both its ends are.
    pub fn given_step(&self) -> Result<Option<(f64, f64)>, TraceError> {
        match (self.step_start_s, self.step_end_s) {
            (None, None) => Ok(None),
            (Some(start_s), Some(end_s)) => {
                if start_s.is_finite() && end_s.is_finite() && start_s >= 0.0 && end_s > start_s {
                    Ok(Some((start_s, end_s)))
                } else {
                    Err(TraceError::StepOrder { start_s, end_s })
                }
            }
            _ => Err(TraceError::StepHalf),
        }
    }
}

/// The rules with their patterns lowercased once, not per event.
struct Matcher {
    rules: Vec<(String, Target)>,
    default: Target,
}

impl Matcher {
    fn target(&self, name: &str, cat: &str) -> Target {
        let (name, cat) = (name.to_lowercase(), cat.to_lowercase());
        self.rules
            .iter()
            .find(|(p, _)| name.contains(p.as_str()) || cat.contains(p.as_str()))
            .map_or(self.default, |r| r.1)
    }
}

/// A lane (pid, tid) of the trace as imported.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LaneSummary {
    pub pid: String,
    pub tid: String,
    /// Its process and thread names from the `M` events, "process /
    /// thread"; empty if it has none.
    pub name: String,
    /// Its slices (`X` events and matched `B`/`E` pairs).
    pub events: usize,
    /// Where its slices went (a step marker counts as `skip`).
    pub targets: Vec<Target>,
    /// Why the whole lane was left out, if it was.
    pub skipped: Option<String>,
}

/// Events folded into an overlapping op on one resource, over all steps.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Merged {
    pub resource: Resource,
    pub folded: usize,
}

/// PS transfers taken from the layer table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayerTransfers {
    pub network: String,
    /// Layers with weights: one downlink, uplink and PS update each.
    pub layers: usize,
    /// [B] Bytes per step each way.
    pub bytes_per_step: f64,
}

/// What the import read, kept, merged and left out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub name: String,
    /// Entries of `traceEvents`.
    pub events: usize,
    /// Events of phases the import does not read, per phase.
    pub ignored_phases: BTreeMap<String, usize>,
    /// Lanes with slices, in order of first appearance.
    pub lanes: Vec<LaneSummary>,
    /// Slices a rule (or the default) mapped to `skip`.
    pub skipped_events: usize,
    pub step_marker: String,
    pub step_source: StepSource,
    /// Steps found (warm-up included); 0: the whole trace is one step.
    pub steps: usize,
    /// Step markers on other lanes, not used.
    pub markers_elsewhere: usize,
    /// The first steps, left out as warm-up, and their mapped events.
    pub warmup_steps: usize,
    pub warmup_events: usize,
    /// [s] From the trace's first timestamp to its last slice's end.
    pub span_s: f64,
    /// Steps with no op, left out.
    pub empty_steps: usize,
    /// Mapped slices that start outside every step, dropped.
    pub outside_steps: usize,
    /// Ops per step of the profile (layer-table transfers included).
    pub ops: usize,
    /// Profiled steps of the profile.
    pub profiled_steps: usize,
    pub merged: Vec<Merged>,
    /// Transfers whose bytes were estimated from their duration, over all
    /// steps.
    pub sizes_estimated: usize,
    /// Ops of the first step not found in a later step (counted per
    /// step): they keep the first step's amount there.
    pub missing_in_later_steps: usize,
    /// Ops of later steps not in the first step, left out.
    pub extra_in_later_steps: usize,
    /// `E` events with no open `B` on their lane.
    pub unmatched_end: usize,
    /// `B` events never closed.
    pub unclosed_begin: usize,
    /// Flow arrows (consecutive points of one flow).
    pub flows: usize,
    /// Flow arrows that became a dependency between two ops.
    pub flows_used: usize,
    pub layer_table: Option<LayerTransfers>,
}

#[derive(Clone, Debug)]
pub struct Imported {
    pub profile: Profile,
    pub summary: Summary,
}

/// A trace file's bytes as text: gzip undone (at most `MAX_TRACE_BYTES`).
pub fn read_bytes(bytes: &[u8]) -> Result<String, TraceError> {
    read_bytes_within(bytes, MAX_TRACE_BYTES)
}

/// `read_bytes` with another size limit [B].
pub fn read_bytes_within(bytes: &[u8], limit: u64) -> Result<String, TraceError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        // One byte past the limit tells a file at the limit from a larger one.
        GzDecoder::new(bytes)
            .take(limit.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(|e| TraceError::Inflate(e.to_string()))?;
        if out.len() as u64 > limit {
            return Err(TraceError::InflatesPast { limit });
        }
        return String::from_utf8(out).map_err(|e| not_utf8(e.utf8_error()));
    }
    within(bytes, limit)?;
    std::str::from_utf8(bytes)
        .map(str::to_owned)
        .map_err(not_utf8)
}

/// `read_bytes` of bytes the caller gives up: plain text becomes the
/// string without a copy (a 200 MB trace is not held twice).
pub fn read_owned(bytes: Vec<u8>) -> Result<String, ReadError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(read_bytes(&bytes)?);
    }
    within(&bytes, MAX_TRACE_BYTES)?;
    Ok(String::from_utf8(bytes).map_err(|e| not_utf8(e.utf8_error()))?)
}

fn within(bytes: &[u8], limit: u64) -> Result<(), TraceError> {
    if bytes.len() as u64 > limit {
        return Err(TraceError::TooLarge {
            bytes: bytes.len() as u64,
            limit,
        });
    }
    Ok(())
}

fn not_utf8(e: std::str::Utf8Error) -> TraceError {
    TraceError::NotText {
        offset: e.valid_up_to(),
    }
}

/// A profile of `text` (a Chrome trace) named `name` (its file name).
/// `layers` supplies the PS transfers when the trace has none.
pub fn import(
    name: &str,
    text: &str,
    mapping: &Mapping,
    layers: Option<&Network>,
) -> Result<Imported, TraceError> {
    mapping.check()?;
    let events = parse(text)?;
    let mut summary = Summary {
        name: name.to_string(),
        events: events.total,
        ignored_phases: events.ignored,
        lanes: Vec::new(),
        skipped_events: 0,
        step_marker: mapping.step_marker.clone(),
        step_source: StepSource::WholeTrace,
        steps: 0,
        markers_elsewhere: 0,
        warmup_steps: 0,
        warmup_events: 0,
        span_s: 0.0,
        empty_steps: 0,
        outside_steps: 0,
        ops: 0,
        profiled_steps: 0,
        merged: Vec::new(),
        sizes_estimated: 0,
        missing_in_later_steps: 0,
        extra_in_later_steps: 0,
        unmatched_end: 0,
        unclosed_begin: 0,
        flows: 0,
        flows_used: 0,
        layer_table: None,
    };
    let trace = read_events(events.kept, events.first_ts, &mut summary)?;
    build(name, trace, mapping, layers, summary)
}

// ---- Reading --------------------------------------------------------------

/// One event, only the fields the import reads.
#[derive(Deserialize)]
struct RawEvent {
    #[serde(default, deserialize_with = "text")]
    name: Option<String>,
    #[serde(default, deserialize_with = "text")]
    cat: Option<String>,
    #[serde(default, deserialize_with = "text")]
    ph: Option<String>,
    #[serde(default, deserialize_with = "micros")]
    ts: Option<f64>,
    #[serde(default, deserialize_with = "micros")]
    dur: Option<f64>,
    #[serde(default, deserialize_with = "text")]
    pid: Option<String>,
    #[serde(default, deserialize_with = "text")]
    tid: Option<String>,
    #[serde(default)]
    args: Option<RawArgs>,
    #[serde(default, deserialize_with = "text")]
    id: Option<String>,
    #[serde(default, deserialize_with = "text")]
    bp: Option<String>,
}

#[derive(Default, Deserialize)]
struct RawArgs {
    #[serde(default)]
    name: Option<serde_json::Value>,
    #[serde(default)]
    tensor: Option<serde_json::Value>,
    #[serde(default)]
    bytes: Option<serde_json::Value>,
    #[serde(default)]
    size: Option<serde_json::Value>,
    #[serde(default)]
    num_bytes: Option<serde_json::Value>,
    #[serde(default, rename = "Bytes")]
    bytes_title: Option<serde_json::Value>,
    /// TensorFlow's profiler: the step an event belongs to, and the step
    /// number its step's root event carries.
    #[serde(default)]
    group_id: Option<serde_json::Value>,
    #[serde(default)]
    step_num: Option<serde_json::Value>,
}

/// What an event's args give the import.
#[derive(Clone, Default)]
struct Info {
    name: Option<String>,
    tensor: Option<String>,
    bytes: Option<f64>,
    /// Its step id: `group_id`, else `step_num`.
    step: Option<String>,
    /// It carries `step_num`: its step's root, which spans the step.
    step_root: bool,
}

impl Info {
    fn from(a: Option<RawArgs>) -> Info {
        let Some(a) = a else {
            return Info::default();
        };
        let string = |v: &Option<serde_json::Value>| v.as_ref()?.as_str().map(str::to_owned);
        let bytes = [&a.bytes, &a.size, &a.num_bytes, &a.bytes_title]
            .into_iter()
            .filter_map(|v| v.as_ref()?.as_f64())
            .find(|b| b.is_finite() && *b >= 0.0);
        // Written as a number or a string.
        let id = |v: &Option<serde_json::Value>| match v.as_ref()? {
            serde_json::Value::String(s) => Some(s.trim().to_string()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        let step_num = id(&a.step_num);
        Info {
            name: string(&a.name),
            tensor: string(&a.tensor),
            bytes,
            step_root: step_num.is_some(),
            step: id(&a.group_id).or(step_num),
        }
    }

    /// `B`'s args, completed by its `E`'s (Chrome merges the two).
    fn or(self, e: Info) -> Info {
        Info {
            name: self.name.or(e.name),
            tensor: self.tensor.or(e.tensor),
            bytes: self.bytes.or(e.bytes),
            step_root: self.step_root || e.step_root,
            step: self.step.or(e.step),
        }
    }
}

/// A JSON scalar of an event field: writers differ on whether pid, tid,
/// id, ts and dur are numbers or strings.
enum Scalar {
    // Integers apart from floats, so a large id keeps every digit as text.
    Int(i64),
    UInt(u64),
    Float(f64),
    Bool(bool),
    Text(String),
}

/// A scalar, or `None` for null. `expected` names the field in errors.
fn scalar<'de, D: Deserializer<'de>>(
    d: D,
    expected: &'static str,
) -> Result<Option<Scalar>, D::Error> {
    // A visitor, not `#[serde(untagged)]`: that would buffer every field of
    // every event and lose the per-field "expected" in errors.
    struct V(&'static str);
    impl<'de> Visitor<'de> for V {
        type Value = Option<Scalar>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(Some(Scalar::Bool(v)))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(Scalar::Int(v)))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(Scalar::UInt(v)))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(Scalar::Float(v)))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(Scalar::Text(v.to_owned())))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok(Some(Scalar::Text(v)))
        }
    }
    d.deserialize_any(V(expected))
}

/// A number or a string, as text (pid, tid, id, names).
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(scalar(d, "a number or a string")?.map(|s| match s {
        Scalar::Int(v) => v.to_string(),
        Scalar::UInt(v) => v.to_string(),
        Scalar::Float(v) => v.to_string(),
        Scalar::Bool(v) => v.to_string(),
        Scalar::Text(v) => v,
    }))
}

/// A time [µs]: a number, or a string holding one.
fn micros<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    const EXPECTED: &str = "a number of µs";
    let Some(s) = scalar(d, EXPECTED)? else {
        return Ok(None);
    };
    match s {
        Scalar::Int(v) => Ok(Some(v as f64)),
        Scalar::UInt(v) => Ok(Some(v as f64)),
        Scalar::Float(v) => Ok(Some(v)),
        Scalar::Bool(v) => Err(de::Error::invalid_type(de::Unexpected::Bool(v), &EXPECTED)),
        Scalar::Text(v) => v
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .map(Some)
            .ok_or_else(|| de::Error::custom(format!("'{v}' is not a number of µs"))),
    }
}

/// `traceEvents` as read: the events the import uses, each with its index
/// in the file; the others (counter samples, memory snapshots…) only
/// counted by phase as they stream past, so a trace that is mostly such
/// samples costs no memory for them. Refused past `MAX_EVENTS` kept events
/// (the file's size bounds the rest).
#[derive(Default)]
struct Events {
    kept: Vec<(usize, RawEvent)>,
    ignored: BTreeMap<String, usize>,
    total: usize,
    /// [µs] The earliest `ts` of an event other than metadata: where
    /// Perfetto's and chrome://tracing's timelines start.
    first_ts: Option<f64>,
}

/// Phases the import reads: complete, begin/end and flow events, metadata.
fn used_phase(ph: &str) -> bool {
    matches!(ph, "X" | "B" | "E" | "s" | "t" | "f" | "M")
}

impl<'de> Deserialize<'de> for Events {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Events;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of trace events")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Events, A::Error> {
                let mut ev = Events::default();
                while let Some(e) = seq.next_element::<RawEvent>()? {
                    let ph = e.ph.as_deref().unwrap_or_default();
                    if let Some(ts) = e.ts.filter(|t| t.is_finite() && ph != "M") {
                        ev.first_ts = Some(ev.first_ts.map_or(ts, |f: f64| f.min(ts)));
                    }
                    if used_phase(ph) {
                        if ev.kept.len() == MAX_EVENTS {
                            return Err(de::Error::custom(format!(
                                "more than {MAX_EVENTS} events the import reads (complete, begin, end, flow, metadata), the most a trace may have"
                            )));
                        }
                        ev.kept.push((ev.total, e));
                    } else {
                        let key = if ph.is_empty() { "(none)" } else { ph };
                        *ev.ignored.entry(key.to_string()).or_insert(0) += 1;
                    }
                    ev.total += 1;
                }
                Ok(ev)
            }
        }
        d.deserialize_seq(V)
    }
}

#[derive(Deserialize)]
struct Document {
    #[serde(rename = "traceEvents")]
    trace_events: Option<Events>,
}

/// The events of `{"traceEvents": [...]}` or of a bare array (whose
/// closing `]` the format lets a writer leave out).
fn parse(text: &str) -> Result<Events, TraceError> {
    let t = text.trim_start_matches('\u{feff}').trim();
    let bad = |e: serde_json::Error| TraceError::Json(e.to_string());
    if t.starts_with('[') {
        let events: Events = if t.ends_with(']') {
            serde_json::from_str(t).map_err(bad)?
        } else {
            let closed = format!("{}]", t.trim_end_matches(',').trim_end());
            serde_json::from_str(&closed).map_err(bad)?
        };
        return Ok(events);
    }
    let doc: Document = serde_json::from_str(t).map_err(bad)?;
    doc.trace_events.ok_or(TraceError::NoEvents)
}

/// A span of time on one lane: an `X` event or a `B`/`E` pair.
struct Slice {
    lane: usize,
    /// Its place in the file, for ties.
    order: usize,
    name: String,
    cat: String,
    ts: f64,
    end: f64,
    info: Info,
}

struct FlowPoint {
    key: (String, String),
    /// `s`, `t` or `f`.
    ph: u8,
    lane: usize,
    ts: f64,
    order: usize,
    /// Binds to the slice around it, not the next one.
    enclosing: bool,
}

struct Lane {
    pid: String,
    tid: String,
    slices: usize,
}

struct Trace {
    /// [µs] Its first timestamp (0 if it has none).
    origin: f64,
    lanes: Vec<Lane>,
    /// Per lane: its name, and why it is skipped, if it is.
    names: Vec<String>,
    skipped: Vec<Option<String>>,
    slices: Vec<Slice>,
    flows: Vec<FlowPoint>,
}

/// A `B` or `E` before matching.
struct Edge {
    ts: f64,
    order: usize,
    begin: bool,
    name: String,
    cat: String,
    info: Info,
}

fn read_events(
    events: Vec<(usize, RawEvent)>,
    first_ts: Option<f64>,
    summary: &mut Summary,
) -> Result<Trace, TraceError> {
    let mut lane_ix: HashMap<(String, String), usize> = HashMap::new();
    let mut lanes: Vec<Lane> = Vec::new();
    let mut edges: Vec<Vec<Edge>> = Vec::new();
    let mut slices = Vec::new();
    let mut flows = Vec::new();
    let mut process_names: HashMap<String, String> = HashMap::new();
    let mut thread_names: HashMap<(String, String), String> = HashMap::new();
    for (i, e) in events {
        let ph = e.ph.unwrap_or_default();
        let name = e.name.unwrap_or_default();
        let pid = e.pid.unwrap_or_default();
        let tid = e.tid.unwrap_or_default();
        let what = || format!("traceEvents[{i}] '{name}' (ph {ph})");
        match ph.as_str() {
            "X" | "B" | "E" | "s" | "t" | "f" => {}
            "M" => {
                let label = Info::from(e.args).name.unwrap_or_default();
                match name.as_str() {
                    "process_name" => {
                        process_names.insert(pid, label);
                    }
                    "thread_name" => {
                        thread_names.insert((pid, tid), label);
                    }
                    _ => {}
                }
                continue;
            }
            // `parse` kept no other phase.
            _ => continue,
        }
        let start = match e.ts {
            Some(t) if t.is_finite() => t,
            _ => return Err(TraceError::NoTs { event: what() }),
        };
        let key = (pid, tid);
        let lane = match lane_ix.get(&key) {
            Some(&l) => l,
            None => {
                lane_ix.insert(key.clone(), lanes.len());
                lanes.push(Lane {
                    pid: key.0,
                    tid: key.1,
                    slices: 0,
                });
                edges.push(Vec::new());
                lanes.len() - 1
            }
        };
        let cat = e.cat.unwrap_or_default();
        match ph.as_str() {
            "X" => {
                let dur = match e.dur {
                    Some(d) if d.is_finite() && d >= 0.0 => d,
                    Some(dur) => return Err(TraceError::NegativeDur { event: what(), dur }),
                    None => return Err(TraceError::NoDur { event: what() }),
                };
                lanes[lane].slices += 1;
                slices.push(Slice {
                    lane,
                    order: i,
                    name,
                    cat,
                    ts: start,
                    end: start + dur,
                    info: Info::from(e.args),
                });
            }
            "B" | "E" => edges[lane].push(Edge {
                ts: start,
                order: i,
                begin: ph == "B",
                name,
                cat,
                info: Info::from(e.args),
            }),
            _ => flows.push(FlowPoint {
                key: (cat, e.id.unwrap_or_default()),
                ph: ph.as_bytes().first().copied().unwrap_or(b's'),
                lane,
                ts: start,
                order: i,
                enclosing: ph != "f" || e.bp.as_deref() == Some("e"),
            }),
        }
    }
    // B/E pairs nest per lane, in time order.
    for (lane, mut es) in edges.into_iter().enumerate() {
        es.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(a.order.cmp(&b.order)));
        let mut open: Vec<Edge> = Vec::new();
        for e in es {
            if e.begin {
                open.push(e);
                continue;
            }
            let Some(b) = open.pop() else {
                summary.unmatched_end += 1;
                continue;
            };
            lanes[lane].slices += 1;
            slices.push(Slice {
                lane,
                order: b.order,
                name: b.name,
                cat: b.cat,
                ts: b.ts,
                end: e.ts,
                info: b.info.or(e.info),
            });
        }
        summary.unclosed_begin += open.len();
    }
    let mut names = Vec::new();
    let mut skipped = Vec::new();
    for l in &lanes {
        let p = process_names.get(&l.pid);
        let t = thread_names.get(&(l.pid.clone(), l.tid.clone()));
        let name = match (p, t) {
            (Some(p), Some(t)) => format!("{p} / {t}"),
            (Some(x), None) | (None, Some(x)) => x.clone(),
            (None, None) => String::new(),
        };
        let duplicate = [p, t]
            .into_iter()
            .flatten()
            .any(|n| n.to_lowercase().contains("stream:all"));
        skipped.push(
            duplicate.then(|| "TensorFlow's copy of its per-stream lanes (stream:all)".to_string()),
        );
        names.push(name);
    }
    Ok(Trace {
        origin: first_ts.unwrap_or(0.0),
        lanes,
        names,
        skipped,
        slices,
        flows,
    })
}

// ---- Building the profile -------------------------------------------------

/// One op of a step: events of one resource merged while they overlap.
struct StepOp {
    resource: Resource,
    name: String,
    tensor: Option<String>,
    lane: usize,
    order: usize,
    start: f64,
    end: f64,
    /// The sum of the events' sizes, if every event has one.
    bytes: Option<f64>,
    members: Vec<usize>,
}

fn rank(r: Resource) -> usize {
    match r {
        Resource::Downlink => 0,
        Resource::Worker => 1,
        Resource::Uplink => 2,
        Resource::Ps => 3,
    }
}

const RESOURCES: [Resource; 4] = [
    Resource::Downlink,
    Resource::Worker,
    Resource::Uplink,
    Resource::Ps,
];

/// The mapped slices of each step left after the warm-up, per resource
/// (in `RESOURCES` order); the lanes, markers and steps counted in
/// `summary`.
fn step_groups(
    name: &str,
    trace: &Trace,
    mapping: &Mapping,
    summary: &mut Summary,
) -> Result<Vec<Vec<Vec<usize>>>, TraceError> {
    let Trace {
        origin,
        lanes,
        names,
        skipped,
        slices,
        ..
    } = trace;
    // Each slice: a step marker (by name, or TensorFlow's step root), or a
    // target.
    let marker = &mapping.step_marker;
    let matcher = mapping.matcher();
    let mut lane_targets: Vec<Vec<Target>> = vec![Vec::new(); lanes.len()];
    let mut markers: Vec<Marker> = Vec::new();
    let mut ids: Vec<(&str, f64, f64)> = Vec::new();
    let mut mapped: Vec<(usize, Resource)> = Vec::new();
    let mut last_end = *origin;
    for (s, sl) in slices.iter().enumerate() {
        if skipped[sl.lane].is_some() {
            continue;
        }
        last_end = last_end.max(sl.end);
        if let Some(id) = &sl.info.step {
            ids.push((id, sl.ts, sl.end));
        }
        let target = if !marker.is_empty() && sl.name.starts_with(marker.as_str()) {
            markers.push(Marker {
                start: sl.ts,
                end: sl.end,
                lane: sl.lane,
            });
            Target::Skip
        } else if sl.info.step_root {
            Target::Skip
        } else {
            let t = matcher.target(&sl.name, &sl.cat);
            match t.resource() {
                Some(r) => mapped.push((s, r)),
                None => summary.skipped_events += 1,
            }
            t
        };
        if !lane_targets[sl.lane].contains(&target) {
            lane_targets[sl.lane].push(target);
        }
    }
    for (i, l) in lanes.iter().enumerate().filter(|(_, l)| l.slices > 0) {
        let mut targets = std::mem::take(&mut lane_targets[i]);
        targets.sort_by_key(|t| *t as usize);
        summary.lanes.push(LaneSummary {
            pid: l.pid.clone(),
            tid: l.tid.clone(),
            name: names[i].clone(),
            events: l.slices,
            targets,
            skipped: skipped[i].clone(),
        });
    }
    summary.span_s = (last_end - origin) / 1e6;
    let steps = find(
        mapping,
        Clues {
            name,
            markers,
            ids,
            origin: *origin,
            span_s: summary.span_s,
        },
    )?;
    summary.step_source = steps.source.clone();
    summary.steps = steps.found();
    summary.markers_elsewhere = steps.markers_elsewhere;
    if let StepSource::Given { start_s, end_s } = steps.source {
        let starts_in = |sl: &Slice| skipped[sl.lane].is_none() && steps.of(sl.ts, None).is_some();
        if !slices.iter().any(starts_in) {
            return Err(TraceError::EmptyStep {
                name: name.to_string(),
                start_s,
                end_s,
                span_s: summary.span_s,
            });
        }
    }
    Ok(assign(&steps, slices, &mapped, summary))
}

/// `mapped` slices into their steps, the warm-up's dropped and counted.
fn assign(
    steps: &Steps,
    slices: &[Slice],
    mapped: &[(usize, Resource)],
    summary: &mut Summary,
) -> Vec<Vec<Vec<usize>>> {
    let mut per_step: Vec<Vec<Vec<usize>>> = vec![vec![Vec::new(); 4]; steps.len()];
    for &(s, r) in mapped {
        let sl = &slices[s];
        match steps.of(sl.ts, sl.info.step.as_deref()) {
            Some(k) if k < steps.warmup => summary.warmup_events += 1,
            Some(k) => per_step[k][rank(r)].push(s),
            None => summary.outside_steps += 1,
        }
    }
    summary.warmup_steps = steps.warmup;
    per_step.drain(..steps.warmup);
    per_step
}

fn build(
    name: &str,
    trace: Trace,
    mapping: &Mapping,
    layers: Option<&Network>,
    mut summary: Summary,
) -> Result<Imported, TraceError> {
    let per_step = step_groups(name, &trace, mapping, &mut summary)?;
    let Trace { slices, flows, lanes, .. } = trace;

    // Merge per step and resource; order ops by start, resource, lane.
    let mut folded = [0usize; 4];
    let mut steps: Vec<Vec<StepOp>> = Vec::new();
    for groups in per_step {
        let mut ops: Vec<StepOp> = Vec::new();
        for (ri, mut group) in groups.into_iter().enumerate() {
            crate::order::sort_positions(&mut group, &|a, b| {
                let (a, b) = (&slices[a], &slices[b]);
                a.ts.total_cmp(&b.ts)
                    .then(a.lane.cmp(&b.lane))
                    .then(a.order.cmp(&b.order))
            });
            let resource = RESOURCES[ri];
            let mut merged: Vec<StepOp> = Vec::new();
            for s in group {
                let sl = &slices[s];
                if let Some(cur) = merged.last_mut().filter(|cur| sl.ts < cur.end) {
                    cur.end = cur.end.max(sl.end);
                    cur.bytes = cur.bytes.zip(sl.info.bytes).map(|(a, b)| a + b);
                    cur.members.push(s);
                    folded[ri] += 1;
                    continue;
                }
                // Transfers and PS updates name their variable.
                let tensor = (resource != Resource::Worker).then(|| {
                    sl.info
                        .tensor
                        .clone()
                        .or_else(|| sl.info.name.clone())
                        .unwrap_or_else(|| sl.name.clone())
                });
                merged.push(StepOp {
                    resource,
                    name: sl.name.clone(),
                    tensor,
                    lane: sl.lane,
                    order: sl.order,
                    start: sl.ts,
                    end: sl.end,
                    bytes: sl.info.bytes,
                    members: vec![s],
                });
            }
            ops.append(&mut merged);
        }
        if ops.is_empty() {
            summary.empty_steps += 1;
            continue;
        }
        crate::order::sort_by(&mut ops, |a, b| {
            a.start
                .total_cmp(&b.start)
                .then(rank(a.resource).cmp(&rank(b.resource)))
                .then(a.lane.cmp(&b.lane))
                .then(a.order.cmp(&b.order))
        });
        steps.push(ops);
    }
    summary.merged = RESOURCES
        .iter()
        .zip(folded)
        .filter(|(_, n)| *n > 0)
        .map(|(&resource, folded)| Merged { resource, folded })
        .collect();
    let Some(first) = steps.first() else {
        return Err(TraceError::NothingMapped {
            name: name.to_string(),
            within: match summary.step_source {
                StepSource::WholeTrace => "",
                StepSource::Markers => " inside a step marker",
                StepSource::Given { .. } | StepSource::Ids => " inside a step",
            },
            skipped: summary.skipped_events,
            slices: slices.len(),
            outside: summary.outside_steps,
        });
    };
    // Amounts: seconds, or bytes (given, else duration × the link speed).
    let mut estimated = 0usize;
    let mut amount = |o: &StepOp| -> f64 {
        let seconds = (o.end - o.start) / 1e6;
        if !o.resource.is_link() {
            return seconds;
        }
        o.bytes.unwrap_or_else(|| {
            estimated += 1;
            seconds * mapping.assumed_bytes_per_s
        })
    };
    let key = |o: &StepOp, seen: &mut HashMap<(Resource, String), usize>| {
        let n = seen.entry((o.resource, o.name.clone())).or_insert(0);
        *n += 1;
        (o.resource, o.name.clone(), *n - 1)
    };
    let mut seen = HashMap::new();
    let keys: Vec<(Resource, String, usize)> = first.iter().map(|o| key(o, &mut seen)).collect();
    let mut rows: Vec<Vec<f64>> = vec![first.iter().map(&mut amount).collect()];
    for later in &steps[1..] {
        let mut seen = HashMap::new();
        let mut found: HashMap<(Resource, String, usize), f64> = HashMap::new();
        for o in later {
            let k = key(o, &mut seen);
            let a = amount(o);
            found.insert(k, a);
        }
        let row: Vec<f64> = keys
            .iter()
            .zip(&rows[0])
            .map(|(k, &a0)| match found.remove(k) {
                Some(a) => a,
                None => {
                    summary.missing_in_later_steps += 1;
                    a0
                }
            })
            .collect();
        summary.extra_in_later_steps += found.len();
        rows.push(row);
    }
    summary.sizes_estimated = estimated;
    let deps = dependencies(first, &slices, &flows, lanes.len(), &mut summary);
    let mut ops: Vec<Op> = first
        .iter()
        .zip(deps)
        .map(|(o, deps)| Op {
            name: o.name.clone(),
            resource: o.resource,
            deps,
            tensor: o.tensor.clone(),
        })
        .collect();
    if !ops.iter().any(|o| o.resource.is_link()) {
        let net = layers.filter(|n| n.layers.iter().any(|l| l.weights() > 0));
        let Some(net) = net else {
            return Err(TraceError::NoTransfers {
                name: name.to_string(),
            });
        };
        (ops, rows) = add_layer_transfers(ops, rows, net, mapping, &mut summary);
    }
    if ops.len() > MAX_OPS {
        return Err(TraceError::TooManyOps {
            name: name.to_string(),
            ops: ops.len(),
        });
    }
    summary.ops = ops.len();
    summary.profiled_steps = rows.len();
    let profile = Profile {
        name: name.to_string(),
        batch: mapping.batch,
        ops,
        steps: rows,
    };
    if let Some(problem) = profile.validate().into_iter().next() {
        return Err(TraceError::Invalid {
            name: name.to_string(),
            problem,
        });
    }
    Ok(Imported { profile, summary })
}

/// Each op waits for the op before it on its resource, for the last op of
/// every other resource that ended by its start, and for the ops flow
/// arrows point from. Ops are in start order, so every dependency is an
/// earlier op: no cycles.
fn dependencies(
    ops: &[StepOp],
    slices: &[Slice],
    flows: &[FlowPoint],
    lanes: usize,
    summary: &mut Summary,
) -> Vec<Vec<u32>> {
    let mut deps: Vec<Vec<u32>> = vec![Vec::new(); ops.len()];
    // Ops of one resource are disjoint and in order, so their ends rise.
    let mut done: [Vec<(f64, usize)>; 4] = Default::default();
    for (i, o) in ops.iter().enumerate() {
        let r = rank(o.resource);
        if let Some(&(_, p)) = done[r].last() {
            deps[i].push(p as u32);
        }
        for (q, list) in done.iter().enumerate() {
            if q == r {
                continue;
            }
            let k = list.partition_point(|&(end, _)| end <= o.start);
            if k > 0 {
                deps[i].push(list[k - 1].1 as u32);
            }
        }
        done[r].push((o.end, i));
    }
    // Flows bind to the first step's slices, per lane, by start.
    let mut by_lane: Vec<Vec<(f64, f64, usize)>> = vec![Vec::new(); lanes];
    for (i, o) in ops.iter().enumerate() {
        for &s in &o.members {
            by_lane[slices[s].lane].push((slices[s].ts, slices[s].end, i));
        }
    }
    let reach: Vec<Vec<f64>> = by_lane
        .iter_mut()
        .map(|v| {
            crate::order::sort_by(v, |a, b| a.0.total_cmp(&b.0));
            let mut most = f64::NEG_INFINITY;
            v.iter()
                .map(|x| {
                    most = most.max(x.1);
                    most
                })
                .collect()
        })
        .collect();
    let bind = |p: &FlowPoint| -> Option<usize> {
        let v = &by_lane[p.lane];
        if p.enclosing {
            // The innermost slice around ts: the latest-starting one.
            let k = v.partition_point(|x| x.0 <= p.ts);
            (0..k)
                .rev()
                .take_while(|&j| reach[p.lane][j] >= p.ts)
                .find(|&j| v[j].1 >= p.ts)
                .map(|j| v[j].2)
        } else {
            let k = v.partition_point(|x| x.0 < p.ts);
            v.get(k).map(|x| x.2)
        }
    };
    let mut order: Vec<&FlowPoint> = flows.iter().collect();
    order.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(a.order.cmp(&b.order)));
    let mut open: HashMap<&(String, String), Option<usize>> = HashMap::new();
    for p in order {
        let here = bind(p);
        if p.ph == b's' {
            open.insert(&p.key, here);
            continue;
        }
        let Some(from) = open.get(&p.key).copied() else {
            continue;
        };
        summary.flows += 1;
        if let (Some(a), Some(b)) = (from, here) {
            if a < b {
                deps[b].push(a as u32);
                summary.flows_used += 1;
            }
        }
        if p.ph == b'f' {
            open.remove(&p.key);
        } else {
            open.insert(&p.key, here);
        }
    }
    for d in &mut deps {
        d.sort_unstable();
        d.dedup();
    }
    deps
}

/// Per layer with weights: a downlink of its weights and biases the first
/// compute op waits for, and after the last compute op an uplink of the
/// same bytes and its PS update, in backward (reverse) order.
fn add_layer_transfers(
    trace_ops: Vec<Op>,
    trace_rows: Vec<Vec<f64>>,
    net: &Network,
    mapping: &Mapping,
    summary: &mut Summary,
) -> (Vec<Op>, Vec<Vec<f64>>) {
    let layers: Vec<(&str, f64)> = net
        .layers
        .iter()
        .filter(|l| l.weights() > 0)
        .map(|l| {
            let values = l.weights().saturating_add(l.biases());
            (l.name.as_str(), values as f64 * BYTES_PER_VALUE)
        })
        .collect();
    let n = layers.len();
    let shift = n as u32;
    let compute: Vec<usize> = (0..trace_ops.len())
        .filter(|&i| trace_ops[i].resource == Resource::Worker)
        .collect();
    let first = compute.first().copied().unwrap_or(0);
    let last = compute
        .last()
        .copied()
        .unwrap_or(trace_ops.len().saturating_sub(1));
    let op = |name: String, resource, deps, tensor: &str| Op {
        name,
        resource,
        deps,
        tensor: Some(tensor.to_string()),
    };
    let mut ops: Vec<Op> = layers
        .iter()
        .map(|(l, _)| op(format!("recv {l}"), Resource::Downlink, vec![], l))
        .collect();
    for (i, mut o) in trace_ops.into_iter().enumerate() {
        o.deps.iter_mut().for_each(|d| *d += shift);
        if i == first {
            o.deps.splice(0..0, 0..shift);
        }
        ops.push(o);
    }
    let end = last as u32 + shift;
    let mut tail = Vec::new();
    for (l, bytes) in layers.iter().rev() {
        let send = ops.len() as u32;
        ops.push(op(format!("send {l}"), Resource::Uplink, vec![end], l));
        ops.push(op(format!("apply {l}"), Resource::Ps, vec![send], l));
        tail.extend([*bytes, bytes / mapping.ps_bytes_per_s]);
    }
    let head: Vec<f64> = layers.iter().map(|(_, b)| *b).collect();
    let rows = trace_rows
        .into_iter()
        .map(|r| {
            let mut row = head.clone();
            row.extend(r);
            row.extend(&tail);
            row
        })
        .collect();
    summary.layer_table = Some(LayerTransfers {
        network: net.name.clone(),
        layers: n,
        bytes_per_step: head.iter().sum(),
    });
    (ops, rows)
}

// ---- Sentences --------------------------------------------------------------

/// Said of a profile of one step, in the import's summary and the report.
pub const SINGLE_STEP: &str = "The profile holds a single step: every simulated worker repeats it, so the workers stay in lock-step; a profile of more steps (a trace of more steps after its warm-up) gives them the spread measured steps have.";

impl Summary {
    /// What the import did, one sentence a line, for the page.
    pub fn lines(&self) -> Vec<String> {
        let mut v = Vec::new();
        v.push(format!(
            "Read {} events from '{}': {} ops per step, {} profiled step{}.",
            self.events,
            self.name,
            self.ops,
            self.profiled_steps,
            if self.profiled_steps == 1 { "" } else { "s" }
        ));
        let span = ms(self.span_s);
        match &self.step_source {
            StepSource::WholeTrace => v.push(format!(
                "No step marker: the whole trace ({span} ms) is one step, start-up and warm-up included."
            )),
            StepSource::Given { start_s, end_s } => v.push(format!(
                "The step given: {} to {} ms of the trace ({span} ms after its first event).",
                ms(*start_s),
                ms(*end_s)
            )),
            StepSource::Markers => v.push(format!(
                "{} steps found at '{}' markers; the first step with ops gives the op graph.",
                self.steps, self.step_marker
            )),
            StepSource::Ids => v.push(format!(
                "{} steps found by their step ids (args group_id, step_num); the first step with ops gives the op graph.",
                self.steps
            )),
        }
        if self.warmup_steps > 0 {
            v.push(format!(
                "The first {} left out as warm-up ({} events).",
                if self.warmup_steps == 1 {
                    "step was".to_string()
                } else {
                    format!("{} steps were", self.warmup_steps)
                },
                self.warmup_events
            ));
        }
        if self.profiled_steps == 1 {
            v.push(SINGLE_STEP.to_string());
        }
        if self.markers_elsewhere > 0 {
            v.push(format!(
                "{} step markers on other lanes were not used.",
                self.markers_elsewhere
            ));
        }
        if self.empty_steps > 0 {
            v.push(format!(
                "{} steps held no op and were left out.",
                self.empty_steps
            ));
        }
        if self.outside_steps > 0 {
            v.push(format!(
                "{} events started outside every step and were dropped.",
                self.outside_steps
            ));
        }
        if !self.ignored_phases.is_empty() {
            let parts: Vec<String> = self
                .ignored_phases
                .iter()
                .map(|(ph, n)| format!("{n} of phase '{ph}'"))
                .collect();
            v.push(format!("Events not read: {}.", parts.join(", ")));
        }
        for l in &self.lanes {
            let name = if l.name.is_empty() {
                format!("pid {}, tid {}", l.pid, l.tid)
            } else {
                format!("'{}' (pid {}, tid {})", l.name, l.pid, l.tid)
            };
            match &l.skipped {
                Some(why) => v.push(format!("Lane {name}: {} events, skipped: {why}.", l.events)),
                None => {
                    let to: Vec<&str> = l.targets.iter().map(|t| t.word()).collect();
                    v.push(format!(
                        "Lane {name}: {} events → {}.",
                        l.events,
                        to.join(", ")
                    ));
                }
            }
        }
        if self.skipped_events > 0 {
            v.push(format!(
                "{} events were skipped by the rules.",
                self.skipped_events
            ));
        }
        for m in &self.merged {
            v.push(format!(
                "{}: {} overlapping events were folded into the op they overlap (the resource is serial).",
                m.resource.word(),
                m.folded
            ));
        }
        if self.sizes_estimated > 0 {
            v.push(format!(
                "{} transfers had no size in their args (bytes, size, num_bytes, Bytes): \
                 their bytes are their duration × the link speed the trace was taken at.",
                self.sizes_estimated
            ));
        }
        if self.missing_in_later_steps > 0 {
            v.push(format!(
                "{} ops of the first step were missing in a later step and keep the first step's amount there.",
                self.missing_in_later_steps
            ));
        }
        if self.extra_in_later_steps > 0 {
            v.push(format!(
                "{} ops of later steps are not in the first step and were left out.",
                self.extra_in_later_steps
            ));
        }
        if self.unmatched_end > 0 || self.unclosed_begin > 0 {
            v.push(format!(
                "{} E events without a B and {} B events without an E were ignored.",
                self.unmatched_end, self.unclosed_begin
            ));
        }
        if self.flows > 0 {
            v.push(format!(
                "{} of {} flow arrows became dependencies (the others bind to skipped, \
                 merged or dropped events, or point back in time).",
                self.flows_used, self.flows
            ));
        }
        if let Some(t) = &self.layer_table {
            v.push(format!(
                "This trace has no PS transfers; the {} downlinks and uplinks come from the \
                 layer table '{}' ({} MB per step each way).",
                t.layers,
                t.network,
                megabytes(t.bytes_per_step)
            ));
        }
        v
    }
}

/// [MB] Three significant digits.
fn megabytes(bytes: f64) -> String {
    let mb = bytes / 1e6;
    let digits = if mb >= 100.0 {
        0
    } else if mb >= 10.0 {
        1
    } else if mb >= 1.0 {
        2
    } else {
        (2 - mb.log10().floor() as i32).clamp(2, 9) as usize
    };
    format!("{mb:.digits$}")
}
