//! spotDNN applied to a scenario: the instance types it can plan with, the
//! given cluster's prediction, the plans (Algorithm 1 next to the exact
//! optimiser) with the paper's comparisons, the cost-vs-time-goal
//! frontier, and the takeover after a revocation (Algorithm 1's next to
//! the exact optimiser's, as the plans are).

use crate::bounds::positive;
use serde::Serialize;

use super::fit::{self, ContentionPoint, Fit, FitError, SpeedObservation, Trace};
use super::plan::{algorithm1, exact, exact_from, fastest, sweep, Candidate, Problem, Search};
use super::section::{self, parse_cluster, PlanFrom, SpotDnnSettings, ALPHA2, ID};
use super::{
    cluster, compute_time, gpu_batch, ClusterFigures, InstanceType, LossForm, LossLaw, RunFigures,
    Workload,
};
use crate::errors::err;
use crate::errors::{FieldError, Unavailable};
use crate::hardware::cluster_text::ClusterTextError;
use crate::hardware::{Instance, Pricing};
use crate::report::{fmt_sig, Chart};
use super::report::{curve_charts, frontier_sample};
use crate::scenario::Scenario;

/// Points on the cost-vs-time-goal frontier.
pub const FRONTIER_POINTS: usize = 24;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpotEvaluation {
    pub settings: SpotDnnSettings,
    pub workload: Workload,
    pub pricing: Pricing,
    /// Catalog entries spotDNN can plan with, in catalog order.
    pub types: Vec<InstanceType>,
    /// Catalog entries left out, and why.
    pub skipped: Vec<String>,
    pub cluster: Option<GivenCluster>,
    pub cluster_note: Option<String>,
    pub plans: Option<Plans>,
    pub replan: Option<Replan>,
    #[serde(skip)]
    pub fits: Fits,
}

/// The coefficient fits of the section's measurements, each `None`
/// without its data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fits {
    pub memory: Option<Result<Fit, FitError>>,
    pub contention: Option<Result<(Fit, Vec<ContentionPoint>), MeasuredError>>,
    pub loss: Option<Result<LossFit, MeasuredError>>,
    /// Coefficients taken from a fit because their fields are empty.
    pub used: Vec<&'static str>,
}

/// Why a fit of measured clusters, or the scenario's cluster, cannot be
/// read against spotDNN's instance types.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeasuredError {
    #[error(transparent)]
    Cluster(#[from] ClusterTextError),
    #[error("\"{0}\" is not one of spotDNN's instance types (measured, in the catalog)")]
    UnknownType(String),
    #[error("a trace's cluster has no workers")]
    NoWorkers,
    #[error("{0} is not a measured type with GPUs, GPU memory, PCIe and a price")]
    Unplannable(String),
    #[error(transparent)]
    Fit(#[from] FitError),
}

/// Eq. 3 fitted to the traces.
#[derive(Clone, Debug, PartialEq)]
pub struct LossFit {
    pub law: LossLaw,
    pub fit: Fit,
    pub traces: Vec<Trace>,
}

/// The scenario's cluster under the model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GivenCluster {
    pub counts: Vec<u32>,
    pub figures: ClusterFigures,
    pub run: Option<RunFigures>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plans {
    pub loss_goal: f64,
    pub time_goal_s: f64,
    pub paper: Search,
    pub exact: Search,
    /// How much more Algorithm 1's plan costs than the exact one (0.074 =
    /// 7.4%).
    pub gap: Option<f64>,
    /// The exact plan next to Homo-fast, Homo-slow (same worker count, one
    /// type) and the same plan at the other pricing (Tables I, V, VI).
    pub comparisons: Vec<Comparison>,
    /// When nothing meets the goals: the fastest cluster the quotas allow.
    pub fastest: Option<Candidate>,
    /// False when the fastest-cluster search stopped at its budget.
    pub fastest_complete: bool,
    /// (time goal [s], the cheapest plan meeting it, if any) along the
    /// frontier.
    pub frontier: Vec<(f64, Option<Candidate>)>,
    /// False when the frontier's searches stopped at their budget.
    pub frontier_complete: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub label: String,
    pub counts: Vec<u32>,
    pub candidate: Option<Candidate>,
    /// Cost at the other pricing (the "On-demand" row).
    pub other_pricing: bool,
}

/// A takeover after a revocation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Replan {
    pub revoked: String,
    /// The instances kept, per type (the takeover adds to them).
    pub survivors: Vec<u32>,
    pub at_s: f64,
    /// The cluster's run had nothing been revoked.
    pub before: Option<RunFigures>,
    /// Algorithm 1's takeover (the paper's Fig. 9 replan): its windows on
    /// the survivors' problem, `T_ohd` added (lines 11-13).
    pub paper: Search,
    /// The exact optimiser's takeover: the survivors plus the cheapest
    /// addition in the time left (started from Algorithm 1's, so never
    /// dearer).
    pub exact: Search,
    /// How much more Algorithm 1's takeover costs than the exact one
    /// (0.074 = 7.4%).
    pub gap: Option<f64>,
    /// Cost spent before the revocation [USD].
    pub spent: f64,
    pub time_left_s: f64,
}

