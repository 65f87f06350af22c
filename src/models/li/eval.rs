//! Li et al. applied to a scenario: the profile (given or generated), the
//! throughput for W = 1 … max over several seeds, the link bound, the
//! coarse estimates the paper compares against (Cynthia's; Lin et al.'s in
//! this product's reading), and one synthetic timeline.

use serde::{Deserialize, Serialize};

use super::generate::{self, from_layers};
use super::lin::{steps_to_trace, Lin};
use super::profile::{Profile, Resource};
use super::section::{self, LiSettings, OrderedStreams, StreamOrder, ID};
use super::sim::{simulate, Flow, Order, Ordered, Outcome, Parse, Setup};
use crate::errors::err;
use crate::errors::Unavailable;
use crate::scenario::Scenario;

/// One W of the sweep: its simulated spread, and beside it Cynthia's
/// estimate `WK / (T_p·max(1, W·U_1) + 2T_C)` and Lin et al.'s (none when
/// no one-worker step could be measured for it).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    pub sim: Spread,
    pub cynthia: f64,
    pub lin: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiEvaluation {
    pub settings: LiSettings,
    pub profile: Profile,
    pub generated: bool,
    pub servers: u32,
    pub bytes_per_s: f64,
    pub points: Vec<Point>,
    /// `batch · M·B / bytes per step` in the busier direction; none when
    /// nothing crosses a link.
    pub link_bound: Option<f64>,
    /// The least W within 5% of the highest throughput.
    pub saturation: u32,
    /// `T_p`: the worker's compute per step; `T_C`: the downlink bytes per
    /// step at `B`; `U_1`: the downlink's busy share with one worker.
    pub t_p: f64,
    pub t_c: f64,
    pub u_1: f64,
    /// Lin et al.'s phases, measured on one worker's steps.
    pub lin: Option<Lin>,
    pub timeline: Outcome,
    pub timeline_workers: u32,
}

fn missing(field: &str, what: &str) -> Unavailable {
    Unavailable::Missing {
        needs: vec![err(field, what)],
    }
}

/// The profile the section gives or asks to generate.
fn profile_of(s: &Scenario, set: &LiSettings) -> Result<(Profile, bool), Unavailable> {
    if let Some(p) = &set.profile {
        return Ok((p.clone(), false));
    }
    if let Some(r) = &set.profile_ref {
        return Err(missing(
            &format!("models.{ID}.profile"),
            &super::share_link::attach_message(r),
        ));
    }
    let Some(g) = &set.generate else {
        return Err(missing(
            &format!("models.{ID}.profile"),
            "a one-worker profile: upload one, or generate one from the layer table",
        ));
    };
    if s.workload.network.layers.is_empty() {
        return Err(missing(
            "workload.network.layers",
            "a layer table to generate the profile from",
        ));
    }
    let Some(group) = s.hardware.cluster.workers.first() else {
        return Err(missing(
            "hardware.cluster.workers",
            "a worker group: its instance's rate and its batch make the profile",
        ));
    };
    let rate = s
        .instance(&group.instance)
        .and_then(|i| i.flops_at(s.hardware.precision))
        .filter(|r| *r > 0.0);
    let Some(rate) = rate else {
        return Err(missing(
            "hardware.catalog",
            &format!(
                "a rate for {} at {}, to time the layers",
                group.instance,
                s.hardware.precision.word()
            ),
        ));
    };
    Ok((
        from_layers(&s.workload.network, rate, group.batch_size, g, set.seed),
        true,
    ))
}

/// Ops per step of the profile the section gives or asks to generate,
/// and of them transfers, counted without generating it: for a profile a
/// link names, its op count alone (its transfers are not named; nothing
/// runs until the file is attached).
pub fn profile_size(s: &Scenario, set: &LiSettings) -> generate::OpCount {
    if let Some(p) = &set.profile {
        return generate::OpCount::of(p);
    }
    if let Some(r) = &set.profile_ref {
        return generate::OpCount {
            ops: r.ops,
            ..generate::OpCount::default()
        };
    }
    set.generate
        .as_ref()
        .map(|g| generate::count(&s.workload.network, g))
        .unwrap_or_default()
}

