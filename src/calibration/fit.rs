//! One model's calibration: which factors the runs can determine, the
//! bounded least-squares fit from several starts, and leave-one-out.
//!
//! 1. The runs the model predicts as published (`runs::compare`); at
//!    least `MIN_RUNS`, and no two of one cluster more than
//!    `CONTRADICTION` apart.
//! 2. Identifiability, from the Jacobian of the log-ratio residuals at the
//!    published values and at `starts − 1` seeded random points of the
//!    factors' box: a factor no run's prediction changes with at any of
//!    them is "cannot be fitted" (a slower device's rate in a push queue
//!    bound by communication); the others are taken in the model's order
//!    while each adds a direction the ones before it do not span (at one
//!    start at least), which also caps them at the number of runs.
//! 3. Levenberg–Marquardt (`lm.rs`) from every start; the lowest cost
//!    wins (the published start first among equals). A factor that no
//!    run's prediction changes with at the winner is put back to its
//!    published value and the rest refitted (the fit wandered where it is
//!    hidden).
//! 4. Leave-one-out: each run predicted by the whole procedure fitted on
//!    the others.
//!
//! Where a model's run predictor is a surrogate (`Model::run_predictor_exact`),
//! steps 2-4 fit on it and each calibrated and left-out prediction is
//! reported from the model's `predict_run` at the fitted factors.
//! Before anything runs, the work is stated and refused over budget:
//! `work` (runs²) and the model's own `Model::calibration_work`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::Serialize;

use super::lm::{self, minimise_unless_known};
use super::{CalibrationError, FactorKind, FactorSpec};
use crate::models::{Model, RunPrediction, RunPredictor, Work};
use crate::runs::compare::{compare, median, Outcome};
use crate::runs::{run_scenario, Measure};
use crate::scenario::Scenario;

/// Fewest runs a model must predict to be calibrated.
pub const MIN_RUNS: usize = 2;
/// Starts of the fit: the published values and seeded random points.
pub const DEFAULT_STARTS: usize = 8;
/// Most work one model's calibration takes on: leave-one-out refits once
/// per run, each refit over every run, so the work grows with the square
/// of the runs (50 runs take 18-32 ms natively per model with factors,
/// each through its `run_predictor`; 500, this limit, 1.5 s for Zeng
/// et al.).
pub const MAX_RUNS_SQUARED: f64 = 250_000.0;

/// A calibration's work on `s`, stated before it starts: runs².
pub fn work(s: &Scenario) -> Work {
    let n = s.runs.len() as f64;
    Work {
        units: n * n,
        unit: "run-refits (runs squared)",
        limit: MAX_RUNS_SQUARED,
        field: "runs".into(),
        reduce: "the number of runs".into(),
    }
}
/// Two runs of one cluster whose iteration times differ by more than
/// this ratio contradict each other (repeats within it are averaged).
pub const CONTRADICTION: f64 = 1.25;
/// A factor is separable when the part of its Jacobian column that the
/// factors before it cannot produce is at least this fraction of it:
/// below, the runs tell it apart only through noise.
const SEPARABLE: f64 = 0.05;
/// A column this small (change of `ln T` over the factor's whole box) is
/// taken as zero: the runs do not show the factor.
const ZERO: f64 = 1e-9;

#[derive(Clone, Debug, PartialEq)]
pub struct FitOptions {
    /// Only these factors are fitted (empty: every factor); the others
    /// stay as published.
    pub only: Vec<String>,
    /// Starts of the fit (at least 1: the published values).
    pub starts: usize,
    /// Seed of the random starts (the same seed, the same fit everywhere).
    pub seed: u64,
    /// Also refit without each run in turn.
    pub leave_one_out: bool,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            only: Vec::new(),
            starts: DEFAULT_STARTS,
            seed: 35,
            leave_one_out: true,
        }
    }
}

