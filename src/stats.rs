//! Least squares for the models' coefficient fits: a straight line with
//! its standard errors, and a damped Gauss–Newton (Levenberg–Marquardt)
//! for laws of a few coefficients, with each coefficient's standard error
//! and variance inflation factor (how far the data separate it from the
//! others). Hand-written: the fits have at most five coefficients, and the
//! crates that do this build on a linear-algebra library that would weigh
//! on the page's wasm more than these hundred lines.

/// Mean shifted by the first value: exact when all values are equal, and
/// less cancellation in the centred sums.
pub fn shifted_mean(v: &[f64]) -> f64 {
    let Some(&first) = v.first() else {
        return 0.0;
    };
    first + v.iter().map(|x| x - first).sum::<f64>() / v.len() as f64
}

/// `1 − SS_res/SS_tot` of `predicted` against `measured` (1 when both
/// sums are 0, 0 when only the total is).
pub fn r_squared(measured: &[f64], predicted: &[f64]) -> f64 {
    let mean = shifted_mean(measured);
    let ss_tot: f64 = measured.iter().map(|y| (y - mean).powi(2)).sum();
    let ss_res: f64 = measured
        .iter()
        .zip(predicted)
        .map(|(y, p)| (y - p).powi(2))
        .sum();
    if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else if ss_res == 0.0 {
        1.0
    } else {
        0.0
    }
}

/// `y = slope·x + intercept` by ordinary least squares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub slope: f64,
    pub intercept: f64,
    /// Standard errors (0 with two points or an exact fit) and the
    /// covariance of slope and intercept.
    pub slope_se: f64,
    pub intercept_se: f64,
    pub covariance: f64,
    pub r_squared: f64,
}

/// The least-squares line through `(xs, ys)` (two-pass, centred), or
/// `None` with fewer than two distinct `x`.
pub fn line(xs: &[f64], ys: &[f64]) -> Option<Line> {
    let n = xs.len().min(ys.len());
    let (xs, ys) = (&xs[..n], &ys[..n]);
    let mx = shifted_mean(xs);
    let my = shifted_mean(ys);
    let mut sxx = 0.0;
    let mut sxy = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let dx = x - mx;
        sxx += dx * dx;
        sxy += dx * (y - my);
    }
    if sxx.is_nan() || sxx <= 0.0 || n < 2 {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let predicted: Vec<f64> = xs.iter().map(|x| slope * x + intercept).collect();
    let ss_res: f64 = ys
        .iter()
        .zip(&predicted)
        .map(|(y, p)| (y - p).powi(2))
        .sum();
    // σ² with n − 2 degrees of freedom; two points leave none (no error).
    let var = if n > 2 { ss_res / (n - 2) as f64 } else { 0.0 };
    let slope_var = var / sxx;
    Some(Line {
        slope,
        intercept,
        slope_se: slope_var.sqrt(),
        intercept_se: (var / n as f64 + mx * mx * slope_var).sqrt(),
        covariance: -mx * slope_var,
        r_squared: r_squared(ys, &predicted),
    })
}

