//! spotDNN (Shang, Xu, Bai, Chen, Zhou, Liu, 2023): heterogeneous clusters
//! of spot GPU instances training under ASP with one parameter-server side,
//! and the cheapest cluster that meets a (loss, time) goal within quotas.
//! Equations as restored in `models.md` §3 (the seed lost its Greek):
//!
//! - Eq. 1-2: `T = j · T_exp`, `T_exp = 1 / Σ_i 1/T_i` [s].
//! - Eq. 3: `f = (γ2·b_w + γ3) · √((R + γ4)·|N|) / (j + γ1) + γ5`, `γ2 < 0`;
//!   the authors' code drops `R` (`√|N|` only): `LossForm::RFree`.
//! - Eq. 4: `b_w = v · T_exp`, `v = Σ_i b_i / T_i` [samples/s].
//! - Eq. 5: `R = √((w_1 − 1)² + Σ_{i≥2} w_i²)`, `w_i = v_i / v`, worker 1
//!   the one with the largest share.
//! - Eq. 6-7: `T_i = T_comp,i + 2S/B_wk,i + 2·g_i·S/B_pcie`; `T_comp` from
//!   one worker measured alone: `T_meas − 2S/B_req − 2gS/B_pcie`.
//! - Eq. 8-9: `B_wk = P·B_ps/|N| + (1 − P)·B_req` when `B_req > B_ps/|N|`,
//!   else `B_req`; `P = min(α1·√|N| + β1, 1)`, clamped at 0.
//! - Eq. 10: `b_k = 2^⌊log2(α2·mem_k + β2)⌋` per GPU; a worker's batch is
//!   `g · b_k`.
//! - Eq. 11-14: minimise `T/3600 · Σ n_m p_m` s.t. the loss goal,
//!   `T ≤ T_obj`, `n_m ≤ Lim_m` (`plan.rs`).
//!
//! Units inside: seconds, bytes, bytes/s, samples, USD/h. `S` is the bytes
//! pushed (and pulled) per iteration, `B_req` the bytes/s one worker moves
//! alone (Table IV's "Mbps" is MB/s: models.md).

pub mod eval;
pub mod factors;
pub mod fit;
pub mod fit_report;
pub mod fit_text;
pub mod model;
pub mod plan;
pub mod presets;
pub mod report;
pub mod section;

pub use model::SpotDnn;

use crate::bounds::positive;
use serde::{Deserialize, Serialize};

/// Which loss law Eq. 3 uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossForm {
    /// The paper's Eq. 3, with the convergence coefficient `R`.
    #[default]
    WithR,
    /// The authors' code: `√|N|` without `R` (γ4 unused).
    RFree,
}

/// Eq. 3's coefficients.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LossLaw {
    pub gamma1: f64,
    pub gamma2: f64,
    pub gamma3: f64,
    #[serde(default)]
    pub gamma4: f64,
    pub gamma5: f64,
    #[serde(default)]
    pub form: LossForm,
}

impl LossLaw {
    /// Every γ at 0: a law still to be typed in.
    pub fn zeros(form: LossForm) -> Self {
        Self::from_gammas([0.0; 5], form)
    }

    /// The law with `[γ1, γ2, γ3, γ4, γ5]`.
    pub fn from_gammas(g: [f64; 5], form: LossForm) -> Self {
        LossLaw {
            gamma1: g[0],
            gamma2: g[1],
            gamma3: g[2],
            gamma4: g[3],
            gamma5: g[4],
            form,
        }
    }

    /// `[γ1, γ2, γ3, γ4, γ5]`.
    pub fn gammas(&self) -> [f64; 5] {
        [
            self.gamma1,
            self.gamma2,
            self.gamma3,
            self.gamma4,
            self.gamma5,
        ]
    }

    /// The factor under the root: `(R + γ4)·|N|`, or `|N|` (R-free).
    fn spread(&self, r: f64, n: f64) -> f64 {
        match self.form {
            LossForm::WithR => (r + self.gamma4) * n,
            LossForm::RFree => n,
        }
    }

    /// Normalized iterations to reach `loss` (Eq. 3 solved for `j`), or
    /// `None` where the law has no positive answer (goal at or below γ5,
    /// a numerator `γ2·b_w + γ3` that is not positive).
    pub fn iterations(&self, loss: f64, b_w: f64, r: f64, n: f64) -> Option<f64> {
        let a = self.gamma2 * b_w + self.gamma3;
        let spread = self.spread(r, n);
        if loss <= self.gamma5 || a <= 0.0 || spread < 0.0 {
            return None;
        }
        let j = a * spread.sqrt() / (loss - self.gamma5) - self.gamma1;
        (j.is_finite() && j > 0.0).then_some(j)
    }