/// What became of one factor.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Status {
    /// Fitted inside its bounds.
    Fitted,
    /// Fitted, at its lower bound: the runs ask for less.
    AtLower,
    /// Fitted, at its upper bound: the runs ask for more.
    AtUpper,
    /// Left as published: the runs cannot determine it.
    NotFitted { why: String },
    /// Left as published: not asked for (`FitOptions::only`).
    Held,
}

impl Status {
    /// Its value was fitted (possibly at a bound).
    pub fn fitted(&self) -> bool {
        matches!(self, Status::Fitted | Status::AtLower | Status::AtUpper)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FactorFit {
    pub spec: FactorSpec,
    /// Its calibrated value (the published one unless fitted).
    pub value: f64,
    pub status: Status,
    /// The least and greatest of its value over the fit on every run and
    /// each leave-one-out refit, when fitted and they differ: how far one
    /// run moves it, offered as its uncertainty range
    /// (`crate::uncertainty`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<(f64, f64)>,
}

/// One run: measured, and the model's prediction as published,
/// calibrated on every run, and calibrated on the others only.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunFit {
    pub label: String,
    pub measure: Measure,
    pub measured: f64,
    pub published: Option<f64>,
    pub calibrated: Option<f64>,
    pub loo: Option<f64>,
    /// Why the model does not predict it (as published).
    pub why_not: Option<String>,
}

/// `(predicted − measured) / measured`, when predicted.
fn error(p: Option<f64>, measured: f64) -> Option<f64> {
    p.map(|p| (p - measured) / measured)
}

impl RunFit {
    pub fn published_error(&self) -> Option<f64> {
        error(self.published, self.measured)
    }
    pub fn calibrated_error(&self) -> Option<f64> {
        error(self.calibrated, self.measured)
    }
    pub fn loo_error(&self) -> Option<f64> {
        error(self.loo, self.measured)
    }
}

/// Median and worst absolute error over the runs that have one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ErrorStats {
    pub runs: usize,
    pub median_abs: Option<f64>,
    pub worst_abs: Option<f64>,
}

impl ErrorStats {
    pub fn of(errors: impl Iterator<Item = Option<f64>>) -> Self {
        let abs: Vec<f64> = errors.flatten().map(f64::abs).collect();
        ErrorStats {
            runs: abs.len(),
            median_abs: median(&abs),
            worst_abs: abs.iter().copied().reduce(f64::max),
        }
    }
}

/// One model calibrated on the scenario's runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelCalibration {
    pub id: &'static str,
    pub name: &'static str,
    pub factors: Vec<FactorFit>,
    pub runs: Vec<RunFit>,
    pub published: ErrorStats,
    pub calibrated: ErrorStats,
    pub loo: ErrorStats,
    /// Why leave-one-out has no figure for some or all runs.
    pub loo_note: Option<String>,
    /// Starts the fit took.
    pub starts: usize,
}

impl ModelCalibration {
    /// The fitted factors, as the scenario stores them (none fitted: as
    /// published).
    pub fn values(&self) -> BTreeMap<String, f64> {
        self.factors
            .iter()
            .filter(|f| f.status.fitted())
            .map(|f| (f.spec.name.clone(), f.value))
            .collect()
    }
}

