//! Cynthia's loss model (Eq. 1), the iteration count it implies (Eq. 15
//! and 20) and a least-squares fit of `β0, β1` from a measured curve
//! (`shared/models.md` §2).
//!
//! Eq. 1, with `s` the global step count and `n` the run's workers:
//! BSP `loss = β0 / (s + β1)`, ASP `loss = β0·√n / (s + β1)`.
//! Its reciprocal is linear in `s`, so the fit is ordinary least squares
//! of `1/loss` on `s`:
//! BSP `1/loss = s/β0 + β1/β0`; ASP `1/loss = (s + β1)/(β0·√n)`.
//! Fitting `1/loss` (as the paper implies) weights late, low-loss points
//! more than a fit of the loss itself would; R² and the residuals are
//! reported on the loss scale so users judge the fit where they read it.

use crate::workload::profile::{LossCurve, LossParams, SyncMode};

/// Largest iteration count [`iterations_to_loss`] returns: beyond it the
/// goal is out of reach in any sensible training time.
pub const MAX_ITERATIONS: f64 = 1e15;

/// Result of [`fit_loss`].
#[derive(Clone, Debug, PartialEq)]
pub struct LossFit {
    pub params: LossParams,
    /// R² of the loss itself (not of `1/loss`), from the fitted predictions.
    pub r_squared: f64,
    /// `(iteration, measured − predicted loss)` for every point, in input order.
    pub residuals: Vec<(f64, f64)>,
    pub points_used: usize,
}

/// Why a loss curve cannot be fitted. Points are numbered from 1.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    #[error("a loss fit needs at least 3 points (iteration, loss); the curve has {found}")]
    TooFewPoints { found: usize },
    #[error(
        "point {point} (iteration {iteration}): the loss {loss} is not a positive finite number; \
         Cynthia's model fits 1/loss, so every loss must be > 0"
    )]
    BadLoss {
        point: usize,
        iteration: f64,
        loss: f64,
    },
    #[error("point {point}: the iteration {iteration} is not a finite number")]
    NonFiniteIteration { point: usize, iteration: f64 },
    #[error("point {point}: the iteration {iteration} is negative; iterations count from 0")]
    NegativeIteration { point: usize, iteration: f64 },
    #[error(
        "all {count} points are at iteration {iteration}: the fit needs at least two \
         different iterations"
    )]
    SameIteration { count: usize, iteration: f64 },
    #[error(
        "the loss does not decrease with the iteration count (fitted slope of 1/loss = {slope:e} \
         ≤ 0): Cynthia's model β0/(s + β1) needs a falling loss curve"
    )]
    NotDecreasing { slope: f64 },
    #[error(
        "an ASP fit needs the measured run's worker count n (loss = β0·√n/(s + β1)), \
         but workers = 0"
    )]
    NoWorkers,
    #[error(
        "an ASP fit needs the worker count of the run the loss curve was measured on \
         (loss = β0·√n/(s + β1)); the cluster planned is not that run: give its count"
    )]
    WorkersNotGiven,
    #[error(
        "the fitted curve (β0 = {beta0}, β1 = {beta1}) predicts an infinite or negative loss at \
         iteration {iteration}, where s + β1 ≤ 0: the measured loss does not fall like 1/s \
         over this range; drop the first points (e.g. a warm-up phase) and fit again"
    )]
    PoleInRange {
        iteration: f64,
        beta0: f64,
        beta1: f64,
    },
    #[error(
        "the fit gives no finite β0, β1: the iterations or losses span too many orders of \
         magnitude"
    )]
    Degenerate,
}

/// Why a loss goal gives no iteration count: a value out of its domain, or
/// a goal the curve reaches at once or never.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GoalError {
    #[error("the goal loss l_g must be a positive number (got {goal})")]
    BadGoal { goal: f64 },
    #[error("β0 of the loss model must be a positive number (got {beta0})")]
    BadBeta0 { beta0: f64 },
    #[error("β1 of the loss model must be a finite number (got {beta1})")]
    BadBeta1 { beta1: f64 },
    #[error("ASP needs at least one worker to count iterations per worker (n_wk = 0)")]
    NoWorkers,
    #[error("the loss model gives no iteration count for these values")]
    NoCount,
    #[error(
        "the goal loss l_g = {goal} is already reached at s = 0: the curve starts at \
         {}; a goal at or above the initial loss is probably a mistake (check l_g, β0 \
         and β1)",
        start(*.sync, *.initial, *.workers)
    )]
    AlreadyReached {
        goal: f64,
        sync: SyncMode,
        /// The loss at `s = 0`: β0/β1 (BSP) or β0·√n/β1 (ASP).
        initial: f64,
        workers: u32,
    },
    #[error(
        "the goal loss l_g = {goal} is below what the loss curve reaches in any \
         sensible time: it needs about {iterations:.3e} iterations (more than {max:e})",
        max = MAX_ITERATIONS
    )]
    OutOfReach { goal: f64, iterations: f64 },
}