/// The type index of each catalog entry spotDNN can use.
fn type_index(types: &[InstanceType], name: &str) -> Option<usize> {
    types.iter().position(|t| t.name == name)
}

/// Reads the section and catalog into the model, or says what is missing
/// (`Missing`: nothing to show) or wrong (`Invalid`: the last good result
/// stays).
pub fn evaluate(s: &Scenario) -> Result<SpotEvaluation, Unavailable> {
    let mut e = prepare(s)?;
    let goals = goals(s, &e).map_err(Unavailable::invalid)?;
    if let Some((loss_goal, time_goal)) = goals {
        e.plans = Some(plans(&e, loss_goal, time_goal));
        e.replan = replan(&e, loss_goal, time_goal).map_err(Unavailable::invalid)?;
    }
    Ok(e)
}

/// The frontier's plans of `s`, `(time goal [s], instances per type)`
/// for each goal some plan meets, as `evaluate` finds them (without the
/// other plans): its band keeps them and costs them under each sample's
/// inputs (`sample_charts`).
pub fn frontier_plans(s: &Scenario) -> Vec<(f64, Vec<u32>)> {
    let Ok(e) = prepare(s) else {
        return Vec::new();
    };
    let Ok(Some((loss_goal, time_goal))) = goals(s, &e) else {
        return Vec::new();
    };
    let p = problem(&e, loss_goal, time_goal);
    let quick = fastest(&p);
    frontier(&p, quick.best.as_ref())
        .0
        .into_iter()
        .filter_map(|(goal, plan)| Some((goal, plan?.counts)))
        .collect()
}

/// One band sample's charts: the given cluster's iteration timeline and
/// the frontier's `plans` costed under `s`'s inputs.
pub fn sample_charts(s: &Scenario, plans: &[(f64, Vec<u32>)]) -> Result<Vec<Chart>, Unavailable> {
    let e = prepare(s)?;
    let mut charts = curve_charts(&e);
    if !plans.is_empty() {
        if let Ok(Some((loss, time))) = goals(s, &e) {
            charts.push(frontier_sample(&problem(&e, loss, time), plans));
        }
    }
    Ok(charts)
}

