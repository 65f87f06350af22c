//! The PS links in service: which chunks are on them, at what rate, and
//! when the next one ends.
//!
//! With one PS every chunk of a direction gets `B/n` (the paper): a
//! virtual clock per direction counts the bytes each active chunk has
//! received, so a chunk ends when the clock reaches its mark, the clock
//! at its start plus its size: O(log n) per event, nothing recomputed per
//! chunk. The clock is linear between changes of `n`, so it is read from
//! where `n` last changed, and a chunk that starts the instant the one
//! before it on its connection ended continues from that one's mark: a
//! connection's chunks served back to back end at the same times however
//! they are scheduled. That lets a connection chain chunks whose ends
//! nothing in the run waits on at once (`append`): the heap then holds one
//! entry for the chain, and those ends are timed when the clock is known
//! to have passed them (`Resolved`). With several PS the rates are
//! max-min fair (`max_min`) and recomputed when the chunks of a direction
//! change.

use super::due::Due;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

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

/// A chunk that ended with an event: its connection (the link slot of
/// the simulation), its op and when it started.
#[derive(Clone, Copy, Debug)]
pub struct Ended {
    pub conn: u32,
    pub node: u32,
    pub start: f64,
    /// Order of starting: ties end in this order.
    seq: u64,
}

/// A lazy chunk whose end was timed after the fact (see `Links::append`).
#[derive(Clone, Copy, Debug)]
pub struct Resolved {
    pub conn: u32,
    pub node: u32,
    pub start: f64,
    pub end: f64,
}

/// Each of `n` chunks' share of `b` [B/s] and its inverse (0, 0 for none).
fn equal_share(b: f64, n: usize) -> (f64, f64) {
    match n {
        0 => (0.0, 0.0),
        n => (b / n as f64, n as f64 / b),
    }
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
    let mut constraints: Vec<usize> = conns.iter().flat_map(keys).collect();
    constraints.sort_unstable();
    constraints.dedup();
    let n = constraints.len();
    let at = |key: usize| constraints.binary_search(&key).unwrap_or(0);
    // Each connection's two constraints, and each constraint's
    // connections (`members[from[j]..from[j + 1]]`, in connection order).
    let of: Vec<[usize; 2]> = conns.iter().map(|c| keys(c).map(at)).collect();
    let mut from = vec![0usize; n + 1];
    for ends in &of {
        for &j in ends {
            from[j + 1] += 1;
        }
    }
    for j in 0..n {
        from[j + 1] += from[j];
    }
    let mut fill = from.clone();
    let mut members = vec![0usize; from[n]];
    for (k, ends) in of.iter().enumerate() {
        for &j in ends {
            members[fill[j]] = k;
            fill[j] += 1;
        }
    }
    let mut open: Vec<usize> = (0..n).map(|j| from[j + 1] - from[j]).collect();
    let mut used = vec![0.0f64; n];
    // What is left of a constraint's capacity per open connection (+0.0
    // makes a −0 sort as 0).
    let share = |used: f64, open: usize| (b - used).max(0.0) / open as f64 + 0.0;
    // The tightest constraint first, of equals the first in key order: a
    // heap of (share, constraint, version), an entry stale once its
    // constraint changed; shares as bits, which order as the numbers
    // (none is negative).
    let mut version = vec![0u32; n];
    let mut heap: BinaryHeap<Reverse<(u64, usize, u32)>> = (0..n)
        .filter(|&j| open[j] > 0)
        .map(|j| Reverse((share(0.0, open[j]).to_bits(), j, 0)))
        .collect();
    let mut frozen = vec![false; conns.len()];
    let mut rate = vec![0.0; conns.len()];
    while let Some(Reverse((bits, j, v))) = heap.pop() {
        if v != version[j] || open[j] == 0 {
            continue;
        }
        let s = f64::from_bits(bits);
        for &k in &members[from[j]..from[j + 1]] {
            if frozen[k] {
                continue;
            }
            frozen[k] = true;
            rate[k] = s;
            for &c in &of[k] {
                open[c] -= 1;
                used[c] += s;
                version[c] += 1;
                if c != j && open[c] > 0 {
                    heap.push(Reverse((share(used[c], open[c]).to_bits(), c, version[c])));
                }
            }
        }
    }
    rate
}

