//! Algorithm 3.1 (GENERATETRACE), rebuilt as `shared/models.md` §5 says:
//! a discrete-event simulation of W workers and M parameter servers from a
//! one-worker profile.
//!
//! - Each worker samples its steps from the profiled ones, with
//!   replacement, by a counter-based generator of (seed, worker, step): the
//!   same seed gives the same run natively and in wasm, whatever the order
//!   of events.
//! - Every worker has its own WORKER, PS_i, DOWN_i and UP_i; each serves at
//!   most one chunk at a time. An op joins its resource's queue when its
//!   last dependency completes; a worker starts its next step when every op
//!   of the current one is done; all start at t = 0.
//! - A PS's link direction is shared by the workers with a chunk in
//!   service on it: equally with one PS (the paper), max-min fairly with
//!   several, each worker's own link of the same bandwidth being the other
//!   constraint (this product's generalisation of the two-PS rule, l.310).
//!   Compute is not shared.
//! - HTTP/2 (l.134-140): a stream is first served for at most WIN bytes
//!   and rejoins the tail of its queue; served again, it runs to the end.
//!   With flow control off, whole streams: the parameter downlinks in the
//!   chosen order (Sec. 3.3, 4.2), the others first come, first served;
//!   or every stream in that order.
//! - Parse overhead (l.126, 225): a transfer is `bytes / B` at full
//!   bandwidth plus `α·bytes + β` on the receiver (the worker after a
//!   downlink, the PS after an uplink) before its dependents; it occupies
//!   the receiver's compute, or is a pure delay.
//!
//! Choices the text leaves open, fixed here and tested: queues are first
//! in, first out (but for the ordered streams); ops made ready at the
//! same instant join in op order; of events at the same instant, compute
//! completions go first (in the order they were scheduled), then link
//! completions (in the order the chunks started).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

use serde::Serialize;

use super::due::Due;
use super::fronted::Fronted;
use super::profile::{Profile, Resource};
use super::slab::Slab;
use super::window::Window;

/// How streams share a connection.
#[derive(Clone, Debug, PartialEq)]
pub enum Flow {
    /// HTTP/2 flow control with this window [B] (28e6 by default).
    Window(f64),
    /// Flow control off: whole streams, the `Ordered` ones in this order.
    Off(Order, Ordered),
}

/// With flow control off, the streams the order ranks; the others are
/// served first come, first served.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ordered {
    /// The parameter downlinks (PS to worker), which the paper's policies
    /// order (TicTac's parameter transfers, Sec. 3.3, 4.2).
    Downlinks,
    /// Every stream, uplinks too.
    All,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Order {
    /// The profile's op order.
    Profiled,
    Reverse,
    /// A random permutation drawn from the seed.
    Random,
    /// A rank per op (lower first), e.g. critical path first.
    Ranks(Vec<u32>),
}

/// Where the parse overhead runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parse {
    /// `α` [s/B] and `β` [s].
    pub alpha: f64,
    pub beta: f64,
    /// On the receiver's compute (the default), or as a pure delay.
    pub occupies: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    pub workers: u32,
    pub servers: u32,
    /// `B` [B/s]: each PS's link per direction, and each worker's.
    pub bytes_per_s: f64,
    pub parse: Parse,
    pub flow: Flow,
    /// Steps per worker, and how many of them are left out as warm-up.
    pub steps: u32,
    pub warmup: u32,
    pub seed: u64,
    /// Steps per worker whose ops are kept as timeline segments.
    pub trace_steps: u32,
}

/// Most segments a run keeps for its timeline.
pub const MAX_SEGMENTS: usize = 200_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Lane {
    Worker,
    Ps(u16),
    Down(u16),
    Up(u16),
    /// A parse overhead that is a pure delay.
    Delay,
}

/// One op (or one HTTP/2 chunk of it) in service.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Segment {
    pub worker: u32,
    pub lane: Lane,
    /// The profile's op.
    pub op: u32,
    /// The parse overhead of that op's transfer.
    pub parse: bool,
    pub step: u32,
    pub start: f64,
    pub end: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// Samples per second of all workers: the steps that end after every
    /// worker's warm-up and by the first worker's last step, over that time
    /// (`window::Window`).
    pub throughput: f64,
    pub per_worker: Vec<f64>,
    /// Share of the same window each PS's downlink and uplink was busy.
    pub down_busy: Vec<f64>,
    pub up_busy: Vec<f64>,
    /// When the last worker finished its last step [s].
    pub end_s: f64,
    /// The variable's PS, per op (0 with one PS).
    pub placement: Vec<u16>,
    pub segments: Vec<Segment>,
    /// Events processed (for the benchmark).
    pub events: u64,
    /// With several PS, chunks in service passed over to share the links.
    pub chunk_visits: u64,
}