/// The types and the given cluster, without plans.
pub fn prepare(s: &Scenario) -> Result<SpotEvaluation, Unavailable> {
    let mut set = section::settings(s);
    let mut fits = Fits::default();
    if !set.fits.memory.is_empty() {
        fits.memory = Some(fit::memory(&set.fits.memory));
    }
    // α2 left empty: the memory fit's, when it is one Eq. 10 can use.
    if let (None, Some(Ok(f))) = (set.alpha2_per_byte, &fits.memory) {
        if let (Some(a), Some(b)) = (f.value("α2"), f.value("β2")) {
            if ALPHA2.contains(a) && b.is_finite() {
                set.alpha2_per_byte = Some(a);
                set.beta2 = b;
                fits.used.push("α2, β2");
            }
        }
    }
    let f = |name: &str| format!("models.{ID}.{name}");
    let mut missing = Vec::new();
    let mut need = |v: Option<f64>, field: &str, what: &str| {
        if v.is_none() {
            missing.push(err(f(field), what.to_string()));
        }
        v.unwrap_or(0.0)
    };
    let param = need(
        set.param_bytes,
        "param_bytes",
        "S_param [MB]: bytes pushed per iteration (Table IV)",
    );
    let req = need(
        set.req_bytes_per_s,
        "req_bytes_per_s",
        "B_req [MB/s]: one worker's bandwidth need, measured alone",
    );
    let alpha2 = need(
        set.alpha2_per_byte,
        "alpha2_per_byte",
        "α2, β2 of Eq. 10 (batch per GPU memory)",
    );
    if set.measured.is_empty() {
        missing.push(err(
            f("measured"),
            "an iteration time measured alone for at least one instance type",
        ));
    }
    let ps = s.hardware.cluster.ps.total_bandwidth(&s.hardware.catalog);
    if ps.is_none() {
        missing.push(err(
            "hardware.cluster.ps.link",
            "the PS side's bandwidth B_ps (a PS instance or link)",
        ));
    }
    if !missing.is_empty() {
        return Err(Unavailable::Missing { needs: missing });
    }
    // Without a law only the cluster's iteration figures are shown; the
    // placeholder is never run (`goals` and `given_cluster` check `loss`).
    let loss = set.loss.unwrap_or(LossLaw::zeros(LossForm::RFree));
    let mut workload = super::factors::applied(s).workload(Workload {
        param_bytes: param,
        req_bytes_per_s: req,
        ps_bytes_per_s: ps.unwrap_or(0.0),
        alpha1: set.alpha1,
        beta1: set.beta1,
        loss,
    });
    let pricing = s.hardware.pricing;
    let (types, skipped) =
        instance_types(s, &set, &workload, alpha2, pricing).map_err(Unavailable::invalid)?;
    if types.is_empty() {
        return Err(Unavailable::Missing { needs: vec![err(
            f("measured"),
            "no measured instance type is in the catalog with its GPUs, GPU memory, PCIe bandwidth and price",
        )] });
    }
    fit_measurements(&mut set, &mut workload, &types, &mut fits);
    let mut e = SpotEvaluation {
        settings: set,
        workload,
        pricing,
        types,
        skipped,
        cluster: None,
        cluster_note: None,
        plans: None,
        replan: None,
        fits,
    };
    given_cluster(s, &mut e);
    Ok(e)
}

/// The contention and loss fits, which need the instance types; a loss
/// law left empty is the fit's when the traces determine it.
fn fit_measurements(
    set: &mut SpotDnnSettings,
    workload: &mut Workload,
    types: &[InstanceType],
    fits: &mut Fits,
) {
    let counts = |text: &str| -> Result<Vec<u32>, MeasuredError> {
        let mut c = vec![0; types.len()];
        for (name, n) in parse_cluster(text)? {
            let k = type_index(types, &name).ok_or(MeasuredError::UnknownType(name))?;
            c[k] += n;
        }
        Ok(c)
    };
    if !set.fits.speeds.is_empty() {
        let obs: Result<Vec<SpeedObservation>, MeasuredError> = set
            .fits
            .speeds
            .iter()
            .map(|p| {
                Ok(SpeedObservation {
                    label: p.cluster.trim().to_string(),
                    counts: counts(&p.cluster)?,
                    steps_per_s: p.steps_per_s,
                })
            })
            .collect();
        fits.contention = Some(
            obs.and_then(|o| fit::contention(types, workload, &o).map_err(MeasuredError::from)),
        );
    }
    if set.fits.loss.is_empty() {
        return;
    }
    let traces: Result<Vec<Trace>, MeasuredError> = fit::group_traces(&set.fits.loss)
        .into_iter()
        .map(|(label, points)| {
            let c = counts(&label)?;
            let f = cluster(types, &c, workload).ok_or(MeasuredError::NoWorkers)?;
            Ok(Trace {
                label,
                wa_batch: f.wa_batch,
                convergence: f.convergence,
                workers: f64::from(f.workers),
                points,
            })
        })
        .collect();
    let result = traces.and_then(|traces| {
        let (law, fit) = fit::loss(&traces, set.fits.form)?;
        Ok(LossFit { law, fit, traces })
    });
    if let (None, Ok(lf)) = (set.loss, &result) {
        if lf.fit.determined() {
            set.loss = Some(lf.law);
            workload.loss = lf.law;
            fits.used.push("γ");
        }
    }
    fits.loss = Some(result);
}

