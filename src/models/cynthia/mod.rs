//! Cynthia: cost-efficient cloud provisioning for distributed DNN training
//! (seed 000, Sections 3-4 and Appendix A; `shared/models.md` §2, which
//! fixes Eq. 21 and the units).
//!
//! - Eq. 3-5: BSP `t_iter = max(t_comp, t_comm)`, ASP `t_comp + t_comm`;
//!   BSP `t_comp = w_iter / (n_wk · min_j r_j)`, ASP `w_iter / r_j`;
//!   BSP `t_comm = 2·g·n_wk / Σ b_ps`, ASP `2·g / Σ b_ps`.
//! - Eq. 6-7: one cluster-wide utilisation
//!   `u = min(1, b_supply/b_demand, c_supply/c_demand)`, demands
//!   `c_prof · r_scale` and `b_prof · r_scale`; `r_j = c_j · u`.
//! - Eq. 8: cost `(p_wk·n_wk + p_ps·n_ps) · t_iter · s / 3600`.
//! - Eq. 12: the largest worker/PS ratio without a PS bottleneck.
//! - Theorem 4.1 (Eq. 13-14): bounds on `n_wk` and the PS count.
//! - Algorithm 1, literally ("paper" mode), next to an exact search.
//!
//! Units: FLOP, FLOP/s, bytes, bytes/s, seconds, USD per hour.
//!
//! ```text
//!  workers ──push g──▶ ┌──────────┐ ◀──pull g── workers
//!   (c_j · u)          │ PS nodes │   Σ b_ps, Σ c_ps
//!                      └──────────┘
//!  demand grows with r_scale; past the supply, u < 1 slows every worker
//! ```

pub mod eval;
pub mod factors;
mod model;
pub mod paper_check;
pub mod report;
pub mod section;

pub use eval::{evaluate_cynthia, CynthiaEvaluation};
pub use model::Cynthia;

use serde::Serialize;

use crate::report::Unit;
use crate::workload::profile::{LossParams, Profile, SyncMode};
use crate::workload::loss_fit::{iterations_to_loss, GoalError};

/// One instance type as Cynthia reads it from the catalog.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InstanceType {
    pub name: String,
    /// CPU capability `c`, FLOP/s.
    pub c_flops: f64,
    /// Network bandwidth `b`, bytes/s.
    pub b_bytes_per_s: f64,
    /// Price, USD per hour.
    pub price_per_hour: f64,
}

/// Which PS resource limits the workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bottleneck {
    None,
    PsCpu,
    PsNetwork,
}

impl Bottleneck {
    pub fn label(self) -> &'static str {
        match self {
            Bottleneck::None => "none",
            Bottleneck::PsCpu => "PS CPU",
            Bottleneck::PsNetwork => "PS network",
        }
    }
}

/// Eq. 6-7 for one cluster.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Utilisation {
    /// Worker CPU utilisation `u` in [0, 1].
    pub u: f64,
    pub r_scale: f64,
    pub c_demand: f64,
    pub c_supply: f64,
    pub b_demand: f64,
    pub b_supply: f64,
    pub binding: Bottleneck,
}

/// `count` workers (or PS nodes) of one type.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Group {
    pub kind: InstanceType,
    pub count: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClusterSpec {
    pub workers: Vec<Group>,
    pub ps: Vec<Group>,
}

impl ClusterSpec {
    pub fn homogeneous(kind: &InstanceType, n_wk: u32, n_ps: u32) -> Self {
        ClusterSpec {
            workers: vec![Group {
                kind: kind.clone(),
                count: n_wk,
            }],
            ps: vec![Group {
                kind: kind.clone(),
                count: n_ps,
            }],
        }
    }

    pub fn n_wk(&self) -> u32 {
        self.workers.iter().map(|g| g.count).sum()
    }

    pub fn n_ps(&self) -> u32 {
        self.ps.iter().map(|g| g.count).sum()
    }

    /// USD per hour of the whole cluster.
    pub fn price_per_hour(&self) -> f64 {
        self.workers
            .iter()
            .chain(&self.ps)
            .map(|g| f64::from(g.count) * g.kind.price_per_hour)
            .sum()
    }
}