/// Solves the `n × n` system `a·x = b` (row-major) by Gaussian elimination
/// with partial pivoting; `None` when a pivot vanishes.
pub fn solve(mut a: Vec<f64>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    if a.len() != n * n {
        return None;
    }
    let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for col in 0..n {
        let pivot =
            (col..n).max_by(|&i, &j| a[i * n + col].abs().total_cmp(&a[j * n + col].abs()))?;
        let p = a[pivot * n + col].abs();
        if p.is_nan() || p <= scale * 1e-14 {
            return None;
        }
        if pivot != col {
            for k in 0..n {
                a.swap(pivot * n + k, col * n + k);
            }
            b.swap(pivot, col);
        }
        for row in col + 1..n {
            let f = a[row * n + col] / a[col * n + col];
            for k in col..n {
                a[row * n + k] -= f * a[col * n + k];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| a[row * n + k] * x[k]).sum();
        x[row] = (b[row] - tail) / a[row * n + row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// The inverse of the `n × n` matrix `a` (row-major), column by column.
pub fn invert(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut inv = vec![0.0; n * n];
    for col in 0..n {
        let mut e = vec![0.0; n];
        e[col] = 1.0;
        let x = solve(a.to_vec(), e)?;
        for row in 0..n {
            inv[row * n + col] = x[row];
        }
    }
    Some(inv)
}

/// A law fitted by [`levenberg_marquardt`].
#[derive(Clone, Debug, PartialEq)]
pub struct NonlinearFit {
    pub params: Vec<f64>,
    /// Sum of squared residuals.
    pub ss_res: f64,
    /// Standard error of each coefficient (0 for an exact fit; infinite
    /// where the data do not determine it).
    pub std_errors: Vec<f64>,
    /// Variance inflation factor of each coefficient: 1 when the data
    /// separate it from the others perfectly, huge when another
    /// coefficient could stand in for it.
    pub inflation: Vec<f64>,
    pub iterations: usize,
}

/// Variance inflation beyond which a coefficient counts as not
/// determined: its column is within 1e-6 of a combination of the others.
pub const UNDETERMINED_INFLATION: f64 = 1e6;

/// Residuals (`m`) and their Jacobian (`m × p`, row-major) at `params`;
/// `None` where the law is undefined (a pole, a negative root).
pub trait Residuals {
    fn eval(&self, params: &[f64], r: &mut Vec<f64>, jac: &mut Vec<f64>) -> Option<()>;
}

/// Minimises the sum of squared residuals from `start` (Marquardt's
/// scaling by the diagonal of JᵀJ, so coefficients of very different size
/// are stepped alike). Steps into an undefined region are refused as if
/// they had raised the cost.
pub fn levenberg_marquardt(f: &impl Residuals, start: &[f64]) -> Option<NonlinearFit> {
    let p = start.len();
    let (mut r, mut jac) = (Vec::new(), Vec::new());
    let mut x = start.to_vec();
    f.eval(&x, &mut r, &mut jac)?;
    let mut cost: f64 = r.iter().map(|v| v * v).sum();
    let mut lambda = 1e-3;
    let mut iterations = 0;
    let (mut r2, mut jac2) = (Vec::new(), Vec::new());
    while iterations < 200 {
        iterations += 1;
        let (jtj, jtr) = normal_equations(&r, &jac, p);
        let mut improved = false;
        while lambda < 1e12 {
            let mut a = jtj.clone();
            for i in 0..p {
                a[i * p + i] += lambda * jtj[i * p + i].max(1e-300);
            }
            let step = solve(a, jtr.iter().map(|v| -v).collect());
            let Some(step) = step else {
                lambda *= 10.0;
                continue;
            };
            let trial: Vec<f64> = x.iter().zip(&step).map(|(a, b)| a + b).collect();
            let ok = f.eval(&trial, &mut r2, &mut jac2).is_some();
            let c: f64 = r2.iter().map(|v| v * v).sum();
            if ok && c.is_finite() && c <= cost {
                let done = cost - c <= 1e-15 * cost.max(1e-300)
                    || step
                        .iter()
                        .zip(&trial)
                        .all(|(s, v)| s.abs() <= 1e-12 * v.abs().max(1e-12));
                x = trial;
                std::mem::swap(&mut r, &mut r2);
                std::mem::swap(&mut jac, &mut jac2);
                cost = c;
                lambda = (lambda / 10.0).max(1e-12);
                improved = !done;
                break;
            }
            lambda *= 10.0;
        }
        if !improved || cost == 0.0 {
            break;
        }
    }
    let (jtj, _) = normal_equations(&r, &jac, p);
    let (std_errors, inflation) = uncertainty(&jtj, p, cost, r.len());
    Some(NonlinearFit {
        params: x,
        ss_res: cost,
        std_errors,
        inflation,
        iterations,
    })
}

/// JᵀJ and Jᵀr.
fn normal_equations(r: &[f64], jac: &[f64], p: usize) -> (Vec<f64>, Vec<f64>) {
    let mut jtj = vec![0.0; p * p];
    let mut jtr = vec![0.0; p];
    for (row, ri) in jac.chunks_exact(p).zip(r) {
        for i in 0..p {
            jtr[i] += row[i] * ri;
            for k in 0..p {
                jtj[i * p + k] += row[i] * row[k];
            }
        }
    }
    (jtj, jtr)
}

/// Standard errors `√(σ²·(JᵀJ)⁻¹_ii)` and variance inflation factors
/// (the diagonal of the inverse of JᵀJ scaled to a unit diagonal).
fn uncertainty(jtj: &[f64], p: usize, ss_res: f64, m: usize) -> (Vec<f64>, Vec<f64>) {
    let d: Vec<f64> = (0..p).map(|i| jtj[i * p + i].sqrt()).collect();
    let mut scaled = vec![0.0; p * p];
    for i in 0..p {
        for k in 0..p {
            scaled[i * p + k] = jtj[i * p + k] / (d[i] * d[k]);
        }
    }
    let var = if m > p { ss_res / (m - p) as f64 } else { 0.0 };
    let inv = if d.iter().all(|v| *v > 0.0 && v.is_finite()) {
        invert(&scaled, p)
    } else {
        None
    };
    match inv {
        Some(inv) => (0..p)
            .map(|i| {
                let vif = inv[i * p + i];
                if !(vif.is_finite() && vif > 0.0) {
                    return (f64::INFINITY, f64::INFINITY);
                }
                ((var * vif).sqrt() / d[i], vif)
            })
            .unzip(),
        None => (vec![f64::INFINITY; p], vec![f64::INFINITY; p]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_recovers_an_exact_line_and_its_errors_vanish() {
        let xs = [1.0, 2.0, 4.0, 8.0];
        let ys: Vec<f64> = xs.iter().map(|x| 3.0 * x - 2.0).collect();
        let l = line(&xs, &ys).unwrap();
        assert!((l.slope - 3.0).abs() < 1e-12 && (l.intercept + 2.0).abs() < 1e-12);
        assert!(l.slope_se < 1e-12 && (l.r_squared - 1.0).abs() < 1e-12);
        assert!(line(&[2.0, 2.0], &[1.0, 3.0]).is_none());
    }

    #[test]
    fn solve_and_invert_a_small_system() {
        let a = vec![4.0, 1.0, 2.0, 3.0];
        let x = solve(a.clone(), vec![1.0, 2.0]).unwrap();
        assert!((4.0 * x[0] + x[1] - 1.0).abs() < 1e-12);
        assert!((2.0 * x[0] + 3.0 * x[1] - 2.0).abs() < 1e-12);
        let inv = invert(&a, 2).unwrap();
        assert!((inv[0] - 0.3).abs() < 1e-12 && (inv[3] - 0.4).abs() < 1e-12);
        assert!(solve(vec![1.0, 2.0, 2.0, 4.0], vec![1.0, 1.0]).is_none());
    }

    /// `y = a·e^(b·x)`.
    struct Exp<'a>(&'a [(f64, f64)]);
    impl Residuals for Exp<'_> {
        fn eval(&self, p: &[f64], r: &mut Vec<f64>, j: &mut Vec<f64>) -> Option<()> {
            r.clear();
            j.clear();
            for &(x, y) in self.0 {
                let e = (p[1] * x).exp();
                r.push(p[0] * e - y);
                j.extend([e, p[0] * x * e]);
            }
            Some(())
        }
    }

    #[test]
    fn levenberg_marquardt_fits_an_exponential() {
        let pts: Vec<(f64, f64)> = (0..10)
            .map(|i| (f64::from(i), 2.5 * (-0.3 * f64::from(i)).exp()))
            .collect();
        let fit = levenberg_marquardt(&Exp(&pts), &[1.0, -0.1]).unwrap();
        assert!((fit.params[0] - 2.5).abs() < 1e-8, "{fit:?}");
        assert!((fit.params[1] + 0.3).abs() < 1e-8, "{fit:?}");
        assert!(fit.inflation.iter().all(|v| *v < UNDETERMINED_INFLATION));
    }
}
