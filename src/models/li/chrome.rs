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
use std::io::Read;

use flate2::read::GzDecoder;
use serde::{Deserialize, Serialize};

pub use super::chrome_error::TraceError;
pub use super::chrome_read::{MAX_HELD_BYTES, MAX_LANES};
pub use super::chrome_steps::StepSource;

use super::chrome_error::ms;
use super::chrome_read::{Class, FlowPoint, Rules, Slice, Source, Sym, Trace, NO};
use super::chrome_steps::{find, Clues, Marker};
use super::profile::BYTES_PER_VALUE;
use super::profile::{Op, Profile, Resource, MAX_OPS, MAX_STEPS};
use crate::errors::ReadError;
use crate::workload::Network;

/// The most a trace's text may be, after gzip is undone (256 MiB).
pub const MAX_TRACE_BYTES: u64 = 256 * 1024 * 1024;
/// The most events a trace may hold.
pub const MAX_EVENTS: usize = 2_000_000;
/// The most amounts (profiled steps × ops) a profile made from a trace may
/// hold.
pub const MAX_AMOUNTS: usize = 4_000_000;

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
    import_source(name, &mut Source::Text(text), mapping, layers)
}

/// `import` of a trace file's bytes, plain or gzipped (at most
/// `MAX_TRACE_BYTES` of text), with `read_bytes`'s errors: what
/// `read_bytes` then `import` give, with the file's text held at most
/// once (docs/li-traces.md, "Memory").
pub fn import_file(
    name: &str,
    bytes: Vec<u8>,
    mapping: &Mapping,
    layers: Option<&Network>,
) -> Result<Imported, TraceError> {
    import_file_within(name, bytes, MAX_TRACE_BYTES, mapping, layers)
}

/// `import_file` with another size limit [B].
pub fn import_file_within(
    name: &str,
    bytes: Vec<u8>,
    limit: u64,
    mapping: &Mapping,
    layers: Option<&Network>,
) -> Result<Imported, TraceError> {
    let mut source = super::chrome_read::open(bytes, limit)?;
    mapping.check()?;
    import_source(name, &mut source, mapping, layers)
}

fn import_source(
    name: &str,
    source: &mut Source,
    mapping: &Mapping,
    layers: Option<&Network>,
) -> Result<Imported, TraceError> {
    let matcher = mapping.matcher();
    let target = |n: &str, c: &str| matcher.target(n, c);
    let rules = Rules {
        marker: &mapping.step_marker,
        target: &target,
    };
    let trace = source.read(&rules)?;
    let summary = Summary {
        name: name.to_string(),
        events: trace.events,
        ignored_phases: trace.ignored.clone(),
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
        unmatched_end: trace.unmatched_end,
        unclosed_begin: trace.unclosed_begin,
        flows: 0,
        flows_used: 0,
        layer_table: None,
    };
    build(name, trace, mapping, layers, summary)
}

// ---- Building the profile -------------------------------------------------