/// The entry of a connection's chain in a direction's heap: its id is the
/// connection, its time the mark of the chain's last chunk when it was
/// pushed (start orders below 2^44).
type Mark = Due<20>;

/// One direction of the single PS: equal shares by a virtual clock, read
/// from where the number of chunks in service last changed.
#[derive(Default)]
struct Equal {
    /// One entry per connection with chunks in service.
    marks: BinaryHeap<Mark>,
    /// The clock read `clock_ref` at `t_ref`, with `n_ref` chunks in
    /// service each at `rate` [B/s] (and its inverse) since.
    t_ref: f64,
    clock_ref: f64,
    n_ref: usize,
    rate: f64,
    inv_rate: f64,
    /// Since when the direction is busy.
    busy_since: f64,
}

impl Equal {
    /// The clock at `t` (not before `t_ref`, not after the next change).
    #[inline(always)]
    fn clock(&self, t: f64) -> f64 {
        self.clock_ref + (t - self.t_ref) * self.rate
    }

    /// When the clock reaches `mark` at today's shares.
    #[inline(always)]
    fn reaches(&self, mark: f64) -> f64 {
        self.t_ref + later(mark - self.clock_ref, 0.0) * self.inv_rate
    }

    /// Reads the clock afresh at `t`, from where on each chunk in service
    /// gets `share` (a rate and its inverse).
    #[inline(always)]
    fn rebase(&mut self, t: f64, share: (f64, f64)) {
        self.clock_ref = self.clock(t);
        self.t_ref = t;
        (self.rate, self.inv_rate) = share;
    }
}

/// A chunk on a connection with one PS.
#[derive(Clone, Copy)]
struct Link {
    node: u32,
    lazy: bool,
    /// The clock's reading at its end.
    mark: f64,
    /// When it started (for a chunk behind another, once that one ended).
    start: f64,
}

/// The chunks of one connection (a worker's link to the PS in one
/// direction) served back to back, the first in service: one, or lazy
/// chunks and the last.
struct Conn {
    chain: VecDeque<Link>,
    /// Where in `chain` the chunk the heap's entry names is.
    entry: usize,
    /// When the last chunk that left the connection ended, and its mark.
    last_end: f64,
    last_mark: f64,
}

impl Conn {
    /// Times the chain's first chunk, which the clock of `e` has passed.
    #[inline(always)]
    fn resolve_front(&mut self, conn: u32, e: &Equal, out: &mut Vec<Resolved>) {
        let Some(c) = self.chain.pop_front() else {
            return;
        };
        let end = later(e.reaches(c.mark), c.start);
        self.entry = self.entry.saturating_sub(1);
        if let Some(next) = self.chain.front_mut() {
            next.start = end;
        }
        out.push(Resolved {
            conn,
            node: c.node,
            start: c.start,
            end,
        });
    }
}

/// A chunk to start: `size` bytes of `node` on connection `conn`
/// (`worker`'s link to `ps`, `up` or down) at `at`; `seq` orders starts;
/// a `lazy` chunk's end lets only work go that nothing else waits on.
#[derive(Clone, Copy, Debug)]
pub struct Start {
    pub conn: u32,
    pub worker: u32,
    pub ps: u16,
    pub up: bool,
    pub node: u32,
    pub size: f64,
    pub lazy: bool,
    pub at: f64,
    pub seq: u64,
}

/// A chunk in service under max-min sharing.
struct Running {
    chunk: Start,
    left: f64,
    rate: f64,
}