/// The ops an evaluation simulates (`Model::work`), from the inputs alone.
/// Each worker-step runs every op of the profile once, and with a parse
/// overhead (α or β not 0) one parse op per transfer too. The sweep runs
/// `seeds` runs of W workers × `steps` steps (the warm-up among them) for
/// each W from 1 to the most; besides, the timeline is one run of its
/// workers × up to 3 steps, and Lin et al.'s phases one of one worker ×
/// up to 20 steps. The page's split over W runs the same runs.
pub fn ops_simulated(s: &Scenario, set: &LiSettings) -> f64 {
    let size = profile_size(s, set);
    let parse = set.alpha_s_per_byte != 0.0 || set.beta_s != 0.0;
    let per_step = (size.ops + if parse { size.transfers() } else { 0 }) as f64;
    per_step * worker_steps(set, size.ops, 1)
}

/// Σ over the evaluation's runs of steps × Wᵖ: `p` = 1 counts
/// worker-steps; `p` = 2 weighs each by its run's W.
fn worker_steps(set: &LiSettings, ops: usize, p: i32) -> f64 {
    let n = f64::from(set.max_workers);
    let sum_w = match p {
        1 => n * (n + 1.0) / 2.0,
        _ => n * (n + 1.0) * (2.0 * n + 1.0) / 6.0,
    };
    let sweep = f64::from(set.seeds.max(1)) * sum_w * f64::from(set.steps);
    let tw = f64::from(set.timeline_workers.min(set.max_workers).max(1));
    let timeline = tw.powi(p) * f64::from(set.steps.min(3));
    let lin = f64::from(steps_to_trace(ops, set.steps));
    sweep + timeline + lin
}

/// With several PS, the passes over chunks in service the evaluation
/// makes at most, beyond its ops (`Model::work`): every start and end of
/// a transfer's chunk re-solves the max-min shares of the links, a pass
/// over the chunks in service, at most W × (min(M, downlinks) + min(M,
/// uplinks)) (one per worker, PS and direction); a stream split by the
/// window is one chunk more. One PS needs no such pass (a virtual clock
/// per direction): 0.
pub fn share_passes(s: &Scenario, set: &LiSettings) -> f64 {
    let m = s.hardware.cluster.ps.count;
    if m <= 1 {
        return 0.0;
    }
    let size = profile_size(s, set);
    let on = |links: usize| links.min(m as usize) as f64;
    // Per worker-step: 2 ends per transfer × the chunks of a worker.
    let per_step = 2.0 * size.transfers() as f64 * (on(size.downlinks) + on(size.uplinks));
    per_step * worker_steps(set, size.ops, 2)
}

/// Ranks by critical path: ops by the longest path from their start to
/// the step's end (mean amounts; a transfer takes `bytes / B`), longest
/// first, ties in profile order.
pub fn critical_path_ranks(profile: &Profile, bytes_per_s: f64) -> Vec<u32> {
    let n = profile.ops.len();
    let own: Vec<f64> = (0..n)
        .map(|i| {
            let a = profile.mean_amount(i);
            if profile.ops[i].resource.is_link() {
                a / bytes_per_s
            } else {
                a
            }
        })
        .collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (j, op) in profile.ops.iter().enumerate() {
        for &d in &op.deps {
            if let Some(v) = dependents.get_mut(d as usize) {
                v.push(j);
            }
        }
    }
    // A validated profile is acyclic: a reverse topological order by
    // repeatedly taking ops whose dependents are all done.
    let mut left: Vec<usize> = dependents.iter().map(Vec::len).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&i| left[i] == 0).collect();
    let mut path = vec![0.0f64; n];
    while let Some(i) = ready.pop() {
        path[i] = own[i] + dependents[i].iter().map(|&j| path[j]).fold(0.0, f64::max);
        for &d in &profile.ops[i].deps {
            let d = d as usize;
            if d < n {
                left[d] -= 1;
                if left[d] == 0 {
                    ready.push(d);
                }
            }
        }
    }
    let order = crate::order::positions(n, &|a, b| path[b].total_cmp(&path[a]).then(a.cmp(&b)));
    let mut ranks = vec![0u32; n];
    for (rank, i) in order.into_iter().enumerate() {
        ranks[i] = rank as u32;
    }
    ranks
}