/// The catalog's entries that have a measurement, with their Eq. 10 batch
/// and compute time. A negative compute time is an error, and when `B_req`
/// read as Mb/s would explain it, the message says so.
fn instance_types(
    s: &Scenario,
    set: &SpotDnnSettings,
    w: &Workload,
    alpha2: f64,
    pricing: Pricing,
) -> Result<(Vec<InstanceType>, Vec<String>), Vec<FieldError>> {
    let f = super::factors::applied(s);
    let mut types = Vec::new();
    let mut skipped = Vec::new();
    let mut errors = Vec::new();
    let mut slip: Option<String> = None;
    let other = pricing.other();
    let field = |i: usize, name: &str| format!("models.{ID}.measured[{i}].{name}");
    for (i, m) in set.measured.iter().enumerate() {
        let Some(inst) = s.instance(&m.instance) else {
            skipped.push(format!("{}: measured, but not in the catalog", m.instance));
            continue;
        };
        let Some(((gpus, mem, pcie), price)) = gpu_figures(inst).zip(inst.price(pricing)) else {
            skipped.push(format!(
                "{}: needs GPUs per instance, GPU memory, PCIe (interconnect) bandwidth and a {} price",
                inst.name,
                pricing.word()
            ));
            continue;
        };
        let Some(b_k) = gpu_batch(alpha2, set.beta2, mem) else {
            errors.push(err(
                format!("models.{ID}.alpha2_per_byte"),
                format!(
                    "{}: α2·mem + β2 = {} for its {} GB GPUs: Eq. 10 gives a batch below 1",
                    inst.name,
                    fmt_sig(alpha2 * mem + set.beta2),
                    fmt_sig(mem / 1e9)
                ),
            ));
            continue;
        };
        let pcie_s = 2.0 * f64::from(gpus) * w.param_bytes / pcie;
        let compute = match (&m.iteration_s, &m.same_gpu_as) {
            (Some(t), _) => match measured_compute(*t, w, pcie_s, &inst.name) {
                Ok(c) => c,
                Err((true, msg)) => {
                    // One unit slip explains every type: say it once.
                    slip.get_or_insert(msg);
                    continue;
                }
                Err((false, msg)) => {
                    errors.push(err(field(i, "iteration_s"), msg));
                    continue;
                }
            },
            (None, Some(like)) => match same_gpu_compute(s, set, w, like) {
                Some(c) => c,
                None if slip.is_some() => continue,
                None => {
                    errors.push(err(
                        field(i, "same_gpu_as"),
                        format!("{}: \"{like}\" has no measured iteration time in the catalog to carry over", inst.name),
                    ));
                    continue;
                }
            },
            (None, None) => {
                errors.push(err(
                    field(i, "iteration_s"),
                    format!(
                        "{}: give its iteration time alone, or a measured type with the same GPU",
                        inst.name
                    ),
                ));
                continue;
            }
        };
        types.push(f.instance(InstanceType {
            name: inst.name.clone(),
            gpus,
            batch: f64::from(gpus) * b_k,
            gpu_batch: b_k,
            compute_s: compute,
            pcie_s,
            price,
            other_price: inst.price(other),
            quota: inst.quota,
        }));
    }
    if let Some(msg) = slip {
        errors.insert(0, err(format!("models.{ID}.req_bytes_per_s"), msg));
    }
    if errors.is_empty() {
        Ok((types, skipped))
    } else {
        Err(errors)
    }
}