/// Time busy [s] per PS, downlink and uplink.
#[derive(Clone, Debug, PartialEq)]
pub struct Busy {
    pub down: Vec<f64>,
    pub up: Vec<f64>,
}

pub struct Links {
    servers: usize,
    bytes_per_s: f64,
    /// One PS: downlink and uplink.
    equal: [Equal; 2],
    /// One PS: each connection's chunks, by the caller's id.
    conns: Vec<Conn>,
    /// One PS, per direction: the connections with lazy chunks before
    /// their entry's, a bit each (ids below `64 · behind[d].len()`).
    behind: [Vec<u64>; 2],
    /// One PS: `B/n` and its inverse for `n` chunks in service (and 0, 0
    /// for none), worked out once, not at every change of `n`.
    shares: Box<[(f64, f64)]>,
    /// When the next chunk ends (`INFINITY` with none), as of `settle`.
    next_at: f64,
    /// A chunk started or ended since the last `settle`.
    changed: bool,
    /// Several PS.
    running: Vec<Running>,
    /// Time busy per PS and direction [s].
    pub down_busy: Vec<f64>,
    pub up_busy: Vec<f64>,
    /// Several PS: the `advance` that last counted each PS direction busy.
    down_marked: Vec<u64>,
    up_marked: Vec<u64>,
    advances: u64,
    /// Several PS: chunks in service passed over, summed over the starts
    /// and ends (what `eval::share_passes` bounds).
    pub visits: u64,
    now: f64,
}

impl Links {
    /// Links for connections `0..conns`.
    pub fn new(servers: usize, bytes_per_s: f64, conns: usize) -> Self {
        // Connections are kept with one PS only.
        let conns = if servers <= 1 { conns } else { 0 };
        Links {
            servers,
            bytes_per_s,
            equal: [Equal::default(), Equal::default()],
            conns: (0..conns)
                .map(|_| Conn {
                    chain: VecDeque::new(),
                    entry: 0,
                    last_end: f64::NEG_INFINITY,
                    last_mark: 0.0,
                })
                .collect(),
            behind: [vec![0; conns.div_ceil(64)], vec![0; conns.div_ceil(64)]],
            // A direction has at most one chunk in service per connection.
            shares: (0..=conns).map(|n| equal_share(bytes_per_s, n)).collect(),
            next_at: f64::INFINITY,
            changed: false,
            running: Vec::new(),
            down_busy: vec![0.0; servers],
            up_busy: vec![0.0; servers],
            down_marked: vec![0; servers],
            up_marked: vec![0; servers],
            advances: 0,
            visits: 0,
            now: 0.0,
        }
    }

    #[inline(always)]
    fn one(&self) -> bool {
        self.servers <= 1
    }

    /// Starts `chunk` on its idle connection (no earlier than the last
    /// event).
    #[inline(always)]
    pub fn start(&mut self, chunk: Start) {
        let Start {
            conn,
            up,
            node,
            size,
            lazy,
            at: t,
            seq,
            ..
        } = chunk;
        if self.one() {
            self.now = t;
            self.changed = true;
            let e = &mut self.equal[usize::from(up)];
            let c = &mut self.conns[conn as usize];
            // Back to back: the clock is where the last one ended.
            let from = if c.last_end == t {
                c.last_mark
            } else {
                e.clock(t)
            };
            let mark = from + size;
            c.entry = 0;
            c.chain.push_back(Link {
                node,
                lazy,
                mark,
                start: t,
            });
            e.marks.push(Mark::new(mark, seq, conn));
            if e.n_ref == 0 {
                // A direction idle since its clock was last read runs at
                // rate 0, so every mark reads as reached at once: a chunk
                // ending at this instant elsewhere would make `take_done`
                // end this one too, in no time. Its chunks all started
                // now, so the clock is read afresh with their share (as
                // `settle` would), and each takes `size / share`.
                let n = e.marks.len();
                let share = self
                    .shares
                    .get(n)
                    .copied()
                    .unwrap_or_else(|| equal_share(self.bytes_per_s, n));
                e.rebase(t, share);
            }
        } else {
            self.advance(t);
            self.running.push(Running {
                chunk,
                left: size,
                rate: 0.0,
            });
            self.rates(up);
            self.next_at = self.compute_next().unwrap_or(f64::INFINITY);
        }
    }