pub fn setup_of(set: &LiSettings, profile: &Profile, servers: u32, bytes_per_s: f64) -> Setup {
    Setup {
        workers: 1,
        servers,
        bytes_per_s,
        parse: Parse {
            alpha: set.alpha_s_per_byte,
            beta: set.beta_s,
            occupies: set.parse_occupies,
        },
        flow: if set.flow_control {
            Flow::Window(set.window_bytes)
        } else {
            let order = match set.order {
                StreamOrder::Profiled => Order::Profiled,
                StreamOrder::Reverse => Order::Reverse,
                StreamOrder::Random => Order::Random,
                StreamOrder::CriticalPath => {
                    Order::Ranks(critical_path_ranks(profile, bytes_per_s))
                }
            };
            let ordered = match set.ordered_streams {
                OrderedStreams::Downlinks => Ordered::Downlinks,
                OrderedStreams::All => Ordered::All,
            };
            Flow::Off(order, ordered)
        },
        steps: set.steps,
        warmup: set.warmup,
        seed: set.seed,
        trace_steps: 0,
    }
}

/// Throughput of `w` workers over `seeds` seeds from `base.seed` on: the
/// mean, least and most, and the links' mean busy shares (each run's over
/// the window its throughput is measured in).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub workers: u32,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub down_busy: f64,
    pub up_busy: f64,
}

pub fn spread(profile: &Profile, base: &Setup, w: u32, seeds: u32) -> Spread {
    let runs: Vec<Outcome> = (0..seeds.max(1))
        .map(|k| {
            simulate(
                profile,
                &Setup {
                    workers: w,
                    seed: base.seed.wrapping_add(u64::from(k)),
                    ..base.clone()
                },
            )
        })
        .collect();
    let n = runs.len() as f64;
    let tp: Vec<f64> = runs.iter().map(|o| o.throughput).collect();
    let busy = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    Spread {
        workers: w,
        mean: tp.iter().sum::<f64>() / n,
        min: tp.iter().copied().fold(f64::INFINITY, f64::min),
        max: tp.iter().copied().fold(0.0, f64::max),
        down_busy: runs.iter().map(|o| busy(&o.down_busy)).sum::<f64>() / n,
        up_busy: runs.iter().map(|o| busy(&o.up_busy)).sum::<f64>() / n,
    }
}

/// The profile, the PS count and link, and the simulation setup the
/// scenario gives (what `evaluate` and `ddnn-planner simulate` run),
/// calibrated by `calibration.li` (`factors`).
pub fn prepare(s: &Scenario) -> Result<(LiSettings, Profile, bool, Setup), Unavailable> {
    let set = section::settings(s);
    let (profile, generated) = profile_of(s, &set)?;
    let problems = profile.validate();
    if !problems.is_empty() {
        let field = if generated {
            "workload.network.layers".to_string()
        } else {
            format!("models.{ID}.profile")
        };
        return Err(Unavailable::invalid(
            problems.into_iter().map(|m| err(&field, m)).collect(),
        ));
    }
    let ps = &s.hardware.cluster.ps;
    let Some(bytes_per_s) = ps.node_bandwidth(&s.hardware.catalog) else {
        return Err(missing(
            "hardware.cluster.ps.link",
            "the PS link's bandwidth (typed, or the PS instance's network)",
        ));
    };
    // The calibration (`factors`): op times ÷ compute, B × network.
    let f = super::factors::applied(s);
    let profile = f.profile(profile);
    let mut base = setup_of(&set, &profile, ps.count.max(1), bytes_per_s * f.network);
    f.parse(&mut base.parse);
    Ok((set, profile, generated, base))
}

