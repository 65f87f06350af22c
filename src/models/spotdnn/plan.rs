//! The provisioning problem (Eq. 11-14): the cheapest cluster whose run
//! reaches the loss goal within the time goal, at most `Lim_m` instances
//! of each type, keeping the instances already running (`E`). Algorithm 1
//! as printed, an exact branch and bound, and brute force for the tests.

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
        let r = Mix::of(self.types, counts, self.workload)?.run(
            self.workload,
            self.loss_from,
            self.loss_goal,
        )?;
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
    let mut order: Vec<usize> = (0..p.types.len()).collect();
    // Slowest first; equal times keep catalog order.
    order.sort_by(|&a, &b| {
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
    };
    let mut counts = vec![0u32; p.types.len()];
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
            if let Some((_, cost)) = p.quick(&counts) {
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

/// The remaining normalized iterations as a function of
/// `u = (γ2·b_w + γ3)·√spread`: `u/(L − γ5) − γ1`, less the iterations
/// already done when replanning. Increasing in `u`, which is what lets a
/// lower bound on `u` bound the iterations.
fn iterations_of(u: f64, w: &Workload, to: f64, from: Option<f64>) -> f64 {
    let l = &w.loss;
    let j_to = u / (to - l.gamma5) - l.gamma1;
    let j_from = from.map_or(0.0, |f| (u / (f - l.gamma5) - l.gamma1).max(0.0));
    j_to - j_from
}

/// The exact optimiser: for each total worker count `n` (its contention,
/// hence every worker's iteration time, is then fixed), a depth-first
/// search over the types' counts with bounds that hold for every
/// completion of a partial cluster. It returns the cheapest feasible plan
/// under the same model as Algorithm 1, and never a dearer one.
///
/// Why the pruning is safe. With `n` fixed, a completion's aggregates are
/// sums over the counts: the iteration rate `I = Σ x_k/T_k`, the speed
/// `V = Σ x_k·b_k/T_k`, the price `Π = Σ x_k·p_k`. Each is bounded above
/// and below by filling the remaining workers greedily into the types with
/// the largest (smallest) per-worker term, within their quotas; with unit
/// weights the greedy fill is the exact extreme. Then:
/// - `b_w = V/I` is a rate-weighted mean of the batches present, so it
///   lies within their range and within `[V_lo/I_hi, V_hi/I_lo]`;
/// - `R² = (1 − w_max)² + Σ_{i≥2} w_i² ≥ (1 − w_max)²·n/(n − 1)` (the
///   other shares sum to `1 − w_max`), decreasing in `w_max`, and
///   `w_max ≤ s_max/V_lo`;
/// - the iterations `j` increase with `u = (γ2·b_w + γ3)·√spread`
///   (`iterations_of`), so the least `u` gives the least `j`;
/// - `T = j/I ≥ j_lo/I_hi` and `C = j·Π/(3600·I) ≥ j_lo·min(Π/I)/3600`,
///   where `Π/I`, a ratio of sums, is at least the smallest ratio of its
///   parts (the counts fixed so far, and `p_k·T_k` of each type that may
///   still be added).
///
/// A partial cluster is dropped only when a bound proves that no
/// completion is in time or cheaper than the best found. The paper's
/// Eq. 16 lower bound is not used (models.md: at `b_min` alone it can cut
/// off the optimum); the search starts from Algorithm 1's plan, so the
/// result is never dearer than it.
pub fn exact(p: &Problem, progress: impl FnMut(f64)) -> Search {
    branch_and_bound(p, Objective::Cost, None, progress)
}

/// The fastest cluster within the quotas, whatever it costs (the same
/// search, minimising time): how far a missed time goal is from reach.
pub fn fastest(p: &Problem) -> Search {
    let unbounded = Problem {
        time_goal_s: f64::INFINITY,
        ..p.clone()
    };
    branch_and_bound(&unbounded, Objective::Time, None, |_| {})
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Objective {
    Cost,
    Time,
}

fn branch_and_bound(
    p: &Problem,
    objective: Objective,
    start: Option<&Candidate>,
    mut progress: impl FnMut(f64),
) -> Search {
    let heuristic = match start {
        Some(c) => Search {
            best: Some(c.clone()),
            evaluated: 0,
            workers_from: 0,
            workers_to: 0,
        },
        None => algorithm1(p),
    };
    let best_value = heuristic
        .best
        .as_ref()
        .map_or(f64::INFINITY, |c| match objective {
            Objective::Cost => c.run.cost,
            Objective::Time => c.time_s,
        });
    let mut bb = Bb::new(p, objective, best_value);
    let (lo, hi) = bb.run(&mut progress);
    let evaluated = heuristic.evaluated + bb.evaluated;
    // Re-evaluated in catalog order, as every other plan is.
    let best = match bb.best {
        Some(counts) => p.candidate(&counts),
        None => heuristic.best,
    };
    Search {
        best,
        evaluated,
        workers_from: lo,
        workers_to: hi,
    }
}

/// The cheapest plan for each of several time goals, in one search: a
/// partial cluster is opened when some goal its time bound allows still
/// has a dearer best than its cost bound (the bounds do not depend on the
/// goal, only which goals a completion can meet does), so it returns what
/// `exact` returns for each goal, at about the cost of the tightest one.
/// `goals` ascending; `seeds` are known plans (the fastest cluster, the
/// cheapest) that start the bests of the goals they meet.
pub fn sweep(p: &Problem, goals: &[f64], seeds: &[&Candidate]) -> Vec<Option<Candidate>> {
    let top = goals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let q = Problem {
        time_goal_s: top,
        ..p.clone()
    };
    let mut s = Sweep {
        goals: goals.to_vec(),
        best: vec![f64::INFINITY; goals.len()],
        counts: vec![None; goals.len()],
    };
    for c in seeds.iter().filter(|c| q.holds(&c.counts)) {
        s.offer(c.time_s, c.run.cost, &c.counts);
    }
    let mut bb = Bb::new(&q, Objective::Cost, f64::INFINITY);
    bb.sweep = Some(s);
    bb.run(|_| {});
    let Some(s) = bb.sweep else {
        return vec![None; goals.len()];
    };
    // Re-evaluated in catalog order, as every other plan is.
    s.counts
        .into_iter()
        .map(|c| c.and_then(|c| q.candidate(&c)))
        .collect()
}

/// The bests of a sweep, goal by goal.
struct Sweep {
    goals: Vec<f64>,
    best: Vec<f64>,
    counts: Vec<Option<Vec<u32>>>,
}

impl Sweep {
    /// The first goal a run of `time` meets.
    fn first_met(&self, time: f64) -> usize {
        self.goals.partition_point(|&g| g < time)
    }

    /// The dearest best among goals a completion whose time is at least
    /// `time_lo` may meet: the first such goal's, as bests never rise as
    /// goals loosen (`offer` lowers a suffix); −∞ when it meets none.
    fn bar(&self, time_lo: f64) -> f64 {
        let i = self.first_met(time_lo * (1.0 - SLACK));
        self.best.get(i).copied().unwrap_or(f64::NEG_INFINITY)
    }

    fn offer(&mut self, time: f64, cost: f64, counts: &[u32]) {
        let from = self.first_met(time);
        for i in from..self.goals.len() {
            if cost < self.best[i] {
                self.best[i] = cost;
                self.counts[i] = Some(counts.to_vec());
            }
        }
    }
}

/// Per-type terms at one worker count.
#[derive(Clone, Copy, Debug)]
struct Term {
    rate: f64,
    speed: f64,
    price: f64,
    batch: f64,
    lo: u32,
    hi: u32,
}

/// Sums over the counts fixed so far.
#[derive(Clone, Copy, Debug, Default)]
struct Acc {
    rate: f64,
    speed: f64,
    sq: f64,
    price: f64,
    fastest: f64,
    b_min: f64,
    b_max: f64,
}

struct Bb<'a, 'p> {
    p: &'a Problem<'p>,
    objective: Objective,
    /// The best value so far of the objective (cost, or time).
    best_cost: f64,
    best: Option<Vec<u32>>,
    /// Many time goals at once (`sweep`), else None.
    sweep: Option<Sweep>,
    evaluated: u64,
    counts: Vec<u32>,
    terms: Vec<Term>,
    /// Types in search order (cheapest per iteration rate first).
    order: Vec<usize>,
    /// Each type's depth in `order`.
    depth_of: Vec<usize>,
    /// Types by rate and by speed, fastest first, and slowest first.
    by_rate: Vec<usize>,
    by_speed: Vec<usize>,
    by_rate_rev: Vec<usize>,
    by_speed_rev: Vec<usize>,
    /// Types by price, cheapest first.
    by_price: Vec<usize>,
    /// Least and most workers the types from depth `d` on can take.
    suffix_lo: Vec<u32>,
    suffix_hi: Vec<u32>,
    n: u32,
}

/// Most open types the coupled time bound sorts (`Bb::coupled_time`).
const COUPLED_TYPES: usize = 32;

/// Relative slack so rounding never prunes the optimum.
const SLACK: f64 = 1e-9;

impl<'a, 'p> Bb<'a, 'p> {
    fn new(p: &'a Problem<'p>, objective: Objective, best_cost: f64) -> Self {
        Bb {
            p,
            objective,
            best_cost,
            best: None,
            sweep: None,
            evaluated: 0,
            counts: p.existing.clone(),
            terms: Vec::new(),
            order: Vec::new(),
            depth_of: Vec::new(),
            by_rate: Vec::new(),
            by_speed: Vec::new(),
            by_rate_rev: Vec::new(),
            by_speed_rev: Vec::new(),
            by_price: Vec::new(),
            suffix_lo: Vec::new(),
            suffix_hi: Vec::new(),
            n: 0,
        }
    }

    /// Every worker count the problem allows, searched in turn.
    fn run(&mut self, mut progress: impl FnMut(f64)) -> (u32, u32) {
        let lo = self.p.total_existing().max(1);
        let hi = self.p.workers_cap();
        for n in lo..=hi {
            self.search(n);
            if hi > lo {
                progress(f64::from(n - lo + 1) / f64::from(hi - lo + 1));
            }
        }
        (lo, hi)
    }

    /// The cost a completion whose time is at least `time_lo` must beat.
    fn bar(&self, time_lo: f64) -> f64 {
        match &self.sweep {
            None => self.best_cost,
            Some(s) => s.bar(time_lo),
        }
    }

    fn search(&mut self, n: u32) {
        let p = self.p;
        let w = p.workload;
        let nf = f64::from(n);
        self.n = n;
        self.terms = p
            .types
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let ti = t.iteration(w, nf).total();
                Term {
                    rate: 1.0 / ti,
                    speed: t.batch / ti,
                    price: t.price,
                    batch: t.batch,
                    lo: p.existing[k],
                    hi: p.existing[k].saturating_add(p.available[k]),
                }
            })
            .collect();
        let terms = &self.terms;
        // Cheapest per iteration rate first for cost, fastest first for
        // time: the first leaves reached are then good incumbents.
        let mut order: Vec<usize> = (0..terms.len()).collect();
        match self.objective {
            Objective::Cost => order.sort_by(|&a, &b| {
                (terms[a].price / terms[a].rate).total_cmp(&(terms[b].price / terms[b].rate))
            }),
            Objective::Time => order.sort_by(|&a, &b| terms[b].rate.total_cmp(&terms[a].rate)),
        }
        let mut by_rate: Vec<usize> = (0..terms.len()).collect();
        by_rate.sort_by(|&a, &b| terms[b].rate.total_cmp(&terms[a].rate));
        let mut by_speed: Vec<usize> = (0..terms.len()).collect();
        by_speed.sort_by(|&a, &b| terms[b].speed.total_cmp(&terms[a].speed));
        let m = order.len();
        let mut suffix_lo = vec![0u32; m + 1];
        let mut suffix_hi = vec![0u32; m + 1];
        for d in (0..m).rev() {
            let t = &terms[order[d]];
            suffix_lo[d] = suffix_lo[d + 1].saturating_add(t.lo);
            suffix_hi[d] = suffix_hi[d + 1].saturating_add(t.hi);
        }
        if n < suffix_lo[0] || n > suffix_hi[0] {
            return;
        }
        let mut depth_of = vec![0usize; m];
        for (d, &k) in order.iter().enumerate() {
            depth_of[k] = d;
        }
        self.order = order;
        self.depth_of = depth_of;
        let mut by_price: Vec<usize> = (0..terms.len()).collect();
        by_price.sort_by(|&a, &b| terms[a].price.total_cmp(&terms[b].price));
        self.by_price = by_price;
        self.by_rate_rev = by_rate.iter().rev().copied().collect();
        self.by_speed_rev = by_speed.iter().rev().copied().collect();
        self.by_rate = by_rate;
        self.by_speed = by_speed;
        self.suffix_lo = suffix_lo;
        self.suffix_hi = suffix_hi;
        let acc = Acc {
            b_min: f64::INFINITY,
            ..Acc::default()
        };
        self.dfs(0, n, acc);
    }

    /// The types still open at depth `d`.
    fn open(&self, d: usize) -> impl Iterator<Item = usize> + '_ {
        self.order[d..].iter().copied()
    }

    /// Greedy extreme of `Σ x_k·f(k)` over the open types, `left` workers
    /// beyond their minimums, taking types in `ranked` order.
    fn fill(&self, d: usize, left: u32, ranked: &[usize], f: impl Fn(&Term) -> f64) -> f64 {
        let mut total: f64 = self
            .open(d)
            .map(|k| f64::from(self.terms[k].lo) * f(&self.terms[k]))
            .sum();
        let mut left = left;
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

    /// Whether some completion of this partial cluster could be in time
    /// and cheaper than the best so far.
    fn promising(&self, d: usize, left: u32, acc: &Acc) -> bool {
        let p = self.p;
        let w = p.workload;
        let n = f64::from(self.n);
        let extra = left - self.suffix_lo[d];
        let rate_hi = acc.rate + self.fill(d, extra, &self.by_rate, |t| t.rate);
        let rate_lo = acc.rate + self.fill(d, extra, &self.by_rate_rev, |t| t.rate);
        let speed_hi = acc.speed + self.fill(d, extra, &self.by_speed, |t| t.speed);
        let speed_lo = acc.speed + self.fill(d, extra, &self.by_speed_rev, |t| t.speed);
        // Types that may appear: fixed ones, and open ones with room.
        let (mut b_min, mut b_max, mut s_max) = (acc.b_min, acc.b_max, acc.fastest);
        let mut ratio = if acc.rate > 0.0 {
            acc.price / acc.rate
        } else {
            f64::INFINITY
        };
        if left > 0 {
            for k in self.open(d) {
                let t = &self.terms[k];
                if t.hi == 0 {
                    continue;
                }
                b_min = b_min.min(t.batch);
                b_max = b_max.max(t.batch);
                s_max = s_max.max(t.speed);
                ratio = ratio.min(t.price / t.rate);
            }
        }
        if !positive(rate_lo) {
            return true;
        }
        let bw_hi = b_max.min(speed_hi / rate_lo);
        let bw_lo = b_min.max(speed_lo / rate_hi);
        let l = &w.loss;
        let a_lo = if l.gamma2 < 0.0 {
            l.gamma2 * bw_hi + l.gamma3
        } else {
            l.gamma2 * bw_lo + l.gamma3
        };
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
        if !positive(a_lo) || !positive(spread_lo) {
            return true;
        }
        let j_lo = iterations_of(a_lo * spread_lo.sqrt(), w, p.loss_goal, p.loss_from);
        if !positive(j_lo) {
            return true;
        }
        let mut time_lo = j_lo / rate_hi + p.overhead_s;
        if time_lo * (1.0 - SLACK) > p.time_goal_s {
            return false;
        }
        // The tighter bound costs a few greedy fills: only where the cheap
        // one did not already decide.
        time_lo = time_lo.max(
            self.coupled_time(
                d,
                extra,
                acc,
                (rate_lo, rate_hi),
                spread_lo.sqrt(),
                (b_min, b_max),
            ) + p.overhead_s,
        );
        if time_lo * (1.0 - SLACK) > p.time_goal_s {
            return false;
        }
        let bound = match self.objective {
            // Two bounds on C = T·Π/3600 = j·(Π/I)/3600; either may be
            // the tighter (a tight time goal makes the first one strong:
            // exactly n workers must be paid for).
            Objective::Cost => {
                let price_lo = acc.price + self.fill(d, extra, &self.by_price, |t| t.price);
                ((time_lo - p.overhead_s) * price_lo).max(j_lo * ratio) / 3600.0
            }
            Objective::Time => time_lo,
        };
        bound * (1.0 - SLACK) < self.bar(time_lo)
    }

    /// A lower bound on `T = j/I` that keeps `j` and `I` of one cluster
    /// together (the plain `j_lo/I_hi` takes them from different ones).
    ///
    /// `j` is increasing and concave piecewise linear in `b_w = V/I`
    /// (`iterations_of`, at least `root` for `√spread`): on each piece
    /// `j ≥ c + k·V/I`, so `T ≥ c/I + k·V/I²`. For any `λ`, every
    /// completion has `V ≤ λ·I + M(λ)` with `M(λ) = max (V − λ·I)`, a greedy
    /// fill of `s_k − λ·r_k` (or `V ≥ λ·I + m(λ)` when `k > 0`), so
    /// `T ≥ (c + k·λ)/I + k·M(λ)/I²`, whose least value over
    /// `I ∈ [I_lo, I_hi]` is at an end or at `I = −2k·M/(c + k·λ)`. Each
    /// `λ` (the batches that may appear) gives a valid bound; the largest
    /// is kept, and with two pieces (a replan) the smaller of the two.
    fn coupled_time(
        &self,
        d: usize,
        extra: u32,
        acc: &Acc,
        (i_lo, i_hi): (f64, f64),
        root: f64,
        (b_lo, b_hi): (f64, f64),
    ) -> f64 {
        let p = self.p;
        let l = &p.workload.loss;
        let to = 1.0 / (p.loss_goal - l.gamma5);
        // Pieces (slope in b_w, intercept) of j(b_w).
        let mut pieces = [(0.0, 0.0); 2];
        pieces[0] = (l.gamma2 * root * to, l.gamma3 * root * to - l.gamma1);
        let count = match p.loss_from {
            Some(f) => {
                let q = to - 1.0 / (f - l.gamma5);
                pieces[1] = (l.gamma2 * root * q, l.gamma3 * root * q);
                2
            }
            None => 1,
        };
        // A stack buffer: beyond COUPLED_TYPES open types the plain bound
        // alone is used (it stays valid, only looser).
        let mut buf = [0usize; COUPLED_TYPES];
        let n_open = self.order.len() - d;
        if n_open > COUPLED_TYPES {
            return 0.0;
        }
        for (slot, k) in buf.iter_mut().zip(self.open(d)) {
            *slot = k;
        }
        let open = &mut buf[..n_open];
        let mut lambdas = [0.0f64; COUPLED_TYPES + 3];
        let mut n_lambda = 0;
        for b in open
            .iter()
            .map(|&t| self.terms[t].batch)
            .chain([b_lo, b_hi, 0.5 * (b_lo + b_hi)])
        {
            if b.is_finite() && !lambdas[..n_lambda].contains(&b) {
                lambdas[n_lambda] = b;
                n_lambda += 1;
            }
        }
        let mut bound = f64::INFINITY;
        for &(k, c) in &pieces[..count] {
            let mut best = 0.0f64;
            for &lambda in &lambdas[..n_lambda] {
                let gain = |t: &Term| t.speed - lambda * t.rate;
                // Largest V − λI when k < 0 (V hurts less), else smallest.
                open.sort_by(|&a, &b| {
                    let (ga, gb) = (gain(&self.terms[a]), gain(&self.terms[b]));
                    if k < 0.0 {
                        gb.total_cmp(&ga)
                    } else {
                        ga.total_cmp(&gb)
                    }
                });
                let m = acc.speed - lambda * acc.rate + self.fill(d, extra, open, gain);
                let a = c + k * lambda;
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

    fn dfs(&mut self, d: usize, left: u32, acc: Acc) {
        if d == self.order.len() {
            if left == 0 {
                self.leaf(&acc);
            }
            return;
        }
        if left < self.suffix_lo[d] || left > self.suffix_hi[d] {
            return;
        }
        if !self.promising(d, left, &acc) {
            return;
        }
        let k = self.order[d];
        let t = self.terms[k];
        let most = t.hi.min(left - self.suffix_lo[d + 1]);
        let least = t.lo.max(left.saturating_sub(self.suffix_hi[d + 1]));
        if least > most {
            return;
        }
        for x in (least..=most).rev() {
            let mut a = acc;
            if x > 0 {
                let xf = f64::from(x);
                a.rate += xf * t.rate;
                a.speed += xf * t.speed;
                a.sq += xf * t.speed * t.speed;
                a.price += xf * t.price;
                a.fastest = a.fastest.max(t.speed);
                a.b_min = a.b_min.min(t.batch);
                a.b_max = a.b_max.max(t.batch);
            }
            self.counts[k] = x;
            self.dfs(d + 1, left - x, a);
        }
        self.counts[k] = t.lo;
    }

    fn leaf(&mut self, acc: &Acc) {
        self.evaluated += 1;
        let p = self.p;
        // The sums in search order, run by the same code as every plan.
        let mix = Mix {
            workers: self.n,
            rate: acc.rate,
            speed: acc.speed,
            sum_sq: acc.sq,
            fastest: acc.fastest,
            price: acc.price,
            other: None,
        };
        let Some(r) = mix.run(p.workload, p.loss_from, p.loss_goal) else {
            return;
        };
        let time = r.time_s + p.overhead_s;
        if time > p.time_goal_s {
            return;
        }
        if let Some(s) = &mut self.sweep {
            s.offer(time, r.cost, &self.counts);
            return;
        }
        let value = match self.objective {
            Objective::Cost => r.cost,
            Objective::Time => time,
        };
        if value < self.best_cost {
            self.best_cost = value;
            self.best = Some(self.counts.clone());
        }
    }
}