/// A counter-based generator: splitmix64 of (seed, worker, step).
pub fn draw(seed: u64, worker: u32, step: u32) -> u64 {
    let mut z =
        seed ^ (u64::from(worker) << 32 | u64::from(step)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Slot {
    Worker,
    Ps(u16),
    Down(u16),
    Up(u16),
    Delay,
}

struct Node {
    slot: Slot,
    op: u32,
    parse: bool,
    deps: u32,
    dependents: Vec<u32>,
    rank: u32,
}

/// The profile compiled for one setup: parse nodes added, ops placed on
/// their PS, amounts per profiled step and node.
struct Graph {
    nodes: Box<[Node]>,
    /// What a completion and an enqueue read of each node, in one record.
    info: Box<[Info]>,
    /// Each node's dependents, `dependents[info.from..info.to]`: one
    /// array, so a completion walks contiguous memory; `ALONE` marks one
    /// that waits on nothing else.
    dependents: Box<[u32]>,
    /// Amount of node `i` in profiled step `k`: `amounts[k * nodes + i]`.
    amounts: Box<[f64]>,
    steps: usize,
    roots: Box<[u32]>,
    /// Each node's dependency count, copied at every step's start.
    deps: Box<[u32]>,
    placement: Vec<u16>,
}

/// A node's place in the run.
#[derive(Clone, Copy)]
struct Info {
    /// Its dependents, `Graph::dependents[from..to]`.
    from: u32,
    to: u32,
    /// Its slot's index (worker 0, PS_i 1 + i, DOWN_i 1 + m + i, UP_i
    /// 1 + 2m + i; below 16,384, see `Event`), or `NO_SLOT` for a pure
    /// delay. 12 bytes a record: an Inception-sized step's are 18 KB.
    slot: u16,
    /// It is on a compute slot whose every op has no dependents (a PS
    /// applying updates, typically). Such a slot is a first-in, first-out
    /// server nothing waits on, so an op's end is known when it is queued
    /// and needs no event.
    leaf: bool,
    /// An uplink whose end only lets leaf PS updates go, on a PS slot fed
    /// by nothing but uplinks (one each): its end can be timed after the
    /// fact. The slot serves in the uplink's order, which is first in,
    /// first out, and the updates' ends are known when queued.
    lazy: bool,
}

impl Graph {
    #[inline(always)]
    fn amount(&self, sample: usize, node: u32) -> f64 {
        self.amounts[sample * self.nodes.len() + node as usize]
    }
}

/// Variables placed greedily by bytes in creation order, each onto the PS
/// with the smallest total so far (the paper's VGG-11 split, l.304). Ops
/// with no variable go to PS 0.
pub fn place(profile: &Profile, servers: u32) -> Vec<u16> {
    let servers = servers.max(1) as usize;
    // Each variable's place in creation order, found by hash: a 100,000-op
    // profile would otherwise search its list once per op.
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut bytes: Vec<f64> = Vec::new();
    let var: Vec<Option<usize>> = profile
        .ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let t = op.tensor.as_deref()?;
            let b = if op.resource.is_link() {
                profile.mean_amount(i)
            } else {
                0.0
            };
            let k = *index.entry(t).or_insert_with(|| {
                bytes.push(0.0);
                bytes.len() - 1
            });
            bytes[k] = bytes[k].max(b);
            Some(k)
        })
        .collect();
    // The PS with the least load, the lowest index of equals: a heap of
    // (load, index), loads as bits (they order as the numbers: none is
    // negative), so 4,096 PS are not scanned per variable.
    let mut least: BinaryHeap<Reverse<(u64, usize)>> =
        (0..servers).map(|k| Reverse((0f64.to_bits(), k))).collect();
    let mut home = Vec::with_capacity(bytes.len());
    for b in &bytes {
        let Some(Reverse((load, k))) = least.pop() else {
            break;
        };
        least.push(Reverse(((f64::from_bits(load) + b).to_bits(), k)));
        home.push(k as u16);
    }
    var.into_iter()
        .map(|k| k.and_then(|k| home.get(k).copied()).unwrap_or(0))
        .collect()
}

pub use super::ps_links::max_min;
use super::ps_links::{earlier, later, Ended, Links, Resolved, Start};

