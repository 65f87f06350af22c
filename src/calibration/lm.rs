//! A small bounded Levenberg–Marquardt solver for the calibration fits.
//!
//! Why not a crate: the fits have at most a few dozen parameters and a
//! few thousand residuals, and must give the same bits natively and in
//! wasm32. `argmin` (and `levenberg-marquardt`, built on `nalgebra`)
//! would add several hundred kilobytes of generic code to the page for a
//! dense solve of a k×k system; this is ~200 lines of plain `f64`.
//!
//! Method: Marquardt's scaled damping `(JᵀJ + λ·diag(JᵀJ)) δ = −Jᵀr`, the
//! Jacobian by forward differences (backward at an upper bound), the step
//! projected onto the box, and a parameter at a bound whose gradient
//! points outward held for that step (a projected active set). A step is
//! taken only if it lowers the cost, so the cost never rises; λ grows
//! until a step helps or no step can (a local minimum, possibly at a kink
//! of a piecewise-linear model such as a push queue).

/// What the residuals are evaluated on: `None` when the model cannot
/// predict at `p` (treated as an infinite cost, so never accepted).
pub type Residuals<'a> = dyn FnMut(&[f64]) -> Option<Vec<f64>> + 'a;

/// Most iterations one start may take.
pub const MAX_ITERATIONS: usize = 200;

/// One start's end point.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    pub p: Vec<f64>,
    /// `Σ r² / 2` at `p`.
    pub cost: f64,
    /// Stopped because no step could lower the cost further (rather
    /// than at `MAX_ITERATIONS`).
    pub converged: bool,
    pub iterations: usize,
}

/// `½ Σ r²`, or infinity when the residuals are missing or not finite.
pub fn cost(r: Option<&[f64]>) -> f64 {
    match r {
        Some(r) if r.iter().all(|v| v.is_finite()) => 0.5 * r.iter().map(|v| v * v).sum::<f64>(),
        _ => f64::INFINITY,
    }
}

/// The forward-difference step of parameter `j`: a millionth of its box.
pub fn step(lo: f64, hi: f64) -> f64 {
    1e-6 * (hi - lo).max(1e-9)
}

/// Columns `∂r/∂p_j` at `p` (one `Vec` per parameter), with `r0 = r(p)`;
/// `None` where the model cannot predict.
pub fn jacobian(
    f: &mut Residuals<'_>,
    p: &[f64],
    r0: &[f64],
    lo: &[f64],
    hi: &[f64],
) -> Option<Vec<Vec<f64>>> {
    let mut cols = Vec::with_capacity(p.len());
    for j in 0..p.len() {
        let h = step(lo[j], hi[j]);
        // Backward at the upper bound: the model is not asked outside.
        let h = if p[j] + h > hi[j] { -h } else { h };
        let mut q = p.to_vec();
        q[j] += h;
        let r = f(&q)?;
        if r.len() != r0.len() || r.iter().any(|v| !v.is_finite()) {
            return None;
        }
        cols.push(r.iter().zip(r0).map(|(a, b)| (a - b) / h).collect());
    }
    Some(cols)
}

