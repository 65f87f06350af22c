//! spotDNN's coefficients fitted from measurements (Sec. IV, "Obtaining
//! Model Parameters"), each with its quality, and each coefficient the
//! data cannot determine named with what would determine it:
//!
//! - Eq. 10's `α2, β2` from GPU memory in use at a few batch sizes: memory
//!   grows linearly with the batch, `mem = c·b + d`, so the largest batch a
//!   GPU of `mem` bytes holds is `(mem − d)/c`: `α2 = 1/c`, `β2 = −d/c`.
//!   The line is fitted to the memory (what was measured).
//! - Eq. 9's `α1, β1` from cluster speeds at a few sizes: each measured
//!   speed fixes its cluster's `P` (the speed falls as `P` rises, Eq. 6-8),
//!   and `P = α1·√|N| + β1` is a line in `√|N|`.
//! - Eq. 3's `γ1..γ5` from loss traces of a few clusters, by nonlinear
//!   least squares on the loss. For fixed `γ1` (and `γ4`) the law is linear
//!   in `γ2, γ3, γ5`, so a grid over the nonlinear ones with a linear
//!   solve inside finds the basin, and Levenberg–Marquardt polishes all of
//!   them together and gives their standard errors.

use super::section::{LossPoint, MemoryPoint};
use super::{InstanceType, LossForm, LossLaw, Workload};
use crate::report::fmt_sig;
use crate::stats::{self, levenberg_marquardt, Residuals, UNDETERMINED_INFLATION};

/// One fitted coefficient.
#[derive(Clone, Debug, PartialEq)]
pub struct Coefficient {
    pub name: &'static str,
    pub value: f64,
    /// Standard error (0 for data the law fits exactly).
    pub std_error: f64,
    /// Why the data do not determine it (then `value` is not to be used).
    pub undetermined: Option<String>,
}

impl Coefficient {
    fn new(name: &'static str, value: f64, std_error: f64) -> Self {
        Coefficient {
            name,
            value,
            std_error,
            undetermined: None,
        }
    }
}

/// A fit's coefficients and how well the law follows the data.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    pub coefficients: Vec<Coefficient>,
    /// R² on the measured quantity.
    pub r_squared: f64,
    /// Root-mean-square residual, in the measured quantity's unit.
    pub rms: f64,
    pub points: usize,
    /// What a reader must know (clamped points, a coefficient outside the
    /// paper's sign).
    pub notes: Vec<String>,
}

impl Fit {
    /// Every coefficient is determined.
    pub fn determined(&self) -> bool {
        self.coefficients.iter().all(|c| c.undetermined.is_none())
    }

    pub fn value(&self, name: &str) -> Option<f64> {
        self.coefficients
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.value)
    }
}

/// Why a fit has no coefficients: too little or contrary data.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    #[error("the memory fit needs at least two different batch sizes (memory in use at each)")]
    MemoryBatches,
    #[error(
        "the memory in use does not grow with the batch (fitted {} MB per sample): \
         Eq. 10 needs memory that rises with the batch size",
        fmt_sig(*.bytes_per_sample / 1e6)
    )]
    MemoryNotGrowing { bytes_per_sample: f64 },
    #[error(
        "the contention fit needs speeds of clusters of at least two different sizes \
         where the PS share B_ps/|N| is below B_req = {} MB/s and the speed lies between \
         Eq. 6-8's with P = 0 and with P = 1 ({qualify} of {measured} measurements qualify)",
        fmt_sig(*.req_bytes_per_s / 1e6)
    )]
    ContentionSizes {
        req_bytes_per_s: f64,
        qualify: usize,
        measured: usize,
    },
    #[error(
        "the loss fit needs more points than coefficients: {points} points for {coefficients} coefficients"
    )]
    LossPoints { points: usize, coefficients: usize },
    #[error("the loss traces admit no law of Eq. 3's form")]
    NoLossLaw,
    #[error("the loss fit did not converge from any starting point")]
    NotConverged,
}

fn rms(residuals: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = residuals.fold((0.0, 0usize), |(s, n), r| (s + r * r, n + 1));
    if n == 0 {
        0.0
    } else {
        (sum / n as f64).sqrt()
    }
}