/// Eq. 6-7. `c_workers` lists each worker's capability (FLOP/s).
pub fn utilisation(
    p: &Profile,
    c_workers: &[(f64, u32)],
    c_supply: f64,
    b_supply: f64,
) -> Utilisation {
    let n: f64 = c_workers.iter().map(|&(_, k)| f64::from(k)).sum();
    let r_scale = match p.sync {
        SyncMode::Bsp => {
            let c_min = c_workers
                .iter()
                .map(|&(c, _)| c)
                .fold(f64::INFINITY, f64::min);
            n * c_min / p.c_base_flops
        }
        SyncMode::Asp => {
            c_workers
                .iter()
                .map(|&(c, k)| c * f64::from(k))
                .sum::<f64>()
                / p.c_base_flops
        }
    };
    let c_demand = p.c_prof_flops * r_scale;
    let b_demand = p.b_prof_bytes_per_s * r_scale;
    let c_ratio = c_supply / c_demand;
    let b_ratio = b_supply / b_demand;
    let (u, binding) = if c_ratio >= 1.0 && b_ratio >= 1.0 {
        (1.0, Bottleneck::None)
    } else if c_ratio <= b_ratio {
        (c_ratio, Bottleneck::PsCpu)
    } else {
        (b_ratio, Bottleneck::PsNetwork)
    };
    Utilisation {
        u,
        r_scale,
        c_demand,
        c_supply,
        b_demand,
        b_supply,
        binding,
    }
}

/// Eq. 3-5 for a cluster.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IterationTime {
    pub sync: SyncMode,
    /// BSP: the cluster's compute time; ASP: the slowest worker's.
    pub t_comp_s: f64,
    pub t_comm_s: f64,
    /// BSP: one iteration; ASP: the effective per-worker iteration
    /// `n / Σ_j (1/t_j)` (equal to every worker's in a homogeneous cluster).
    pub t_iter_s: f64,
    /// ASP: each worker group's own pace, in cluster order (empty for BSP).
    pub per_type: Vec<TypeIteration>,
    /// Iterations per second across the cluster (BSP: `1/t_iter`; ASP:
    /// `Σ_j 1/t_j` over workers, this product's reading of heterogeneous
    /// ASP, models.md §2).
    pub cluster_rate: f64,
    /// Time between two updates anywhere in the cluster, `1/cluster_rate`
    /// (BSP: `t_iter`).
    pub cluster_iter_s: f64,
    pub utilisation: Utilisation,
}

/// One ASP worker group iterating at its own pace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TypeIteration {
    pub instance: String,
    pub workers: u32,
    /// Eq. 4 for this type: `w_iter / (c_j · u)`.
    pub t_comp_s: f64,
    /// Eq. 5 (ASP): the same for every worker.
    pub t_comm_s: f64,
    /// `t_comp + t_comm` for this type.
    pub t_iter_s: f64,
}

pub fn iteration(p: &Profile, c: &ClusterSpec) -> IterationTime {
    let c_workers: Vec<(f64, u32)> = c
        .workers
        .iter()
        .map(|g| (g.kind.c_flops, g.count))
        .collect();
    let c_supply: f64 =
        c.ps.iter()
            .map(|g| g.kind.c_flops * f64::from(g.count))
            .sum();
    let b_supply: f64 =
        c.ps.iter()
            .map(|g| g.kind.b_bytes_per_s * f64::from(g.count))
            .sum();
    let util = utilisation(p, &c_workers, c_supply, b_supply);
    let n = f64::from(c.n_wk());
    match p.sync {
        SyncMode::Bsp => {
            let c_min = c_workers
                .iter()
                .map(|&(c, _)| c)
                .fold(f64::INFINITY, f64::min);
            let t_comp = p.w_iter_flop / (n * c_min * util.u);
            let t_comm = 2.0 * p.g_param_bytes * n / b_supply;
            let t_iter = t_comp.max(t_comm);
            IterationTime {
                sync: p.sync,
                t_comp_s: t_comp,
                t_comm_s: t_comm,
                t_iter_s: t_iter,
                per_type: Vec::new(),
                cluster_rate: 1.0 / t_iter,
                cluster_iter_s: t_iter,
                utilisation: util,
            }
        }
        SyncMode::Asp => {
            let t_comm = 2.0 * p.g_param_bytes / b_supply;
            let per_type: Vec<TypeIteration> = c
                .workers
                .iter()
                .map(|g| {
                    let t_comp = p.w_iter_flop / (g.kind.c_flops * util.u);
                    TypeIteration {
                        instance: g.kind.name.clone(),
                        workers: g.count,
                        t_comp_s: t_comp,
                        t_comm_s: t_comm,
                        t_iter_s: t_comp + t_comm,
                    }
                })
                .collect();
            let rate: f64 = per_type
                .iter()
                .map(|t| f64::from(t.workers) / t.t_iter_s)
                .sum();
            let slowest = per_type.iter().map(|t| t.t_iter_s).fold(0.0, f64::max);
            IterationTime {
                sync: p.sync,
                t_comp_s: slowest - t_comm,
                t_comm_s: t_comm,
                t_iter_s: n / rate,
                per_type,
                cluster_rate: rate,
                cluster_iter_s: 1.0 / rate,
                utilisation: util,
            }
        }
    }
}