/// The loss at `s = 0`, named by its formula.
fn start(sync: SyncMode, initial: f64, n_workers: u32) -> String {
    match sync {
        SyncMode::Bsp => format!("β0/β1 = {initial}"),
        SyncMode::Asp => format!("β0·√n/β1 = {initial} for n = {n_workers}"),
    }
}

/// Cynthia Eq. 1: the loss after `s` global steps. For ASP, `n_workers` is
/// the run's worker count; for BSP it is ignored.
pub fn loss_at(sync: SyncMode, p: &LossParams, s: f64, n_workers: u32) -> f64 {
    match sync {
        SyncMode::Bsp => p.beta0 / (s + p.beta1),
        SyncMode::Asp => p.beta0 * f64::from(n_workers).sqrt() / (s + p.beta1),
    }
}

/// Iterations to reach `loss_goal` (Eq. 15 and 20): BSP the global count
/// `⌈β0/l_g − β1⌉`; ASP the count *per worker*, `⌈β0/(l_g·√n) − β1/n⌉`,
/// so that wall time is this count × one worker's iteration time.
///
/// A goal at or above the loss at `s = 0` (β0/β1 for BSP, β0·√n/β1 for
/// ASP) is an error rather than `Ok(0)`: it almost always means a mistyped
/// goal or swapped β values. A result within 1e-9 (relative) of a whole
/// number is taken as that number, so that rounding in the division does
/// not push an exactly reachable goal one iteration later.
pub fn iterations_to_loss(
    sync: SyncMode,
    p: &LossParams,
    loss_goal: f64,
    n_workers: u32,
) -> Result<u64, GoalError> {
    if !(loss_goal.is_finite() && loss_goal > 0.0) {
        return Err(GoalError::BadGoal { goal: loss_goal });
    }
    if !(p.beta0.is_finite() && p.beta0 > 0.0) {
        return Err(GoalError::BadBeta0 { beta0: p.beta0 });
    }
    if !p.beta1.is_finite() {
        return Err(GoalError::BadBeta1 { beta1: p.beta1 });
    }
    let raw = match sync {
        SyncMode::Bsp => p.beta0 / loss_goal - p.beta1,
        SyncMode::Asp => {
            if n_workers == 0 {
                return Err(GoalError::NoWorkers);
            }
            let n = f64::from(n_workers);
            p.beta0 / (loss_goal * n.sqrt()) - p.beta1 / n
        }
    };
    if raw.is_nan() {
        return Err(GoalError::NoCount);
    }
    if raw <= 0.0 {
        // raw ≤ 0 needs β1 > 0, so the initial loss below is finite and positive.
        return Err(GoalError::AlreadyReached {
            goal: loss_goal,
            sync,
            initial: loss_at(sync, p, 0.0, n_workers),
            workers: n_workers,
        });
    }
    if raw > MAX_ITERATIONS {
        return Err(GoalError::OutOfReach {
            goal: loss_goal,
            iterations: raw,
        });
    }
    let nearest = raw.round();
    let s = if (raw - nearest).abs() <= 1e-9 * nearest.max(1.0) {
        nearest
    } else {
        raw.ceil()
    };
    // raw ∈ (0, 1e15], so the cast is exact; at least one step is needed.
    Ok((s as u64).max(1))
}

/// Fits `β0, β1` of Eq. 1 to a measured curve by least squares on `1/loss`,
/// with the curve's own worker count: [`fit_loss_with`] of its points.
pub fn fit_loss(curve: &LossCurve) -> Result<LossFit, FitError> {
    fit_loss_with(&curve.points, curve.sync, Some(curve.workers))
}