/// Eq. 10's `α2` [samples/B] and `β2` from (per-GPU batch, memory in use
/// [B]) pairs of one GPU type.
pub fn memory(points: &[MemoryPoint]) -> Result<Fit, FitError> {
    let xs: Vec<f64> = points.iter().map(|p| p.batch).collect();
    let ys: Vec<f64> = points.iter().map(|p| p.bytes).collect();
    let line = stats::line(&xs, &ys).ok_or(FitError::MemoryBatches)?;
    let (c, d) = (line.slope, line.intercept);
    if c.is_nan() || c <= 0.0 {
        return Err(FitError::MemoryNotGrowing {
            bytes_per_sample: c,
        });
    }
    // α2 = 1/c, β2 = −d/c; errors by the delta method.
    let alpha2 = 1.0 / c;
    let beta2 = -d / c;
    let alpha2_se = line.slope_se / (c * c);
    let beta2_var = (line.intercept_se / c).powi(2) + (d * line.slope_se / (c * c)).powi(2)
        - 2.0 * d / (c * c * c) * line.covariance;
    let mut notes = Vec::new();
    if points.len() == 2 {
        notes.push("two points fix the line exactly: its errors are unknown".to_string());
    }
    Ok(Fit {
        coefficients: vec![
            Coefficient::new("α2", alpha2, alpha2_se),
            Coefficient::new("β2", beta2, beta2_var.max(0.0).sqrt()),
        ],
        r_squared: line.r_squared,
        rms: rms(points.iter().map(|p| p.bytes - (c * p.batch + d))),
        points: points.len(),
        notes,
    })
}

/// A measured cluster: counts per type (as `types`) and its speed.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeedObservation {
    pub label: String,
    pub counts: Vec<u32>,
    pub steps_per_s: f64,
}

/// What one measured speed says about `P`.
#[derive(Clone, Debug, PartialEq)]
pub struct ContentionPoint {
    pub label: String,
    pub workers: u32,
    /// `P` that reproduces the speed (clamped to [0, 1]), or `None` when
    /// the PS share covers `B_req` at this size (no contention, Eq. 8).
    pub contention: Option<f64>,
    /// Whether `P` had to be clamped: the speed is outside what Eq. 6-8
    /// give for any `P`.
    pub clamped: bool,
    pub measured: f64,
    /// The speed with the fitted `α1, β1` [steps/s].
    pub predicted: f64,
}

impl ContentionPoint {
    /// Whether the line of Eq. 9 is fitted through it.
    pub fn used(&self) -> bool {
        self.contention.is_some() && !self.clamped
    }
}

/// Eq. 9's `α1, β1` from measured cluster speeds.
pub fn contention(
    types: &[InstanceType],
    w: &Workload,
    obs: &[SpeedObservation],
) -> Result<(Fit, Vec<ContentionPoint>), FitError> {
    let mut points: Vec<ContentionPoint> = obs
        .iter()
        .map(|o| {
            let n: u32 = o.counts.iter().sum();
            let p = solve_contention(types, w, &o.counts, o.steps_per_s);
            ContentionPoint {
                label: o.label.clone(),
                workers: n,
                contention: p.map(|(p, _)| p),
                clamped: p.is_some_and(|(_, c)| c),
                measured: o.steps_per_s,
                predicted: 0.0,
            }
        })
        .collect();
    let usable: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.used())
        .map(|p| (f64::from(p.workers).sqrt(), p.contention.unwrap_or(0.0)))
        .collect();
    let (xs, ys): (Vec<f64>, Vec<f64>) = usable.iter().copied().unzip();
    let line = stats::line(&xs, &ys).ok_or(FitError::ContentionSizes {
        req_bytes_per_s: w.req_bytes_per_s,
        qualify: usable.len(),
        measured: obs.len(),
    })?;
    let fitted = Workload {
        alpha1: line.slope,
        beta1: line.intercept,
        ..*w
    };
    for (p, o) in points.iter_mut().zip(obs) {
        p.predicted = speed(
            types,
            &fitted,
            &o.counts,
            fitted.contention(f64::from(p.workers)),
        );
    }
    let mut notes: Vec<String> = points
        .iter()
        .filter(|p| p.clamped)
        .map(|p| {
            format!(
                "{}: {} steps/s is outside what Eq. 6-8 give for any P (left out)",
                p.label,
                fmt_sig(p.measured)
            )
        })
        .collect();
    notes.extend(points.iter().filter(|p| p.contention.is_none()).map(|p| {
        format!(
            "{}: with {} workers the PS share covers B_req, so its speed says nothing about P (left out)",
            p.label, p.workers
        )
    }));
    if line.slope < 0.0 {
        notes.push(
            "α1 < 0: contention falls as workers are added, which Eq. 9 does not allow; \
             check the measurements"
                .to_string(),
        );
    }
    let fit = Fit {
        coefficients: vec![
            Coefficient::new("α1", line.slope, line.slope_se),
            Coefficient::new("β1", line.intercept, line.intercept_se),
        ],
        r_squared: line.r_squared,
        rms: rms(points
            .iter()
            .filter(|p| p.used())
            .map(|p| p.measured - p.predicted)),
        points: usable.len(),
        notes,
    };
    Ok((fit, points))
}