fn compile(profile: &Profile, setup: &Setup, lazy_links: bool) -> Graph {
    let n = profile.ops.len();
    let placement = place(profile, setup.servers);
    let with_parse = setup.parse.alpha != 0.0 || setup.parse.beta != 0.0;
    let mut nodes: Vec<Node> = profile
        .ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let ps = placement[i];
            Node {
                slot: match op.resource {
                    Resource::Worker => Slot::Worker,
                    Resource::Ps => Slot::Ps(ps),
                    Resource::Downlink => Slot::Down(ps),
                    Resource::Uplink => Slot::Up(ps),
                },
                op: i as u32,
                parse: false,
                deps: op.deps.len() as u32,
                dependents: Vec::new(),
                rank: i as u32,
            }
        })
        .collect();
    // Each transfer's dependents wait for its parse node instead.
    let mut after: Vec<u32> = (0..n as u32).collect();
    if with_parse {
        for (i, op) in profile.ops.iter().enumerate() {
            if !op.resource.is_link() {
                continue;
            }
            let slot = if !setup.parse.occupies {
                Slot::Delay
            } else if op.resource == Resource::Downlink {
                Slot::Worker
            } else {
                Slot::Ps(placement[i])
            };
            after[i] = nodes.len() as u32;
            nodes.push(Node {
                slot,
                op: i as u32,
                parse: true,
                deps: 1,
                dependents: Vec::new(),
                rank: i as u32,
            });
            let p = after[i];
            nodes[i].dependents.push(p);
        }
    }
    for (j, op) in profile.ops.iter().enumerate() {
        for &d in &op.deps {
            let from = after[d as usize] as usize;
            nodes[from].dependents.push(j as u32);
        }
    }
    for node in &mut nodes {
        node.dependents.sort_unstable();
    }
    if let Flow::Off(order, ordered) = &setup.flow {
        let ranks: Vec<u32> = match order {
            Order::Profiled => (0..n as u32).collect(),
            Order::Reverse => (0..n as u32).rev().collect(),
            Order::Random => {
                let mut r: Vec<(u64, u32)> = (0..n as u32)
                    .map(|i| (draw(setup.seed, u32::MAX, i), i))
                    .collect();
                r.sort_unstable();
                let mut ranks = vec![0; n];
                for (rank, (_, i)) in r.into_iter().enumerate() {
                    ranks[i as usize] = rank as u32;
                }
                ranks
            }
            Order::Ranks(r) => (0..n)
                .map(|i| r.get(i).copied().unwrap_or(u32::MAX))
                .collect(),
        };
        for node in &mut nodes {
            node.rank = match (ordered, node.slot) {
                (Ordered::Downlinks, Slot::Down(_)) | (Ordered::All, _) => ranks[node.op as usize],
                // One rank for all: a link's heap then serves its equal
                // ranks first in, first out.
                (Ordered::Downlinks, _) => 0,
            };
        }
    }
    let (alpha, beta) = (setup.parse.alpha, setup.parse.beta);
    let amounts = profile
        .steps
        .iter()
        .flat_map(|row| {
            nodes.iter().map(move |node| {
                let v = row.get(node.op as usize).copied().unwrap_or(0.0);
                if node.parse {
                    alpha * v + beta
                } else {
                    v
                }
            })
        })
        .collect();
    let roots = (0..nodes.len() as u32)
        .filter(|&i| nodes[i as usize].deps == 0)
        .collect();
    let mut first = Vec::with_capacity(nodes.len() + 1);
    let mut dependents = Vec::new();
    for node in &mut nodes {
        first.push(dependents.len() as u32);
        dependents.append(&mut node.dependents);
    }
    first.push(dependents.len() as u32);
    let mut has_dependents: HashMap<Slot, bool> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        *has_dependents.entry(n.slot).or_default() |= first[i] != first[i + 1];
    }
    let leaf: Box<[bool]> = nodes
        .iter()
        .map(|n| {
            matches!(n.slot, Slot::Worker | Slot::Ps(_))
                && !has_dependents.get(&n.slot).copied().unwrap_or(true)
        })
        .collect();
    let lazy = if lazy_links {
        lazy_uplinks(profile, setup, with_parse, &first, &dependents, &leaf)
    } else {
        vec![false; nodes.len()].into_boxed_slice()
    };
    // A dependent waiting on one op alone is ready when that op is done:
    // marked, it needs no count.
    for d in &mut dependents {
        if nodes[*d as usize].deps == 1 {
            *d |= ALONE;
        }
    }
    let m = setup.servers.max(1);
    let info = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| Info {
            from: first[i],
            to: first[i + 1],
            slot: match n.slot {
                Slot::Worker => 0,
                Slot::Ps(i) => 1 + u32::from(i),
                Slot::Down(i) => 1 + m + u32::from(i),
                Slot::Up(i) => 1 + 2 * m + u32::from(i),
                Slot::Delay => u32::from(NO_SLOT),
            } as u16,
            leaf: leaf[i],
            lazy: lazy[i],
        })
        .collect();
    Graph {
        deps: nodes.iter().map(|n| n.deps).collect(),
        nodes: nodes.into_boxed_slice(),
        info,
        dependents: dependents.into_boxed_slice(),
        amounts,
        steps: profile.steps.len(),
        roots,
        placement,
    }
}

