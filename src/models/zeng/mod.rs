//! Zeng et al. 2023, "Modeling the Training Iteration Time for Heterogeneous
//! Distributed Deep Learning Systems" (seed 003; `shared/models.md` §1).
//!
//! - Eq. 27: FLOP per iteration `bs · forward + backward` (backward is not
//!   multiplied by the batch size in this model).
//! - Eq. 28 / Eq. 33: stand-alone time `FLOP / (hz · simd)` or
//!   `FLOP / (hz · sp · fc)`.
//! - Eq. 29-31: homogeneous BSP `T = T_comp + n·T_push + n·T_pull`,
//!   `T_push = G / B`, `T_pull = P / B`.
//! - Algorithms 1 and 2: the heterogeneous push queue on the PS link.
//!   A GPU worker starts pushing after forward plus the first backward
//!   segment, `(forward · bs + backward / pushes) / (hz · sp · fc)`.
//! - Eq. 32: `n·T_pull + t_min + n·T_push`, valid when the link never idles.
//!
//! Units: seconds, FLOP, FLOP/s, bytes, bytes/s (the paper's bit/s is
//! converted at the edge; one value is 32 bits).
//!
//! ```text
//!  worker 1  |==compute==|push|
//!  worker 2  |====compute====|wait|push|
//!  worker 3  |=======compute=======|   |push|        (link idle before it)
//!  PS link                              ...|pull|pull|pull|
//! ```

pub mod eval;
pub mod factors;
mod model;
pub mod paper_check;
pub mod report;
pub mod section;

pub use eval::{evaluate_zeng, ZengEvaluation};
pub use model::Zeng;

use serde::Serialize;

use crate::hardware::Processor;

/// Bytes per transferred value (32-bit floats).
pub const BYTES_PER_VALUE: f64 = 4.0;
/// Table 1's backward FLOP per weight (Eq. 22-26 with `i = 19`; see models.md).
pub const DEFAULT_FLOPS_PER_WEIGHT: f64 = 85.0;

/// One worker as the queue sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkerInput {
    /// Display name, e.g. "Quadro RTX 4000 #2".
    pub name: String,
    pub processor: Processor,
    pub batch_size: u32,
}

/// The network figures the model needs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NetworkFigures {
    /// FLOP per sample, forward (Eq. 21 plus any extra activation FLOP).
    pub forward_flop: f64,
    /// FLOP per iteration, backward (Eq. 22).
    pub backward_flop: f64,
    /// Gradient pushes per iteration; `None` means one push at the end of
    /// the backward pass (GPU workers then compute the whole backward first).
    pub pushes: Option<u32>,
    /// Bytes per push (`G`, Eq. 31).
    pub transfer_bytes: f64,
    /// Bytes per pull (`P`, Eq. 30).
    pub pull_bytes: f64,
}

/// The PS link.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Link {
    pub bandwidth_bytes_per_s: f64,
    /// Start-up time per transfer (an extension; 0 in the paper's model).
    pub latency_s: f64,
}

impl Link {
    /// Eq. 30/31: `T = bytes / B` (+ latency).
    pub fn transfer_s(&self, bytes: f64) -> f64 {
        bytes / self.bandwidth_bytes_per_s + self.latency_s
    }
}

/// Eq. 27: FLOP of one iteration with batch `bs`.
pub fn iteration_flop(net: &NetworkFigures, batch_size: u32) -> f64 {
    f64::from(batch_size) * net.forward_flop + net.backward_flop
}

/// Eq. 28 / Eq. 33: a whole iteration on one device, alone.
pub fn standalone_s(net: &NetworkFigures, processor: &Processor, batch_size: u32) -> f64 {
    iteration_flop(net, batch_size) / processor.flops()
}

/// What the queue takes as a worker's compute time: the whole iteration on
/// a CPU (Algorithm 1), forward plus the first backward segment on a GPU
/// (Algorithm 2).
pub fn queue_compute_s(net: &NetworkFigures, processor: &Processor, batch_size: u32) -> f64 {
    match processor {
        Processor::Cpu { .. } => standalone_s(net, processor, batch_size),
        Processor::Gpu { .. } => {
            let pushes = f64::from(net.pushes.unwrap_or(1).max(1));
            (f64::from(batch_size) * net.forward_flop + net.backward_flop / pushes)
                / processor.flops()
        }
    }
}