/// Global steps/s of `counts` when the PS link is the bottleneck with
/// probability `p` (Eq. 2, 6-8).
fn speed(types: &[InstanceType], w: &Workload, counts: &[u32], p: f64) -> f64 {
    let n = f64::from(counts.iter().sum::<u32>());
    let share = w.ps_bytes_per_s / n;
    let bw = if w.req_bytes_per_s > share {
        p * share + (1.0 - p) * w.req_bytes_per_s
    } else {
        w.req_bytes_per_s
    };
    types
        .iter()
        .zip(counts)
        .map(|(t, &c)| f64::from(c) / (t.compute_s + t.pcie_s + 2.0 * w.param_bytes / bw))
        .sum()
}

/// The `P` in [0, 1] that gives `measured` steps/s, and whether it was
/// clamped; `None` when the cluster has no contention at its size.
fn solve_contention(
    types: &[InstanceType],
    w: &Workload,
    counts: &[u32],
    measured: f64,
) -> Option<(f64, bool)> {
    let n: u32 = counts.iter().sum();
    if n == 0 || w.req_bytes_per_s <= w.ps_bytes_per_s / f64::from(n) {
        return None;
    }
    // The speed falls as P rises.
    if measured >= speed(types, w, counts, 0.0) {
        return Some((0.0, true));
    }
    if measured <= speed(types, w, counts, 1.0) {
        return Some((1.0, true));
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if speed(types, w, counts, mid) > measured {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some((0.5 * (lo + hi), false))
}

/// A cluster's loss trace with the cluster's Eq. 3-5 figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub label: String,
    /// `b_w` [samples], `R`, `|N|`.
    pub wa_batch: f64,
    pub convergence: f64,
    pub workers: f64,
    /// (global step `j`, loss).
    pub points: Vec<(f64, f64)>,
}

/// The loss traces of the fit data, grouped by cluster in first-seen order.
pub fn group_traces(points: &[LossPoint]) -> Vec<(String, Vec<(f64, f64)>)> {
    let mut out: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for p in points {
        let key = p.cluster.trim();
        match out.iter_mut().find(|(c, _)| c == key) {
            Some((_, v)) => v.push((p.iteration, p.loss)),
            None => out.push((key.to_string(), vec![(p.iteration, p.loss)])),
        }
    }
    out
}

/// Eq. 3 fitted to the traces: the law, and the fit's quality.
pub fn loss(traces: &[Trace], form: LossForm) -> Result<(LossLaw, Fit), FitError> {
    let m: usize = traces.iter().map(|t| t.points.len()).sum();
    let mut batches: Vec<f64> = traces.iter().map(|t| t.wa_batch).collect();
    batches.sort_by(f64::total_cmp);
    batches.dedup_by(|a, b| (*a - *b).abs() <= 1e-9 * b.abs());
    let shape = Shape {
        form,
        free_gamma2: batches.len() > 1,
    };
    let p = shape.names().len();
    if m <= p {
        return Err(FitError::LossPoints {
            points: m,
            coefficients: p,
        });
    }
    let j_min = traces
        .iter()
        .flat_map(|t| t.points.iter().map(|p| p.0))
        .fold(f64::INFINITY, f64::min);
    let j_max = traces
        .iter()
        .flat_map(|t| t.points.iter().map(|p| p.0))
        .fold(0.0f64, f64::max);
    let r_min = traces
        .iter()
        .map(|t| t.convergence)
        .fold(f64::INFINITY, f64::min);
    let span = (j_max - j_min).max(1.0);
    // The grid: γ1 above −j_min (no pole in the data), γ4 above −R_min.
    let g1s: Vec<f64> = (0..=60)
        .map(|i| -j_min + span * 10f64.powf(-4.0 + 0.1 * f64::from(i)))
        .collect();
    let g4s: Vec<f64> = match form {
        LossForm::RFree => vec![0.0],
        LossForm::WithR => (0..=25)
            .map(|i| -r_min + 10f64.powf(-3.0 + 0.2 * f64::from(i)))
            .collect(),
    };
    let mut best: Option<(f64, [f64; 5])> = None;
    for &g1 in &g1s {
        for &g4 in &g4s {
            if let Some((g, ssr)) = project(traces, shape, g1, g4) {
                if best.is_none_or(|(b, _)| ssr < b) {
                    best = Some((ssr, g));
                }
            }
        }
    }
    let (_, start) = best.ok_or(FitError::NoLossLaw)?;
    let res = LossResiduals { traces, shape };
    let fit = levenberg_marquardt(&res, &shape.pack(&start))
        .ok_or(FitError::NotConverged)?;
    let law = LossLaw::from_gammas(shape.unpack(&fit.params), form);
    let mut coefficients: Vec<Coefficient> = shape
        .names()
        .iter()
        .zip(&fit.params)
        .zip(fit.std_errors.iter().zip(&fit.inflation))
        .map(|((&name, &v), (&se, &vif))| {
            let mut c = Coefficient::new(name, v, se);
            if vif.is_nan() || vif >= UNDETERMINED_INFLATION {
                c.undetermined = Some(why_undetermined(name).to_string());
            }
            c
        })
        .collect();
    if !shape.free_gamma2 {
        let b = batches.first().copied().unwrap_or(0.0);
        let mut c = Coefficient::new("γ2", 0.0, f64::INFINITY);
        c.undetermined = Some(format!(
            "every trace has the WA batch b_w = {} samples, so γ2 cannot be told from γ3: \
             traces of clusters with different batches separate them (γ2 is held at 0; \
             γ3 then holds for this batch only)",
            fmt_sig(b)
        ));
        coefficients.insert(1, c);
    }
    let measured: Vec<f64> = traces
        .iter()
        .flat_map(|t| t.points.iter().map(|p| p.1))
        .collect();
    let predicted: Vec<f64> = traces
        .iter()
        .flat_map(|t| {
            t.points
                .iter()
                .map(|&(j, _)| law.loss_at(j, t.wa_batch, t.convergence, t.workers))
        })
        .collect();
    let mut notes = Vec::new();
    if shape.free_gamma2 && law.gamma2 >= 0.0 {
        notes.push(
            "γ2 ≥ 0: in these traces a larger WA batch does not converge in fewer steps \
             (the paper's fits have γ2 < 0)"
                .to_string(),
        );
    }
    let fit = Fit {
        coefficients,
        r_squared: stats::r_squared(&measured, &predicted),
        rms: rms(measured.iter().zip(&predicted).map(|(a, b)| a - b)),
        points: m,
        notes,
    };
    Ok((law, fit))
}

fn why_undetermined(name: &str) -> &'static str {
    match name {
        "γ1" => "γ1 is not determined: another coefficient stands in for it; add points from early in training, where the step count is comparable to γ1",
        "γ4" => "γ4 is not determined: add traces of clusters with different convergence coefficients R (mixed types), or fit the R-free law",
        "γ5" => "γ5 is not determined: add points from late in training, where the loss levels off",
        _ => "not determined by these traces: another coefficient can stand in for it; add traces of clusters with different sizes and batches",
    }
}