/// Which nodes are lazy uplinks (see `Info::lazy`): with one PS, HTTP/2
/// flow control (with it off a link picks by rank from what is queued
/// at each end) and no parse overhead, an uplink whose dependents are all
/// leaf PS updates each waiting on one uplink alone.
fn lazy_uplinks(
    profile: &Profile,
    setup: &Setup,
    with_parse: bool,
    first: &[u32],
    dependents: &[u32],
    leaf: &[bool],
) -> Box<[bool]> {
    let n = leaf.len();
    if setup.servers > 1 || !matches!(setup.flow, Flow::Window(_)) || with_parse {
        return vec![false; n].into_boxed_slice();
    }
    let is_uplink = |i: usize| profile.ops[i].resource == Resource::Uplink;
    // The PS slot is fed by uplinks alone, one for each update.
    let fed_by_uplinks = profile
        .ops
        .iter()
        .filter(|op| op.resource == Resource::Ps)
        .all(|op| op.deps.len() == 1 && is_uplink(op.deps[0] as usize));
    (0..n)
        .map(|i| {
            let after = &dependents[first[i] as usize..first[i + 1] as usize];
            fed_by_uplinks
                && is_uplink(i)
                && after
                    .iter()
                    .all(|&d| leaf[d as usize] && profile.ops[d as usize].resource == Resource::Ps)
        })
        .collect()
}

#[derive(Clone, Copy)]
struct Item {
    node: u32,
    left: f64,
    served: bool,
}

/// A stream queued on a link with flow control off: the heap's greatest
/// is the lowest rank, of equals the first queued.
#[derive(Clone, Copy)]
struct Ranked {
    rank: u32,
    seq: u64,
    item: Item,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        (self.rank, self.seq) == (other.rank, other.seq)
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.rank, other.seq).cmp(&(self.rank, self.seq))
    }
}

struct WorkerState {
    sample: usize,
    started: u32,
    left: usize,
    /// The latest end of a leaf op.
    leaf_end: f64,
    ends: Vec<f64>,
}

/// A compute completion (or a pure delay's end, or a step's end) due at
/// `at`. What ends (its id): below `steps_from`, the compute slot
/// `w << shift | s` (its op in `in_service`); from there, worker
/// `id − steps_from`'s step end; from `delays_from`, place
/// `id − delays_from` of the delay slab. The bounds a run passes keep
/// both parts in range: 64 workers × 16,384 slots and at most 6.4·10^6
/// delays under way need 23 bits; 64 workers × 100,000 steps × 200,000
/// nodes (100,000 ops and their parse overheads) are 1.3·10^12 events,
/// below 2^41.
type Event = Due<23>;

/// A node on no slot: a pure delay.
const NO_SLOT: u16 = u16::MAX;

/// Marks a dependent (in `Graph::dependents`) that waits on one op alone.
/// Nodes are fewer than 2^31: at most `MAX_OPS` ops and their parse nodes.
const ALONE: u32 = 1 << 31;

struct Sim<'a> {
    g: &'a Graph,
    setup: &'a Setup,
    m: usize,
    workers: Box<[WorkerState]>,
    /// Per worker and slot (worker, PS_i, DOWN_i, UP_i), at
    /// `w << shift | s`: one array each, not one per worker, so an event
    /// reaches its slot in one step, and its worker by a shift.
    shift: u32,
    /// The op in service on each compute slot.
    in_service: Box<[u32]>,
    /// On each link slot: the bytes of the stream in service left after
    /// its chunk.
    rest: Box<[f64]>,
    /// Event ids of step ends and pure delays (see `Event`).
    steps_from: u32,
    delays_from: u32,
    /// Pure delays under way (worker, node).
    delays: Slab<(u32, u32)>,
    queues: Box<[VecDeque<Item>]>,
    /// Each link's queue with flow control off, lowest rank first (a
    /// heap: a step's 50,000 ready streams are not scanned per pick).
    ranked: Box<[BinaryHeap<Ranked>]>,
    /// Streams queued there so far: equal ranks go first in, first out.
    ranked_seq: u64,
    busy: Box<[bool]>,
    /// When each leaf slot is next free.
    free_at: Box<[f64]>,
    /// Per worker and node, at `w * nodes + i`: dependencies not yet done.
    remaining: Box<[u32]>,
    heap: Fronted<Event>,
    /// Events scheduled, and chunks started: two counts, as each orders
    /// only its own kind and each must stay in the range its key holds.
    seq: u64,
    chunks: u64,
    links: Links,
    /// What the throughput and the busy shares are measured over.
    window: Window,
    done_chunks: Vec<Ended>,
    /// Lazy chunks' ends, timed after the fact.
    resolved: Vec<Resolved>,
    t: f64,
    segments: Vec<Segment>,
    events: u64,
    /// HTTP/2 flow control: every link serves first in, first out.
    windowed: bool,
    /// Workers whose steps are still kept for the timeline: checked first,
    /// so past them a segment costs one predictable branch per op.
    tracers: u32,
    /// Idle slots that got work at this instant.
    kick: Vec<(u32, usize)>,
    kicking: Vec<(u32, usize)>,
}

