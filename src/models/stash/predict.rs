//! Data-parallel all-reduce training on any configuration: **this
//! product's extension** of Stash's comm model (`shared/models.md` §4),
//! labelled so wherever it is shown.
//!
//! On `n` GPUs over `m` machines with global batch `B_g`:
//! - compute `t_c = (B_g/n) · F_s / (peak_p · a)`, `F_s` training FLOP per
//!   sample, `peak_p` one GPU's dense peak at the chosen precision, `a` the
//!   achieved fraction (typed, or calibrated so one measured iteration is
//!   reproduced exactly);
//! - all-reduce per link level `l` (NVLink/PCIe inside a machine, the
//!   network across machines): `τ_l·L + 2(n_l−1)/n_l · G / B_l`; a flat ring
//!   takes the slowest level with `n_l = n`, a hierarchical ring sums the
//!   levels with `n_l` = GPUs per machine, then machines;
//! - iteration `t = t_c + (1 − o)·t_comm`, overlap `o ∈ [0, 1]`.

use serde::Serialize;

use super::section::Ring;
use super::{ring_time, CommTime};
use crate::report::fmt_sig;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum LinkKind {
    NvLink,
    Pcie,
    Network,
}

impl LinkKind {
    pub fn word(self) -> &'static str {
        match self {
            LinkKind::NvLink => "NVLink",
            LinkKind::Pcie => "PCIe",
            LinkKind::Network => "network",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Link {
    pub kind: LinkKind,
    pub latency_s: f64,
    pub bytes_per_s: f64,
}

/// A configuration: `machines` instances of one type.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    pub instance: String,
    pub machines: u32,
    pub gpus_per_machine: u32,
    /// One GPU's dense peak at the chosen precision [FLOP/s].
    pub gpu_peak: f64,
    /// One instance's price [USD/h].
    pub price_per_hour: Option<f64>,
    /// Between the GPUs of one machine (needed with 2 GPUs or more).
    pub intra: Option<Link>,
    /// Between machines (needed with 2 machines or more).
    pub network: Option<Link>,
}

impl Candidate {
    pub fn gpus(&self) -> u32 {
        self.machines.saturating_mul(self.gpus_per_machine)
    }

    pub fn name(&self) -> String {
        super::stalls::configuration_name(&self.instance, self.machines)
    }
}

/// What the workload costs per sample and per all-reduce.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Workload {
    /// `F_s` [FLOP], forward plus backward.
    pub flop_per_sample: f64,
    /// `L`.
    pub layers: f64,
    /// `G` [B].
    pub gradient_bytes: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Setup {
    pub batch: u32,
    pub batch_per_gpu: bool,
    pub overlap: f64,
    pub ring: Ring,
    pub epoch_samples: f64,
    pub epochs: f64,
}

impl Setup {
    /// (global batch, batch per GPU) on `gpus` GPUs.
    pub fn batches(&self, gpus: u32) -> (f64, f64) {
        let n = f64::from(gpus.max(1));
        let b = f64::from(self.batch);
        if self.batch_per_gpu {
            (b * n, b)
        } else {
            (b, b / n)
        }
    }
}

/// One link level's share of an all-reduce.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Level {
    pub link: Link,
    /// Members of the ring on this level, `n_l`.
    pub members: u32,
    pub time: CommTime,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prediction {
    pub name: String,
    pub instance: String,
    pub machines: u32,
    pub gpus: u32,
    pub global_batch: f64,
    pub per_gpu_batch: f64,
    pub compute_s: f64,
    pub comm_s: f64,
    pub levels: Vec<Level>,
    pub iteration_s: f64,
    pub iterations_per_epoch: f64,
    pub epoch_s: f64,
    pub run_s: f64,
    /// The whole configuration [USD/h].
    pub price_per_hour: Option<f64>,
    pub epoch_usd: Option<f64>,
    pub run_usd: Option<f64>,
    pub usd_per_sample: Option<f64>,
}

/// Why a configuration has no prediction, or no calibration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PredictError {
    #[error("{instance}: no interconnect bandwidth in the catalog (its {gpus} GPUs all-reduce over it)")]
    NoInterconnect { instance: String, gpus: u32 },
    #[error("{instance}: no network bandwidth in the catalog (its machines all-reduce over it)")]
    NoNetwork { instance: String },
    #[error(
        "the measured iteration ({} s) is not longer than the predicted exposed all-reduce alone ({} s) on {configuration}: lower τ, check the links' bandwidth, or raise the overlap",
        fmt_sig(*.measured_s),
        fmt_sig(*.exposed_s)
    )]
    IterationTooShort {
        measured_s: f64,
        exposed_s: f64,
        configuration: String,
    },
    #[error(
        "the measured iteration ({} s) is not longer than the predicted exposed all-reduce ({} s) and the calibrated data-loading stall ({} s) together on {configuration}: lower calibration.stash.stall_s or τ, check the links' bandwidth, or raise the overlap",
        fmt_sig(*.measured_s),
        fmt_sig(*.exposed_s),
        fmt_sig(*.stall_s)
    )]
    IterationTooShortWithStall {
        measured_s: f64,
        exposed_s: f64,
        stall_s: f64,
        configuration: String,
    },
}