/// Which coefficients are free: γ4 only with R, γ2 only with two batches.
#[derive(Clone, Copy, Debug)]
struct Shape {
    form: LossForm,
    free_gamma2: bool,
}

impl Shape {
    fn free(&self) -> [bool; 5] {
        [
            true,
            self.free_gamma2,
            true,
            self.form == LossForm::WithR,
            true,
        ]
    }

    fn names(&self) -> Vec<&'static str> {
        ["γ1", "γ2", "γ3", "γ4", "γ5"]
            .into_iter()
            .zip(self.free())
            .filter_map(|(n, f)| f.then_some(n))
            .collect()
    }

    fn pack(&self, g: &[f64; 5]) -> Vec<f64> {
        g.iter()
            .zip(self.free())
            .filter_map(|(v, f)| f.then_some(*v))
            .collect()
    }

    /// All five, the fixed ones at 0.
    fn unpack(&self, p: &[f64]) -> [f64; 5] {
        let mut g = [0.0; 5];
        let mut it = p.iter();
        for (slot, f) in g.iter_mut().zip(self.free()) {
            if f {
                *slot = it.next().copied().unwrap_or(0.0);
            }
        }
        g
    }
}

/// `√((R + γ4)·|N|)` (or `√|N|`), `None` where the root is of a negative.
fn spread(form: LossForm, t: &Trace, g4: f64) -> Option<f64> {
    let v = match form {
        LossForm::WithR => (t.convergence + g4) * t.workers,
        LossForm::RFree => t.workers,
    };
    (v > 0.0).then(|| v.sqrt())
}