/// Iterations (BSP: global; ASP: per worker) to reach `loss_goal`.
pub fn iterations(
    p: &Profile,
    loss: &LossParams,
    loss_goal: f64,
    n_wk: u32,
) -> Result<u64, GoalError> {
    iterations_to_loss(p.sync, loss, loss_goal, n_wk)
}

/// Time and cost of a training run to the loss goal (Eq. 2, 8).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Run {
    pub n_wk: u32,
    pub n_ps: u32,
    pub iterations: u64,
    /// Eq. 4 and Eq. 5 parts of one iteration.
    pub t_comp_s: f64,
    pub t_comm_s: f64,
    pub t_iter_s: f64,
    pub train_time_s: f64,
    pub cost_usd: f64,
    pub u: f64,
    pub binding: Bottleneck,
}

pub fn run(p: &Profile, loss: &LossParams, loss_goal: f64, c: &ClusterSpec) -> Result<Run, GoalError> {
    let it = iteration(p, c);
    let s = iterations(p, loss, loss_goal, c.n_wk())?;
    let train_time_s = s as f64 * it.t_iter_s;
    Ok(Run {
        n_wk: c.n_wk(),
        n_ps: c.n_ps(),
        iterations: s,
        t_comp_s: it.t_comp_s,
        t_comm_s: it.t_comm_s,
        t_iter_s: it.t_iter_s,
        train_time_s,
        cost_usd: c.price_per_hour() * train_time_s / 3600.0,
        u: it.utilisation.u,
        binding: it.utilisation.binding,
    })
}

/// The fewest workers (scaling the mix) at which each PS resource binds:
/// demand exceeds supply when `r_scale` passes `supply / prof`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Saturation {
    /// Workers beyond which the PS CPU binds (fractional).
    pub cpu_from_workers: f64,
    /// Workers beyond which the PS network binds (fractional).
    pub network_from_workers: f64,
}

pub fn saturation(p: &Profile, c: &ClusterSpec) -> Saturation {
    let n = f64::from(c.n_wk());
    // r_scale per worker: BSP uses the slowest worker, ASP the mean.
    let per_worker = match p.sync {
        SyncMode::Bsp => c
            .workers
            .iter()
            .map(|g| g.kind.c_flops)
            .fold(f64::INFINITY, f64::min),
        SyncMode::Asp => {
            c.workers
                .iter()
                .map(|g| g.kind.c_flops * f64::from(g.count))
                .sum::<f64>()
                / n
        }
    } / p.c_base_flops;
    let c_supply: f64 =
        c.ps.iter()
            .map(|g| g.kind.c_flops * f64::from(g.count))
            .sum();
    let b_supply: f64 =
        c.ps.iter()
            .map(|g| g.kind.b_bytes_per_s * f64::from(g.count))
            .sum();
    Saturation {
        cpu_from_workers: c_supply / (p.c_prof_flops * per_worker),
        network_from_workers: b_supply / (p.b_prof_bytes_per_s * per_worker),
    }
}

/// Eq. 12: `r = min(c_base·c_ps/(c_prof·c_wk), b_ps·c_base/(b_prof·c_wk))`.
pub fn max_ratio(p: &Profile, t: &InstanceType) -> f64 {
    let cpu = p.c_base_flops * t.c_flops / (p.c_prof_flops * t.c_flops);
    let net = t.b_bytes_per_s * p.c_base_flops / (p.b_prof_bytes_per_s * t.c_flops);
    cpu.min(net)
}

/// Theorem 4.1 for one instance type.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bounds {
    pub r: f64,
    /// BSP: the updated ratio `u = min(r, T_g·b_ps/(2·s·g))`; ASP: `r`.
    pub ratio: f64,
    pub n_lo: u64,
    pub n_hi: u64,
    pub n_ps: u64,
}