/// Fits `β0, β1` of Eq. 1 to `points` (global step, loss), measured under
/// `sync`, by least squares on `1/loss`.
///
/// `run_workers` is the worker count of the run the curve was measured on.
/// An ASP fit reads β0 through it (`loss = β0·√n/(s + β1)`, so a wrong `n`
/// scales β0 by `√(n_true/n)`): it must be given, and `None` or 0 is an
/// error, never a guess (the cluster being planned is not the measured
/// run). BSP ignores it. All points are used; the fit does not reorder them.
pub fn fit_loss_with(
    points: &[(f64, f64)],
    sync: SyncMode,
    run_workers: Option<u32>,
) -> Result<LossFit, FitError> {
    let workers = match (sync, run_workers) {
        (SyncMode::Asp, None) => return Err(FitError::WorkersNotGiven),
        (SyncMode::Asp, Some(0)) => return Err(FitError::NoWorkers),
        (SyncMode::Asp, Some(n)) => n,
        (SyncMode::Bsp, n) => n.unwrap_or(1),
    };
    if points.len() < 3 {
        return Err(FitError::TooFewPoints {
            found: points.len(),
        });
    }
    for (i, &(s, loss)) in points.iter().enumerate() {
        let point = i + 1;
        if !s.is_finite() {
            return Err(FitError::NonFiniteIteration {
                point,
                iteration: s,
            });
        }
        if s < 0.0 {
            return Err(FitError::NegativeIteration {
                point,
                iteration: s,
            });
        }
        // A subnormal loss has an infinite reciprocal: reject it too.
        if !(loss.is_finite() && loss > 0.0 && loss.recip().is_finite()) {
            return Err(FitError::BadLoss {
                point,
                iteration: s,
                loss,
            });
        }
    }
    let first_s = points[0].0;
    if points.iter().all(|&(s, _)| s == first_s) {
        return Err(FitError::SameIteration {
            count: points.len(),
            iteration: first_s,
        });
    }

    // Scale both axes to at most 1 so that sums of squares cannot overflow
    // whatever the magnitudes; the scale factors cancel out of β below.
    let x_scale = points.iter().fold(0.0f64, |m, &(s, _)| m.max(s));
    let y_scale = points.iter().fold(0.0f64, |m, &(_, l)| m.max(l.recip()));
    let xs: Vec<f64> = points.iter().map(|&(s, _)| s / x_scale).collect();
    let ys: Vec<f64> = points.iter().map(|&(_, l)| l.recip() / y_scale).collect();
    let Some(crate::stats::Line {
        slope, intercept, ..
    }) = crate::stats::line(&xs, &ys)
    else {
        return Err(FitError::Degenerate);
    };
    if slope.is_nan() || slope <= 0.0 {
        return Err(FitError::NotDecreasing {
            slope: slope * y_scale / x_scale,
        });
    }
    let sqrt_n = match sync {
        SyncMode::Bsp => 1.0,
        SyncMode::Asp => f64::from(workers).sqrt(),
    };
    // BSP: slope = 1/β0, intercept = β1/β0; ASP: both also divided by √n.
    let beta0 = x_scale / (slope * y_scale * sqrt_n);
    let beta1 = intercept / slope * x_scale;
    if !(beta0.is_finite() && beta0 > 0.0 && beta1.is_finite()) {
        return Err(FitError::Degenerate);
    }
    let params = LossParams { beta0, beta1 };

    if let Some(&(s, _)) = points.iter().find(|&&(s, _)| s + beta1 <= 0.0) {
        return Err(FitError::PoleInRange {
            iteration: s,
            beta0,
            beta1,
        });
    }

    let residuals: Vec<(f64, f64)> = points
        .iter()
        .map(|&(s, l)| (s, l - loss_at(sync, &params, s, workers)))
        .collect();
    let losses: Vec<f64> = points.iter().map(|&(_, l)| l).collect();
    let predicted: Vec<f64> = residuals
        .iter()
        .zip(&losses)
        .map(|(&(_, r), l)| l - r)
        .collect();
    let r_squared = crate::stats::r_squared(&losses, &predicted);
    if !r_squared.is_finite() {
        return Err(FitError::Degenerate);
    }
    Ok(LossFit {
        params,
        r_squared,
        residuals,
        points_used: points.len(),
    })
}
