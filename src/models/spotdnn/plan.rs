//! The provisioning problem (Eq. 11-14): the cheapest cluster whose run
//! reaches the loss goal within the time goal, at most `Lim_m` instances
//! of each type, keeping the instances already running (`E`). Algorithm 1
//! as printed, an exact branch and bound, and brute force for the tests.

use std::collections::HashMap;

use crate::bounds::positive;
use serde::Serialize;

use super::{cluster, ClusterFigures, InstanceType, LossForm, Mix, RunFigures, Workload};

/// One planning question.
#[derive(Clone, Debug)]
pub struct Problem<'a> {
    pub types: &'a [InstanceType],
    pub workload: &'a Workload,
    pub loss_goal: f64,
    /// The loss reached so far (a replan after a revocation), else None.
    pub loss_from: Option<f64>,
    /// `T_obj` [s], compared with the run's time plus `overhead_s`.
    pub time_goal_s: f64,
    /// `T_ohd` [s]: added to the time (Algorithm 1, line 12), not the cost.
    pub overhead_s: f64,
    /// Instances already running, kept (`E`), per type.
    pub existing: Vec<u32>,
    /// New instances each type may still add (quota minus running; 0 for a
    /// revoked type).
    pub available: Vec<u32>,
    /// Most workers in all (`|E| + n`): the paper's `P < 1` bound or the
    /// section's limit.
    pub max_workers: u32,
}

/// A candidate cluster with its run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// Instances per type, running ones included.
    pub counts: Vec<u32>,
    pub cluster: ClusterFigures,
    pub run: RunFigures,
    /// The run's time plus the overhead [s].
    pub time_s: f64,
}

/// What a search found, and how much it looked at.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Search {
    pub best: Option<Candidate>,
    /// Clusters evaluated to the end (a leaf, a window).
    pub evaluated: u64,
    /// Worker counts searched, all instances included.
    pub workers_from: u32,
    pub workers_to: u32,
    /// Whether the search went to the end: false when the exact search
    /// stopped at its budget (`NODE_BUDGET`), its plan then the cheapest
    /// (fastest) found, not proven so.
    pub complete: bool,
}

impl Problem<'_> {
    fn total_existing(&self) -> u32 {
        self.existing.iter().sum()
    }

    /// The largest total worker count any plan can have.
    fn workers_cap(&self) -> u32 {
        let all: u64 = self
            .existing
            .iter()
            .zip(&self.available)
            .map(|(&e, &a)| u64::from(e) + u64::from(a))
            .sum();
        (all.min(u64::from(u32::MAX)) as u32).min(self.max_workers)
    }

    /// Whether `counts` keeps the running instances and the quotas.
    fn holds(&self, counts: &[u32]) -> bool {
        counts.len() == self.types.len()
            && counts
                .iter()
                .zip(self.existing.iter().zip(&self.available))
                .all(|(&x, (&e, &a))| x >= e && x - e <= a)
            && counts.iter().sum::<u32>() <= self.workers_cap()
    }

    /// The run of `counts` (totals), feasible or not.
    pub fn candidate(&self, counts: &[u32]) -> Option<Candidate> {
        let c = cluster(self.types, counts, self.workload)?;
        let r = c.mix.run(self.workload, self.loss_from, self.loss_goal)?;
        Some(Candidate {
            counts: counts.to_vec(),
            time_s: r.time_s + self.overhead_s,
            cluster: c,
            run: r,
        })
    }

    /// `(time with overhead, cost)` of `counts` if it meets the time goal,
    /// without allocating (searches call it per composition).
    fn quick(&self, counts: &[u32]) -> Option<(f64, f64)> {
        self.in_time(Mix::of(self.types, counts, self.workload))
    }

    /// `quick` with each type's iteration time at this size given: the
    /// same bits.
    fn quick_at(&self, counts: &[u32], times: &[f64]) -> Option<(f64, f64)> {
        self.in_time(Mix::of_times(self.types, counts, times))
    }

    /// `(time with overhead, cost)` of a cluster's sums if its run meets
    /// the time goal.
    fn in_time(&self, mix: Option<Mix>) -> Option<(f64, f64)> {
        let r = mix?.run(self.workload, self.loss_from, self.loss_goal)?;
        let t = r.time_s + self.overhead_s;
        (t <= self.time_goal_s).then_some((t, r.cost))
    }

    /// Eq. 16's lower bound on the worker count, read as models.md says:
    /// `b·j(b)` is concave in `b`, so it is evaluated at the smallest and
    /// the largest batch and the smaller value kept. `j` takes `R = 0` and
    /// one worker, `v_max` the fastest worker alone (bandwidth `B_req`).
    /// Only a fresh plan has it (a replan's remaining work has no such
    /// bound), and only Algorithm 1 uses it.
    pub fn paper_lower_bound(&self) -> u32 {
        if self.loss_from.is_some() {
            return 1;
        }
        let w = self.workload;
        let usable = self
            .types
            .iter()
            .enumerate()
            .filter(|(k, _)| self.existing[*k] + self.available[*k] > 0)
            .map(|(_, t)| t);
        let (mut b_min, mut b_max, mut v_max) = (f64::INFINITY, 0.0f64, 0.0f64);
        for t in usable {
            b_min = b_min.min(t.batch);
            b_max = b_max.max(t.batch);
            v_max = v_max.max(t.batch / t.alone_s(w));
        }
        if !positive(v_max) {
            return 1;
        }
        // R = 0 and one worker: the least spread either loss form has.
        let work = |b: f64| -> f64 {
            w.loss
                .iterations(self.loss_goal, b, 0.0, 1.0)
                .map_or(0.0, |j| b * j)
        };
        let least = work(b_min).min(work(b_max));
        let budget = self.time_goal_s - self.overhead_s;
        if !positive(budget) {
            return 1;
        }
        let n = (least / (v_max * budget)).ceil();
        if n.is_finite() && n >= 1.0 {
            n.min(f64::from(u32::MAX)) as u32
        } else {
            1
        }
    }
}

/// Algorithm 1 as printed: every available instance in one list sorted by
/// iteration time (slowest first), a window of `n` adjacent instances for
/// each size between the bounds (no wrap-around), the running instances
/// added to each window, and a plan kept only when strictly cheaper and in
/// time. A heuristic: it sees only windows.
pub fn algorithm1(p: &Problem) -> Search {
    let w = p.workload;
    // Slowest first; equal times keep catalog order.
    let order = crate::order::positions(p.types.len(), &|a, b| {
        let ta = p.types[a].alone_s(w);
        let tb = p.types[b].alone_s(w);
        tb.total_cmp(&ta)
    });
    let mut list: Vec<usize> = Vec::new();
    for &k in &order {
        let room = p.available[k].min(p.workers_cap());
        list.extend(std::iter::repeat_n(k, room as usize));
    }
    let existing = p.total_existing();
    let lo = p.paper_lower_bound().max(existing + 1);
    let hi = p.workers_cap();
    let mut search = Search {
        best: None,
        evaluated: 0,
        workers_from: lo,
        workers_to: hi,
        complete: true,
    };
    let mut counts = vec![0u32; p.types.len()];
    let mut times = vec![0.0; p.types.len()];
    let mut best: Option<(f64, Vec<u32>)> = None;
    for total in lo..=hi {
        let n = (total - existing) as usize;
        if n == 0 || n > list.len() {
            continue;
        }
        counts.copy_from_slice(&p.existing);
        for &k in &list[..n] {
            counts[k] += 1;
        }
        // Each type's iteration at this size, once (as `Mix::of` has it).
        let size = f64::from(total);
        for (t, ty) in times.iter_mut().zip(p.types) {
            *t = ty.iteration(w, size).total();
        }
        for start in 0..=(list.len() - n) {
            if start > 0 {
                let (out, into) = (list[start - 1], list[start + n - 1]);
                // Sliding along a run of one type repeats the plan.
                if out == into {
                    continue;
                }
                counts[out] -= 1;
                counts[into] += 1;
            }
            search.evaluated += 1;
            if let Some((_, cost)) = p.quick_at(&counts, &times) {
                if best.as_ref().is_none_or(|b| cost < b.0) {
                    best = Some((cost, counts.clone()));
                }
            }
        }
    }
    search.best = best.and_then(|(_, c)| p.candidate(&c));
    search
}