/// Every model in `models` calibrated on `s`'s runs, in the order given.
pub fn calibrate(
    s: &Scenario,
    models: &[&'static dyn Model],
    opts: &FitOptions,
) -> Vec<(
    &'static dyn Model,
    Result<ModelCalibration, CalibrationError>,
)> {
    models
        .iter()
        .map(|&m| (m, calibrate_model(s, m, opts)))
        .collect()
}

/// `s` with each fitted model's factors stored (a failed model keeps what
/// it had).
pub fn with_factors(
    s: &Scenario,
    results: &[(
        &'static dyn Model,
        Result<ModelCalibration, CalibrationError>,
    )],
) -> Scenario {
    let mut out = s.clone();
    for (m, r) in results {
        if let Ok(c) = r {
            out.calibration.set(m.id(), c.values());
        }
    }
    out
}

/// The runs the model predicts, each in its own scenario (and prepared,
/// when the model offers it), with what was measured:
/// `(measure, value, global batch)`.
struct Data<'a> {
    model: &'a dyn Model,
    scenarios: Vec<Scenario>,
    /// Each run's predictor: runs of one cluster share one (a cluster is
    /// often timed more than once, and a surrogate is costly to make).
    predictors: Vec<Option<Arc<RunPredictor>>>,
    /// Each run's cluster: the first run with the same one.
    cluster: Vec<usize>,
    /// Whether two runs share a cluster (else `residuals` predicts each).
    repeats: bool,
    /// Predictions as reported (`reported`), by cluster and factors.
    reported: HashMap<(usize, Vec<u64>), Option<RunPrediction>>,
    measured: Vec<(Measure, f64, f64)>,
}

/// Each of `scenarios`' cluster, as the index of the first with the same
/// one: the run scenarios differ only in their clusters (`run_scenario`),
/// so runs of one cluster have one prediction.
fn clusters(scenarios: &[Scenario]) -> Vec<usize> {
    scenarios
        .iter()
        .enumerate()
        .map(|(k, s)| {
            scenarios[..k]
                .iter()
                .position(|t| t.hardware.cluster == s.hardware.cluster)
                .unwrap_or(k)
        })
        .collect()
}

/// `m`'s run predictor of each of `scenarios`, made once per cluster.
fn shared_predictors(
    m: &dyn Model,
    scenarios: &[Scenario],
    cluster: &[usize],
) -> Vec<Option<Arc<RunPredictor>>> {
    let mut out: Vec<Option<Arc<RunPredictor>>> = Vec::with_capacity(scenarios.len());
    for (k, s) in scenarios.iter().enumerate() {
        let p = match cluster.get(k) {
            Some(&j) if j < k => out.get(j).cloned().flatten(),
            _ => m.run_predictor(s).map(Arc::new),
        };
        out.push(p);
    }
    out
}

/// The factors `x` (in `specs` order) as the scenario stores them: only
/// those that differ from the published value.
fn values(specs: &[FactorSpec], x: &[f64]) -> BTreeMap<String, f64> {
    specs
        .iter()
        .zip(x)
        .filter(|(f, v)| **v != f.published)
        .map(|(f, v)| (f.name.clone(), *v))
        .collect()
}