/// Eq. 13-14 (Eq. 21 as fixed in models.md: `w_iter` kept; `β1 < 0` → 1).
pub fn bounds(
    p: &Profile,
    loss: &LossParams,
    goal_time_s: f64,
    loss_goal: f64,
    s_bsp: u64,
    t: &InstanceType,
) -> Bounds {
    let r = max_ratio(p, t);
    let ceil = |x: f64| {
        if x.is_finite() && x > 0.0 {
            x.ceil().min(u64::MAX as f64) as u64
        } else {
            0
        }
    };
    match p.sync {
        SyncMode::Bsp => {
            let s = s_bsp as f64;
            let n_lo = ceil(p.w_iter_flop * s / (goal_time_s * t.c_flops)).max(1);
            let ratio = r.min(goal_time_s * t.b_bytes_per_s / (2.0 * s * p.g_param_bytes));
            let n_ps = ceil(n_lo as f64 / ratio).max(1);
            let nps = n_ps as f64;
            let n_hi = ceil(
                (ratio * nps).min(
                    (p.w_iter_flop * nps * t.b_bytes_per_s / (2.0 * p.g_param_bytes * t.c_flops))
                        .sqrt(),
                ),
            );
            Bounds {
                r,
                ratio,
                n_lo,
                n_hi,
                n_ps,
            }
        }
        SyncMode::Asp => {
            let n_lo = if loss.beta1 < 0.0 {
                1
            } else {
                ceil(
                    (p.w_iter_flop * (loss.beta0 - loss.beta1)
                        / (t.c_flops * goal_time_s * loss_goal))
                        .powi(2),
                )
                .max(1)
            };
            let n_ps = ceil(n_lo as f64 / r).max(1);
            let n_hi = ceil(r * n_ps as f64);
            Bounds {
                r,
                ratio: r,
                n_lo,
                n_hi,
                n_ps,
            }
        }
    }
}

/// A provisioning plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    pub instance: String,
    pub run: Run,
}

/// Algorithm 1's work on one type.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TypeTrace {
    pub instance: String,
    pub bounds: Option<Bounds>,
    /// The plan the loop stopped at, if any.
    pub found: Option<Run>,
    pub note: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PaperResult {
    pub plan: Option<Plan>,
    pub per_type: Vec<TypeTrace>,
}

/// Longest `n_wk` range Algorithm 1 walks per type.
pub const MAX_PAPER_SPAN: u64 = 100_000;

/// Goals of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Goals {
    pub time_s: f64,
    pub loss: f64,
    pub budget_usd: Option<f64>,
}

/// Algorithm 1 as printed: `n_ps` from the bounds, `n_wk` from `n_lo` up,
/// the first `n_wk` with `t_iter · s < T_g` that is cheaper than the best so
/// far is kept and the loop breaks. It never checks `n_ps ≤ n_wk` nor the
/// budget.
pub fn algorithm1(
    p: &Profile,
    loss: &LossParams,
    goals: &Goals,
    types: &[InstanceType],
) -> Result<PaperResult, GoalError> {
    let s_bsp = match p.sync {
        SyncMode::Bsp => iterations(p, loss, goals.loss, 1)?,
        SyncMode::Asp => 0,
    };
    let mut best: Option<Plan> = None;
    let mut per_type = Vec::with_capacity(types.len());
    for t in types {
        let b = bounds(p, loss, goals.time_s, goals.loss, s_bsp, t);
        let mut trace = TypeTrace {
            instance: t.name.clone(),
            bounds: Some(b.clone()),
            found: None,
            note: String::new(),
        };
        if b.n_hi < b.n_lo {
            trace.note = format!("empty range: n_lo = {} > n_hi = {}", b.n_lo, b.n_hi);
        } else if b.n_hi - b.n_lo > MAX_PAPER_SPAN
            || b.n_ps > u64::from(u32::MAX)
            || b.n_hi > u64::from(u32::MAX)
        {
            trace.note = format!("range {}..{} is too large to walk", b.n_lo, b.n_hi);
        } else {
            // The cheapest n_wk that met T_g but lost to the best so far:
            // "no n_wk meets T_g" would be wrong for this type.
            let mut dearer: Option<Run> = None;
            for n_wk in b.n_lo..=b.n_hi {
                // Same arithmetic as the exact search, so the gap is real.
                let Ok(s) = iterations(p, loss, goals.loss, n_wk as u32) else {
                    continue;
                };
                let r = homogeneous_run(p, t, n_wk as u32, b.n_ps as u32, s);
                if r.train_time_s >= goals.time_s {
                    continue;
                }
                let cheaper = best.as_ref().is_none_or(|bp| bp.run.cost_usd > r.cost_usd);
                if cheaper {
                    trace.found = Some(r.clone());
                    best = Some(Plan {
                        instance: t.name.clone(),
                        run: r,
                    });
                    break;
                }
                if dearer.as_ref().is_none_or(|d| r.cost_usd < d.cost_usd) {
                    dearer = Some(r);
                }
            }
            trace.note = match (&trace.found, &dearer, &best) {
                (Some(r), _, _) => format!(
                    "kept n_wk = {} (first feasible and cheaper than the best so far)",
                    r.n_wk
                ),
                (None, Some(d), Some(bp)) => format!(
                    "feasible at n_wk = {} ({}), not cheaper than the best so far ({}: {} × {} + {} PS)",
                    d.n_wk,
                    Unit::Usd.display(d.cost_usd),
                    Unit::Usd.display(bp.run.cost_usd),
                    bp.run.n_wk,
                    bp.instance,
                    bp.run.n_ps
                ),
                _ => format!("no n_wk in {}..={} meets T_g", b.n_lo, b.n_hi),
            };
        }
        per_type.push(trace);
    }
    Ok(PaperResult {
        plan: best,
        per_type,
    })
}