/// For fixed `γ1, γ4`: the least-squares `γ2, γ3, γ5` (linear) and the
/// sum of squared residuals.
fn project(traces: &[Trace], shape: Shape, g1: f64, g4: f64) -> Option<([f64; 5], f64)> {
    let k = if shape.free_gamma2 { 3 } else { 2 };
    let mut ata = vec![0.0; k * k];
    let mut aty = vec![0.0; k];
    let mut row = [0.0; 3];
    for t in traces {
        let s = spread(shape.form, t, g4)?;
        for &(j, y) in &t.points {
            let d = j + g1;
            if d <= 0.0 {
                return None;
            }
            let u = s / d;
            if shape.free_gamma2 {
                row = [t.wa_batch * u, u, 1.0];
            } else {
                row[0] = u;
                row[1] = 1.0;
            }
            for a in 0..k {
                aty[a] += row[a] * y;
                for b in 0..k {
                    ata[a * k + b] += row[a] * row[b];
                }
            }
        }
    }
    // Scale to a unit diagonal so the pivots compare fairly.
    let d: Vec<f64> = (0..k).map(|i| ata[i * k + i].sqrt().max(1e-300)).collect();
    let scaled: Vec<f64> = (0..k * k).map(|i| ata[i] / (d[i / k] * d[i % k])).collect();
    let rhs: Vec<f64> = (0..k).map(|i| aty[i] / d[i]).collect();
    let x: Vec<f64> = stats::solve(scaled, rhs)?
        .iter()
        .zip(&d)
        .map(|(x, d)| x / d)
        .collect();
    let g = if shape.free_gamma2 {
        [g1, x[0], x[1], g4, x[2]]
    } else {
        [g1, 0.0, x[0], g4, x[1]]
    };
    let law = LossLaw::from_gammas(g, shape.form);
    let ssr: f64 = traces
        .iter()
        .flat_map(|t| {
            t.points.iter().map(move |&(j, y)| {
                (law.loss_at(j, t.wa_batch, t.convergence, t.workers) - y).powi(2)
            })
        })
        .sum();
    ssr.is_finite().then_some((g, ssr))
}

struct LossResiduals<'a> {
    traces: &'a [Trace],
    shape: Shape,
}

impl Residuals for LossResiduals<'_> {
    fn eval(&self, p: &[f64], r: &mut Vec<f64>, jac: &mut Vec<f64>) -> Option<()> {
        let [g1, g2, g3, g4, g5] = self.shape.unpack(p);
        let free = self.shape.free();
        r.clear();
        jac.clear();
        for t in self.traces {
            let s = spread(self.shape.form, t, g4)?;
            let a = g2 * t.wa_batch + g3;
            for &(j, y) in &t.points {
                let d = j + g1;
                if d <= 0.0 {
                    return None;
                }
                r.push(a * s / d + g5 - y);
                let full = [
                    -a * s / (d * d),
                    t.wa_batch * s / d,
                    s / d,
                    a * t.workers / (2.0 * s * d),
                    1.0,
                ];
                jac.extend(full.iter().zip(free).filter_map(|(v, f)| f.then_some(*v)));
            }
        }
        Some(())
    }
}