impl Data<'_> {
    /// Run `i`'s prediction with the factors `values`, as the fit takes it.
    fn prediction(&mut self, values: &BTreeMap<String, f64>, i: usize) -> Option<RunPrediction> {
        match self.predictors.get(i) {
            Some(Some(predict)) => predict(values),
            _ => self.exact(values, i),
        }
    }

    /// Run `i`'s prediction with the factors `values` by the model's own
    /// `predict_run`.
    fn exact(&mut self, values: &BTreeMap<String, f64>, i: usize) -> Option<RunPrediction> {
        let s = self.scenarios.get_mut(i)?;
        s.calibration.set(self.model.id(), values.clone());
        self.model.predict_run(s)?.ok()
    }

    /// `p` in run `i`'s measure.
    fn in_measure(&self, p: &RunPrediction, i: usize) -> Option<f64> {
        let (measure, _, global_batch) = *self.measured.get(i)?;
        p.in_measure(measure, global_batch)
    }

    /// Run `i`'s prediction with the factors `values`.
    fn predict_with(&mut self, values: &BTreeMap<String, f64>, i: usize) -> Option<f64> {
        let p = self.prediction(values, i)?;
        self.in_measure(&p, i)
    }

    /// Run `i`'s prediction with the factors `x` (in `specs` order).
    fn predict(&mut self, specs: &[FactorSpec], x: &[f64], i: usize) -> Option<f64> {
        self.predict_with(&values(specs, x), i)
    }

    /// Run `i`'s prediction with the factors `x` as reported: the
    /// model's own `predict_run` where its run predictor is a surrogate
    /// (`Model::run_predictor_exact`), which the fit used.
    fn reported(&mut self, specs: &[FactorSpec], x: &[f64], i: usize) -> Option<f64> {
        if self.model.run_predictor_exact() {
            return self.predict(specs, x, i);
        }
        let key = (
            *self.cluster.get(i)?,
            x.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        );
        let p = match self.reported.get(&key) {
            Some(p) => p.clone(),
            None => {
                let p = self.exact(&values(specs, x), i);
                self.reported.insert(key, p.clone());
                p
            }
        };
        self.in_measure(&p?, i)
    }

    /// `ln(predicted / measured)` of the runs `idx`, each cluster
    /// predicted once.
    fn residuals(&mut self, specs: &[FactorSpec], x: &[f64], idx: &[usize]) -> Option<Vec<f64>> {
        let v = values(specs, x);
        let ln = |p: f64, i: usize, d: &Self| Some((p / d.measured.get(i)?.1).ln());
        if !self.repeats {
            return idx
                .iter()
                .map(|&i| ln(self.predict_with(&v, i)?, i, self))
                .collect();
        }
        // By cluster (the first run's index); `None`: not yet predicted.
        let mut of_cluster: Vec<Option<Option<RunPrediction>>> = vec![None; self.measured.len()];
        idx.iter()
            .map(|&i| {
                let c = *self.cluster.get(i)?;
                let slot = of_cluster.get_mut(c)?;
                if slot.is_none() {
                    *slot = Some(self.prediction(&v, i));
                }
                ln(self.in_measure(slot.as_ref()?.as_ref()?, i)?, i, self)
            })
            .collect()
    }
}

/// The fitting coordinate of a value (`ln` for a ratio).
fn to_p(f: &FactorSpec, v: f64) -> f64 {
    match f.kind {
        FactorKind::Ratio => v.ln(),
        FactorKind::Offset => v,
    }
}

fn from_p(f: &FactorSpec, p: f64) -> f64 {
    match f.kind {
        FactorKind::Ratio => p.exp(),
        FactorKind::Offset => p,
    }
}