    /// The loss after `j` normalized iterations (Eq. 3).
    pub fn loss_at(&self, j: f64, b_w: f64, r: f64, n: f64) -> f64 {
        (self.gamma2 * b_w + self.gamma3) * self.spread(r, n).max(0.0).sqrt() / (j + self.gamma1)
            + self.gamma5
    }
}

/// Workload figures that hold for every cluster (Table IV, Sec. III).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Workload {
    /// `S_param` [B] pushed and pulled per iteration.
    pub param_bytes: f64,
    /// `B_req` [B/s]: one worker's bandwidth need, measured alone.
    pub req_bytes_per_s: f64,
    /// `B_ps` [B/s]: the PS side's total bandwidth.
    pub ps_bytes_per_s: f64,
    /// Eq. 9's `α1`, `β1`.
    pub alpha1: f64,
    pub beta1: f64,
    pub loss: LossLaw,
}

impl Workload {
    /// Eq. 9: probability that the PS link is the bottleneck.
    pub fn contention(&self, n: f64) -> f64 {
        (self.alpha1 * n.sqrt() + self.beta1).clamp(0.0, 1.0)
    }

    /// Eq. 8: each worker's bandwidth to the PS with `n` workers [B/s].
    pub fn worker_bandwidth(&self, n: f64) -> f64 {
        let share = self.ps_bytes_per_s / n;
        if self.req_bytes_per_s > share {
            let p = self.contention(n);
            p * share + (1.0 - p) * self.req_bytes_per_s
        } else {
            self.req_bytes_per_s
        }
    }

    /// Bound of the paper's Eq. 15 (`P < 1`): the most workers before the
    /// PS link is always the bottleneck; `None` when `P` never reaches 1.
    pub fn max_workers(&self) -> Option<u32> {
        contention_cap(self.alpha1, self.beta1)
    }
}

/// `Workload::max_workers` from `α1`, `β1` alone (the work statement
/// reads it before anything is computed).
pub fn contention_cap(alpha1: f64, beta1: f64) -> Option<u32> {
    if alpha1 <= 0.0 {
        return (beta1 >= 1.0).then_some(0);
    }
    let root = (1.0 - beta1) / alpha1;
    if root <= 0.0 {
        return Some(0);
    }
    let n = (root * root).floor();
    // √n·α1 + β1 = 1 exactly at a whole n: P < 1 needs one fewer.
    let n = if (alpha1 * n.sqrt() + beta1) >= 1.0 {
        n - 1.0
    } else {
        n
    };
    Some(n.clamp(0.0, f64::from(u32::MAX)) as u32)
}

/// One instance type as spotDNN reads it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InstanceType {
    pub name: String,
    /// GPUs per instance `g`.
    pub gpus: u32,
    /// Samples per iteration of one worker, `g · b_k` (Eq. 10).
    pub batch: f64,
    /// Per-GPU batch `b_k`.
    pub gpu_batch: f64,
    /// `T_comp` [s]: gradient computation of one iteration.
    pub compute_s: f64,
    /// `2·g·S/B_pcie` [s]: aggregation over PCIe.
    pub pcie_s: f64,
    /// Price under the scenario's pricing and the other one [USD/h].
    pub price: f64,
    pub other_price: Option<f64>,
    /// Most instances of this type at once (None: unlimited).
    pub quota: Option<u32>,
}

impl InstanceType {
    /// Its iteration alone (`B_wk = B_req`) [s]: how Algorithm 1 sorts.
    pub fn alone_s(&self, w: &Workload) -> f64 {
        self.iteration(w, 1.0).total()
    }

    /// Eq. 6-7 with `n` workers in the cluster [s].
    pub fn iteration(&self, w: &Workload, n: f64) -> IterationParts {
        IterationParts {
            compute_s: self.compute_s,
            pcie_s: self.pcie_s,
            network_s: 2.0 * w.param_bytes / w.worker_bandwidth(n),
        }
    }
}

/// A worker's iteration, part by part [s].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct IterationParts {
    pub compute_s: f64,
    pub pcie_s: f64,
    pub network_s: f64,
}

impl IterationParts {
    pub fn total(&self) -> f64 {
        self.compute_s + self.pcie_s + self.network_s
    }
}

/// Eq. 10: the per-GPU batch for a GPU with `mem` bytes, `None` below 1.
pub fn gpu_batch(alpha2_per_byte: f64, beta2: f64, mem: f64) -> Option<f64> {
    let x = alpha2_per_byte * mem + beta2;
    if x < 1.0 || !x.is_finite() {
        return None;
    }
    Some(2f64.powi(x.log2().floor() as i32))
}

