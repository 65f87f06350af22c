//! The PS links in service: which chunks are on them, at what rate, and
//! when the next one ends.
//!
//! With one PS every chunk of a direction gets `B/n` (the paper): a
//! virtual clock per direction counts the bytes each active chunk has
//! received, so a chunk ends when the clock reaches its start mark plus
//! its size: O(log n) per event, nothing recomputed per chunk. With
//! several PS the rates are max-min fair (`max_min`) and recomputed when
//! the chunks of a direction change.

use super::due::Due;
use super::slab::Slab;
use std::collections::BinaryHeap;

/// The later of two times (neither NaN). Written out, not `f64::max`: a
/// size-optimised build (the page's) calls that rather than inlining it.
#[inline(always)]
pub(super) fn later(a: f64, b: f64) -> f64 {
    if a < b {
        b
    } else {
        a
    }
}

/// The earlier of two times (neither NaN); see `later`.
#[inline(always)]
pub(super) fn earlier(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// A chunk of a stream on a PS link.
#[derive(Clone, Copy, Debug)]
pub struct Chunk {
    pub worker: u32,
    pub up: bool,
    pub ps: u16,
    pub node: u32,
    /// Bytes of the stream before this chunk.
    pub stream_left: f64,
    pub size: f64,
    pub start: f64,
    /// Order of starting: ties end in this order.
    pub seq: u64,
}

/// Max-min fair rates of connections (PS, worker) in one direction: each
/// PS's link and each worker's own link carry at most `b` [B/s]. With one
/// PS every connection gets `b/n`; with two, a worker alone on PS 1 but
/// sharing PS 2 with `n − 1` others gets `b/n` there and `b·(1 − 1/n)` on
/// PS 1 (the paper's rule, l.310).
pub fn max_min(conns: &[(u16, u32)], servers: usize, b: f64) -> Vec<f64> {
    if servers <= 1 {
        return vec![b / conns.len().max(1) as f64; conns.len()];
    }
    // Constraint keys: a PS's link is its index, a worker's link m + id.
    let keys = |&(ps, w): &(u16, u32)| [usize::from(ps), servers + w as usize];
    let mut frozen = vec![false; conns.len()];
    let mut rate = vec![0.0; conns.len()];
    let mut constraints: Vec<usize> = conns.iter().flat_map(keys).collect();
    constraints.sort_unstable();
    constraints.dedup();
    while frozen.iter().any(|f| !f) {
        let mut best: Option<(f64, usize)> = None;
        for &key in &constraints {
            let (mut used, mut open) = (0.0, 0usize);
            for (k, c) in conns.iter().enumerate() {
                if keys(c).contains(&key) {
                    if frozen[k] {
                        used += rate[k];
                    } else {
                        open += 1;
                    }
                }
            }
            if open > 0 {
                let share = (b - used).max(0.0) / open as f64;
                if best.is_none_or(|(s, _)| share < s) {
                    best = Some((share, key));
                }
            }
        }
        let Some((share, key)) = best else { break };
        for (k, c) in conns.iter().enumerate() {
            if !frozen[k] && keys(c).contains(&key) {
                frozen[k] = true;
                rate[k] = share;
            }
        }
    }
    rate
}

/// A chunk waiting to end at virtual mark `at`; the chunk itself waits in
/// the slab (its id is its slab slot: chunks in service at once, at most
/// two per worker with one PS; start orders below 2^44).
type Mark = Due<20>;

/// One direction of the single PS: equal shares by a virtual clock.
#[derive(Default)]
struct Equal {
    /// Bytes each active chunk has received since the start.
    clock: f64,
    marks: BinaryHeap<Mark>,
    /// Each chunk's rate `B/n` [B/s] and its inverse, kept as `n` changes:
    /// every event reads them, and a division is slow.
    rate: f64,
    inv_rate: f64,
}

impl Equal {
    #[inline(always)]
    fn count_changed(&mut self, b: f64) {
        let n = self.marks.len() as f64;
        self.rate = if n > 0.0 { b / n } else { 0.0 };
        self.inv_rate = if n > 0.0 { n / b } else { 0.0 };
    }
}

/// A chunk in service under max-min sharing.
struct Running {
    chunk: Chunk,
    left: f64,
    rate: f64,
}

pub struct Links {
    servers: usize,
    bytes_per_s: f64,
    /// One PS: downlink and uplink.
    equal: [Equal; 2],
    /// One PS: the chunks in service, by slot.
    slab: Slab<Chunk>,
    /// When the next chunk ends (`INFINITY` with none): it changes only
    /// when a chunk starts or ends, so it is kept rather than recomputed.
    next_at: f64,
    /// Several PS.
    running: Vec<Running>,
    /// Time busy per PS and direction [s].
    pub down_busy: Vec<f64>,
    pub up_busy: Vec<f64>,
    now: f64,
}

impl Links {
    pub fn new(servers: usize, bytes_per_s: f64) -> Self {
        Links {
            servers,
            bytes_per_s,
            equal: [Equal::default(), Equal::default()],
            slab: Slab::default(),
            next_at: f64::INFINITY,
            running: Vec::new(),
            down_busy: vec![0.0; servers],
            up_busy: vec![0.0; servers],
            now: 0.0,
        }
    }

    #[inline(always)]
    fn one(&self) -> bool {
        self.servers <= 1
    }

    /// Starts `chunk` at its start time (no earlier than the last event).
    #[inline(always)]
    pub fn start(&mut self, chunk: Chunk) {
        self.advance(chunk.start);
        if self.one() {
            let slot = self.slab.insert(chunk);
            let e = &mut self.equal[usize::from(chunk.up)];
            e.marks
                .push(Mark::new(e.clock + chunk.size, chunk.seq, slot));
            e.count_changed(self.bytes_per_s);
        } else {
            self.running.push(Running {
                chunk,
                left: chunk.size,
                rate: 0.0,
            });
            self.rates(chunk.up);
        }
        self.update_next();
    }

    /// When the next chunk ends, if any is in service.
    #[inline(always)]
    pub fn next(&self) -> Option<f64> {
        (self.next_at < f64::INFINITY).then_some(self.next_at)
    }

    #[inline(always)]
    fn update_next(&mut self) {
        self.next_at = self.compute_next().unwrap_or(f64::INFINITY);
    }

    /// When direction `d`'s first chunk ends at today's shares (one PS).
    #[inline(always)]
    fn ends_at(&self, d: usize) -> Option<f64> {
        let e = &self.equal[d];
        let m = e.marks.peek()?;
        Some(self.now + later(m.at - e.clock, 0.0) * e.inv_rate)
    }

    #[inline(always)]
    fn compute_next(&self) -> Option<f64> {
        if self.one() {
            // Both directions written out: an iterator chain stays calls
            // in the page's size-optimised build.
            match (self.ends_at(0), self.ends_at(1)) {
                (Some(a), Some(b)) => Some(earlier(a, b)),
                (a, b) => a.or(b),
            }
        } else {
            self.running
                .iter()
                .map(|r| self.now + (r.left / r.rate).max(0.0))
                .reduce(f64::min)
        }
    }

    /// Serves every chunk in service up to `to`: done lazily, when a chunk
    /// starts or ends, since nothing in between changes the links.
    #[inline(always)]
    fn advance(&mut self, to: f64) {
        let dt = to - self.now;
        if dt > 0.0 {
            if self.one() {
                for (d, e) in self.equal.iter_mut().enumerate() {
                    if !e.marks.is_empty() {
                        e.clock += dt * e.rate;
                        if d == 0 {
                            self.down_busy[0] += dt;
                        } else {
                            self.up_busy[0] += dt;
                        }
                    }
                }
            } else {
                let mut down = vec![false; self.servers];
                let mut up = vec![false; self.servers];
                for r in &mut self.running {
                    r.left -= r.rate * dt;
                    let busy = if r.chunk.up { &mut up } else { &mut down };
                    busy[usize::from(r.chunk.ps)] = true;
                }
                for i in 0..self.servers {
                    if down[i] {
                        self.down_busy[i] += dt;
                    }
                    if up[i] {
                        self.up_busy[i] += dt;
                    }
                }
            }
        }
        self.now = to;
    }

    /// The chunks that end now (the earliest, and any within rounding of
    /// it), in the order they started, into `out`.
    pub fn take_done(&mut self, t: f64, out: &mut Vec<Chunk>) {
        out.clear();
        self.advance(t);
        let tol = t + 1e-12 * t.max(1e-9);
        if self.one() {
            for e in &mut self.equal {
                let inv = e.inv_rate;
                let before = e.marks.len();
                while let Some(m) = e.marks.peek() {
                    let at = self.now + later(m.at - e.clock, 0.0) * inv;
                    let slot = m.id();
                    if at <= tol || m.at - e.clock <= 1e-12 * self.slab.get(slot).size {
                        e.marks.pop();
                        out.push(self.slab.remove(slot));
                    } else {
                        break;
                    }
                }
                if e.marks.len() != before {
                    e.count_changed(self.bytes_per_s);
                }
            }
        } else {
            let now = self.now;
            let mut i = 0;
            let mut dirs = [false, false];
            while i < self.running.len() {
                let r = &self.running[i];
                let at = now + (r.left / r.rate).max(0.0);
                if at <= tol || r.left <= 1e-12 * r.chunk.size {
                    dirs[usize::from(r.chunk.up)] = true;
                    out.push(self.running.remove(i).chunk);
                } else {
                    i += 1;
                }
            }
            for up in [false, true] {
                if dirs[usize::from(up)] {
                    self.rates(up);
                }
            }
        }
        if out.len() > 1 {
            out.sort_by_key(|c| c.seq);
        }
        self.update_next();
    }

    fn rates(&mut self, up: bool) {
        let idx: Vec<usize> = (0..self.running.len())
            .filter(|&i| self.running[i].chunk.up == up)
            .collect();
        let conns: Vec<(u16, u32)> = idx
            .iter()
            .map(|&i| (self.running[i].chunk.ps, self.running[i].chunk.worker))
            .collect();
        let rates = max_min(&conns, self.servers, self.bytes_per_s);
        for (&i, r) in idx.iter().zip(rates) {
            self.running[i].rate = r;
        }
    }
}