/// (GPUs, GPU memory [B], PCIe [B/s]) of an entry.
fn gpu_figures(inst: &Instance) -> Option<(u32, f64, f64)> {
    let gpus = inst.gpus.filter(|&g| g > 0)?;
    Some((gpus, inst.gpu_memory_bytes?, inst.interconnect_bytes_per_s?))
}

/// `T_comp` from a measurement; `Err((blame B_req, message))` when it is
/// not positive.
fn measured_compute(t: f64, w: &Workload, pcie_s: f64, name: &str) -> Result<f64, (bool, String)> {
    let c = compute_time(t, w, pcie_s);
    if c > 0.0 {
        return Ok(c);
    }
    let net = 2.0 * w.param_bytes / w.req_bytes_per_s;
    // A B_req read as Mb/s and converted is 8× too small.
    let eight = Workload {
        req_bytes_per_s: w.req_bytes_per_s * 8.0,
        ..*w
    };
    let slip = compute_time(t, &eight, pcie_s) > 0.0;
    let msg = format!(
        "{name}: the compute time comes out negative: measured {} s < 2·S/B_req {} s + PCIe {} s",
        fmt_sig(t),
        fmt_sig(net),
        fmt_sig(pcie_s)
    );
    if slip {
        Err((
            true,
            format!(
                "{msg}. B_req = {} MB/s looks converted from Mb/s: spotDNN's \"Mbps\" means MB/s, so it would be {} MB/s",
                fmt_sig(w.req_bytes_per_s / 1e6),
                fmt_sig(eight.req_bytes_per_s / 1e6)
            ),
        ))
    } else {
        Err((false, msg))
    }
}

/// `T_comp` of the measured type named `like` (the same GPU computes the
/// same per-GPU batch in the same time, whatever the instance).
fn same_gpu_compute(s: &Scenario, set: &SpotDnnSettings, w: &Workload, like: &str) -> Option<f64> {
    let m = set.measured.iter().find(|m| m.instance == like)?;
    let t = m.iteration_s?;
    let inst = s.instance(like)?;
    let (gpus, _, pcie) = gpu_figures(inst)?;
    let c = compute_time(t, w, 2.0 * f64::from(gpus) * w.param_bytes / pcie);
    (c > 0.0).then_some(c)
}

/// The cluster's counts per type, or why spotDNN cannot read it.
fn cluster_counts(s: &Scenario, types: &[InstanceType]) -> Result<Vec<u32>, MeasuredError> {
    let mut counts = vec![0u32; types.len()];
    for g in &s.hardware.cluster.workers {
        let k = type_index(types, &g.instance)
            .ok_or_else(|| MeasuredError::Unplannable(g.instance.clone()))?;
        counts[k] = counts[k].saturating_add(g.count);
    }
    Ok(counts)
}

fn given_cluster(s: &Scenario, e: &mut SpotEvaluation) {
    if s.hardware.cluster.workers.is_empty() {
        e.cluster_note = Some("no workers in the cluster: planning only".into());
        return;
    }
    match cluster_counts(s, &e.types) {
        Err(m) => e.cluster_note = Some(format!("the cluster is not predicted: {m}")),
        Ok(counts) => {
            if let Some(figures) = cluster(&e.types, &counts, &e.workload) {
                let run = match (s.goals.loss, e.settings.loss) {
                    (Some(l), Some(_)) => figures.mix.run(&e.workload, None, l),
                    _ => None,
                };
                e.cluster = Some(GivenCluster {
                    counts,
                    figures,
                    run,
                });
            }
        }
    }
}