/// The all-reduce of one iteration [s] and its levels, or which link the
/// catalog lacks.
pub fn all_reduce(
    c: &Candidate,
    w: &Workload,
    ring: Ring,
) -> Result<(f64, Vec<Level>), PredictError> {
    let n = c.gpus();
    let g = c.gpus_per_machine;
    let mut links = Vec::new();
    if g > 1 {
        let link = c.intra.ok_or_else(|| PredictError::NoInterconnect {
            instance: c.instance.clone(),
            gpus: g,
        })?;
        links.push((link, g));
    }
    if c.machines > 1 {
        let link = c.network.ok_or_else(|| PredictError::NoNetwork {
            instance: c.instance.clone(),
        })?;
        links.push((link, c.machines));
    }
    let levels: Vec<Level> = links
        .into_iter()
        .map(|(link, level_members)| {
            let members = match ring {
                Ring::Flat => n,
                Ring::Hierarchical => level_members,
            };
            Level {
                link,
                members,
                time: ring_time(
                    link.latency_s,
                    w.gradient_bytes,
                    w.layers,
                    link.bytes_per_s,
                    members,
                ),
            }
        })
        .collect();
    let totals = levels.iter().map(|l| l.time.total_s());
    let comm = match ring {
        Ring::Flat => totals.fold(0.0, f64::max),
        Ring::Hierarchical => totals.sum(),
    };
    Ok((comm, levels))
}

/// `t_c` [s] at achieved fraction `a`.
pub fn compute_time(c: &Candidate, w: &Workload, s: &Setup, achieved: f64) -> f64 {
    let (_, per_gpu) = s.batches(c.gpus());
    per_gpu * w.flop_per_sample / (c.gpu_peak * achieved)
}

/// The achieved fraction that makes `c`'s predicted iteration equal a
/// measured one, or why none can.
pub fn calibrate(
    c: &Candidate,
    w: &Workload,
    s: &Setup,
    iteration_s: f64,
) -> Result<f64, PredictError> {
    calibrate_with_stall(c, w, s, iteration_s, 0.0)
}

/// `calibrate` for iterations that also stall `stall_s` [s] on data
/// loading (`factors.rs`): the compute is what is left after both.
pub fn calibrate_with_stall(
    c: &Candidate,
    w: &Workload,
    s: &Setup,
    iteration_s: f64,
    stall_s: f64,
) -> Result<f64, PredictError> {
    let (comm, _) = all_reduce(c, w, s.ring)?;
    let exposed = (1.0 - s.overlap) * comm + stall_s;
    let compute = iteration_s - exposed;
    if compute <= 0.0 && stall_s != 0.0 {
        return Err(PredictError::IterationTooShortWithStall {
            measured_s: iteration_s,
            exposed_s: (1.0 - s.overlap) * comm,
            stall_s,
            configuration: c.name(),
        });
    }
    if compute <= 0.0 {
        return Err(PredictError::IterationTooShort {
            measured_s: iteration_s,
            exposed_s: exposed,
            configuration: c.name(),
        });
    }
    let (_, per_gpu) = s.batches(c.gpus());
    Ok(per_gpu * w.flop_per_sample / (c.gpu_peak * compute))
}

pub fn predict(
    c: &Candidate,
    w: &Workload,
    s: &Setup,
    achieved: f64,
) -> Result<Prediction, PredictError> {
    predict_with_stall(c, w, s, achieved, 0.0)
}

/// `predict` with a data-loading stall of `stall_s` [s] added to every
/// iteration (`factors.rs`; 0: the prediction as published).
pub fn predict_with_stall(
    c: &Candidate,
    w: &Workload,
    s: &Setup,
    achieved: f64,
    stall_s: f64,
) -> Result<Prediction, PredictError> {
    let (comm, levels) = all_reduce(c, w, s.ring)?;
    let (global, per_gpu) = s.batches(c.gpus());
    let compute = compute_time(c, w, s, achieved);
    let iteration = compute + (1.0 - s.overlap) * comm + stall_s;
    let iterations = s.epoch_samples / global;
    let epoch = iteration * iterations;
    let run = epoch * s.epochs;
    let price = c.price_per_hour.map(|p| p * f64::from(c.machines));
    Ok(Prediction {
        name: c.name(),
        instance: c.instance.clone(),
        machines: c.machines,
        gpus: c.gpus(),
        global_batch: global,
        per_gpu_batch: per_gpu,
        compute_s: compute,
        comm_s: comm,
        levels,
        iteration_s: iteration,
        iterations_per_epoch: iterations,
        epoch_s: epoch,
        run_s: run,
        price_per_hour: price,
        epoch_usd: price.map(|p| epoch / 3600.0 * p),
        run_usd: price.map(|p| run / 3600.0 * p),
        usd_per_sample: price.map(|p| iteration / 3600.0 * p / global),
    })
}