/// `T_comp` from a worker measured alone (Eq. 6-7 with `B_wk = B_req`).
pub fn compute_time(measured_s: f64, w: &Workload, pcie_s: f64) -> f64 {
    measured_s - 2.0 * w.param_bytes / w.req_bytes_per_s - pcie_s
}

/// A cluster's figures (Eq. 1-5) for the counts `counts[k]` of `types[k]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClusterFigures {
    pub workers: u32,
    /// Each type's iteration at this cluster size.
    pub iterations: Vec<IterationParts>,
    /// `T_exp` [s].
    pub expected_iteration_s: f64,
    /// `v` [samples/s].
    pub speed: f64,
    /// `b_w` [samples].
    pub wa_batch: f64,
    /// `R`.
    pub convergence: f64,
    /// `B_wk` [B/s] and `P` at this size.
    pub worker_bandwidth: f64,
    pub contention: f64,
    /// Σ prices [USD/h], and at the other pricing when every type has one.
    pub price_per_hour: f64,
    pub other_price_per_hour: Option<f64>,
    /// The sums these come from (runs are computed from them).
    #[serde(skip)]
    pub mix: Mix,
}

/// The sums Eq. 1-5 need, without allocating: the planners evaluate
/// thousands of compositions, and `cluster` builds on the same sums so
/// both give the same bits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mix {
    pub workers: u32,
    /// `Σ 1/T_i` [1/s], `v = Σ b_i/T_i`, `Σ v_i²`, the largest `v_i`.
    rate: f64,
    speed: f64,
    sum_sq: f64,
    fastest: f64,
    /// Σ prices [USD/h], and at the other pricing.
    price: f64,
    other: Option<f64>,
}

impl Mix {
    /// The composition `counts[k]` of `types[k]`; `None` when empty.
    pub fn of(types: &[InstanceType], counts: &[u32], w: &Workload) -> Option<Mix> {
        let workers: u32 = counts.iter().sum();
        if workers == 0 {
            return None;
        }
        let n = f64::from(workers);
        Some(Self::sums(types, counts, workers, |_, t| {
            t.iteration(w, n).total()
        }))
    }

    /// `of` with each type's iteration time `times[k]` at this worker
    /// count given (the searches compute them once per count); the same
    /// bits as `of`.
    pub fn of_times(types: &[InstanceType], counts: &[u32], times: &[f64]) -> Option<Mix> {
        let workers: u32 = counts.iter().sum();
        if workers == 0 {
            return None;
        }
        Some(Self::sums(types, counts, workers, |k, _| {
            times.get(k).copied().unwrap_or(f64::NAN)
        }))
    }

    fn sums(
        types: &[InstanceType],
        counts: &[u32],
        workers: u32,
        time: impl Fn(usize, &InstanceType) -> f64,
    ) -> Mix {
        let mut m = Mix {
            workers,
            rate: 0.0,
            speed: 0.0,
            sum_sq: 0.0,
            fastest: 0.0,
            price: 0.0,
            other: Some(0.0),
        };
        for (k, (t, &c)) in types.iter().zip(counts).enumerate() {
            if c == 0 {
                continue;
            }
            let c = f64::from(c);
            let ti = time(k, t);
            let vi = t.batch / ti;
            m.rate += c / ti;
            m.speed += c * vi;
            m.sum_sq += c * vi * vi;
            m.fastest = m.fastest.max(vi);
            m.price += c * t.price;
            m.other = m.other.and_then(|o| t.other_price.map(|p| o + c * p));
        }
        m
    }

    /// `T_exp` (Eq. 2).
    pub fn expected_iteration_s(&self) -> f64 {
        1.0 / self.rate
    }

    /// `b_w` (Eq. 4).
    pub fn wa_batch(&self) -> f64 {
        self.speed * self.expected_iteration_s()
    }

    /// `R` (Eq. 5).
    pub fn convergence(&self) -> f64 {
        convergence(
            self.fastest / self.speed,
            self.sum_sq / (self.speed * self.speed),
        )
    }

    /// Time and cost from loss `from` (None: the start) to `to`.
    pub fn run(&self, w: &Workload, from: Option<f64>, to: f64) -> Option<RunFigures> {
        let n = f64::from(self.workers);
        let (b_w, r) = (self.wa_batch(), self.convergence());
        let j_to = w.loss.iterations(to, b_w, r, n)?;
        let j_from = match from {
            Some(l) => w.loss.iterations(l, b_w, r, n).unwrap_or(0.0),
            None => 0.0,
        };
        let j = j_to - j_from;
        if !positive(j) {
            return None;
        }
        let time_s = j * self.expected_iteration_s();
        Some(RunFigures {
            iterations: j,
            time_s,
            cost: time_s / 3600.0 * self.price,
            other_cost: self.other.map(|p| time_s / 3600.0 * p),
        })
    }
}