/// Why no plan exists for a type, or how close it came.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Shortfall {
    pub instance: String,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExactResult {
    pub plan: Option<Plan>,
    pub shortfalls: Vec<Shortfall>,
    pub evaluated: u64,
}

/// Eq. 3-8 for `n_wk` workers and `n_ps` PS nodes all of type `t`, with
/// `s` iterations: the planners' inner loop, so it allocates nothing.
pub fn homogeneous_run(p: &Profile, t: &InstanceType, n_wk: u32, n_ps: u32, s: u64) -> Run {
    let n = f64::from(n_wk);
    let m = f64::from(n_ps);
    let util = utilisation(p, &[(t.c_flops, n_wk)], t.c_flops * m, t.b_bytes_per_s * m);
    let b_supply = t.b_bytes_per_s * m;
    let (t_comp, t_comm, t_iter) = match p.sync {
        SyncMode::Bsp => {
            let t_comp = p.w_iter_flop / (n * t.c_flops * util.u);
            let t_comm = 2.0 * p.g_param_bytes * n / b_supply;
            (t_comp, t_comm, t_comp.max(t_comm))
        }
        SyncMode::Asp => {
            let t_comp = p.w_iter_flop / (t.c_flops * util.u);
            let t_comm = 2.0 * p.g_param_bytes / b_supply;
            (t_comp, t_comm, t_comp + t_comm)
        }
    };
    let train = s as f64 * t_iter;
    Run {
        n_wk,
        n_ps,
        iterations: s,
        t_comp_s: t_comp,
        t_comm_s: t_comm,
        t_iter_s: t_iter,
        train_time_s: train,
        cost_usd: (n + m) * t.price_per_hour * train / 3600.0,
        u: util.u,
        binding: util.binding,
    }
}

/// Cheaper first; ties go to fewer nodes, then to the faster plan.
fn cheaper(a: &Run, b: &Run) -> bool {
    (a.cost_usd, a.n_wk + a.n_ps, a.train_time_s) < (b.cost_usd, b.n_wk + b.n_ps, b.train_time_s)
}