/// `predict_with_stall`'s iteration [s] alone, to the bit, without the
/// rest of the prediction (a calibration asks it thousands of times).
pub fn iteration_s(
    c: &Candidate,
    w: &Workload,
    s: &Setup,
    achieved: f64,
    stall_s: f64,
) -> Result<f64, PredictError> {
    let (comm, _) = all_reduce(c, w, s.ring)?;
    let compute = compute_time(c, w, s, achieved);
    Ok(compute + (1.0 - s.overlap) * comm + stall_s)
}

/// Relative difference under which two figures are the same (a tie): with
/// no stalls, cost per epoch does not depend on the GPU count within a
/// family, and the two products differ only in rounding.
pub const TIE: f64 = 1e-9;

/// The indices of the least `key` among admitted rows, every exact tie
/// included, in row order.
pub fn best_by(
    rows: &[Prediction],
    key: impl Fn(&Prediction) -> Option<f64>,
    admit: impl Fn(&Prediction) -> bool,
) -> Vec<usize> {
    let values: Vec<(usize, f64)> = rows
        .iter()
        .enumerate()
        .filter(|(_, p)| admit(p))
        .filter_map(|(i, p)| key(p).filter(|v| v.is_finite()).map(|v| (i, v)))
        .collect();
    let Some(min) = values.iter().map(|&(_, v)| v).reduce(f64::min) else {
        return Vec::new();
    };
    values
        .into_iter()
        .filter(|&(_, v)| v - min <= TIE * min.abs())
        .map(|(i, _)| i)
        .collect()
}

/// Fastest, cheapest (within the goals, when there are any) and best cost
/// per sample, each with every tie.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Ranking {
    pub fastest: Vec<usize>,
    pub cheapest: Vec<usize>,
    pub best_per_sample: Vec<usize>,
    /// Rows meeting the time goal and budget.
    pub meeting_goals: usize,
}