/// One bar of the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentKind {
    Compute,
    /// The gradient is ready but waits in the PS push queue.
    Wait,
    Push,
    Pull,
}

impl SegmentKind {
    pub fn label(self) -> &'static str {
        match self {
            SegmentKind::Compute => "compute",
            SegmentKind::Wait => "wait in push queue",
            SegmentKind::Push => "push",
            SegmentKind::Pull => "pull",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Segment {
    /// Index into `QueueResult::workers`.
    pub worker: usize,
    pub kind: SegmentKind,
    pub start_s: f64,
    pub end_s: f64,
}

/// A worker's place in the queue.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueuedWorker {
    pub name: String,
    pub kind: &'static str,
    pub batch_size: u32,
    /// Eq. 28/33, the whole iteration alone.
    pub standalone_s: f64,
    /// What the queue uses (see `queue_compute_s`).
    pub compute_s: f64,
    pub push_start_s: f64,
    pub push_end_s: f64,
    /// Time its gradient waited for the link.
    pub wait_s: f64,
}

/// Algorithm 1/2 with its timeline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueueResult {
    /// Workers in push order (ascending compute time).
    pub workers: Vec<QueuedWorker>,
    pub segments: Vec<Segment>,
    pub t_push_s: f64,
    pub t_pull_s: f64,
    /// One-round iteration time `T`.
    pub iteration_s: f64,
    /// Time the link sat idle between pushes waiting for a slow worker.
    pub link_idle_s: f64,
}

/// Algorithms 1 and 2 (models.md's corrected listing: the final pull is
/// added once, after the loop). Ties in compute time keep input order.
pub fn push_queue(
    compute_s: &[f64],
    t_push: f64,
    t_pull: f64,
) -> (Vec<usize>, Vec<(f64, f64)>, f64) {
    let order = crate::order::positions(compute_s.len(), &|a, b| {
        compute_s[a].total_cmp(&compute_s[b])
    });
    let mut pushes = Vec::with_capacity(order.len());
    let mut t = f64::NEG_INFINITY;
    for &i in &order {
        // `T >= t_i`: queue behind the previous push; else the link waits.
        let start = if t >= compute_s[i] { t } else { compute_s[i] };
        t = start + t_push;
        pushes.push((start, t));
    }
    let n = order.len() as f64;
    let end = if order.is_empty() {
        0.0
    } else {
        t + n * t_pull
    };
    (order, pushes, end)
}

/// Runs the queue for a set of workers and lays out its timeline.
pub fn simulate(net: &NetworkFigures, workers: &[WorkerInput], link: &Link) -> QueueResult {
    let t_push = link.transfer_s(net.transfer_bytes);
    let t_pull = link.transfer_s(net.pull_bytes);
    let compute: Vec<f64> = workers
        .iter()
        .map(|w| queue_compute_s(net, &w.processor, w.batch_size))
        .collect();
    let (order, pushes, iteration_s) = push_queue(&compute, t_push, t_pull);

    let mut queued = Vec::with_capacity(order.len());
    let mut segments = Vec::with_capacity(order.len() * 4);
    let mut link_idle_s = 0.0;
    let mut prev_end: Option<f64> = None;
    for (pos, (&i, &(start, end))) in order.iter().zip(&pushes).enumerate() {
        let w = &workers[i];
        let c = compute[i];
        if let Some(p) = prev_end {
            link_idle_s += (start - p).max(0.0);
        }
        prev_end = Some(end);
        segments.push(Segment {
            worker: pos,
            kind: SegmentKind::Compute,
            start_s: 0.0,
            end_s: c,
        });
        if start > c {
            segments.push(Segment {
                worker: pos,
                kind: SegmentKind::Wait,
                start_s: c,
                end_s: start,
            });
        }
        segments.push(Segment {
            worker: pos,
            kind: SegmentKind::Push,
            start_s: start,
            end_s: end,
        });
        queued.push(QueuedWorker {
            name: w.name.clone(),
            kind: w.processor.kind_label(),
            batch_size: w.batch_size,
            standalone_s: standalone_s(net, &w.processor, w.batch_size),
            compute_s: c,
            push_start_s: start,
            push_end_s: end,
            wait_s: start - c,
        });
    }
    // The pulls follow the last push one after another, in push order.
    let mut t = prev_end.unwrap_or(0.0);
    for pos in 0..queued.len() {
        segments.push(Segment {
            worker: pos,
            kind: SegmentKind::Pull,
            start_s: t,
            end_s: t + t_pull,
        });
        t += t_pull;
    }
    QueueResult {
        workers: queued,
        segments,
        t_push_s: t_push,
        t_pull_s: t_pull,
        iteration_s,
        link_idle_s,
    }
}