    /// Whether a chunk may be appended to connection `conn`: with one PS,
    /// while its last chunk is lazy.
    #[inline(always)]
    pub fn can_append(&self, conn: u32) -> bool {
        self.one()
            && self.conns[conn as usize]
                .chain
                .back()
                .is_some_and(|c| c.lazy)
    }

    /// Queues a lazy chunk of `size` bytes of `node` on connection `conn`
    /// behind its last (lazy) chunk: it starts when that one ends, with no
    /// event, and its own end is an event only if the chain has not grown
    /// past it by then. Only with `can_append`.
    #[inline(always)]
    pub fn append(&mut self, conn: u32, node: u32, size: f64) {
        let c = &mut self.conns[conn as usize];
        if let Some(last) = c.chain.back() {
            let mark = last.mark + size;
            c.chain.push_back(Link {
                node,
                lazy: true,
                mark,
                start: f64::NAN,
            });
        }
    }

    /// Time each PS direction was busy from the start to `t` [s], `t` not
    /// before the last change of the chunks in service (the current
    /// instant): what is counted so far and, where chunks are in service,
    /// the time since.
    pub fn busy_until(&self, t: f64) -> Busy {
        let mut b = Busy {
            down: self.down_busy.clone(),
            up: self.up_busy.clone(),
        };
        if self.one() {
            for (d, e) in self.equal.iter().enumerate() {
                let v = if d == 0 { &mut b.down } else { &mut b.up };
                if let (true, Some(x)) = (e.n_ref > 0, v.first_mut()) {
                    *x += later(t - e.busy_since, 0.0);
                }
            }
            return b;
        }
        let since = later(t - self.now, 0.0);
        let mut seen = [vec![false; self.servers], vec![false; self.servers]];
        for r in &self.running {
            let d = usize::from(r.chunk.up);
            let ps = usize::from(r.chunk.ps);
            let v = if r.chunk.up { &mut b.up } else { &mut b.down };
            if let (Some(s), Some(x)) = (seen[d].get_mut(ps), v.get_mut(ps)) {
                if !*s {
                    *s = true;
                    *x += since;
                }
            }
        }
        b
    }

    /// When the next chunk ends, if any is in service (as of `settle`).
    #[inline(always)]
    pub fn next(&self) -> Option<f64> {
        (self.next_at < f64::INFINITY).then_some(self.next_at)
    }

    /// After an instant: with one PS, where the number of chunks in
    /// service changed, the lazy ends the clock has passed are timed into
    /// `out` and the clock read afresh; then the next end.
    #[inline(always)]
    pub fn settle(&mut self, out: &mut Vec<Resolved>) {
        if self.changed {
            self.changed = false;
            self.reread(out);
        }
    }

    fn reread(&mut self, out: &mut Vec<Resolved>) {
        if !self.one() {
            return;
        }
        let now = self.now;
        for d in 0..2 {
            let n = self.equal[d].marks.len();
            let e = &mut self.equal[d];
            if n == e.n_ref {
                continue;
            }
            for word in 0..self.behind[d].len() {
                let mut bits = self.behind[d][word];
                while bits != 0 {
                    let id = word * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let c = &mut self.conns[id];
                    while c.entry > 0 && c.chain.front().is_some_and(|f| e.reaches(f.mark) <= now) {
                        c.resolve_front(id as u32, e, out);
                    }
                    if c.entry == 0 {
                        self.behind[d][word] &= !(1 << (id % 64));
                    }
                }
            }
            if e.n_ref == 0 {
                e.busy_since = now;
            } else if n == 0 {
                let busy = if d == 0 {
                    &mut self.down_busy
                } else {
                    &mut self.up_busy
                };
                busy[0] += now - e.busy_since;
            }
            e.n_ref = n;
            let share = self
                .shares
                .get(n)
                .copied()
                .unwrap_or_else(|| equal_share(self.bytes_per_s, n));
            e.rebase(now, share);
        }
        let ends = |e: &Equal| e.marks.peek().map_or(f64::INFINITY, |m| e.reaches(m.at));
        self.next_at = earlier(ends(&self.equal[0]), ends(&self.equal[1]));
    }