/// One op of a step: events of one resource merged while they overlap.
struct StepOp {
    resource: Resource,
    name: Sym,
    /// `args.tensor`, else `args.name` of its first event.
    label: Sym,
    lane: u32,
    order: u32,
    start: f64,
    end: f64,
    /// The sum of the events' sizes, if every event has one.
    bytes: Option<f64>,
    /// Its events: positions in its step's group list.
    members: std::ops::Range<usize>,
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

/// A mapped slice in its step: (step after the warm-up, resource rank,
/// slice).
type Grouped = (u32, u8, u32);

/// The mapped slices of the steps left after the warm-up, sorted by step,
/// resource (in `RESOURCES` order), then start, lane and file order; and
/// how many steps are left. The lanes, markers and steps are counted in
/// `summary`.
fn step_groups(
    name: &str,
    trace: &Trace,
    mapping: &Mapping,
    summary: &mut Summary,
) -> Result<(Vec<Grouped>, usize), TraceError> {
    let Trace {
        origin,
        lanes,
        names,
        skipped,
        slices,
        ..
    } = trace;
    let mut lane_targets: Vec<Vec<Target>> = vec![Vec::new(); lanes.len()];
    let mut markers: Vec<Marker> = Vec::new();
    // Each step id once, spanning its slices.
    let mut id_at: HashMap<Sym, usize> = HashMap::new();
    let mut ids: Vec<(&str, f64, f64)> = Vec::new();
    let mut mapped: Vec<(u32, Resource)> = Vec::new();
    let mut last_end = *origin;
    for (s, sl) in slices.iter().enumerate() {
        let lane = sl.lane as usize;
        if skipped[lane].is_some() {
            continue;
        }
        last_end = last_end.max(sl.end);
        if sl.step != NO {
            match id_at.get(&sl.step) {
                Some(&k) => {
                    let i = &mut ids[k];
                    i.1 = i.1.min(sl.ts);
                    i.2 = i.2.max(sl.end);
                }
                None => {
                    id_at.insert(sl.step, ids.len());
                    ids.push((trace.str(sl.step), sl.ts, sl.end));
                }
            }
        }
        let target = match sl.class {
            Class::Marker => {
                markers.push(Marker {
                    start: sl.ts,
                    end: sl.end,
                    lane,
                });
                Target::Skip
            }
            Class::Root => Target::Skip,
            Class::To(t) => {
                match t.resource() {
                    Some(r) => mapped.push((s as u32, r)),
                    None => summary.skipped_events += 1,
                }
                t
            }
        };
        if !lane_targets[lane].contains(&target) {
            lane_targets[lane].push(target);
        }
    }
    drop(id_at);
    for (i, l) in lanes.iter().enumerate().filter(|(_, l)| l.slices > 0) {
        let mut targets = std::mem::take(&mut lane_targets[i]);
        targets.sort_by_key(|t| *t as usize);
        summary.lanes.push(LaneSummary {
            pid: trace.str(l.pid).to_string(),
            tid: trace.str(l.tid).to_string(),
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
        let starts_in =
            |sl: &Slice| skipped[sl.lane as usize].is_none() && steps.of(sl.ts, None).is_some();
        if !slices.iter().any(starts_in) {
            return Err(TraceError::EmptyStep {
                name: name.to_string(),
                start_s,
                end_s,
                span_s: summary.span_s,
            });
        }
    }
    // Into their steps, the warm-up's dropped and counted.
    let mut groups: Vec<Grouped> = Vec::new();
    for (s, r) in mapped {
        let sl = &slices[s as usize];
        let id = (sl.step != NO).then(|| trace.str(sl.step));
        match steps.of(sl.ts, id) {
            Some(k) if k < steps.warmup => summary.warmup_events += 1,
            Some(k) => groups.push(((k - steps.warmup) as u32, rank(r) as u8, s)),
            None => summary.outside_steps += 1,
        }
    }
    summary.warmup_steps = steps.warmup;
    groups.sort_by(|a, b| {
        let (x, y) = (&slices[a.2 as usize], &slices[b.2 as usize]);
        a.0.cmp(&b.0)
            .then(a.1.cmp(&b.1))
            .then(x.ts.total_cmp(&y.ts))
            .then(x.lane.cmp(&y.lane))
            .then(x.order.cmp(&y.order))
    });
    Ok((groups, steps.len() - steps.warmup))
}

/// The ops of one step's group list, each as it is completed: one
/// resource's slices merged while they overlap. `folded` counts the
/// events folded into an op per resource.
fn merge(slices: &[Slice], run: &[Grouped], folded: &mut [usize; 4], mut op: impl FnMut(StepOp)) {
    let mut cur: Option<StepOp> = None;
    for (p, &(_, ri, s)) in run.iter().enumerate() {
        let sl = &slices[s as usize];
        let resource = RESOURCES[ri as usize];
        if let Some(c) = cur
            .as_mut()
            .filter(|c| c.resource == resource && sl.ts < c.end)
        {
            c.end = c.end.max(sl.end);
            c.bytes = c.bytes.zip(sl.size()).map(|(a, b)| a + b);
            c.members.end = p + 1;
            folded[ri as usize] += 1;
            continue;
        }
        if let Some(c) = cur.take() {
            op(c);
        }
        cur = Some(StepOp {
            resource,
            name: sl.name,
            label: sl.label,
            lane: sl.lane,
            order: sl.order,
            start: sl.ts,
            end: sl.end,
            bytes: sl.size(),
            members: p..p + 1,
        });
    }
    if let Some(c) = cur {
        op(c);
    }
}

fn build(
    name: &str,
    trace: Trace,
    mapping: &Mapping,
    layers: Option<&Network>,
    mut summary: Summary,
) -> Result<Imported, TraceError> {
    let (groups, held) = step_groups(name, &trace, mapping, &mut summary)?;
    let slices = &trace.slices;
    // The steps with ops, each a run of `groups`; the first gives the graph.
    let runs: Vec<&[Grouped]> = groups.chunk_by(|a, b| a.0 == b.0).collect();
    summary.empty_steps = held - runs.len();
    let Some(&first_run) = runs.first() else {
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
    // The profile's size, known before its ops and amounts are made.
    let mut folded = [0usize; 4];
    let mut first_ops = 0usize;
    merge(slices, first_run, &mut [0; 4], |_| first_ops += 1);
    let has_link = first_run.iter().any(|g| RESOURCES[g.1 as usize].is_link());
    let net = layers.filter(|n| n.layers.iter().any(|l| l.weights() > 0));
    let added = match (has_link, net) {
        (true, _) => 0,
        (false, Some(net)) => 3 * net.layers.iter().filter(|l| l.weights() > 0).count(),
        (false, None) => {
            return Err(TraceError::NoTransfers {
                name: name.to_string(),
            })
        }
    };
    let ops_n = first_ops + added;
    if ops_n > MAX_OPS {
        return Err(TraceError::TooManyOps {
            name: name.to_string(),
            ops: ops_n,
        });
    }
    // `Profile::validate`'s first problem for this profile.
    if runs.len() > MAX_STEPS {
        return Err(TraceError::Invalid {
            name: name.to_string(),
            problem: format!(
                "{} profiled steps is more than the {MAX_STEPS} accepted",
                runs.len()
            ),
        });
    }
    if runs.len().saturating_mul(ops_n) > MAX_AMOUNTS {
        return Err(TraceError::TooManyAmounts {
            name: name.to_string(),
            steps: runs.len(),
            ops: ops_n,
        });
    }

    // The first step's ops, ordered by start, resource, lane.
    let mut first: Vec<StepOp> = Vec::with_capacity(first_ops);
    merge(slices, first_run, &mut folded, |o| first.push(o));
    first.sort_by(|a, b| {
        a.start
            .total_cmp(&b.start)
            .then(rank(a.resource).cmp(&rank(b.resource)))
            .then(a.lane.cmp(&b.lane))
            .then(a.order.cmp(&b.order))
    });
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
    // An op of a later step is the first step's op with the same
    // resource, name and occurrence of that name on that resource.
    let mut keys: HashMap<(Resource, Sym, usize), usize> = HashMap::new();
    let mut seen: HashMap<(Resource, Sym), usize> = HashMap::new();
    for (i, o) in first.iter().enumerate() {
        let n = seen.entry((o.resource, o.name)).or_insert(0);
        keys.insert((o.resource, o.name, *n), i);
        *n += 1;
    }
    let row0: Vec<f64> = first.iter().map(&mut amount).collect();
    let mut rows: Vec<Vec<f64>> = Vec::with_capacity(runs.len());
    for run in &runs[1..] {
        // Ops of one resource come in the order `first` has them.
        seen.values_mut().for_each(|n| *n = 0);
        let mut row: Vec<Option<f64>> = vec![None; first.len()];
        merge(slices, run, &mut folded, |o| {
            let a = amount(&o);
            let at = seen.get_mut(&(o.resource, o.name)).and_then(|n| {
                *n += 1;
                keys.get(&(o.resource, o.name, *n - 1))
            });
            match at {
                Some(&i) => row[i] = Some(a),
                None => summary.extra_in_later_steps += 1,
            }
        });
        rows.push(
            row.into_iter()
                .zip(&row0)
                .map(|(a, &a0)| {
                    a.unwrap_or_else(|| {
                        summary.missing_in_later_steps += 1;
                        a0
                    })
                })
                .collect(),
        );
    }
    rows.insert(0, row0);
    summary.sizes_estimated = estimated;
    summary.merged = RESOURCES
        .iter()
        .zip(folded)
        .filter(|(_, n)| *n > 0)
        .map(|(&resource, folded)| Merged { resource, folded })
        .collect();
    let deps = dependencies(&first, first_run, &trace, &mut summary);
    let mut ops: Vec<Op> = first
        .iter()
        .zip(deps)
        .map(|(o, deps)| Op {
            name: trace.str(o.name).to_string(),
            resource: o.resource,
            deps,
            // Transfers and PS updates name their variable.
            tensor: (o.resource != Resource::Worker).then(|| {
                let t = if o.label != NO { o.label } else { o.name };
                trace.str(t).to_string()
            }),
        })
        .collect();
    drop(first);
    drop(groups);
    drop(trace);
    if let (false, Some(net)) = (has_link, net) {
        (ops, rows) = add_layer_transfers(ops, rows, net, mapping, &mut summary);
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
    run: &[Grouped],
    trace: &Trace,
    summary: &mut Summary,
) -> Vec<Vec<u32>> {
    let slices = &trace.slices;
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
    let mut by_lane: Vec<Vec<(f64, f64, usize)>> = vec![Vec::new(); trace.lanes.len()];
    for (i, o) in ops.iter().enumerate() {
        for g in &run[o.members.clone()] {
            let sl = &slices[g.2 as usize];
            by_lane[sl.lane as usize].push((sl.ts, sl.end, i));
        }
    }
    let reach: Vec<Vec<f64>> = by_lane
        .iter_mut()
        .map(|v| {
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
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
        let lane = p.lane as usize;
        let v = &by_lane[lane];
        if p.enclosing {
            // The innermost slice around ts: the latest-starting one.
            let k = v.partition_point(|x| x.0 <= p.ts);
            (0..k)
                .rev()
                .take_while(|&j| reach[lane][j] >= p.ts)
                .find(|&j| v[j].1 >= p.ts)
                .map(|j| v[j].2)
        } else {
            let k = v.partition_point(|x| x.0 < p.ts);
            v.get(k).map(|x| x.2)
        }
    };
    let mut order: Vec<&FlowPoint> = trace.flows.iter().collect();
    order.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(a.order.cmp(&b.order)));
    let mut open: HashMap<(Sym, Sym), Option<usize>> = HashMap::new();
    for p in order {
        let here = bind(p);
        if p.ph == b's' {
            open.insert(p.key, here);
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
            open.insert(p.key, here);
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