/// The loss and time goals, when planning can run; errors for goals the
/// loss law cannot reach.
fn goals(s: &Scenario, e: &SpotEvaluation) -> Result<Option<(f64, f64)>, Vec<FieldError>> {
    let Some(law) = e.settings.loss else {
        return Ok(None);
    };
    let (Some(loss), Some(time)) = (s.goals.loss, s.goals.time_s) else {
        return Ok(None);
    };
    if loss <= law.gamma5 {
        return Err(vec![err(
            "goals.loss",
            format!(
                "spotDNN: the loss law never falls to {} (it approaches γ5 = {} from above): set a loss goal above γ5",
                fmt_sig(loss),
                fmt_sig(law.gamma5)
            ),
        )]);
    }
    Ok(Some((loss, time)))
}

/// The plan question for a fresh plan (or one keeping the cluster).
pub fn problem<'a>(e: &'a SpotEvaluation, loss_goal: f64, time_goal: f64) -> Problem<'a> {
    let existing = match (e.settings.plan_from, &e.cluster) {
        (PlanFrom::Cluster, Some(c)) => c.counts.clone(),
        _ => vec![0; e.types.len()],
    };
    Problem {
        types: &e.types,
        workload: &e.workload,
        loss_goal,
        loss_from: None,
        time_goal_s: time_goal,
        overhead_s: 0.0,
        available: available(&e.types, &existing, e.settings.max_workers),
        existing,
        max_workers: worker_cap(&e.workload, e.settings.max_workers),
    }
}

/// New instances each type may add: its quota less the running ones.
fn available(types: &[InstanceType], existing: &[u32], cap: u32) -> Vec<u32> {
    types
        .iter()
        .zip(existing)
        .map(|(t, &e)| t.quota.map_or(cap, |q| q.saturating_sub(e)))
        .collect()
}

/// Most workers: the paper's `P < 1` bound, within the section's limit.
fn worker_cap(w: &Workload, limit: u32) -> u32 {
    w.max_workers().map_or(limit, |n| n.min(limit))
}

fn plans(e: &SpotEvaluation, loss_goal: f64, time_goal: f64) -> Plans {
    let p = problem(e, loss_goal, time_goal);
    let paper = algorithm1(&p);
    let exact = exact_from(&p, &paper, |_| {});
    let gap = cost_gap(&paper, &exact);
    let comparisons = exact
        .best
        .as_ref()
        .map(|b| comparisons(&p, b))
        .unwrap_or_default();
    let quick = fastest(&p);
    let (frontier, frontier_complete) = frontier(&p, quick.best.as_ref());
    Plans {
        loss_goal,
        time_goal_s: time_goal,
        frontier,
        frontier_complete: frontier_complete && quick.complete,
        fastest_complete: quick.complete,
        fastest: quick.best.filter(|_| exact.best.is_none()),
        paper,
        exact,
        gap,
        comparisons,
    }
}

/// How much more Algorithm 1's plan costs than the exact one, when both
/// found one and the exact one costs something.
fn cost_gap(paper: &Search, exact: &Search) -> Option<f64> {
    match (&paper.best, &exact.best) {
        (Some(a), Some(x)) if x.run.cost > 0.0 => Some(a.run.cost / x.run.cost - 1.0),
        _ => None,
    }
}

/// Homo-fast and Homo-slow (Sec. V-C: as many workers as the plan, all of
/// its fastest or its slowest type), and the plan at the other pricing.
fn comparisons(p: &Problem, best: &Candidate) -> Vec<Comparison> {
    let n: u32 = best.counts.iter().sum();
    let speed = |k: usize| p.types[k].batch / best.cluster.iterations[k].total();
    let used: Vec<usize> = (0..p.types.len()).filter(|&k| best.counts[k] > 0).collect();
    let pick = |better: fn(f64, f64) -> bool| {
        used.iter()
            .copied()
            .reduce(|a, b| if better(speed(b), speed(a)) { b } else { a })
    };
    let mut out = Vec::new();
    for (label, k) in [
        ("Homo-fast", pick(|a, b| a > b)),
        ("Homo-slow", pick(|a, b| a < b)),
    ] {
        let Some(k) = k else { continue };
        let mut counts = vec![0u32; p.types.len()];
        counts[k] = n;
        out.push(Comparison {
            label: label.into(),
            candidate: p.candidate(&counts),
            counts,
            other_pricing: false,
        });
    }
    out.push(Comparison {
        label: "exact plan, other prices".into(),
        counts: best.counts.clone(),
        candidate: Some(best.clone()),
        other_pricing: true,
    });
    out
}