pub fn evaluate(s: &Scenario) -> Result<LiEvaluation, Unavailable> {
    evaluate_streamed(s, &mut |_, _, _| {})
}

/// `evaluate`, calling `partial(evaluation so far, W done, W in all)`
/// after each worker count.
pub fn evaluate_streamed(
    s: &Scenario,
    partial: &mut dyn FnMut(&LiEvaluation, u32, u32),
) -> Result<LiEvaluation, Unavailable> {
    let (mut e, base) = skeleton(s)?;
    let total = e.settings.max_workers;
    for w in 1..=total {
        let sim = spread(&e.profile, &base, w, e.settings.seeds);
        push_point(&mut e, sim);
        if w < total {
            partial(&e, w, total);
        }
    }
    Ok(e)
}

/// The evaluation without its sweep over W: the profile, the bounds and
/// the timeline; and the setup each W's `spread` runs from.
pub fn skeleton(s: &Scenario) -> Result<(LiEvaluation, Setup), Unavailable> {
    let (set, profile, generated, base) = prepare(s)?;
    let (servers, bytes_per_s) = (base.servers, base.bytes_per_s);
    let batch = f64::from(profile.batch);
    let down = profile.mean_bytes(Resource::Downlink);
    let up = profile.mean_bytes(Resource::Uplink);
    let busiest = down.max(up);
    let link_bound = (busiest > 0.0).then(|| batch * f64::from(servers) * bytes_per_s / busiest);
    let t_p: f64 = (0..profile.ops.len())
        .filter(|&i| profile.ops[i].resource == Resource::Worker)
        .map(|i| profile.mean_amount(i))
        .sum();
    let t_c = down / bytes_per_s;
    let timeline_workers = set.timeline_workers.min(set.max_workers).max(1);
    let timeline = simulate(
        &profile,
        &Setup {
            workers: timeline_workers,
            steps: set.steps.min(3),
            warmup: 0,
            trace_steps: 3,
            ..base.clone()
        },
    );
    let traced = steps_to_trace(profile.ops.len(), set.steps);
    let one = simulate(
        &profile,
        &Setup {
            workers: 1,
            steps: traced,
            warmup: 0,
            trace_steps: traced,
            ..base.clone()
        },
    );
    let lin = Lin::of(&profile, &one, servers);
    let e = LiEvaluation {
        settings: set,
        profile,
        generated,
        servers,
        bytes_per_s,
        points: Vec::new(),
        link_bound,
        saturation: 1,
        t_p,
        t_c,
        u_1: 0.0,
        lin,
        timeline,
        timeline_workers,
    };
    Ok((e, base))
}

/// The coarse estimates for `w` workers [samples/s]: Cynthia's
/// `WK / (T_p·max(1, W·U_1) + 2T_C)` (with `U_1` once W = 1 is in) and
/// Lin et al.'s, where its phases could be read.
pub fn coarse(e: &LiEvaluation, w: u32) -> (f64, Option<f64>) {
    let wf = f64::from(w);
    let batch = f64::from(e.profile.batch);
    (
        wf * batch / (e.t_p * (wf * e.u_1).max(1.0) + 2.0 * e.t_c),
        e.lin.as_ref().map(|l| l.throughput(w, batch)),
    )
}

/// Adds the next W's spread (W = 1 first: Cynthia's `U_1` is its
/// downlink share) with the coarse estimates beside it, and moves the
/// saturation point.
pub fn push_point(e: &mut LiEvaluation, sim: Spread) {
    let w = sim.workers;
    if w == 1 {
        e.u_1 = sim.down_busy;
    }
    let (cynthia, lin) = coarse(e, w);
    e.points.push(Point { sim, cynthia, lin });
    let best = e.points.iter().map(|p| p.sim.mean).fold(0.0, f64::max);
    e.saturation = e
        .points
        .iter()
        .find(|p| p.sim.mean >= 0.95 * best)
        .map_or(1, |p| p.sim.workers);
}