/// Eq. 1-9 for a composition; `None` for an empty one.
pub fn cluster(types: &[InstanceType], counts: &[u32], w: &Workload) -> Option<ClusterFigures> {
    let m = Mix::of(types, counts, w)?;
    let n = f64::from(m.workers);
    Some(ClusterFigures {
        workers: m.workers,
        iterations: types.iter().map(|t| t.iteration(w, n)).collect(),
        expected_iteration_s: m.expected_iteration_s(),
        speed: m.speed,
        wa_batch: m.wa_batch(),
        convergence: m.convergence(),
        worker_bandwidth: w.worker_bandwidth(n),
        contention: w.contention(n),
        price_per_hour: m.price,
        other_price_per_hour: m.other,
        mix: m,
    })
}

/// Eq. 5 from the largest share `w_max` and `Σ w_i²`:
/// `(w_max − 1)² + Σ_{i≥2} w_i² = 1 − 2·w_max + Σ w_i²`.
pub fn convergence(w_max: f64, sum_sq: f64) -> f64 {
    (1.0 - 2.0 * w_max + sum_sq).max(0.0).sqrt()
}

/// Eq. 5 straight from per-worker shares (tests, the R chart).
pub fn convergence_of(shares: &[f64]) -> f64 {
    let w_max = shares.iter().copied().fold(0.0, f64::max);
    convergence(w_max, shares.iter().map(|w| w * w).sum())
}

/// A cluster run to the loss goal: Eq. 1, 3, 11.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RunFigures {
    /// Normalized iterations `j`.
    pub iterations: f64,
    /// `T` [s].
    pub time_s: f64,
    /// `C` [USD] at the scenario's pricing, and at the other one.
    pub cost: f64,
    pub other_cost: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w() -> Workload {
        Workload {
            param_bytes: 11.54e6,
            req_bytes_per_s: 142e6,
            ps_bytes_per_s: 1.2e9,
            alpha1: 0.8,
            beta1: -1.92,
            loss: LossLaw {
                gamma1: 876.5,
                gamma2: -0.2,
                gamma3: 2507.6,
                gamma4: 0.0,
                gamma5: 0.5,
                form: LossForm::RFree,
            },
        }
    }

    #[test]
    fn bandwidth_is_b_req_until_the_ps_share_falls_below_it() {
        let w = w();
        assert_eq!(w.worker_bandwidth(8.0), 142e6);
        // 9 workers: P = 0.8·3 − 1.92 = 0.48, share 133.3 MB/s.
        let b = w.worker_bandwidth(9.0);
        assert!((b - (0.48 * 1.2e9 / 9.0 + 0.52 * 142e6)).abs() < 1e-3);
    }

    #[test]
    fn upper_bound_follows_p_below_one() {
        // ((1 + 1.92)/0.8)² = 13.3: P(13) = 0.964, P(14) = 1.07.
        assert_eq!(w().max_workers(), Some(13));
        let mut x = w();
        x.alpha1 = 0.1;
        x.beta1 = 0.2;
        // (0.8/0.1)² = 64 exactly: P(64) = 1, so 63.
        assert_eq!(x.max_workers(), Some(63));
        x.alpha1 = 0.0;
        assert_eq!(x.max_workers(), None);
    }

    #[test]
    fn batch_is_a_power_of_two_or_none() {
        assert_eq!(gpu_batch(1e-7, -100.0, 16e9), Some(1024.0));
        assert_eq!(gpu_batch(1e-7, -100.0, 8e9), Some(512.0));
        assert_eq!(gpu_batch(1e-7, -100.0, 1e9), None);
    }

    #[test]
    fn equal_workers_convergence() {
        // Table VI: 0.71, 0.82, 0.87 to two decimals.
        for (n, r) in [(2, 0.71), (3, 0.82), (4, 0.87)] {
            let shares = vec![1.0 / n as f64; n];
            assert!((convergence_of(&shares) - r).abs() < 0.005);
        }
        assert_eq!(convergence_of(&[1.0]), 0.0);
    }

    #[test]
    fn loss_law_round_trips() {
        let l = w().loss;
        let j = l.iterations(0.8, 1403.0, 0.0, 8.0).unwrap();
        assert!((l.loss_at(j, 1403.0, 0.0, 8.0) - 0.8).abs() < 1e-12);
        assert_eq!(l.iterations(0.5, 1403.0, 0.0, 8.0), None);
    }
}