/// Every composition within the quotas and the worker limit: the reference
/// the exact search is tested against (small catalogs only).
pub fn brute_force(p: &Problem) -> Search {
    let cap = p.workers_cap();
    let mut search = Search {
        best: None,
        evaluated: 0,
        workers_from: p.total_existing().max(1),
        workers_to: cap,
        complete: true,
    };
    let mut counts = p.existing.clone();
    fn walk(p: &Problem, k: usize, total: u32, cap: u32, counts: &mut Vec<u32>, s: &mut Search) {
        if k == p.types.len() {
            if total == 0 {
                return;
            }
            s.evaluated += 1;
            if let Some((_, cost)) = p.quick(counts) {
                if s.best.as_ref().is_none_or(|b| cost < b.run.cost) {
                    s.best = p.candidate(counts);
                }
            }
            return;
        }
        let base = p.existing[k];
        for extra in 0..=p.available[k] {
            if total + extra > cap {
                break;
            }
            counts[k] = base + extra;
            walk(p, k + 1, total + extra, cap, counts, s);
        }
        counts[k] = base;
    }
    let start = p.total_existing();
    walk(p, 0, start, cap, &mut counts, &mut search);
    search
}

/// The exact optimiser: the cheapest plan in time under the same model as
/// Algorithm 1, whose plan starts it (so it is never dearer).
///
/// For each total worker count `n` the contention, hence every type's
/// iteration time `T_k`, is fixed, and a cluster's run depends on its
/// counts only through sums: the iteration rate `I = Σ x_k/T_k`, the speed
/// `V = Σ x_k·b_k/T_k`, `Σ v_k²`, the price `Π = Σ x_k·p_k`, and the
/// fastest worker present. A depth-first search fixes the count of one
/// class of types at a time and drops a partial cluster only when a lower
/// bound, valid for every completion, shows that none is in time and
/// cheaper than the best so far (`Bb::bound`). Worker counts are searched
/// in the order of their root bounds, and stop once a root bound is no
/// better than the best plan. Types with the same iteration time and
/// batch (copies that differ in price at most) are one class, filled
/// cheapest first: that is never dearer, and nothing else differs. It
/// respects `P < 1` as Algorithm 1 does; the paper's Eq. 16 lower bound
/// is not used (models.md: at `b_min` alone it can cut off the optimum).
pub fn exact(p: &Problem, progress: impl FnMut(f64)) -> Search {
    exact_from(p, &algorithm1(p), progress)
}

/// `exact` started from Algorithm 1's search `paper` of the same problem.
pub fn exact_from(p: &Problem, paper: &Search, progress: impl FnMut(f64)) -> Search {
    let seed = paper.best.as_ref().map(|c| (c.run.cost, c.counts.clone()));
    let mut s = search(p, Objective::Cost, seed, progress);
    s.evaluated += paper.evaluated;
    s
}

/// The fastest cluster within the quotas, whatever it costs (the same
/// search, minimising time): how far a missed time goal is from reach.
pub fn fastest(p: &Problem) -> Search {
    let unbounded = Problem {
        time_goal_s: f64::INFINITY,
        ..p.clone()
    };
    search(&unbounded, Objective::Time, None, |_| {})
}

/// The cheapest plan for each of several time goals (ascending): the exact
/// search per goal, each started from the best of the known plans
/// (`seeds`: the fastest cluster, the cheapest) and of the tighter goals'
/// plans that meet it, so each search has a good bar from its start; the
/// goals share one search's per-worker-count set-up.
pub fn sweep(p: &Problem, goals: &[f64], seeds: &[&Candidate]) -> Frontier {
    let q = Problem {
        time_goal_s: f64::INFINITY,
        ..p.clone()
    };
    let mut known: Vec<(f64, f64, Vec<u32>)> = seeds
        .iter()
        .filter(|c| q.holds(&c.counts))
        .filter_map(|c| {
            q.quick(&c.counts)
                .map(|(t, cost)| (t, cost, c.counts.clone()))
        })
        .collect();
    let mut bb = Bb::new(&q, Objective::Cost, SWEEP_BUDGET);
    let mut plans = Vec::with_capacity(goals.len());
    for &goal in goals {
        let seed = known
            .iter()
            .filter(|(t, _, _)| *t <= goal)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(_, cost, c)| (*cost, c.clone()));
        bb.start(goal, seed);
        bb.run(|_| {});
        let best = bb.best.as_ref().and_then(|c| q.candidate(c));
        if let Some(c) = &best {
            known.push((c.time_s, c.run.cost, c.counts.clone()));
        }
        plans.push(best);
    }
    Frontier {
        plans,
        complete: !bb.stopped,
    }
}

/// The cheapest plan per time goal (`sweep`).
#[derive(Clone, Debug, PartialEq)]
pub struct Frontier {
    pub plans: Vec<Option<Candidate>>,
    /// False when the goals' searches ran out of their shared budget
    /// (`SWEEP_BUDGET`): the later plans are then the cheapest found.
    pub complete: bool,
}