/// SplitMix64: the random starts, the same bits on every target.
fn next_unit(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// A fit on some runs: each factor's value (`specs` order) and status.
struct Fitted {
    x: Vec<f64>,
    status: Vec<Status>,
}

/// The part of `v` outside the span of `basis` (orthonormal), by
/// modified Gram–Schmidt, and its length.
fn outside(v: &[f64], basis: &[Vec<f64>]) -> (Vec<f64>, f64) {
    let mut r = v.to_vec();
    for b in basis {
        let d: f64 = r.iter().zip(b).map(|(a, b)| a * b).sum();
        for (ri, bi) in r.iter_mut().zip(b) {
            *ri -= d * bi;
        }
    }
    let n = r.iter().map(|a| a * a).sum::<f64>().sqrt();
    (r, n)
}

/// Why the runs cannot determine a factor; it stays as published.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
enum Unfittable {
    /// No run's prediction moves with it.
    #[error("{unseen}; no run's prediction changes with it {at}")]
    Unseen { unseen: String, at: String },
    /// As many factors as runs are already chosen (`first`).
    #[error("{runs} runs determine at most {runs} factors, and {first} come first")]
    TooFewRuns { runs: usize, first: String },
    /// It moves the predictions only as the chosen factors do.
    #[error("in these runs it changes the predictions only as {with} already do {at}: the runs cannot tell them apart")]
    Confounded { with: String, at: String },
}

/// Which of `cands` (in order) the columns `cols[start][j]` (scaled to
/// the factor's box) can separate: `Ok` kept, `Err(why)` not.
fn separable(
    cands: &[usize],
    cols: &[Vec<Vec<f64>>],
    specs: &[FactorSpec],
    runs: usize,
    at: &str,
) -> Vec<(usize, Result<(), Unfittable>)> {
    let mut chosen: Vec<usize> = Vec::new();
    // Per start, an orthonormal basis of the chosen factors' columns.
    let mut bases: Vec<Vec<Vec<f64>>> = vec![Vec::new(); cols.len()];
    let mut out = Vec::new();
    for (k, &j) in cands.iter().enumerate() {
        let norms: Vec<f64> = cols
            .iter()
            .map(|c| c[k].iter().map(|a| a * a).sum::<f64>().sqrt())
            .collect();
        if norms.iter().all(|&n| n < ZERO) {
            out.push((
                j,
                Err(Unfittable::Unseen {
                    unseen: specs[j].unseen.clone(),
                    at: at.to_string(),
                }),
            ));
            continue;
        }
        // The start where it adds most, relative to its own size.
        let best = (0..cols.len())
            .filter(|&s| norms[s] >= ZERO)
            .map(|s| {
                let (r, n) = outside(&cols[s][k], &bases[s]);
                (s, r, n / norms[s])
            })
            .max_by(|a, b| a.2.total_cmp(&b.2));
        match best {
            Some((_, _, share)) if share >= SEPARABLE => {
                for (s, basis) in bases.iter_mut().enumerate() {
                    let (r, n) = outside(&cols[s][k], basis);
                    if n >= ZERO {
                        basis.push(r.iter().map(|a| a / n).collect());
                    }
                }
                chosen.push(j);
                out.push((j, Ok(())));
            }
            _ => {
                let first = chosen
                    .iter()
                    .map(|&c| specs[c].name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                let why = if chosen.len() >= runs {
                    Unfittable::TooFewRuns { runs, first }
                } else {
                    Unfittable::Confounded {
                        with: first,
                        at: at.to_string(),
                    }
                };
                out.push((j, Err(why)));
            }
        }
    }
    out
}

/// Columns `∂ ln T / ∂p_j × (box width)` of `cands` at `x`.
fn columns(
    d: &mut Data<'_>,
    specs: &[FactorSpec],
    x: &[f64],
    cands: &[usize],
    idx: &[usize],
) -> Option<Vec<Vec<f64>>> {
    let r0 = d.residuals(specs, x, idx)?;
    cands
        .iter()
        .map(|&j| {
            let f = &specs[j];
            let (lo, hi) = (to_p(f, f.min), to_p(f, f.max));
            let p = to_p(f, x[j]);
            let h = lm::step(lo, hi);
            let h = if p + h > hi { -h } else { h };
            let mut y = x.to_vec();
            y[j] = from_p(f, p + h);
            let r = d.residuals(specs, &y, idx)?;
            Some(
                r.iter()
                    .zip(&r0)
                    .map(|(a, b)| (a - b) / h * (hi - lo))
                    .collect(),
            )
        })
        .collect()
}

/// The starts of a fit, as full value vectors: the published values,
/// then `opts.starts − 1` drawn uniformly in each factor's fitting box.
fn starts(specs: &[FactorSpec], cands: &[usize], opts: &FitOptions) -> Vec<Vec<f64>> {
    let published: Vec<f64> = specs.iter().map(|f| f.published).collect();
    let mut seed = opts.seed;
    (0..opts.starts.max(1))
        .map(|k| {
            let mut x = published.clone();
            if k > 0 {
                for &j in cands {
                    let f = &specs[j];
                    let (lo, hi) = (to_p(f, f.min), to_p(f, f.max));
                    x[j] = from_p(f, lo + next_unit(&mut seed) * (hi - lo));
                }
            }
            x
        })
        .collect()
}

/// The fit on runs `idx` over the factors `cands` (the rest held), from
/// each of `starts` (as `starts` gives them: the published values first).
fn fit_on(
    d: &mut Data<'_>,
    specs: &[FactorSpec],
    cands: &[usize],
    idx: &[usize],
    starts: &[Vec<f64>],
) -> Result<Fitted, CalibrationError> {
    let published: Vec<f64> = specs.iter().map(|f| f.published).collect();
    let mut status: Vec<Status> = vec![Status::Held; specs.len()];
    if idx.len() < MIN_RUNS {
        return Err(CalibrationError::TooFewRuns {
            model: d.model.name().into(),
            predicted: idx.len(),
        });
    }
    let cols: Vec<Vec<Vec<f64>>> = starts
        .iter()
        .filter_map(|x| columns(d, specs, x, cands, idx))
        .collect();
    let others = starts.len() - 1;
    let at = match others {
        0 => "at the published values".to_string(),
        1 => "at the published values or at one other starting point".to_string(),
        n => format!("at the published values or at {n} other starting points"),
    };
    let mut free: Vec<usize> = Vec::new();
    for (j, ok) in separable(cands, &cols, specs, idx.len(), &at) {
        match ok {
            Ok(()) => free.push(j),
            Err(why) => {
                status[j] = Status::NotFitted {
                    why: why.to_string(),
                }
            }
        }
    }
    let mut x = published.clone();
    while !free.is_empty() {
        let lo: Vec<f64> = free
            .iter()
            .map(|&j| to_p(&specs[j], specs[j].min))
            .collect();
        let hi: Vec<f64> = free
            .iter()
            .map(|&j| to_p(&specs[j], specs[j].max))
            .collect();
        let mut best: Option<lm::Solution> = None;
        // Minima found so far: a start whose descent reaches one stops.
        let mut found: Vec<Vec<f64>> = Vec::new();
        for start in starts {
            let p0: Vec<f64> = free.iter().map(|&j| to_p(&specs[j], start[j])).collect();
            let mut f = |p: &[f64]| {
                let mut y = published.clone();
                for (k, &j) in free.iter().enumerate() {
                    y[j] = from_p(&specs[j], p[k]);
                }
                d.residuals(specs, &y, idx)
            };
            let Some(sol) = minimise_unless_known(&mut f, &p0, &lo, &hi, &found) else {
                continue;
            };
            if sol.converged {
                found.push(sol.p.clone());
            }
            if sol.converged && best.as_ref().is_none_or(|b| sol.cost < b.cost) {
                best = Some(sol);
            }
        }
        let Some(best) = best else {
            return Err(CalibrationError::NotConverged {
                model: d.model.name().into(),
            });
        };
        x = published.clone();
        for (k, &j) in free.iter().enumerate() {
            x[j] = from_p(&specs[j], best.p[k]);
        }
        // At the winner: factors hidden there go back to published.
        let at_fit = columns(d, specs, &x, &free, idx).map(|c| vec![c]);
        let dropped: Vec<(usize, String)> = match at_fit {
            Some(c) => separable(&free, &c, specs, idx.len(), "at the fitted values")
                .into_iter()
                .filter_map(|(j, ok)| ok.err().map(|why| (j, why.to_string())))
                .collect(),
            None => Vec::new(),
        };
        if dropped.is_empty() {
            for (k, &j) in free.iter().enumerate() {
                let tol = 1e-9 * (hi[k] - lo[k]);
                // At a bound, the bound itself (not exp(ln(bound))).
                status[j] = if best.p[k] <= lo[k] + tol {
                    x[j] = specs[j].min;
                    Status::AtLower
                } else if best.p[k] >= hi[k] - tol {
                    x[j] = specs[j].max;
                    Status::AtUpper
                } else {
                    Status::Fitted
                };
            }
            break;
        }
        for (j, why) in dropped {
            status[j] = Status::NotFitted { why };
            free.retain(|&k| k != j);
        }
        x = published.clone();
    }
    Ok(Fitted { x, status })
}

/// The first pair of runs of one cluster that contradict each other.
fn contradiction(s: &Scenario, usable: &[usize]) -> Option<CalibrationError> {
    let mut by_cluster: HashMap<String, Vec<(usize, f64)>> = HashMap::new();
    for &i in usable {
        let run = &s.runs[i];
        let (measure, v) = run.measured()?;
        let t = match measure {
            Measure::IterationTime => v,
            Measure::Throughput => run.global_batch() / v,
        };
        let key = serde_json::to_string(&(&run.workers, &run.ps)).unwrap_or_default();
        by_cluster.entry(key).or_default().push((i, t));
    }
    let mut groups: Vec<&Vec<(usize, f64)>> = by_cluster.values().collect();
    crate::order::sort_by_key(&mut groups, |g| g.first().map(|p| p.0));
    groups.into_iter().find_map(|g| {
        let lo = g.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
        let hi = g.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
        (hi.1 > CONTRADICTION * lo.1).then(|| {
            let shown = |i: usize| {
                let r = &s.runs[i];
                match (r.iteration_s, r.throughput) {
                    (Some(t), _) => format!("{t} s"),
                    (_, Some(x)) => format!("{x} samples/s"),
                    _ => String::new(),
                }
            };
            let (a, b) = if lo.0 < hi.0 {
                (lo.0, hi.0)
            } else {
                (hi.0, lo.0)
            };
            CalibrationError::Contradictory {
                a: s.runs[a].label.clone(),
                b: s.runs[b].label.clone(),
                a_value: shown(a),
                b_value: shown(b),
                apart: (hi.1 / lo.1 - 1.0) * 100.0,
            }
        })
    })
}

/// Model `m` calibrated on `s`'s runs (its stored factors ignored: the
/// fit starts from the model as published).
pub fn calibrate_model(
    s: &Scenario,
    m: &'static dyn Model,
    opts: &FitOptions,
) -> Result<ModelCalibration, CalibrationError> {
    if let Some(w) = std::iter::once(work(s))
        .chain(m.calibration_work(s))
        .find(|w| !w.fits())
    {
        return Err(CalibrationError::OverBudget {
            message: w.refusal(m.name()).message,
        });
    }
    let mut base = s.clone();
    base.calibration.set(m.id(), BTreeMap::new());
    let specs = m.factors(&base);
    if specs.is_empty() {
        return Err(CalibrationError::NoFactors {
            model: m.name().into(),
        });
    }
    for name in &opts.only {
        if !specs.iter().any(|f| &f.name == name) {
            return Err(CalibrationError::UnknownFactor {
                model: m.name().into(),
                name: name.clone(),
                known: specs
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
    }
    let cands: Vec<usize> = (0..specs.len())
        .filter(|&j| opts.only.is_empty() || opts.only.contains(&specs[j].name))
        .collect();
    let c = compare(&base, &[m]).map_err(|u| CalibrationError::Runs {
        why: u
            .errors()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; "),
    })?;
    let Some(mr) = c.models.first() else {
        return Err(CalibrationError::Runs {
            why: format!("{} does not predict measured runs", m.name()),
        });
    };
    // Run k of `Data` is scenario run `usable[k]`.
    let usable: Vec<usize> = (0..s.runs.len())
        .filter(|&i| matches!(mr.outcomes.get(i), Some(Outcome::Predicted { .. })))
        .collect();
    if usable.len() < MIN_RUNS {
        return Err(CalibrationError::TooFewRuns {
            model: m.name().into(),
            predicted: usable.len(),
        });
    }
    if let Some(e) = contradiction(&base, &usable) {
        return Err(e);
    }
    let scenarios: Vec<Scenario> = usable
        .iter()
        .map(|&i| run_scenario(&base, &base.runs[i]))
        .collect();
    let cluster = clusters(&scenarios);
    let mut d = Data {
        model: m,
        predictors: shared_predictors(m, &scenarios, &cluster),
        repeats: cluster.iter().enumerate().any(|(k, &c)| c != k),
        cluster,
        reported: HashMap::new(),
        scenarios,
        measured: usable
            .iter()
            .map(|&i| {
                let r = &c.runs[i];
                (r.measure, r.value, r.global_batch)
            })
            .collect(),
    };
    let all: Vec<usize> = (0..usable.len()).collect();
    let fit = fit_on(&mut d, &specs, &cands, &all, &starts(&specs, &cands, opts))?;
    let calibrated: Vec<Option<f64>> = all.iter().map(|&k| d.reported(&specs, &fit.x, k)).collect();
    let mut loo: Vec<Option<f64>> = vec![None; usable.len()];
    let mut refits: Vec<Vec<f64>> = Vec::new();
    let mut loo_note = None;
    if !opts.leave_one_out {
        loo_note = Some("leave-one-out not asked for".to_string());
    } else if usable.len() <= MIN_RUNS {
        loo_note = Some(format!(
            "leave-one-out needs at least {} runs the model predicts (each refit on the others needs {MIN_RUNS})",
            MIN_RUNS + 1
        ));
    } else {
        // One run less moves the minimum a little: each refit starts from
        // the fit on every run (a warm start), then from the published
        // values in case its minimum lies in another basin; eight random
        // starts per refit would cost eight times as much for the page.
        let published: Vec<f64> = specs.iter().map(|f| f.published).collect();
        let warm = [fit.x.clone(), published];
        let mut failed = Vec::new();
        for k in 0..usable.len() {
            let others: Vec<usize> = all.iter().copied().filter(|&q| q != k).collect();
            match fit_on(&mut d, &specs, &cands, &others, &warm) {
                Ok(f) => {
                    loo[k] = d.reported(&specs, &f.x, k);
                    refits.push(f.x);
                }
                Err(e) => failed.push(format!("'{}': {e}", s.runs[usable[k]].label)),
            }
        }
        if !failed.is_empty() {
            loo_note = Some(format!("no refit without {}", failed.join("; ")));
        }
    }
    let runs: Vec<RunFit> = c
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let k = usable.iter().position(|&u| u == i);
            let (published, why_not) = match mr.outcomes.get(i) {
                Some(Outcome::Predicted { value, .. }) => (Some(*value), None),
                Some(Outcome::Unavailable { why }) => (
                    None,
                    Some(
                        why.errors()
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join("; "),
                    ),
                ),
                None => (None, None),
            };
            RunFit {
                label: r.label.clone(),
                measure: r.measure,
                measured: r.value,
                published,
                calibrated: k.and_then(|k| calibrated[k]),
                loo: k.and_then(|k| loo[k]),
                why_not,
            }
        })
        .collect();
    let factors = specs
        .into_iter()
        .zip(fit.x)
        .zip(fit.status)
        .enumerate()
        .map(|(j, ((spec, value), status))| {
            let spread = status
                .fitted()
                .then(|| {
                    refits
                        .iter()
                        .filter_map(|x| x.get(j).copied())
                        .fold((value, value), |(lo, hi), v| (lo.min(v), hi.max(v)))
                })
                .filter(|(lo, hi)| lo < hi);
            FactorFit {
                value: if status.fitted() {
                    value
                } else {
                    spec.published
                },
                spec,
                status,
                spread,
            }
        })
        .collect();
    Ok(ModelCalibration {
        id: m.id(),
        name: m.name(),
        factors,
        published: ErrorStats::of(runs.iter().map(RunFit::published_error)),
        calibrated: ErrorStats::of(runs.iter().map(RunFit::calibrated_error)),
        loo: ErrorStats::of(runs.iter().map(RunFit::loo_error)),
        runs,
        loo_note,
        starts: opts.starts.max(1),
    })
}