    #[inline(always)]
    fn compute_next(&self) -> Option<f64> {
        self.running
            .iter()
            .map(|r| self.now + (r.left / r.rate).max(0.0))
            .reduce(f64::min)
    }

    /// Several PS: serves every chunk in service up to `to`: done lazily,
    /// when a chunk starts or ends, since nothing in between changes the
    /// links.
    fn advance(&mut self, to: f64) {
        // Each start and each instant of ends passes over every chunk in
        // service (here, in the shares and for the next end).
        self.visits += self.running.len() as u64;
        let dt = to - self.now;
        if dt > 0.0 {
            // Each busy PS direction counted once: marked with this
            // call's number, so no per-PS array is cleared per event.
            self.advances += 1;
            for r in &mut self.running {
                r.left -= r.rate * dt;
                let ps = usize::from(r.chunk.ps);
                let (mark, busy) = if r.chunk.up {
                    (&mut self.up_marked, &mut self.up_busy)
                } else {
                    (&mut self.down_marked, &mut self.down_busy)
                };
                if let (Some(m), Some(b)) = (mark.get_mut(ps), busy.get_mut(ps)) {
                    if *m != self.advances {
                        *m = self.advances;
                        *b += dt;
                    }
                }
            }
        }
        self.now = to;
    }

    /// The chunks that end now, in the order they started, into `out`;
    /// with one PS, the lazy ends reached on the way into `lazy`.
    #[inline(always)]
    pub fn take_done(&mut self, t: f64, out: &mut Vec<Ended>, lazy: &mut Vec<Resolved>) {
        out.clear();
        if self.one() {
            self.now = t;
            for d in 0..2 {
                let e = &mut self.equal[d];
                while let Some(m) = e.marks.peek() {
                    if e.reaches(m.at) > t {
                        break;
                    }
                    let (id, seq) = (m.id(), m.seq());
                    e.marks.pop();
                    self.changed = true;
                    let c = &mut self.conns[id as usize];
                    while c.entry > 0 {
                        c.resolve_front(id, e, lazy);
                    }
                    let bit = &mut self.behind[d][id as usize / 64];
                    *bit &= !(1 << (id % 64));
                    if c.chain.len() > 1 {
                        // The chain grew past the entry's chunk: that one
                        // ended with no event, and the chain's last is next.
                        c.resolve_front(id, e, lazy);
                        c.entry = c.chain.len() - 1;
                        if c.entry > 0 {
                            *bit |= 1 << (id % 64);
                        }
                        if let Some(last) = c.chain.back() {
                            e.marks.push(Mark::new(last.mark, seq, id));
                        }
                    } else if let Some(chunk) = c.chain.pop_front() {
                        c.last_end = t;
                        c.last_mark = chunk.mark;
                        out.push(Ended {
                            conn: id,
                            node: chunk.node,
                            start: chunk.start,
                            seq,
                        });
                    }
                }
            }
        } else {
            self.advance(t);
            let tol = t + 1e-12 * t.max(1e-9);
            let now = self.now;
            let mut dirs = [false, false];
            // The chunks that end leave, the others keep their order (one
            // pass: many may end at one instant).
            self.running.retain(|r| {
                let at = now + (r.left / r.rate).max(0.0);
                // The tolerance merges ends that rounding set apart; a
                // chunk that started at this instant ends now only if its
                // time rounds to nothing (no bytes), never by it.
                let ends = if r.chunk.at == now {
                    at <= now
                } else {
                    at <= tol || r.left <= 1e-12 * r.chunk.size
                };
                if ends {
                    dirs[usize::from(r.chunk.up)] = true;
                    out.push(Ended {
                        conn: r.chunk.conn,
                        node: r.chunk.node,
                        start: r.chunk.at,
                        seq: r.chunk.seq,
                    });
                }
                !ends
            });
            for up in [false, true] {
                if dirs[usize::from(up)] {
                    self.rates(up);
                }
            }
            self.next_at = self.compute_next().unwrap_or(f64::INFINITY);
        }
        if out.len() > 1 {
            out.sort_by_key(|c| c.seq);
        }
    }