impl Sim<'_> {
    /// Slot `s` of worker `w` in the per-slot arrays.
    #[inline(always)]
    fn at(&self, w: u32, s: usize) -> usize {
        (w as usize) << self.shift | s
    }

    /// The worker and slot at `k` in the per-slot arrays.
    #[inline(always)]
    fn slot_of(&self, k: usize) -> (u32, usize) {
        ((k >> self.shift) as u32, k & ((1 << self.shift) - 1))
    }

    /// Node `node` of worker `w` in `remaining`.
    #[inline(always)]
    fn node_at(&self, w: u32, node: u32) -> usize {
        w as usize * self.g.nodes.len() + node as usize
    }

    /// An idle slot with work: a first-in, first-out slot serves now (what
    /// it takes is the same as after the instant); a link that picks by
    /// rank waits until every stream ready at this instant has joined.
    #[inline(always)]
    fn wake(&mut self, w: u32, s: usize) {
        if s > self.m && !self.windowed {
            self.kick.push((w, s));
        } else {
            self.serve(w, s);
        }
    }

    /// Serves every idle slot that got work at this instant.
    #[inline(always)]
    fn kick_all(&mut self) {
        while !self.kick.is_empty() {
            // Two buffers swapped, so no event allocates.
            std::mem::swap(&mut self.kick, &mut self.kicking);
            for i in 0..self.kicking.len() {
                let (w, s) = self.kicking[i];
                if !self.busy[self.at(w, s)] {
                    self.serve(w, s);
                }
            }
            self.kicking.clear();
        }
    }

    #[inline(always)]
    fn tracing(&self, worker: u32) -> bool {
        self.tracers > 0
            && self.workers[worker as usize].started <= self.setup.trace_steps
            && self.segments.len() < MAX_SEGMENTS
    }

    /// Keeps a segment for the timeline while `worker` is tracing.
    #[inline(always)]
    fn record(&mut self, worker: u32, node: u32, start: f64, end: f64, lane: Lane) {
        if self.tracing(worker) {
            self.keep(worker, node, start, end, lane);
        }
    }

    #[cold]
    fn keep(&mut self, worker: u32, node: u32, start: f64, end: f64, lane: Lane) {
        let n = &self.g.nodes[node as usize];
        self.segments.push(Segment {
            worker,
            lane,
            op: n.op,
            parse: n.parse,
            step: self.workers[worker as usize].started,
            start,
            end,
        });
    }

    fn start_step(&mut self, w: u32) {
        let k = self.g.steps as u64;
        let ws = &mut self.workers[w as usize];
        ws.started += 1;
        if ws.started == self.setup.trace_steps.saturating_add(1) {
            self.tracers -= 1;
        }
        ws.sample = (draw(self.setup.seed, w, ws.started) % k) as usize;
        ws.left = self.g.nodes.len();
        let from = self.node_at(w, 0);
        let to = from + self.g.nodes.len();
        self.remaining[from..to].copy_from_slice(&self.g.deps);
        for i in 0..self.g.roots.len() {
            self.enqueue(w, self.g.roots[i]);
        }
    }

    #[inline(always)]
    fn enqueue(&mut self, w: u32, node: u32) {
        let amount = self.g.amount(self.workers[w as usize].sample, node);
        let info = self.g.info[node as usize];
        let slot = (info.slot != NO_SLOT).then_some(info.slot as usize);
        if let (true, Some(s)) = (info.leaf, slot) {
            let k = self.at(w, s);
            let start = later(self.free_at[k], self.t);
            let end = start + amount;
            self.free_at[k] = end;
            let ws = &mut self.workers[w as usize];
            ws.leaf_end = later(ws.leaf_end, end);
            self.events += 1;
            self.record(w, node, start, end, compute_lane(Some(s)));
            // Never the step's end here: that is always an event, so a
            // step of zero-length leaves cannot recurse into the next.
            self.retire(w, true);
            return;
        }
        match slot {
            None => {
                let t = self.t;
                self.push_delay(w, node, t + amount);
            }
            Some(s) => {
                let k = self.at(w, s);
                let fifo = s <= self.m || self.windowed;
                if fifo && !self.busy[k] && self.queues[k].is_empty() {
                    // What serving the queue would take: start it now.
                    let item = Item {
                        node,
                        left: amount,
                        served: false,
                    };
                    self.start_item(w, s, item);
                    return;
                }
                if self.busy[k]
                    && self.queues[k].is_empty()
                    && self.whole_lazy(info.lazy, amount)
                    && self.links.can_append(k as u32)
                {
                    self.links.append(k as u32, node, amount);
                    return;
                }
                let item = Item {
                    node,
                    left: amount,
                    served: false,
                };
                if fifo {
                    self.queues[k].push_back(item);
                } else {
                    self.ranked_seq += 1;
                    self.ranked[k].push(Ranked {
                        rank: self.g.nodes[node as usize].rank,
                        seq: self.ranked_seq,
                        item,
                    });
                }
                if !self.busy[k] {
                    self.wake(w, s);
                }
            }
        }
    }

    #[inline(always)]
    fn push(&mut self, id: u32, time: f64) {
        self.seq += 1;
        self.heap.push(Event::new(time, self.seq, id));
    }

    /// A pure delay of worker `w`'s `node`, ending at `time`.
    #[inline(always)]
    fn push_delay(&mut self, w: u32, node: u32, time: f64) {
        let i = self.delays.insert((w, node));
        self.push(self.delays_from + i, time);
    }

    /// Starts the next chunk of slot `s` of worker `w`, if any is queued.
    #[inline(always)]
    fn serve(&mut self, w: u32, s: usize) {
        let k = self.at(w, s);
        let taken = if s > self.m && !self.windowed {
            self.ranked[k].pop().map(|r| r.item)
        } else {
            self.queues[k].pop_front()
        };
        let Some(item) = taken else {
            return;
        };
        self.start_item(w, s, item);
    }

    /// Puts `item` in service on slot `s` of worker `w`, now.
    #[inline(always)]
    fn start_item(&mut self, w: u32, s: usize, item: Item) {
        let m = self.m;
        let t = self.t;
        let k = self.at(w, s);
        self.busy[k] = true;
        if s <= m {
            self.in_service[k] = item.node;
            self.push(k as u32, t + item.left);
            return;
        }
        let size = match self.setup.flow {
            Flow::Window(win) if !item.served && item.left > win => win,
            _ => item.left,
        };
        self.rest[k] = item.left - size;
        let (up, ps) = self.link_of(s);
        self.chunks += 1;
        self.links.start(Start {
            conn: k as u32,
            worker: w,
            ps,
            up,
            node: item.node,
            size,
            lazy: self.g.info[item.node as usize].lazy && size >= item.left,
            at: t,
            seq: self.chunks,
        });
    }

    /// A lazy uplink (`lazy`, of `bytes`) that goes whole, in one chunk.
    #[inline(always)]
    fn whole_lazy(&self, lazy: bool, bytes: f64) -> bool {
        lazy && match self.setup.flow {
            Flow::Window(win) => bytes <= win,
            Flow::Off(..) => false,
        }
    }

    /// Link slot `s`: whether it is an uplink, and its PS.
    #[inline(always)]
    fn link_of(&self, s: usize) -> (bool, u16) {
        let m = self.m;
        if s > 2 * m {
            (true, (s - 1 - 2 * m) as u16)
        } else {
            (false, (s - 1 - m) as u16)
        }
    }

    /// The timeline lane of link slot `s`.
    #[inline(always)]
    fn link_lane(&self, s: usize) -> Lane {
        match self.link_of(s) {
            (true, ps) => Lane::Up(ps),
            (false, ps) => Lane::Down(ps),
        }
    }

    #[inline(always)]
    fn done(&mut self, w: u32, node: u32) {
        let g = self.g;
        let Info { from, to, .. } = g.info[node as usize];
        for &d in &g.dependents[from as usize..to as usize] {
            if d & ALONE != 0 {
                self.enqueue(w, d & !ALONE);
                continue;
            }
            let k = self.node_at(w, d);
            let r = &mut self.remaining[k];
            *r -= 1;
            if *r == 0 {
                self.enqueue(w, d);
            }
        }
        self.retire(w, false);
    }

    /// One op of worker `w`'s step is done. After the last, the step ends
    /// when its last leaf op does: now, or at a `STEP_END` event (always an
    /// event when `deferred`).
    #[inline(always)]
    fn retire(&mut self, w: u32, deferred: bool) {
        let ws = &mut self.workers[w as usize];
        ws.left -= 1;
        if ws.left != 0 {
            return;
        }
        if deferred || ws.leaf_end > self.t {
            let at = later(ws.leaf_end, self.t);
            self.push(self.steps_from + w, at);
        } else {
            self.step_over(w);
        }
    }

    fn step_over(&mut self, w: u32) {
        let ws = &mut self.workers[w as usize];
        ws.ends.push(self.t);
        let (done, more) = (ws.ends.len(), ws.started < self.setup.steps);
        self.window.step_ended(done, self.t, &self.links);
        if more {
            self.start_step(w);
        }
    }

    fn run(&mut self) {
        for w in 0..self.setup.workers {
            self.start_step(w);
        }
        self.kick_all();
        loop {
            self.links.settle(&mut self.resolved);
            self.lazy_ends();
            let tc = self.heap.peek().map_or(f64::INFINITY, |e| e.at);
            let tl = self.links.next().unwrap_or(f64::INFINITY);
            if tc == f64::INFINITY && tl == f64::INFINITY {
                break;
            }
            // One instant: every compute completion, then every chunk
            // that ends, then the idle resources take their next ops.
            // Not before this instant: a mark a chunk started now reaches
            // may read a hair earlier through rounding.
            let t = later(earlier(tc, tl), self.t);
            self.t = t;
            while self.heap.peek().is_some_and(|e| e.at <= t) {
                let Some(e) = self.heap.pop() else { break };
                let id = e.id();
                if id >= self.delays_from {
                    let (w, node) = self.delays.remove(id - self.delays_from);
                    self.events += 1;
                    self.completed(w, node, None, e.at);
                } else if id >= self.steps_from {
                    self.step_over(id - self.steps_from);
                } else {
                    let k = id as usize;
                    let (w, s) = self.slot_of(k);
                    self.events += 1;
                    self.busy[k] = false;
                    self.completed(w, self.in_service[k], Some(s), e.at);
                    if !self.busy[k] {
                        self.wake(w, s);
                    }
                }
            }
            if tl <= t {
                self.links
                    .take_done(t, &mut self.done_chunks, &mut self.resolved);
                self.lazy_ends();
                self.events += self.done_chunks.len() as u64;
                for i in 0..self.done_chunks.len() {
                    self.finish_chunk(self.done_chunks[i]);
                }
            }
            self.kick_all();
        }
    }

    /// Compute op (or pure delay) `node` of worker `w` ends at `end`.
    #[inline(always)]
    fn completed(&mut self, w: u32, node: u32, slot: Option<usize>, end: f64) {
        if self.tracing(w) {
            // Compute is not shared: it began its own time earlier.
            let amount = self.g.amount(self.workers[w as usize].sample, node);
            self.record(w, node, end - amount, end, compute_lane(slot));
        }
        self.done(w, node);
    }

    /// The lazy chunks timed since the last call end: each lets only
    /// leaf PS updates go, whose ends follow from their own queue alone,
    /// so they are done after the fact, at their own time.
    #[inline(always)]
    fn lazy_ends(&mut self) {
        // Tested here: the work's call costs more than the test, and most
        // instants have none.
        if !self.resolved.is_empty() {
            self.resolved_ends();
        }
    }

    fn resolved_ends(&mut self) {
        let now = self.t;
        for i in 0..self.resolved.len() {
            let r = self.resolved[i];
            let (w, s) = self.slot_of(r.conn as usize);
            self.record(w, r.node, r.start, r.end, self.link_lane(s));
            self.t = r.end;
            self.events += 1;
            self.done(w, r.node);
        }
        self.t = now;
        self.resolved.clear();
    }

    fn finish_chunk(&mut self, c: Ended) {
        let k = c.conn as usize;
        let (w, s) = self.slot_of(k);
        self.record(w, c.node, c.start, self.t, self.link_lane(s));
        self.busy[k] = false;
        let rest = self.rest[k];
        if rest > 0.0 {
            self.queues[k].push_back(Item {
                node: c.node,
                left: rest,
                served: true,
            });
        } else {
            self.done(w, c.node);
        }
        if !self.busy[k] {
            self.wake(w, s);
        }
    }
}