/// The cheapest plan for time goals from the fastest cluster's time to
/// the cheapest cluster's (log-spaced), the loss goal fixed; and whether
/// every search behind it went to the end.
fn frontier(p: &Problem, quickest: Option<&Candidate>) -> (Vec<(f64, Option<Candidate>)>, bool) {
    let quick = quickest.map(|c| c.time_s);
    let cheapest = exact(
        &Problem {
            time_goal_s: f64::INFINITY,
            ..p.clone()
        },
        |_| {},
    );
    let slow = cheapest.best;
    let (Some(lo), Some(hi)) = (quick, slow.as_ref().map(|c| c.time_s)) else {
        return (Vec::new(), cheapest.complete);
    };
    if !positive(hi - lo) {
        let at = exact(p, |_| {});
        return (vec![(lo, at.best)], cheapest.complete && at.complete);
    }
    let k = FRONTIER_POINTS;
    let goals: Vec<f64> = (0..k)
        .map(|i| {
            // The ends exactly: rounding must not lose the fastest plan.
            if i == 0 {
                lo
            } else if i == k - 1 {
                hi
            } else {
                lo * (hi / lo).powf(i as f64 / (k - 1) as f64)
            }
        })
        .collect();
    let seeds: Vec<&Candidate> = quickest.into_iter().chain(slow.as_ref()).collect();
    let swept = sweep(p, &goals, &seeds);
    let points = goals.into_iter().zip(swept.plans).collect();
    (points, cheapest.complete && swept.complete)
}

/// The takeover plan when the section marks a revocation.
fn replan(
    e: &SpotEvaluation,
    loss_goal: f64,
    time_goal: f64,
) -> Result<Option<Replan>, Vec<FieldError>> {
    let Some(r) = &e.settings.revocation else {
        return Ok(None);
    };
    let field = |x: &str| format!("models.{ID}.revocation.{x}");
    let Some(given) = &e.cluster else {
        return Err(vec![err(
            field("instance"),
            "a revocation needs the running cluster: put the plan's instances in the cluster",
        )]);
    };
    let Some(k) = type_index(&e.types, &r.instance).filter(|&k| given.counts[k] > 0) else {
        return Err(vec![err(
            field("instance"),
            format!("the cluster runs no {}", r.instance),
        )]);
    };
    if r.at_s >= time_goal {
        return Err(vec![err(
            field("at_s"),
            format!(
                "the revocation at {} s is not before the time goal ({} s)",
                fmt_sig(r.at_s),
                fmt_sig(time_goal)
            ),
        )]);
    }
    if r.loss_now <= loss_goal {
        return Err(vec![err(
            field("loss_now"),
            format!(
                "the loss {} already meets the goal {}: nothing to replan",
                fmt_sig(r.loss_now),
                fmt_sig(loss_goal)
            ),
        )]);
    }
    let mut survivors = given.counts.clone();
    survivors[k] = 0;
    let mut avail = available(&e.types, &survivors, e.settings.max_workers);
    avail[k] = 0;
    let p = Problem {
        types: &e.types,
        workload: &e.workload,
        loss_goal,
        loss_from: Some(r.loss_now),
        time_goal_s: time_goal - r.at_s,
        overhead_s: e.settings.overhead_s,
        existing: survivors.clone(),
        available: avail,
        max_workers: worker_cap(&e.workload, e.settings.max_workers),
    };
    let paper = algorithm1(&p);
    let exact = exact_from(&p, &paper, |_| {});
    Ok(Some(Replan {
        revoked: r.instance.clone(),
        survivors,
        at_s: r.at_s,
        before: given.run,
        spent: r.at_s / 3600.0 * given.figures.price_per_hour,
        time_left_s: time_goal - r.at_s,
        gap: cost_gap(&paper, &exact),
        paper,
        exact,
    }))
}