    fn rates(&mut self, up: bool) {
        let idx: Vec<usize> = (0..self.running.len())
            .filter(|&i| self.running[i].chunk.up == up)
            .collect();
        let conns: Vec<(u16, u32)> = idx
            .iter()
            .map(|&i| {
                let c = &self.running[i].chunk;
                (c.ps, c.worker)
            })
            .collect();
        let rates = max_min(&conns, self.servers, self.bytes_per_s);
        for (&i, r) in idx.iter().zip(rates) {
            self.running[i].rate = r;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Ended, Links, Start};

    fn chunk(conn: u32, ps: u16, up: bool, size: f64, at: f64, seq: u64) -> Start {
        Start {
            conn,
            worker: conn,
            ps,
            up,
            node: conn,
            size,
            lazy: false,
            at,
            seq,
        }
    }

    fn ends(links: &mut Links, t: f64) -> Vec<u32> {
        let (mut out, mut lazy) = (Vec::<Ended>::new(), Vec::new());
        links.take_done(t, &mut out, &mut lazy);
        out.iter().map(|e| e.conn).collect()
    }

    #[test]
    fn a_chunk_started_on_an_idle_direction_as_another_ends_takes_its_time() {
        // One PS at 1 MB/s: 1 MB down from 0 ends at 1 s; 1 MB up starts
        // at 1 s on the idle uplink, as the downlink's ends: 1 to 2 s.
        let mut links = Links::new(1, 1e6, 4);
        let mut lazy = Vec::new();
        links.start(chunk(0, 0, false, 1e6, 0.0, 1));
        links.settle(&mut lazy);
        assert_eq!(links.next(), Some(1.0));
        links.start(chunk(1, 0, true, 1e6, 1.0, 2));
        assert_eq!(ends(&mut links, 1.0), [0]);
        links.settle(&mut lazy);
        assert_eq!(links.next(), Some(2.0));
        assert_eq!(ends(&mut links, 2.0), [1]);
        // No bytes: no time.
        links.start(chunk(2, 0, true, 0.0, 2.0, 3));
        assert_eq!(ends(&mut links, 2.0), [2]);
    }

    #[test]
    fn with_several_ps_a_chunk_just_started_is_not_ended_by_the_tolerance() {
        // Two PS at 1 MB/s: 1 GB down to PS 0 ends at 1,000 s; 1e-4 B up
        // to PS 1 starts then and takes 0.1 ns, within the 1e-12 relative
        // (1 ns) in which ends count as one instant: it still takes it.
        let mut links = Links::new(2, 1e6, 0);
        links.start(chunk(0, 0, false, 1e9, 0.0, 1));
        assert_eq!(links.next(), Some(1000.0));
        links.start(chunk(1, 1, true, 1e-4, 1000.0, 2));
        assert_eq!(ends(&mut links, 1000.0), [0]);
        let next = links.next().unwrap_or(f64::NAN);
        assert!(next > 1000.0 && next - 1000.0 < 2e-10, "{next}");
        assert_eq!(ends(&mut links, next), [1]);
        links.start(chunk(2, 0, true, 0.0, next, 3));
        assert_eq!(ends(&mut links, next), [2]);
    }
}