/// The timeline lane of a compute slot (`None`: a pure delay).
fn compute_lane(slot: Option<usize>) -> Lane {
    match slot {
        None => Lane::Delay,
        Some(0) => Lane::Worker,
        Some(s) => Lane::Ps((s - 1) as u16),
    }
}

/// Simulates `setup` on `profile` (which must pass `Profile::validate`).
pub fn simulate(profile: &Profile, setup: &Setup) -> Outcome {
    simulate_with(profile, setup, true)
}

/// `simulate`, with lazy uplinks (`Graph::lazy`) or every chunk's end an
/// event: the same outcome, which the tests check.
fn simulate_with(profile: &Profile, setup: &Setup, lazy_links: bool) -> Outcome {
    let g = compile(profile, setup, lazy_links);
    let m = setup.servers.max(1) as usize;
    let shift = (1 + 3 * m).next_power_of_two().trailing_zeros();
    let workers = setup.workers as usize;
    let slots = workers << shift;
    let mut sim = Sim {
        g: &g,
        setup,
        m,
        workers: (0..setup.workers)
            .map(|_| WorkerState {
                sample: 0,
                started: 0,
                left: 0,
                leaf_end: 0.0,
                ends: Vec::with_capacity(setup.steps as usize),
            })
            .collect(),
        shift,
        in_service: vec![0; slots].into_boxed_slice(),
        rest: vec![0.0; slots].into_boxed_slice(),
        steps_from: slots as u32,
        delays_from: (slots + workers) as u32,
        delays: Slab::default(),
        queues: (0..slots).map(|_| VecDeque::new()).collect(),
        ranked: (0..slots).map(|_| BinaryHeap::new()).collect(),
        ranked_seq: 0,
        busy: vec![false; slots].into_boxed_slice(),
        free_at: vec![0.0; slots].into_boxed_slice(),
        remaining: vec![0; workers * g.nodes.len()].into_boxed_slice(),
        heap: Fronted::default(),
        seq: 0,
        chunks: 0,
        links: Links::new(m, setup.bytes_per_s, slots),
        window: Window::new(setup.workers, setup.steps, setup.warmup, m),
        done_chunks: Vec::new(),
        resolved: Vec::new(),
        t: 0.0,
        segments: Vec::new(),
        events: 0,
        windowed: matches!(setup.flow, Flow::Window(_)),
        tracers: setup.workers,
        kick: Vec::new(),
        kicking: Vec::new(),
    };
    if setup.steps > 0 && g.steps > 0 {
        sim.run();
    }
    let batch = f64::from(profile.batch);
    // Every worker is past its warm-up and none has finished: the paper's
    // workers all stop together, and a simulated worker that finished
    // early would leave the others a faster link.
    let (from, to, span) = (sim.window.from, sim.window.to, sim.window.span());
    let per_worker: Vec<f64> = sim
        .workers
        .iter()
        .map(|w| {
            let n = w.ends.iter().filter(|&&e| e > from && e <= to).count();
            if span > 0.0 {
                n as f64 * batch / span
            } else {
                0.0
            }
        })
        .collect();
    let (down_busy, up_busy) = sim.window.busy_shares();
    Outcome {
        throughput: per_worker.iter().sum(),
        down_busy,
        up_busy,
        per_worker,
        end_s: sim.t,
        placement: g.placement.clone(),
        segments: sim.segments,
        events: sim.events,
        chunk_visits: sim.links.visits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::li::profile::Op;

    /// A random step of `n` ops from `seed`: each op on a random resource,
    /// waiting on up to two earlier ones; some uplinks feed a PS update
    /// alone (lazy), others compute too; sizes from zero to over the window.
    fn random_profile(seed: u64, n: u32, layered: bool) -> Profile {
        let r = |i: u32, k: u32| draw(seed, i, k);
        let mut ops: Vec<Op> = Vec::new();
        for i in 0..n {
            let resource = if layered {
                [
                    Resource::Downlink,
                    Resource::Worker,
                    Resource::Uplink,
                    Resource::Ps,
                ][i as usize % 4]
            } else {
                [
                    Resource::Downlink,
                    Resource::Worker,
                    Resource::Uplink,
                    Resource::Ps,
                ][(r(i, 0) % 4) as usize]
            };
            let deps = match (layered, resource) {
                (true, Resource::Downlink) => vec![],
                (true, _) => vec![i - 1],
                (false, _) if i == 0 => vec![],
                (false, _) => {
                    let mut d = vec![(r(i, 1) % u64::from(i)) as u32];
                    if r(i, 2) % 2 == 0 {
                        d.push((r(i, 3) % u64::from(i)) as u32);
                    }
                    d.sort_unstable();
                    d.dedup();
                    d
                }
            };
            ops.push(Op {
                name: format!("op {i}"),
                resource,
                deps,
                tensor: Some(format!("t{}", i / 4)),
            });
        }
        let steps = (0..3)
            .map(|k| {
                ops.iter()
                    .enumerate()
                    .map(|(i, op)| {
                        let x = (draw(seed ^ 0xA5, i as u32, k) % 1000) as f64 / 1000.0;
                        match op.resource {
                            Resource::Downlink | Resource::Uplink if x < 0.05 => 0.0,
                            Resource::Downlink | Resource::Uplink => x * 4e6,
                            _ => x * 2e-3,
                        }
                    })
                    .collect()
            })
            .collect();
        Profile {
            name: format!("random {seed}"),
            batch: 8,
            ops,
            steps,
        }
    }

    /// Everything an outcome says, with the segments in one order (lazy
    /// ends are timed after the fact, so they are kept in another).
    fn fingerprint(mut o: Outcome) -> String {
        o.segments.sort_by(|a, b| {
            (a.worker, a.start.to_bits(), a.end.to_bits(), a.op).cmp(&(
                b.worker,
                b.start.to_bits(),
                b.end.to_bits(),
                b.op,
            ))
        });
        format!("{o:?}")
    }

    #[test]
    fn lazy_uplinks_change_nothing() {
        let mut lazy_somewhere = false;
        for seed in 0..24u64 {
            let p = random_profile(seed, 8 + (seed as u32 % 5) * 12, seed % 3 != 0);
            for workers in [1, 2, 3, 6] {
                let setup = Setup {
                    workers,
                    servers: 1,
                    bytes_per_s: 1.25e9,
                    parse: Parse {
                        alpha: 0.0,
                        beta: 0.0,
                        occupies: true,
                    },
                    flow: Flow::Window(if seed % 2 == 0 { 28e6 } else { 1.5e6 }),
                    steps: 30,
                    warmup: 3,
                    seed,
                    trace_steps: 4,
                };
                lazy_somewhere |= compile(&p, &setup, true).info.iter().any(|i| i.lazy);
                assert_eq!(
                    fingerprint(simulate_with(&p, &setup, true)),
                    fingerprint(simulate_with(&p, &setup, false)),
                    "seed {seed}, {workers} workers"
                );
            }
        }
        assert!(lazy_somewhere, "some uplinks were lazy");
    }
}