/// Solves `a x = b` (n×n, row-major) by Gaussian elimination with
/// partial pivoting; `None` when singular.
pub fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for k in 0..n {
        let piv = (k..n).max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs()))?;
        // Singular (or NaN): no step from this system.
        if a[piv][k].abs() <= 1e-300 || a[piv][k].is_nan() {
            return None;
        }
        a.swap(k, piv);
        b.swap(k, piv);
        let (top, rest) = a.split_at_mut(k + 1);
        let pivot = &top[k];
        let bk = b[k];
        for (row, bi) in rest.iter_mut().zip(b[k + 1..].iter_mut()) {
            let m = row[k] / pivot[k];
            if m != 0.0 {
                for (x, p) in row[k..].iter_mut().zip(&pivot[k..]) {
                    *x -= m * p;
                }
                *bi -= m * bk;
            }
        }
    }
    let mut x = vec![0.0; n];
    for k in (0..n).rev() {
        let s: f64 = (k + 1..n).map(|c| a[k][c] * x[c]).sum();
        x[k] = (b[k] - s) / a[k][k];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// Minimises `½ Σ r(p)²` over `lo ≤ p ≤ hi` from `p0` (clamped).
pub fn minimise(f: &mut Residuals<'_>, p0: &[f64], lo: &[f64], hi: &[f64]) -> Solution {
    minimise_unless_known(f, p0, lo, hi, &[]).unwrap_or(Solution {
        p: p0.to_vec(),
        cost: f64::INFINITY,
        converged: false,
        iterations: 0,
    })
}

/// A descent that comes this close to a minimum already found (each
/// coordinate within this fraction of its box) ends there.
pub const JOINED: f64 = 1e-3;

/// `minimise`, or `None` once the descent comes within `JOINED` of one
/// of the `known` minima (a multi-start fit has that minimum already;
/// descending into it again would cost the whole descent).
pub fn minimise_unless_known(
    f: &mut Residuals<'_>,
    p0: &[f64],
    lo: &[f64],
    hi: &[f64],
    known: &[Vec<f64>],
) -> Option<Solution> {
    let m = p0.len();
    let near = |p: &[f64], k: &[f64]| {
        (0..m).all(|j| (p[j] - k[j]).abs() <= JOINED * (hi[j] - lo[j]).max(f64::MIN_POSITIVE))
    };
    let mut p: Vec<f64> = (0..m).map(|j| p0[j].clamp(lo[j], hi[j])).collect();
    let mut r = f(&p);
    let mut c = cost(r.as_deref());
    let mut lambda = 1e-3;
    for it in 0..MAX_ITERATIONS {
        if known.iter().any(|k| near(&p, k)) {
            return None;
        }
        let Some(r0) = r.clone().filter(|_| c.is_finite()) else {
            // Not even the start predicts: nothing to descend from.
            return Some(Solution {
                p,
                cost: c,
                converged: false,
                iterations: it,
            });
        };
        if c <= 1e-30 {
            return Some(Solution {
                p,
                cost: c,
                converged: true,
                iterations: it,
            });
        }
        let Some(cols) = jacobian(f, &p, &r0, lo, hi) else {
            return Some(Solution {
                p,
                cost: c,
                converged: false,
                iterations: it,
            });
        };
        let g: Vec<f64> = cols
            .iter()
            .map(|col| col.iter().zip(&r0).map(|(a, b)| a * b).sum())
            .collect();
        // Held at a bound this step: the descent direction leaves the box.
        let free: Vec<usize> = (0..m)
            .filter(|&j| !((p[j] <= lo[j] && g[j] > 0.0) || (p[j] >= hi[j] && g[j] < 0.0)))
            .collect();
        let gnorm = free.iter().map(|&j| g[j].abs()).fold(0.0, f64::max);
        if free.is_empty() || gnorm <= 1e-15 * (1.0 + c) {
            return Some(Solution {
                p,
                cost: c,
                converged: true,
                iterations: it,
            });
        }
        let a: Vec<Vec<f64>> = free
            .iter()
            .map(|&i| {
                free.iter()
                    .map(|&j| cols[i].iter().zip(&cols[j]).map(|(x, y)| x * y).sum())
                    .collect()
            })
            .collect();
        let dmax = (0..free.len()).map(|i| a[i][i]).fold(0.0, f64::max);
        // Inner loop: raise λ until a step lowers the cost.
        loop {
            let mut damped = a.clone();
            for (i, row) in damped.iter_mut().enumerate() {
                row[i] += lambda * a[i][i].max(1e-12 * dmax).max(1e-300);
            }
            let rhs: Vec<f64> = free.iter().map(|&j| -g[j]).collect();
            let candidate = solve(damped, rhs).map(|d| {
                let mut q = p.clone();
                for (k, &j) in free.iter().enumerate() {
                    q[j] = (q[j] + d[k]).clamp(lo[j], hi[j]);
                }
                q
            });
            if let Some(q) = candidate.filter(|q| *q != p) {
                let rq = f(&q);
                let cq = cost(rq.as_deref());
                if cq < c {
                    let gain = (c - cq) / c;
                    p = q;
                    r = rq;
                    c = cq;
                    lambda = (lambda / 3.0).max(1e-12);
                    if gain < 1e-13 {
                        return Some(Solution {
                            p,
                            cost: c,
                            converged: true,
                            iterations: it + 1,
                        });
                    }
                    break;
                }
            }
            lambda *= 4.0;
            if lambda > 1e12 {
                // No step lowers the cost: a local minimum.
                return Some(Solution {
                    p,
                    cost: c,
                    converged: true,
                    iterations: it + 1,
                });
            }
        }
    }
    Some(Solution {
        p,
        cost: c,
        converged: false,
        iterations: MAX_ITERATIONS,
    })
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn a_linear_fit_and_a_bound() {
        // r = (p0 − 2, p1 − 5): the minimum (2, 5); p1 held at its bound 3.
        let mut f = |p: &[f64]| Some(vec![p[0] - 2.0, p[1] - 5.0]);
        let s = minimise(&mut f, &[0.0, 0.0], &[-10.0, -10.0], &[10.0, 3.0]);
        assert!(s.converged);
        assert!((s.p[0] - 2.0).abs() < 1e-9, "{:?}", s.p);
        assert_eq!(s.p[1], 3.0);
    }

    #[test]
    fn a_descent_into_a_known_minimum_stops() {
        // One minimum at (2, 5): a second start that descends to it ends
        // there; a known point elsewhere does not stop it.
        let mut f = |p: &[f64]| Some(vec![p[0] - 2.0, p[1] - 5.0]);
        let (lo, hi) = ([-10.0, -10.0], [10.0, 10.0]);
        let first = minimise(&mut f, &[0.0, 0.0], &lo, &hi);
        assert!(first.converged);
        let known = vec![first.p.clone()];
        assert_eq!(
            minimise_unless_known(&mut f, &[9.0, -9.0], &lo, &hi, &known),
            None
        );
        let elsewhere = vec![vec![-7.0, -7.0]];
        let s = minimise_unless_known(&mut f, &[9.0, -9.0], &lo, &hi, &elsewhere);
        assert!(s.is_some_and(|s| s.converged && (s.p[0] - 2.0).abs() < 1e-9));
    }

    #[test]
    fn rosenbrock_from_a_far_start() {
        let mut f = |p: &[f64]| Some(vec![10.0 * (p[1] - p[0] * p[0]), 1.0 - p[0]]);
        let s = minimise(&mut f, &[-1.2, 1.0], &[-5.0, -5.0], &[5.0, 5.0]);
        assert!(s.converged, "{s:?}");
        assert!(
            (s.p[0] - 1.0).abs() < 1e-5 && (s.p[1] - 1.0).abs() < 1e-5,
            "{s:?}"
        );
    }
}