pub fn rank(rows: &[Prediction], time_goal_s: Option<f64>, budget_usd: Option<f64>) -> Ranking {
    let meets = |p: &Prediction| {
        time_goal_s.is_none_or(|t| p.run_s <= t)
            && budget_usd.is_none_or(|b| p.run_usd.is_some_and(|c| c <= b))
    };
    Ranking {
        fastest: best_by(rows, |p| Some(p.run_s), |_| true),
        cheapest: best_by(rows, |p| p.run_usd, meets),
        best_per_sample: best_by(rows, |p| p.usd_per_sample, |_| true),
        meeting_goals: rows.iter().filter(|p| meets(p)).count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v100(machines: u32, gpus: u32) -> Candidate {
        Candidate {
            instance: format!("v{gpus}"),
            machines,
            gpus_per_machine: gpus,
            gpu_peak: 100e12,
            price_per_hour: Some(f64::from(gpus)),
            intra: Some(Link {
                kind: LinkKind::NvLink,
                latency_s: 10e-6,
                bytes_per_s: 100e9,
            }),
            network: Some(Link {
                kind: LinkKind::Network,
                latency_s: 50e-6,
                bytes_per_s: 1.25e9,
            }),
        }
    }

    const W: Workload = Workload {
        flop_per_sample: 12e9,
        layers: 100.0,
        gradient_bytes: 100e6,
    };

    fn setup(ring: Ring) -> Setup {
        Setup {
            batch: 256,
            batch_per_gpu: false,
            overlap: 0.0,
            ring,
            epoch_samples: 1e6,
            epochs: 2.0,
        }
    }

    #[test]
    fn a_hand_worked_two_machine_iteration() {
        // 2 machines × 4 GPUs, B_g 256: 32 samples per GPU.
        // t_c = 32 × 12e9 / (100e12 × 0.5) = 7.68 ms.
        // Flat ring, n = 8: 2·7/8·100 MB = 175 MB per level.
        //   NVLink 100 × 10 µs + 175e6/100e9 = 1 ms + 1.75 ms = 2.75 ms
        //   network 100 × 50 µs + 175e6/1.25e9 = 5 ms + 140 ms = 145 ms
        // The flat ring is bound by the network: t = 7.68 + 145 = 152.68 ms.
        let p = predict(&v100(2, 4), &W, &setup(Ring::Flat), 0.5).unwrap();
        assert!((p.compute_s - 7.68e-3).abs() < 1e-12);
        assert!((p.comm_s - 0.145).abs() < 1e-12);
        assert!((p.iteration_s - 0.15268).abs() < 1e-12);
        assert!((p.iterations_per_epoch - 1e6 / 256.0).abs() < 1e-9);
        // 8 USD/h for the two machines.
        assert_eq!(p.price_per_hour, Some(8.0));
        let run_usd = p.run_s / 3600.0 * 8.0;
        assert!((p.run_usd.unwrap() - run_usd).abs() < 1e-9);
        // Hierarchical: NVLink ring of 4 (150 MB), network ring of 2 (100 MB).
        //   1 ms + 1.5 ms + 5 ms + 80 ms = 87.5 ms.
        let h = predict(&v100(2, 4), &W, &setup(Ring::Hierarchical), 0.5).unwrap();
        assert!((h.comm_s - 0.0875).abs() < 1e-12);
    }

    #[test]
    fn calibrating_from_a_measured_iteration_reproduces_it() {
        let c = v100(1, 8);
        let s = setup(Ring::Flat);
        let a = calibrate(&c, &W, &s, 0.05).unwrap();
        let p = predict(&c, &W, &s, a).unwrap();
        assert!((p.iteration_s - 0.05).abs() < 1e-12, "{}", p.iteration_s);
        assert_eq!(
            calibrate(&c, &W, &s, 1e-4).map_err(|e| e.to_string()),
            Err("the measured iteration (1.000e-4 s) is not longer than the predicted exposed all-reduce alone (0.002750 s) on v8: lower τ, check the links' bandwidth, or raise the overlap".to_string())
        );
    }

    #[test]
    fn a_stall_longer_than_the_measured_iteration_is_named() {
        let c = v100(1, 8);
        let s = setup(Ring::Flat);
        let e = calibrate_with_stall(&c, &W, &s, 0.05, 0.06).map_err(|e| e.to_string());
        assert_eq!(
            e,
            Err("the measured iteration (0.05000 s) is not longer than the predicted exposed all-reduce (0.002750 s) and the calibrated data-loading stall (0.06000 s) together on v8: lower calibration.stash.stall_s or τ, check the links' bandwidth, or raise the overlap".to_string())
        );
    }

    #[test]
    fn the_iteration_alone_is_the_predictions_to_the_bit() {
        for (c, ring, stall) in [
            (v100(2, 4), Ring::Flat, 0.0),
            (v100(2, 4), Ring::Hierarchical, 0.013),
            (v100(1, 1), Ring::Flat, 0.5),
        ] {
            let s = setup(ring);
            let p = predict_with_stall(&c, &W, &s, 0.37, stall).unwrap();
            assert_eq!(iteration_s(&c, &W, &s, 0.37, stall), Ok(p.iteration_s));
        }
    }

    #[test]
    fn one_gpu_has_no_all_reduce_and_a_missing_link_is_named() {
        let (t, levels) = all_reduce(&v100(1, 1), &W, Ring::Flat).unwrap();
        assert_eq!((t, levels.len()), (0.0, 0));
        let mut c = v100(1, 4);
        c.intra = None;
        assert_eq!(
            all_reduce(&c, &W, Ring::Flat),
            Err(PredictError::NoInterconnect {
                instance: "v4".to_string(),
                gpus: 4
            })
        );
    }

    #[test]
    fn exact_ties_rank_together() {
        // No communication (overlap 1) and prices proportional to GPUs:
        // the cost per epoch is the same on 1, 4 and 8 GPUs.
        let s = Setup {
            overlap: 1.0,
            ..setup(Ring::Flat)
        };
        let rows: Vec<Prediction> = [1, 4, 8]
            .iter()
            .map(|&g| predict(&v100(1, g), &W, &s, 0.5).unwrap())
            .collect();
        let r = rank(&rows, None, None);
        assert_eq!(r.cheapest, vec![0, 1, 2]);
        assert_eq!(r.best_per_sample, vec![0, 1, 2]);
        assert_eq!(r.fastest, vec![2]);
        // A time goal only the 8-GPU machine meets.
        let r = rank(&rows, Some(rows[1].run_s * 0.9), None);
        assert_eq!((r.cheapest.clone(), r.meeting_goals), (vec![2], 1));
        assert!(rank(&rows, Some(1e-9), None).cheapest.is_empty());
    }
}