/// The most elementary steps one evaluation's plan searches can take
/// (about a nanosecond each natively), for `types` instance types, at
/// most `workers` workers, and `list` instances in Algorithm 1's list
/// (`Σ min(quota, workers)`); `replan` when a revocation is replanned.
///
/// - Algorithm 1 (the plan, the cheapest plan's start, a replan's start):
///   at most `workers × list` windows, each run over the types.
/// - The exact searches (the plan, the fastest and the cheapest clusters,
///   a replan: `NODE_BUDGET` steps each; the frontier's goals:
///   `SWEEP_BUDGET` together), a step being greedy fills over the types
///   for each price direction (at most 4 per type) and each `(I, V)` cut
///   (`2·HULL_FILLS`), and the envelopes of the cells (`CELLS·2^REFINE`
///   leaves, as many inner cells, two pieces for a replan; up to 4 lines
///   per type).
/// - The price planes' hull, per worker count and search: `C(k, 3)`
///   triples checked against `k ≤ FACET_POINTS` points.
pub fn work_units(types: usize, workers: u32, list: u64, replan: bool) -> f64 {
    let m = types as f64;
    let w = f64::from(workers);
    let runs = if replan { 3.0 } else { 2.0 };
    let searches = runs + 1.0;
    let algorithm1 = runs * w * list as f64 * m;
    let steps = searches * NODE_BUDGET as f64 + SWEEP_BUDGET as f64;
    // Cells: halvings double the leaves' count, a replan has two pieces.
    let cells = 4.0 * (CELLS << REFINE) as f64;
    let step = m * (4.0 * m + 2.0 * HULL_FILLS as f64) + cells * 4.0 * m;
    let k = m.min(FACET_POINTS as f64);
    let hull = (searches + 1.0) * w * k * k * k * k / 6.0;
    algorithm1 + steps * step + hull
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Objective {
    Cost,
    Time,
}

/// The search for one objective, from a known plan `(value, counts)`.
fn search(
    p: &Problem,
    objective: Objective,
    seed: Option<(f64, Vec<u32>)>,
    progress: impl FnMut(f64),
) -> Search {
    let mut bb = Bb::new(p, objective, NODE_BUDGET);
    bb.start(p.time_goal_s, seed);
    let (lo, hi) = bb.run(progress);
    // Re-evaluated in catalog order, as every other plan is.
    Search {
        best: bb.best.as_ref().and_then(|c| p.candidate(c)),
        evaluated: bb.evaluated,
        workers_from: lo,
        workers_to: hi,
        complete: !bb.stopped,
    }
}

/// Per-type terms at one worker count.
#[derive(Clone, Copy, Debug, Default)]
struct Term {
    rate: f64,
    speed: f64,
    price: f64,
    batch: f64,
    /// Running instances (kept) and the most this type may have.
    lo: u32,
    hi: u32,
}

/// Sums over a set of workers.
#[derive(Clone, Copy, Debug)]
struct Acc {
    rate: f64,
    speed: f64,
    sq: f64,
    price: f64,
    fastest: f64,
    b_min: f64,
    b_max: f64,
}

impl Acc {
    const EMPTY: Acc = Acc {
        rate: 0.0,
        speed: 0.0,
        sq: 0.0,
        price: 0.0,
        fastest: 0.0,
        b_min: f64::INFINITY,
        b_max: 0.0,
    };

    fn add(&mut self, t: &Term, x: u32) {
        if x == 0 {
            return;
        }
        let x = f64::from(x);
        self.rate += x * t.rate;
        self.speed += x * t.speed;
        self.sq += x * t.speed * t.speed;
        self.price += x * t.price;
        self.fastest = self.fastest.max(t.speed);
        self.b_min = self.b_min.min(t.batch);
        self.b_max = self.b_max.max(t.batch);
    }
}

/// Units chosen by a greedy fill, and their sums.
#[derive(Clone, Copy, Debug, Default)]
struct Pick {
    rate: f64,
    speed: f64,
    price: f64,
}

/// The search's state: the problem, the best plan so far, and one worker
/// count's tree.
struct Bb<'a, 'p> {
    p: &'a Problem<'p>,
    objective: Objective,
    /// `T_obj` [s] of this search (`p`'s, or a sweep's goal).
    goal: f64,
    /// The best value so far of the objective (cost, or time), and its
    /// counts.
    best_value: f64,
    best: Option<Vec<u32>>,
    evaluated: u64,
    /// Bounds and leaves so far, and the most allowed (`NODE_BUDGET`);
    /// `stopped` once it is reached.
    spent: u64,
    budget: u64,
    stopped: bool,
    /// Nodes a probe may still open (`u64::MAX` in the full search).
    probe_left: u64,
    /// Types with the same iteration time and batch, cheapest first.
    classes: Vec<Vec<usize>>,
    /// Per worker count: the price plane directions (`level_planes`),
    /// kept across a sweep's goals.
    planes: HashMap<u32, Vec<(f64, f64)>>,
    /// The direction `(λ, μ)` of the price line under the root bound's
    /// least point (`bound` at depth 0 without a bar).
    active: Option<(f64, f64)>,
    // One worker count's tree:
    n: u32,
    times: Vec<f64>,
    terms: Vec<Term>,
    /// Classes in search order.
    order: Vec<usize>,
    /// Each type's depth (its class's place in `order`).
    depth_of: Vec<usize>,
    /// The types of the classes from depth `d` on: `open[open_from[d]..]`.
    open: Vec<usize>,
    open_from: Vec<usize>,
    /// Types by rate, by speed (fastest first), by price (cheapest first).
    by_rate: Vec<usize>,
    by_rate_rev: Vec<usize>,
    by_speed: Vec<usize>,
    by_speed_rev: Vec<usize>,
    by_price: Vec<usize>,
    /// Least and most workers the classes from depth `d` on can take.
    suffix_lo: Vec<u32>,
    suffix_hi: Vec<u32>,
    /// The count of the class at each depth on the current path.
    chosen: Vec<u32>,
    scratch: Vec<(f64, usize)>,
}

/// A worker count's root bound, its size and the piece it found active.
type Root = (f64, u32, Option<(f64, f64)>);

/// Relative slack so rounding never prunes the optimum.
const SLACK: f64 = 1e-9;

/// Rounding allowed per unit of a price line's terms (`Bb::price_lines`):
/// above the few dozen roundings that build and evaluate one, far below
/// `SLACK`.
const ROUNDING: f64 = 256.0 * f64::EPSILON;

/// Most greedy fills per chain of the `(I, V)` polygon (`Bb::batch_cuts`).
const HULL_FILLS: usize = 24;

/// Steps (bounds, roots, leaves) an exact search may take: far beyond what
/// the shipped catalogs need (a few thousand), and a stop for inputs that
/// make it a subset-sum hunt (the problem is NP-hard: a cardinality-
/// constrained subset sum is an instance, one batch size suffices).
pub const NODE_BUDGET: u64 = 16_000;

/// Steps the frontier's goals share (`sweep`).
pub const SWEEP_BUDGET: u64 = 32_000;

/// Most points (classes) the price planes' hull is taken over
/// (`Bb::level_planes`): the cheapest per rate.
const FACET_POINTS: usize = 32;

/// Types a greedy fill selects one by one before sorting (`Bb::pick`).
const SELECT: usize = 6;

/// Nodes of each worker count's first, short dive (`Bb::run`).
const PROBE_NODES: u64 = 32;

/// Cells of the rate range in `least_cost`'s first cut.
const CELLS: usize = 8;

/// Cells of the rate range in `cells` (the run time's bound).
const RUN_CELLS: usize = 16;

/// `least_cost`'s cells without a bar (root bounds): no refinement.
const ROOT_CELLS: usize = 32;

/// Halvings of a cell below the bar (`least_cost`).
const REFINE: usize = 3;

impl<'a, 'p> Bb<'a, 'p> {
    fn new(p: &'a Problem<'p>, objective: Objective, budget: u64) -> Self {
        // Same iteration time (at every count: same compute and PCIe
        // parts) and batch: one class.
        let key = |k: usize| {
            let t = &p.types[k];
            (t.compute_s.to_bits(), t.pcie_s.to_bits(), t.batch.to_bits())
        };
        let mut classes: Vec<Vec<usize>> = Vec::new();
        for k in 0..p.types.len() {
            match classes.iter_mut().find(|c| key(c[0]) == key(k)) {
                Some(c) => c.push(k),
                None => classes.push(vec![k]),
            }
        }
        for c in &mut classes {
            crate::order::sort_positions(c, &|a, b| {
                p.types[a]
                    .price
                    .total_cmp(&p.types[b].price)
                    .then(a.cmp(&b))
            });
        }
        Bb {
            p,
            objective,
            goal: p.time_goal_s,
            best_value: f64::INFINITY,
            best: None,
            evaluated: 0,
            spent: 0,
            budget,
            stopped: false,
            probe_left: u64::MAX,
            classes,
            planes: HashMap::new(),
            active: None,
            n: 0,
            times: Vec::new(),
            terms: Vec::new(),
            order: Vec::new(),
            depth_of: Vec::new(),
            open: Vec::new(),
            open_from: Vec::new(),
            by_rate: Vec::new(),
            by_rate_rev: Vec::new(),
            by_speed: Vec::new(),
            by_speed_rev: Vec::new(),
            by_price: Vec::new(),
            suffix_lo: Vec::new(),
            suffix_hi: Vec::new(),
            chosen: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// A new search for time goal `goal` from a known plan.
    fn start(&mut self, goal: f64, seed: Option<(f64, Vec<u32>)>) {
        self.goal = goal;
        self.best_value = f64::INFINITY;
        self.best = None;
        self.evaluated = 0;
        if let Some((value, counts)) = seed {
            if self.p.holds(&counts) {
                self.best_value = value;
                self.best = Some(counts);
            }
        }
    }

    /// Every worker count the problem allows: root bounds first, then the
    /// most promising counts searched first, stopping at the first root
    /// bound no better than the best plan. Returns the counts' range.
    fn run(&mut self, mut progress: impl FnMut(f64)) -> (u32, u32) {
        let lo = self.p.total_existing().max(1);
        let hi = self.p.workers_cap();
        let mut roots: Vec<Root> = Vec::new();
        for n in lo..=hi {
            if !self.spend() {
                break;
            }
            if !self.level(n) {
                continue;
            }
            // Against the bar first (cheap where it prunes), then the full
            // root bound of the counts left, to order them.
            if self.best_value.is_finite() {
                let b = self.bound(0, n, &Acc::EMPTY, self.best_value);
                if b * (1.0 - SLACK) >= self.best_value {
                    continue;
                }
                if !self.spend() {
                    break;
                }
            }
            self.active = None;
            let b = self.bound(0, n, &Acc::EMPTY, f64::INFINITY);
            if b < f64::INFINITY {
                roots.push((b, n, self.active));
            }
        }
        crate::order::sort_by(&mut roots, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        // A short dive per worker count first: the plans it finds set the
        // bar every full search then prunes against.
        for &(b, n, active) in &roots {
            if self.stopped || b * (1.0 - SLACK) >= self.best_value {
                break;
            }
            self.probe_left = PROBE_NODES;
            self.descend(n, active);
        }
        self.probe_left = u64::MAX;
        let total = roots.len().max(1) as f64;
        for (i, &(b, n, active)) in roots.iter().enumerate() {
            if self.stopped || b * (1.0 - SLACK) >= self.best_value {
                break;
            }
            self.descend(n, active);
            progress((i + 1) as f64 / total);
        }
        (lo, hi)
    }

    /// Counts one step (a root bound, or a node: its bound, or its at most
    /// one leaf per type when it is a forced completion) against the
    /// budget; false once it is spent.
    fn spend(&mut self) -> bool {
        if self.spent >= self.budget {
            self.stopped = true;
        } else {
            self.spent += 1;
        }
        !self.stopped
    }

    /// The tree of `n` workers, its classes along the root's `active` line.
    fn descend(&mut self, n: u32, active: Option<(f64, f64)>) {
        if self.level(n) {
            if let Some(direction) = active {
                self.arrange_by(direction);
            }
            self.dfs(0, n, Acc::EMPTY);
        }
    }

    /// Sets up the tree of `n` workers; false when no cluster has `n`.
    fn level(&mut self, n: u32) -> bool {
        let p = self.p;
        let w = p.workload;
        let nf = f64::from(n);
        self.n = n;
        self.times = p.types.iter().map(|t| t.iteration(w, nf).total()).collect();
        self.terms = p
            .types
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let rate = 1.0 / self.times[k];
                Term {
                    rate,
                    speed: t.batch * rate,
                    price: t.price,
                    batch: t.batch,
                    lo: p.existing[k],
                    hi: p.existing[k].saturating_add(p.available[k]),
                }
            })
            .collect();
        let terms = &self.terms;
        let sorted = |cmp: &dyn Fn(&Term, &Term) -> std::cmp::Ordering| {
            crate::order::positions(terms.len(), &|a, b| cmp(&terms[a], &terms[b]))
        };
        let by_rate = sorted(&|a, b| b.rate.total_cmp(&a.rate));
        let by_speed = sorted(&|a, b| b.speed.total_cmp(&a.speed));
        let by_price = sorted(&|a, b| a.price.total_cmp(&b.price));
        self.by_rate_rev = by_rate.iter().rev().copied().collect();
        self.by_speed_rev = by_speed.iter().rev().copied().collect();
        self.by_rate = by_rate;
        self.by_speed = by_speed;
        self.by_price = by_price;
        // Cheapest per iteration rate first for cost, fastest first for
        // time: the first leaves reached are then good incumbents.
        let mut order: Vec<usize> = (0..self.classes.len()).collect();
        let head = |c: usize| &self.terms[self.classes[c][0]];
        match self.objective {
            Objective::Cost => crate::order::sort_positions(&mut order, &|a, b| {
                (head(a).price / head(a).rate).total_cmp(&(head(b).price / head(b).rate))
            }),
            Objective::Time => crate::order::sort_positions(&mut order, &|a, b| {
                head(b).speed.total_cmp(&head(a).speed)
            }),
        }
        self.arrange(order)
    }

    /// The classes in `order`, and what depends on it; false when no
    /// cluster has `n` workers.
    fn arrange(&mut self, order: Vec<usize>) -> bool {
        let m = order.len();
        let mut suffix_lo = vec![0u32; m + 1];
        let mut suffix_hi = vec![0u32; m + 1];
        for d in (0..m).rev() {
            let (lo, hi) = self.class_range(order[d]);
            suffix_lo[d] = suffix_lo[d + 1].saturating_add(lo);
            suffix_hi[d] = suffix_hi[d + 1].saturating_add(hi);
        }
        let mut depth_of = vec![0usize; self.terms.len()];
        let mut open = Vec::with_capacity(self.terms.len());
        let mut open_from = vec![0usize; m + 1];
        for (d, &c) in order.iter().enumerate() {
            open_from[d] = open.len();
            for &k in &self.classes[c] {
                depth_of[k] = d;
                open.push(k);
            }
        }
        open_from[m] = open.len();
        let fits = self.n >= suffix_lo[0] && self.n <= suffix_hi[0];
        self.order = order;
        self.depth_of = depth_of;
        self.open = open;
        self.open_from = open_from;
        self.suffix_lo = suffix_lo;
        self.suffix_hi = suffix_hi;
        self.chosen = vec![0; m];
        fits
    }

    /// Classes by their reduced cost `p − λ·r − μ·s` along the root's
    /// active price line, the most attractive first: the counts the bound
    /// depends on most are fixed first.
    fn arrange_by(&mut self, (lambda, mu): (f64, f64)) {
        let reduced = |c: usize| {
            self.classes[c]
                .iter()
                .map(|&k| &self.terms[k])
                .filter(|t| t.hi > t.lo)
                .map(|t| t.price - lambda * t.rate - mu * t.speed)
                .fold(f64::INFINITY, f64::min)
        };
        let mut keyed: Vec<(f64, usize)> = self.order.iter().map(|&c| (reduced(c), c)).collect();
        // Stable: ties keep the default order.
        crate::order::sort_by(&mut keyed, |a, b| a.0.total_cmp(&b.0));
        self.arrange(keyed.into_iter().map(|(_, c)| c).collect());
    }

    /// Least and most workers of class `c`.
    fn class_range(&self, c: usize) -> (u32, u32) {
        self.classes[c].iter().fold((0u32, 0u32), |(a, b), &k| {
            (
                a.saturating_add(self.terms[k].lo),
                b.saturating_add(self.terms[k].hi),
            )
        })
    }

    /// Directions `(λ, μ)` for the price planes `Π ≥ λ·I + μ·V + M`: a
    /// cluster's WA batch, mean iteration time `n/I` and price per rate
    /// `Π/I` are means of its types' `b_k`, `T_k`, `p_k·T_k` with the same
    /// weights (the rates), so `Π/I` lies above the lower convex hull of
    /// the points `(b_k, T_k, p_k·T_k)`. Each facet `π = λ + μ·b + ν·T`
    /// gives a tight direction (`ν·n` is a constant at `n` workers, in
    /// `M`), and so does each edge of the hull in `(T, π)` (`μ = 0`). Any
    /// direction gives a valid bound; `M` is a greedy fill per node.
    fn level_planes(&self) -> Vec<(f64, f64)> {
        let mut points: Vec<(f64, f64, f64)> = Vec::new();
        for class in &self.classes {
            // The cheapest member with room: the class's lowest point.
            let t = class.iter().map(|&k| &self.terms[k]).find(|t| t.hi > t.lo);
            if let Some(t) = t {
                points.push((t.batch, 1.0 / t.rate, t.price / t.rate));
            }
        }
        let mut flat: Vec<(f64, f64)> = points.iter().map(|q| (q.1, q.2)).collect();
        if points.len() > FACET_POINTS {
            crate::order::sort_by(&mut points, |a, b| a.2.total_cmp(&b.2));
            points.truncate(FACET_POINTS);
        }
        let mut out = lower_facets(&points);
        out.extend(
            lower_hull_lines(&mut flat)
                .into_iter()
                .map(|(l, _)| (l, 0.0)),
        );
        out
    }

    /// The types still open at depth `d`.
    fn open_at(&self, d: usize) -> &[usize] {
        &self.open[self.open_from[d]..]
    }

    /// Greedy extreme of `Σ y_k·f(k)` over `extra` units beyond the open
    /// types' minimums, taking types in `ranked` order (with unit weights
    /// the greedy fill is the exact extreme).
    fn fill(&self, d: usize, extra: u32, ranked: &[usize], f: impl Fn(&Term) -> f64) -> f64 {
        let mut total = 0.0;
        let mut left = extra;
        for &k in ranked {
            if left == 0 {
                break;
            }
            if self.depth_of[k] < d {
                continue;
            }
            let t = &self.terms[k];
            let take = (t.hi - t.lo).min(left);
            total += f64::from(take) * f(t);
            left -= take;
        }
        total
    }

    /// The `extra` units over the open types that minimise `Σ y_k·key(k)`:
    /// the least keys first, found one by one (a fill takes a few types;
    /// past `SELECT` of them the rest is sorted).
    fn pick(&mut self, d: usize, extra: u32, key: impl Fn(&Term) -> f64) -> Pick {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        for &k in self.open_at(d) {
            let t = &self.terms[k];
            if t.hi > t.lo {
                scratch.push((key(t), k));
            }
        }
        let mut out = Pick::default();
        let mut left = extra;
        let mut next = 0;
        while left > 0 && next < scratch.len() {
            if next == SELECT {
                scratch[next..].sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
            } else if next < SELECT {
                let least = (next..scratch.len())
                    .min_by(|&a, &b| scratch[a].0.total_cmp(&scratch[b].0))
                    .unwrap_or(next);
                scratch.swap(next, least);
            }
            let t = &self.terms[scratch[next].1];
            let take = (t.hi - t.lo).min(left);
            let x = f64::from(take);
            out.rate += x * t.rate;
            out.speed += x * t.speed;
            out.price += x * t.price;
            left -= take;
            next += 1;
        }
        self.scratch = scratch;
        out
    }

    /// A lower bound on the objective (cost, or time with the overhead) of
    /// every completion of the partial cluster `acc` with `left` workers
    /// to place from depth `d`; ∞ when none can be in time. Once a bound
    /// falls below `bar` (the node stays open whatever it is), the dearer
    /// steps are skipped.
    ///
    /// Why it holds. The completions' sums are bounded by greedy fills
    /// (unit weights: the fill is the exact extreme), and `b_w = V/I` by
    /// them and by the batches present. `R² = (1 − w_max)² + Σ_{i≥2} w_i²
    /// ≥ (1 − w_max)²·n/(n − 1)`, decreasing in `w_max ≤ s_max/V_lo`. The
    /// iterations `j` rise with `u = (γ2·b_w + γ3)·√spread`, so at the
    /// least spread each of their linear pieces in `b_w` (`pieces`) bounds
    /// them. Then `T = j/I ≥ j_lo/I_hi`, `C = T_run·Π/3600 ≥
    /// (T_lo − T_ohd)·Π_lo/3600`, and over the `(I, b_w)` the completions
    /// reach (`cells`, with the polygon's edges `batch_cuts`),
    /// `C = j·(Π/I)/3600` with `Π/I` above the `price_lines`
    /// (`least_cost`), and `T` (`least_run`, `coupled_time`).
    fn bound(&mut self, d: usize, left: u32, acc: &Acc, bar: f64) -> f64 {
        let p = self.p;
        let w = p.workload;
        let n = f64::from(self.n);
        let extra = left - self.suffix_lo[d];
        // The sure part: the fixed classes and the open types' minimums.
        let mut base = *acc;
        for &k in self.open_at(d) {
            let t = self.terms[k];
            base.add(&t, t.lo);
        }
        let rate_hi = base.rate + self.fill(d, extra, &self.by_rate, |t| t.rate);
        let rate_lo = base.rate + self.fill(d, extra, &self.by_rate_rev, |t| t.rate);
        let speed_hi = base.speed + self.fill(d, extra, &self.by_speed, |t| t.speed);
        let speed_lo = base.speed + self.fill(d, extra, &self.by_speed_rev, |t| t.speed);
        let (mut b_min, mut b_max, mut s_max) = (base.b_min, base.b_max, base.fastest);
        if extra > 0 {
            for &k in self.open_at(d) {
                let t = &self.terms[k];
                if t.hi > t.lo {
                    b_min = b_min.min(t.batch);
                    b_max = b_max.max(t.batch);
                    s_max = s_max.max(t.speed);
                }
            }
        }
        if !positive(rate_lo) {
            return f64::NEG_INFINITY;
        }
        let l = &w.loss;
        let (bw_lo, bw_hi) = (b_min.max(speed_lo / rate_hi), b_max.min(speed_hi / rate_lo));
        let spread_lo = match l.form {
            LossForm::RFree => n,
            LossForm::WithR => {
                let r_lo = if self.n >= 2 {
                    let w_max = (s_max / speed_lo).min(1.0);
                    (1.0 - w_max).max(0.0) * (n / (n - 1.0)).sqrt()
                } else {
                    0.0
                };
                (r_lo + l.gamma4) * n
            }
        };
        if !positive(spread_lo) {
            return f64::NEG_INFINITY;
        }
        let pieces = self.pieces(spread_lo.sqrt());
        let j_lo = pieces
            .iter()
            .flatten()
            .flat_map(|&(k, c)| [c + k * bw_lo, c + k * bw_hi])
            .fold(f64::INFINITY, f64::min);
        if !positive(j_lo) {
            return f64::NEG_INFINITY;
        }
        let (goal, overhead) = (self.goal, p.overhead_s);
        let budget = goal - overhead;
        let mut time_lo = j_lo / rate_hi + overhead;
        if time_lo * (1.0 - SLACK) > goal {
            return f64::INFINITY;
        }
        let price_lo = base.price + self.fill(d, extra, &self.by_price, |t| t.price);
        let objective = self.objective;
        let plain = |time_lo: f64| match objective {
            Objective::Time => time_lo,
            Objective::Cost => (time_lo - overhead) * price_lo / 3600.0,
        };
        let mut best = plain(time_lo);
        if best * (1.0 - SLACK) >= bar {
            return best;
        }
        let ranges = ((rate_lo, rate_hi), (bw_lo, bw_hi));
        let lines = match self.objective {
            Objective::Cost => {
                // The price lines first over the plain ranges: most nodes
                // that close, close here.
                let lines = self.price_lines(d, extra, &base, ranges);
                let (cost, _) = least_cost(&pieces, &[], &lines, ranges, budget, bar);
                best = best.max(cost);
                if best * (1.0 - SLACK) >= bar {
                    return best;
                }
                lines
            }
            Objective::Time => Vec::new(),
        };
        let cuts = self.batch_cuts(d, extra, &base);
        let region = cells(&pieces, &cuts, ranges, budget);
        if region.is_empty() {
            return f64::INFINITY;
        }
        time_lo = time_lo.max(least_run(&region, &pieces) + overhead);
        if self.objective == Objective::Time {
            time_lo = time_lo.max(coupled_time(&pieces, &cuts, (rate_lo, rate_hi)) + overhead);
        }
        if time_lo * (1.0 - SLACK) > goal {
            return f64::INFINITY;
        }
        best = best.max(plain(time_lo));
        if self.objective == Objective::Cost {
            let (cost, active) = least_cost(&pieces, &cuts, &lines, ranges, budget, bar);
            best = best.max(cost);
            if d == 0 {
                self.active = active;
            }
        }
        best
    }

    /// `j` as linear pieces `(slope, intercept)` in `b_w` at `√spread =
    /// root`: `j_to`, and for a replan `j_to − j_from` (`j` is the lesser
    /// while the iterations done are positive).
    fn pieces(&self, root: f64) -> [Option<(f64, f64)>; 2] {
        let p = self.p;
        let l = &p.workload.loss;
        let to = 1.0 / (p.loss_goal - l.gamma5);
        let first = (l.gamma2 * root * to, l.gamma3 * root * to - l.gamma1);
        let second = p.loss_from.map(|f| {
            let q = to - 1.0 / (f - l.gamma5);
            (l.gamma2 * root * q, l.gamma3 * root * q)
        });
        [Some(first), second]
    }

    /// Cuts on the completions' `(I, V)`: the edges of the upper and
    /// lower chains of the polygon their sums fill (`V − λ·I ≤ M(λ)`,
    /// `≥ m(λ)`, each a greedy fill; every vertex is a fill), found by
    /// quickhull from its least-rate to its most-rate end, at most
    /// `HULL_FILLS` fills per chain. Each cut's value is the exact extreme
    /// in its direction, so any set of them is valid; the whole chains are
    /// the exact boundary.
    fn batch_cuts(&mut self, d: usize, extra: u32, base: &Acc) -> Vec<Cut> {
        let mut cuts = Vec::new();
        if extra == 0 {
            return cuts;
        }
        let point = |q: Pick| (base.rate + q.rate, base.speed + q.speed);
        let left = point(self.pick(d, extra, |t| t.rate));
        let right = point(self.pick(d, extra, |t| -t.rate));
        for upper in [true, false] {
            let sign = if upper { 1.0 } else { -1.0 };
            let mut stack = vec![(left, right)];
            let mut fills = 0;
            while let Some((a, b)) = stack.pop() {
                if b.0 - a.0 <= SLACK * b.0.abs() {
                    continue;
                }
                let lambda = (b.1 - a.1) / (b.0 - a.0);
                let q = self.pick(d, extra, |t| sign * (lambda * t.rate - t.speed));
                fills += 1;
                let c = point(q);
                let chord = a.1 - lambda * a.0;
                let value = c.1 - lambda * c.0;
                let beyond = sign * (value - chord) > SLACK * (value.abs() + chord.abs());
                if beyond && fills < HULL_FILLS {
                    stack.push((a, c));
                    stack.push((c, b));
                    continue;
                }
                cuts.push(if upper {
                    Cut {
                        lambda,
                        least: f64::NEG_INFINITY,
                        most: value,
                    }
                } else {
                    Cut {
                        lambda,
                        least: value,
                        most: f64::INFINITY,
                    }
                });
            }
        }
        cuts
    }

    /// Lines under the price per rate, sorted by slope: for each direction
    /// `(λ, μ)`, `Π − λ·I − μ·V ≥ M` (a greedy fill, which also counts the
    /// quotas and the worker count), so `Π/I ≥ λ + μ·b_w + M/I`. The
    /// directions: the level's planes (`level_planes`), and the edges of
    /// the lower convex hull of the open types' and the fixed part's
    /// `(b, p·T)` (the WA batch and `Π/I` are means of these with the rates
    /// as weights).
    fn price_lines(
        &mut self,
        d: usize,
        extra: u32,
        base: &Acc,
        ((i_lo, i_hi), (b_lo, b_hi)): ((f64, f64), (f64, f64)),
    ) -> Vec<Line> {
        let mut points: Vec<(f64, f64)> = Vec::with_capacity(self.open.len() + 1);
        if base.rate > 0.0 {
            points.push((base.speed / base.rate, base.price / base.rate));
        }
        if extra > 0 {
            for &k in self.open_at(d) {
                let t = &self.terms[k];
                if t.hi > t.lo {
                    points.push((t.batch, t.price / t.rate));
                }
            }
        }
        let low = points.iter().map(|q| q.1).reduce(f64::min);
        let mut directions = lower_hull_lines(&mut points);
        directions.extend(low.map(|low| (low, 0.0)));
        // The level's planes, once per worker count (kept across a sweep).
        if !self.planes.contains_key(&self.n) {
            let planes = self.level_planes();
            self.planes.insert(self.n, planes);
        }
        if let Some(planes) = self.planes.get(&self.n) {
            directions.extend(planes.iter().copied());
        }
        let lines: Vec<Line> = directions
            .into_iter()
            .filter(|(l, m)| l.is_finite() && m.is_finite())
            .map(|(lambda, mu)| {
                let q = self.pick(d, extra, |t| t.price - lambda * t.rate - mu * t.speed);
                let rest = base.price - lambda * base.rate - mu * base.speed;
                // `λ + μ·b_w + rest/I` cancels terms of these sizes: a
                // near-vertical hull edge (two batches equal but for
                // rounding) has λ and μ of 1e13 and more. The line is
                // lowered by their rounding, so it stays under `Π/I`.
                let size = (base.rate + q.rate) * lambda.abs()
                    + (base.speed + q.speed) * mu.abs()
                    + base.price
                    + q.price;
                Line {
                    lambda: lambda - ROUNDING * (lambda.abs() + mu.abs() * b_hi),
                    mu,
                    rest: rest + q.price - lambda * q.rate - mu * q.speed - ROUNDING * size,
                    direction: (lambda, mu),
                }
            })
            .collect();
        // A line under another over the whole box of `(1/I, b_w)` (both
        // enter linearly: compare at the corners) never shapes the
        // envelope.
        let corners = [(i_lo, b_lo), (i_lo, b_hi), (i_hi, b_lo), (i_hi, b_hi)];
        let value = |ln: &Line, (i, b): (f64, f64)| ln.lambda + ln.mu * b + ln.rest / i;
        let keep: Vec<bool> = (0..lines.len())
            .map(|x| {
                !(0..lines.len()).any(|y| {
                    y != x
                        && corners
                            .iter()
                            .all(|&q| value(&lines[y], q) >= value(&lines[x], q))
                        && (corners
                            .iter()
                            .any(|&q| value(&lines[y], q) > value(&lines[x], q))
                            || y < x)
                })
            })
            .collect();
        let mut kept: Vec<Line> = lines
            .into_iter()
            .zip(keep)
            .filter_map(|(ln, k)| k.then_some(ln))
            .collect();
        crate::order::sort_by(&mut kept, |a, b| a.mu.total_cmp(&b.mu));
        kept
    }

    fn dfs(&mut self, d: usize, left: u32, acc: Acc) {
        if d == self.order.len() {
            if left == 0 {
                self.leaf(&acc);
            }
            return;
        }
        if left < self.suffix_lo[d]
            || left > self.suffix_hi[d]
            || self.probe_left == 0
            || !self.spend()
        {
            return;
        }
        // No worker or one left beyond the open minimums: the few
        // completions are run, not bounded.
        let extra = left - self.suffix_lo[d];
        if extra <= 1 {
            self.finish(d, extra, acc);
            return;
        }
        self.probe_left -= 1;
        if self.bound(d, left, &acc, self.best_value) * (1.0 - SLACK) >= self.best_value {
            return;
        }
        let c = self.order[d];
        let (c_lo, c_hi) = self.class_range(c);
        let most = c_hi.min(left - self.suffix_lo[d + 1]);
        let least = c_lo.max(left.saturating_sub(self.suffix_hi[d + 1]));
        if least > most {
            return;
        }
        for x in (least..=most).rev() {
            let mut a = acc;
            let terms = &self.terms;
            split(&self.classes[c], terms, x, |k, count| {
                a.add(&terms[k], count)
            });
            self.chosen[d] = x;
            self.dfs(d + 1, left - x, a);
        }
    }

    /// Every completion from depth `d` with `extra ≤ 1` workers beyond
    /// the open classes' minimums: all at their minimums, or one class
    /// one above.
    fn finish(&mut self, d: usize, extra: u32, acc: Acc) {
        let m = self.order.len();
        let mut base = acc;
        for e in d..m {
            let c = self.order[e];
            let (lo, _) = self.class_range(c);
            self.chosen[e] = lo;
            let terms = &self.terms;
            split(&self.classes[c], terms, lo, |k, x| base.add(&terms[k], x));
        }
        if extra == 0 {
            self.leaf(&base);
            return;
        }
        for e in d..m {
            let c = self.order[e];
            let (lo, hi) = self.class_range(c);
            if hi <= lo {
                continue;
            }
            // One more worker of class c: its cheapest member with room.
            let Some(&k) = self.classes[c]
                .iter()
                .find(|&&k| self.terms[k].hi > self.terms[k].lo)
            else {
                continue;
            };
            let mut a = base;
            a.add(&self.terms[k], 1);
            self.chosen[e] = lo + 1;
            self.leaf(&a);
            self.chosen[e] = lo;
        }
    }

    /// The counts per type on the current path.
    fn counts(&self) -> Vec<u32> {
        let mut out = vec![0u32; self.terms.len()];
        for (d, &c) in self.order.iter().enumerate() {
            split(&self.classes[c], &self.terms, self.chosen[d], |k, x| {
                out[k] = x
            });
        }
        out
    }

    fn leaf(&mut self, acc: &Acc) {
        self.evaluated += 1;
        let p = self.p;
        let value = |mix: &Mix, goal: f64| -> Option<f64> {
            let r = mix.run(p.workload, p.loss_from, p.loss_goal)?;
            let time = r.time_s + p.overhead_s;
            (time <= goal).then_some(match self.objective {
                Objective::Cost => r.cost,
                Objective::Time => time,
            })
        };
        // The sums in search order first (with slack for rounding); only
        // a near or better value is run again in catalog order, as every
        // plan is.
        let mix = Mix {
            workers: self.n,
            rate: acc.rate,
            speed: acc.speed,
            sum_sq: acc.sq,
            fastest: acc.fastest,
            price: acc.price,
            other: None,
        };
        let near = |v: f64| v * (1.0 - SLACK) < self.best_value;
        if !value(&mix, self.goal * (1.0 + SLACK)).is_some_and(near) {
            return;
        }
        let counts = self.counts();
        let Some(v) =
            Mix::of_times(p.types, &counts, &self.times).and_then(|m| value(&m, self.goal))
        else {
            return;
        };
        if v < self.best_value {
            self.best_value = v;
            self.best = Some(counts);
        }
    }
}

/// Each member's count when class `members` (cheapest first) has `x`
/// workers: its running instances, then the cheapest rooms first (the
/// members differ in price only).
fn split(members: &[usize], terms: &[Term], x: u32, mut f: impl FnMut(usize, u32)) {
    let base = members
        .iter()
        .fold(0u32, |s, &k| s.saturating_add(terms[k].lo));
    let mut extra = x.saturating_sub(base);
    for &k in members {
        let t = &terms[k];
        let take = (t.hi - t.lo).min(extra);
        extra -= take;
        f(k, t.lo + take);
    }
}

/// `λ` with the range of `V − λ·I` over the completions.
#[derive(Clone, Copy, Debug)]
struct Cut {
    lambda: f64,
    least: f64,
    most: f64,
}

/// `Π/I ≥ λ + μ·b_w + rest/I` for every completion.
#[derive(Clone, Copy, Debug)]
struct Line {
    lambda: f64,
    mu: f64,
    rest: f64,
    /// The direction `(λ, μ)` it was filled along, before its rounding
    /// allowance (the search order's key, `Bb::arrange_by`).
    direction: (f64, f64),
}

/// A cell of the `(I, b_w)` the completions may reach, for one piece of
/// `j`: `I ∈ [i_a, i_b]`, `b_w ∈ [lo, hi]`.
#[derive(Clone, Copy, Debug)]
struct Cell {
    piece: usize,
    i_b: f64,
    lo: f64,
    hi: f64,
}

/// The rate range `i` cut into `RUN_CELLS` geometric cells, each with its WA
/// batch range (`batch_range`); the empty ones are left out (none:
/// nothing is in time).
fn cells(
    pieces: &[Option<(f64, f64)>; 2],
    cuts: &[Cut],
    ((i_lo, i_hi), b): ((f64, f64), (f64, f64)),
    budget: f64,
) -> Vec<Cell> {
    let mut out = Vec::with_capacity(2 * RUN_CELLS);
    let ratio = (i_hi / i_lo).max(1.0).powf(1.0 / RUN_CELLS as f64);
    for (piece, &(k, c)) in pieces
        .iter()
        .enumerate()
        .filter_map(|(x, q)| q.as_ref().map(|q| (x, q)))
    {
        let mut i_a = i_lo;
        for cell in 0..RUN_CELLS {
            let i_b = if cell + 1 == RUN_CELLS {
                i_hi
            } else {
                i_a * ratio
            };
            if let Some((lo, hi)) = batch_range((k, c), cuts, b, budget, (i_a, i_b)) {
                out.push(Cell { piece, i_b, lo, hi });
            }
            i_a = i_b;
        }
    }
    out
}

/// `j = c + k·b_w` of a cell's piece, at least 0.
fn piece_of(pieces: &[Option<(f64, f64)>; 2], cell: &Cell) -> (f64, f64) {
    pieces[cell.piece].unwrap_or((0.0, 0.0))
}

/// The least run time `j/I` over the cells: the most iteration-saving
/// `b_w` at the highest rate of each.
fn least_run(region: &[Cell], pieces: &[Option<(f64, f64)>; 2]) -> f64 {
    region
        .iter()
        .map(|cell| {
            let (k, c) = piece_of(pieces, cell);
            let b = if k < 0.0 { cell.hi } else { cell.lo };
            (c + k * b).max(0.0) / cell.i_b
        })
        .fold(f64::INFINITY, f64::min)
}

/// The WA batch range of the cell `I ∈ [i_a, i_b]` for the piece
/// `j = c + k·b_w`: within `b`, the `cuts` at the cell's ends, and (for a
/// time goal) `j ≤ budget·I ≤ budget·i_b`; None when empty.
fn batch_range(
    (k, c): (f64, f64),
    cuts: &[Cut],
    (b_lo, b_hi): (f64, f64),
    budget: f64,
    (i_a, i_b): (f64, f64),
) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (b_lo, b_hi);
    for cut in cuts {
        if cut.most.is_finite() {
            hi = hi.min(cut.lambda + cut.most / if cut.most >= 0.0 { i_a } else { i_b });
        }
        if cut.least.is_finite() {
            lo = lo.max(cut.lambda + cut.least / if cut.least >= 0.0 { i_b } else { i_a });
        }
    }
    if budget.is_finite() {
        let room = budget * i_b - c;
        if k < 0.0 {
            lo = lo.max(room / k);
        } else if k > 0.0 {
            hi = hi.min(room / k);
        } else if room < 0.0 {
            return None;
        }
    }
    (lo <= hi * (1.0 + SLACK) + SLACK).then_some((lo, hi.max(lo)))
}

/// The least cost `j·(Π/I)/3600` over the `(I, b_w)` the completions may
/// reach, with the direction of the price line under its least point;
/// ∞ when nothing is in time.
///
/// The rate range is cut into geometric cells (`batch_range` each). On a
/// cell `Π/I` is at least the upper envelope of the `lines` (sorted by
/// slope; each `rest/I` at the cell's worse end) and of 0, and its product
/// with the linear `j` is least at an end of an envelope piece, where `j`
/// reaches 0, or at the vertex of the piece's parabola. With a finite
/// `bar`, a cell below it is halved (narrower cells lose less to their
/// ends) up to `REFINE` times; one still below stops the search with no
/// bound (−∞): the node stays open.
fn least_cost(
    pieces: &[Option<(f64, f64)>; 2],
    cuts: &[Cut],
    lines: &[Line],
    ((i_lo, i_hi), b): ((f64, f64), (f64, f64)),
    budget: f64,
    bar: f64,
) -> (f64, Option<(f64, f64)>) {
    let refine = bar.is_finite();
    let start = if refine { CELLS } else { ROOT_CELLS };
    let ratio = (i_hi / i_lo).max(1.0).powf(1.0 / start as f64);
    let mut stack: Vec<(f64, f64, f64, f64, usize)> = Vec::with_capacity(2 * start);
    for &(k, c) in pieces.iter().flatten() {
        let mut i_a = i_lo;
        for cell in 0..start {
            let i_b = if cell + 1 == start { i_hi } else { i_a * ratio };
            stack.push((k, c, i_a, i_b, 0));
            i_a = i_b;
        }
    }
    let mut least = f64::INFINITY;
    let mut active = None;
    let mut hull: Vec<(f64, f64, Option<usize>)> = Vec::with_capacity(lines.len() + 1);
    while let Some((k, c, i_a, i_b, depth)) = stack.pop() {
        let Some((lo, hi)) = batch_range((k, c), cuts, b, budget, (i_a, i_b)) else {
            continue;
        };
        let (value, line) = cell_cost((k, c), lines, (i_a, i_b), (lo, hi), &mut hull);
        let value = value / 3600.0;
        if refine && value * (1.0 - SLACK) < bar {
            if depth < REFINE {
                let mid = (i_a * i_b).sqrt();
                stack.push((k, c, i_a, mid, depth + 1));
                stack.push((k, c, mid, i_b, depth + 1));
                continue;
            }
            return (f64::NEG_INFINITY, None);
        }
        if value < least {
            least = value;
            active = line.map(|x| lines[x].direction);
        }
    }
    (least, active)
}

/// The least `j·max(0, envelope of the lines)` on one cell, and the line
/// under it.
fn cell_cost(
    (k, c): (f64, f64),
    lines: &[Line],
    (i_a, i_b): (f64, f64),
    (lo, hi): (f64, f64),
    hull: &mut Vec<(f64, f64, Option<usize>)>,
) -> (f64, Option<usize>) {
    hull.clear();
    let push = |h: &mut Vec<(f64, f64, Option<usize>)>, q: (f64, f64, Option<usize>)| {
        if let Some(last) = h.last() {
            if last.1 == q.1 {
                if last.0 >= q.0 {
                    return;
                }
                h.pop();
            }
        }
        while h.len() >= 2 {
            let (a, b) = (h[h.len() - 2], h[h.len() - 1]);
            // b is useless when q overtakes a no later than b does.
            let x_aq = (a.0 - q.0) / (q.1 - a.1);
            let x_ab = (a.0 - b.0) / (b.1 - a.1);
            if x_aq <= x_ab {
                h.pop();
            } else {
                break;
            }
        }
        h.push(q);
    };
    let zero = (0.0, 0.0, None);
    let mut zero_in = false;
    for (x, ln) in lines.iter().enumerate() {
        let worse = (ln.rest / i_a).min(ln.rest / i_b);
        let q = (ln.lambda + worse, ln.mu, Some(x));
        if !zero_in && q.1 >= 0.0 {
            push(hull, zero);
            zero_in = true;
        }
        push(hull, q);
    }
    if !zero_in {
        push(hull, zero);
    }
    let j = |b: f64| (c + k * b).max(0.0);
    let mut least = f64::INFINITY;
    let mut under = None;
    for (x, &(a, m, line)) in hull.iter().enumerate() {
        let from = match x.checked_sub(1).map(|y| hull[y]) {
            Some(p) => ((p.0 - a) / (m - p.1)).max(lo),
            None => lo,
        };
        let to = match hull.get(x + 1) {
            Some(q) => ((a - q.0) / (q.1 - m)).min(hi),
            None => hi,
        };
        // NaN ends (parallel lines) count as empty.
        if from.partial_cmp(&to).is_none_or(|o| o.is_gt()) {
            continue;
        }
        let f = |b: f64| j(b) * (a + m * b).max(0.0);
        let mut v = f(from).min(f(to));
        if k != 0.0 {
            let zero_j = -c / k;
            if zero_j > from && zero_j < to {
                v = 0.0;
            }
            if m != 0.0 {
                let vertex = -(k * a + m * c) / (2.0 * k * m);
                if vertex > from && vertex < to {
                    v = v.min(f(vertex));
                }
            }
        }
        if v < least {
            least = v;
            under = line;
        }
    }
    (least, under)
}

/// A lower bound on `T = j/I` that keeps `j` and `I` of one cluster
/// together (the plain `j_lo/I_hi` takes them from different ones).
///
/// On each piece `j ≥ c + k·V/I`, so `T ≥ c/I + k·V/I²`. For each cut,
/// every completion has `V ≤ λ·I + M(λ)` (or `V ≥ λ·I + m(λ)` when
/// `k > 0`), so `T ≥ (c + k·λ)/I + k·M(λ)/I²`, whose least value over
/// `I ∈ [I_lo, I_hi]` is at an end or at `I = −2k·M/(c + k·λ)`. Each cut
/// gives a valid bound; the largest is kept, and with two pieces (a
/// replan) the smaller of the two.
fn coupled_time(pieces: &[Option<(f64, f64)>; 2], cuts: &[Cut], (i_lo, i_hi): (f64, f64)) -> f64 {
    let mut bound = f64::INFINITY;
    for &(k, c) in pieces.iter().flatten() {
        let mut best = 0.0f64;
        for cut in cuts {
            let m = if k < 0.0 { cut.most } else { cut.least };
            if !m.is_finite() {
                continue;
            }
            let a = c + k * cut.lambda;
            let b = k * m;
            let h = |i: f64| a / i + b / (i * i);
            let mut least = h(i_lo).min(h(i_hi));
            if a != 0.0 {
                let star = -2.0 * b / a;
                if star > i_lo && star < i_hi {
                    least = least.min(h(star));
                }
            }
            if least.is_finite() {
                best = best.max(least);
            }
        }
        bound = bound.min(best);
    }
    if bound.is_finite() {
        bound
    } else {
        0.0
    }
}

/// The edges `y = λ + μ·x` of the lower convex hull of `points` (sorted
/// here).
fn lower_hull_lines(points: &mut [(f64, f64)]) -> Vec<(f64, f64)> {
    crate::order::sort_copied_by(points, |a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut hull: Vec<(f64, f64)> = Vec::with_capacity(points.len());
    for &q in points.iter() {
        if hull.last().is_some_and(|h| h.0 == q.0) {
            continue; // same x, higher (sorted)
        }
        while hull.len() >= 2 {
            let (a, b) = (hull[hull.len() - 2], hull[hull.len() - 1]);
            // Drop b when it is on or above the segment a–q.
            if (b.1 - a.1) * (q.0 - a.0) >= (q.1 - a.1) * (b.0 - a.0) {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(q);
    }
    hull.windows(2)
        .map(|e| {
            let mu = (e[1].1 - e[0].1) / (e[1].0 - e[0].0);
            (e[0].1 - mu * e[0].0, mu)
        })
        .collect()
}

/// `(λ, μ)` of the facets `z = λ + μ·x + ν·y` of the lower convex hull of
/// `points` `(x, y, z)`: the planes through three points with none below
/// (a few dozen points: every triple is tried).
fn lower_facets(points: &[(f64, f64, f64)]) -> Vec<(f64, f64)> {
    let m = points.len();
    let mut out: Vec<(f64, f64)> = Vec::new();
    for i in 0..m {
        for j in i + 1..m {
            for l in j + 1..m {
                let (a, b, c) = (points[i], points[j], points[l]);
                let (bx, by, bz) = (b.0 - a.0, b.1 - a.1, b.2 - a.2);
                let (cx, cy, cz) = (c.0 - a.0, c.1 - a.1, c.2 - a.2);
                let det = bx * cy - cx * by;
                if det == 0.0 || det.abs() <= 1e-12 * (bx * cy).abs().max((cx * by).abs()) {
                    continue;
                }
                let mu = (bz * cy - cz * by) / det;
                let nu = (bx * cz - cx * bz) / det;
                let lambda = a.2 - mu * a.0 - nu * a.1;
                let below = points.iter().any(|q| {
                    let z = lambda + mu * q.0 + nu * q.1;
                    q.2 < z - 1e-9 * (q.2.abs() + z.abs())
                });
                if !below
                    && lambda.is_finite()
                    && mu.is_finite()
                    && !out.iter().any(|&(l2, m2)| l2 == lambda && m2 == mu)
                {
                    out.push((lambda, mu));
                }
            }
        }
    }
    out
}