/// Which regime applies and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Regime {
    /// Eq. 32's value, `n·T_pull + t_min + n·T_push`.
    pub eq32_s: f64,
    /// True when every sorted worker is ready by `t1 + (i−1)·T_push`, so the
    /// link never idles and Eq. 32 equals the queue.
    pub communication_bound: bool,
    /// Eq. 29, when every worker is the same device with the same batch.
    pub eq29_s: Option<f64>,
    /// Why the regime applies, without the regime's name (the report
    /// puts "communication-bound" or "compute-bound" before it).
    pub explanation: String,
}

pub fn regime(q: &QueueResult, workers: &[WorkerInput]) -> Regime {
    let n = q.workers.len();
    let nf = n as f64;
    let t_min = q.workers.first().map_or(0.0, |w| w.compute_s);
    let eq32_s = nf * q.t_pull_s + t_min + nf * q.t_push_s;
    let communication_bound = q
        .workers
        .iter()
        .enumerate()
        .all(|(i, w)| w.compute_s <= t_min + i as f64 * q.t_push_s);
    let homogeneous = workers
        .windows(2)
        .all(|p| p[0].processor == p[1].processor && p[0].batch_size == p[1].batch_size);
    let eq29_s = (homogeneous && n > 0).then_some(t_min + nf * q.t_push_s + nf * q.t_pull_s);
    let comm_share = if q.iteration_s > 0.0 {
        (2.0 * nf * q.t_push_s) / q.iteration_s
    } else {
        0.0
    };
    let explanation = if n == 0 {
        "no workers".to_string()
    } else if communication_bound {
        format!(
            "every worker's gradient is ready before the PS link frees up, \
             so the iteration is the fastest worker's compute plus {n} pushes and {n} pulls (Eq. 32); \
             transfers are {:.0}% of the iteration. More bandwidth helps; faster devices (except the fastest) do not.",
            comm_share * 100.0
        )
    } else {
        format!(
            "the PS link sits idle for {:.3} s waiting for slower workers, so Eq. 32 \
             underestimates (it gives {:.3} s); the push queue (Algorithm {}) is used. Faster slow workers help.",
            q.link_idle_s,
            eq32_s,
            if workers.iter().any(|w| w.processor.is_gpu()) { 2 } else { 1 }
        )
    };
    Regime {
        eq32_s,
        communication_bound,
        eq29_s,
        explanation,
    }
}

/// Training throughput and speedup of a BSP iteration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Throughput {
    /// Samples per second across the cluster: `Σ bs_i / T`.
    pub samples_per_s: f64,
    /// Against the fastest single worker alone (Eq. 28/33 with its batch).
    pub speedup: f64,
}

pub fn throughput(q: &QueueResult) -> Throughput {
    let samples: f64 = q.workers.iter().map(|w| f64::from(w.batch_size)).sum();
    let samples_per_s = if q.iteration_s > 0.0 {
        samples / q.iteration_s
    } else {
        0.0
    };
    let best_alone = q
        .workers
        .iter()
        .filter(|w| w.standalone_s > 0.0)
        .map(|w| f64::from(w.batch_size) / w.standalone_s)
        .fold(0.0, f64::max);
    let speedup = if best_alone > 0.0 {
        samples_per_s / best_alone
    } else {
        0.0
    };
    Throughput {
        samples_per_s,
        speedup,
    }
}

/// "Calibrate from one measured iteration": the effective SIMD factor that
/// makes Eq. 28 give `measured_s` for this network and batch on a CPU of
/// clock `hz`. `None` when the measurement cannot be used.
pub fn calibrate_simd(
    net: &NetworkFigures,
    hz: f64,
    batch_size: u32,
    measured_s: f64,
) -> Option<f64> {
    let simd = iteration_flop(net, batch_size) / (hz * measured_s);
    (measured_s.is_finite() && measured_s > 0.0 && hz > 0.0 && simd.is_finite() && simd > 0.0)
        .then_some(simd)
}