/// For `n_wk` workers of type `t`: the cheapest PS count whose training
/// time meets `T_g` (if any), the fastest plan (`n_ps = n_wk`), and how many
/// plans were evaluated.
///
/// Cost is quasi-convex in `n_ps`: while the PS binds (`u < 1`), or BSP is
/// communication-bound, the iteration time falls as `1/n_ps` and
/// `(n_wk + n_ps)/n_ps` falls; afterwards BSP time is flat and ASP time is
/// `a + b/n_ps`, so cost rises (BSP) or is convex (ASP). Time never rises
/// with `n_ps`, so the feasible counts are the ones above a threshold. Past
/// the minimum, the first feasible count is the cheapest feasible one. So:
/// bisect for the fewest PS nodes meeting `T_g`, then walk up until cost
/// rises. `tests/suite/properties.rs` checks this against `exact_exhaustive`.
pub fn best_ps(
    p: &Profile,
    t: &InstanceType,
    n_wk: u32,
    s: u64,
    goal_time_s: f64,
) -> (Option<Run>, Run, u64) {
    let fastest = homogeneous_run(p, t, n_wk, n_wk, s);
    let mut evaluated = 1;
    if fastest.train_time_s > goal_time_s {
        return (None, fastest, evaluated);
    }
    let meets = |n_ps: u32| homogeneous_run(p, t, n_wk, n_ps, s).train_time_s <= goal_time_s;
    // The fewest PS nodes meeting T_g, by bisection (time never rises with
    // n_ps), but not below where cost can still fall.
    let (mut lo, mut hi) = (falling_until(p, t, n_wk), n_wk);
    evaluated += 1;
    if meets(lo) {
        hi = lo;
    } else {
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            evaluated += 1;
            if meets(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
    }
    let mut best: Option<Run> = None;
    let mut prev_cost = f64::INFINITY;
    for n_ps in hi..=n_wk {
        let r = homogeneous_run(p, t, n_wk, n_ps, s);
        evaluated += 1;
        let rising = r.cost_usd > prev_cost
            && r.u >= 1.0
            && (p.sync == SyncMode::Asp || r.t_comm_s <= r.t_comp_s);
        prev_cost = r.cost_usd;
        if r.train_time_s <= goal_time_s && best.as_ref().is_none_or(|b| cheaper(&r, b)) {
            best = Some(r);
        }
        if rising && best.is_some() {
            break;
        }
    }
    (best, fastest, evaluated)
}

/// Where `best_ps` may start: below the PS count at which the PS stops
/// binding (and, for BSP, communication stops dominating) cost only falls
/// and time only falls, so nothing there beats the counts after it.
fn falling_until(p: &Profile, t: &InstanceType, n_wk: u32) -> u32 {
    let n = f64::from(n_wk);
    let r_scale = n * t.c_flops / p.c_base_flops;
    let unbound =
        r_scale * (p.c_prof_flops / t.c_flops).max(p.b_prof_bytes_per_s / t.b_bytes_per_s);
    let m0 = match p.sync {
        SyncMode::Bsp => unbound
            .max(2.0 * p.g_param_bytes * n * n * t.c_flops / (p.w_iter_flop * t.b_bytes_per_s)),
        // Past `unbound`, cost ∝ (n + m)(a + B/m), least at m = √(n·B/a).
        SyncMode::Asp => {
            let a = p.w_iter_flop / t.c_flops;
            let b = 2.0 * p.g_param_bytes / t.b_bytes_per_s;
            unbound.max((n * b / a).sqrt())
        }
    };
    // One count of slack on each side of the rounding.
    if m0.is_finite() && m0 > 2.0 {
        ((m0.floor() - 1.0).min(f64::from(n_wk))) as u32
    } else {
        1
    }
}

/// Exact search over types × `1 ≤ n_ps ≤ n_wk ≤ max_workers`: the cheapest
/// plan with training time ≤ `T_g` and cost ≤ budget (ties: fewer nodes,
/// then faster). Uses `best_ps` per worker count.
pub fn exact(
    p: &Profile,
    loss: &LossParams,
    goals: &Goals,
    types: &[InstanceType],
    max_workers: u32,
) -> Result<ExactResult, GoalError> {
    search(p, loss, goals, types, max_workers, |t, n_wk, s| {
        best_ps(p, t, n_wk, s, goals.time_s)
    })
}

/// The same search evaluating every `n_ps`: the reference `exact` is tested
/// against.
pub fn exact_exhaustive(
    p: &Profile,
    loss: &LossParams,
    goals: &Goals,
    types: &[InstanceType],
    max_workers: u32,
) -> Result<ExactResult, GoalError> {
    search(p, loss, goals, types, max_workers, |t, n_wk, s| {
        let mut best: Option<Run> = None;
        for n_ps in 1..=n_wk {
            let r = homogeneous_run(p, t, n_wk, n_ps, s);
            if r.train_time_s <= goals.time_s && best.as_ref().is_none_or(|b| cheaper(&r, b)) {
                best = Some(r);
            }
        }
        (best, homogeneous_run(p, t, n_wk, n_wk, s), u64::from(n_wk))
    })
}

fn search(
    p: &Profile,
    loss: &LossParams,
    goals: &Goals,
    types: &[InstanceType],
    max_workers: u32,
    per_size: impl Fn(&InstanceType, u32, u64) -> (Option<Run>, Run, u64),
) -> Result<ExactResult, GoalError> {
    let mut best: Option<Plan> = None;
    let mut shortfalls = Vec::new();
    let mut evaluated = 0u64;
    for t in types {
        let mut fastest: Option<Run> = None;
        let mut cheapest_in_time: Option<Run> = None;
        for n_wk in 1..=max_workers {
            // BSP needs the same iterations at any size; ASP depends on n_wk.
            let s = iterations(p, loss, goals.loss, n_wk)?;
            let (in_time, quickest, n) = per_size(t, n_wk, s);
            evaluated += n;
            if fastest
                .as_ref()
                .is_none_or(|f| quickest.train_time_s < f.train_time_s)
            {
                fastest = Some(quickest);
            }
            if let Some(r) = in_time {
                if cheapest_in_time.as_ref().is_none_or(|c| cheaper(&r, c)) {
                    cheapest_in_time = Some(r);
                }
            }
        }
        // The cheapest in-time plan is the only candidate for the budget.
        match (cheapest_in_time, fastest) {
            (Some(r), _) if goals.budget_usd.is_none_or(|b| r.cost_usd <= b) => {
                if best.as_ref().is_none_or(|b| cheaper(&r, &b.run)) {
                    best = Some(Plan { instance: t.name.clone(), run: r });
                }
            }
            (Some(c), _) => shortfalls.push(Shortfall {
                instance: t.name.clone(),
                reason: format!(
                    "budget: the cheapest plan meeting T_g ({} workers, {} PS) costs ${:.2}, {:.0}% over the ${:.2} budget",
                    c.n_wk,
                    c.n_ps,
                    c.cost_usd,
                    100.0 * (c.cost_usd / goals.budget_usd.unwrap_or(c.cost_usd) - 1.0),
                    goals.budget_usd.unwrap_or(0.0)
                ),
            }),
            (None, Some(f)) => shortfalls.push(Shortfall {
                instance: t.name.clone(),
                reason: format!(
                    "time: the fastest plan within {max_workers} workers ({} workers, {} PS, {} binds) takes {:.3} h, {:.0}% over T_g = {:.3} h",
                    f.n_wk,
                    f.n_ps,
                    f.binding.label(),
                    f.train_time_s / 3600.0,
                    100.0 * (f.train_time_s / goals.time_s - 1.0),
                    goals.time_s / 3600.0
                ),
            }),
            (None, None) => {}
        }
    }
    Ok(ExactResult {
        plan: best,
        shortfalls,
        evaluated,
    })
}

/// One point of a cost curve: for `n_wk` workers, the cheapest PS count
/// meeting `T_g` (or, if none does, the fastest).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    pub run: Run,
    pub meets_time: bool,
    pub within_budget: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CostCurve {
    pub instance: String,
    pub points: Vec<CurvePoint>,
    /// Utilisation `u` with a single PS, by `n_wk`: where the PS saturates.
    pub u_one_ps: Vec<f64>,
}

pub fn cost_curves(
    p: &Profile,
    loss: &LossParams,
    goals: &Goals,
    types: &[InstanceType],
    max_workers: u32,
) -> Result<Vec<CostCurve>, GoalError> {
    let mut out = Vec::with_capacity(types.len());
    for t in types {
        let mut points = Vec::with_capacity(max_workers as usize);
        let mut u_one_ps = Vec::with_capacity(max_workers as usize);
        for n_wk in 1..=max_workers {
            let s = iterations(p, loss, goals.loss, n_wk)?;
            u_one_ps.push(homogeneous_run(p, t, n_wk, 1, s).u);
            let (in_time, fastest, _) = best_ps(p, t, n_wk, s, goals.time_s);
            let (run, meets_time) = match in_time {
                Some(r) => (r, true),
                None => (fastest, false),
            };
            let within_budget = goals.budget_usd.is_none_or(|b| run.cost_usd <= b);
            points.push(CurvePoint {
                run,
                meets_time,
                within_budget,
            });
        }
        out.push(CostCurve {
            instance: t.name.clone(),
            points,
            u_one_ps,
        });
    }
    Ok(out)
}
