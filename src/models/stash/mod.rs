//! Stash (Sharma, Bhasi, Singh, Jain, Gunasekaran, Mitra, Kandemir,
//! Kesidis, Das: "Stash: A comprehensive stall-centric characterization of
//! public cloud VMs for distributed deep learning", ICDCS 2023; seed 001;
//! `shared/models.md` §4).
//!
//! - Sec. IV-B, five measured runs over the same samples per GPU:
//!   (1) synthetic data, one GPU; (2) synthetic, all GPUs of one machine;
//!   (3) real data, cold cache; (4) real data, warm cache; (5) synthetic,
//!   several machines with the same total GPU count as a machine of (2).
//! - Stalls: interconnect `t2 − t1` (% of `t1`), network `t5 − t2_ref`
//!   (% of `t2_ref`, run (2) of one machine with the same GPU count; may be
//!   negative), CPU prep `t4 − t2` (% of `t4`), disk fetch `t3 − t4`
//!   (% of `t3`). See `stalls.rs`.
//! - Sec. VI-A, the layer-wise communication model:
//!   `T = (τ + G/(L·B))·L` for `L` layers (BatchNorm counts), `G` gradient
//!   bytes, link latency `τ` [s] and bandwidth `B` [B/s].
//! - This product's extensions, labelled so wherever shown: a ring
//!   all-reduce moving `2(n−1)/n · G` bytes, and the data-parallel
//!   prediction of `predict.rs` (compute from FLOP per sample, all-reduce
//!   from the comm model, an overlap setting).
//! - Sec. V: the measured configurations ranked by time and cost per epoch,
//!   with stalls (run (3)) and without (run (1)), beside the prediction's
//!   order of the same configurations (`ranking.rs`).
//!
//! Units: seconds, bytes, bytes/s, FLOP, FLOP/s, USD/h.

pub mod eval;
pub mod factors;
mod model;
pub mod predict;
pub mod presets;
pub mod ranking;
mod ranking_report;
pub mod report;
pub mod runs_text;
pub mod section;
pub mod stalls;

pub use eval::{evaluate, StashEvaluation};
pub use model::Stash;

use serde::Serialize;

/// Table II's networks as the comm model sees them: (name, `L`, `G` [B]).
/// `G` is Table II's gradient count × 4 B; `L` counts the layers with
/// gradients of the standard architecture, BatchNorm included (l.336):
/// VGG-11 8 conv + 3 fc; ResNet-18 20 conv + 1 fc + 20 BatchNorm; ResNet-50
/// 53 conv + 1 fc + 53 BatchNorm; MobileNet-v2 52 conv + 1 fc + 52
/// BatchNorm.
pub const TABLE_II: [(&str, f64, f64); 4] = [
    ("VGG-11", 11.0, 132.8e6 * 4.0),
    ("ResNet-18", 41.0, 11.18e6 * 4.0),
    ("ResNet-50", 107.0, 23.59e6 * 4.0),
    ("MobileNet-v2", 105.0, 3.4e6 * 4.0),
];

/// One link's communication time under Sec. VI-A's model, split into its
/// latency part `τ·L` and its bandwidth part `G/B`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CommTime {
    pub latency_s: f64,
    pub bandwidth_s: f64,
}

impl CommTime {
    /// `T = (τ + G/(L·B))·L`.
    pub fn total_s(&self) -> f64 {
        self.latency_s + self.bandwidth_s
    }

    /// Which part is the larger one: the paper's explanation of why deep
    /// networks stall on fast interconnects and large ones on slow networks.
    pub fn dominated_by(&self) -> &'static str {
        if self.latency_s > self.bandwidth_s {
            "latency"
        } else {
            "bandwidth"
        }
    }
}

/// Sec. VI-A: `L` transfers of `G/L` bytes, each paying the latency `τ`.
/// Evaluated in full: the paper's "≪" approximations fail for small `τ`.
pub fn comm_time(latency_s: f64, gradient_bytes: f64, layers: f64, bytes_per_s: f64) -> CommTime {
    CommTime {
        latency_s: latency_s * layers,
        bandwidth_s: gradient_bytes / bytes_per_s,
    }
}

/// The layer count at which both parts are equal, `L* = G/(τ·B)`: deeper
/// networks are latency-bound on this link. `None` when `τ = 0`, or so
/// small that no layer count reaches it (`τ·B` vanishing to a subnormal:
/// found by fuzzing, tests/fuzz/findings/evaluate/stash-comm-not-finite).
pub fn crossover_layers(latency_s: f64, gradient_bytes: f64, bytes_per_s: f64) -> Option<f64> {
    (latency_s > 0.0)
        .then(|| gradient_bytes / (latency_s * bytes_per_s))
        .filter(|l| l.is_finite())
}

/// Extension (not the paper's): bytes each member sends in a ring
/// all-reduce of `G` bytes over `n` members, `2(n−1)/n · G`.
pub fn ring_bytes(members: u32, gradient_bytes: f64) -> f64 {
    if members <= 1 {
        return 0.0;
    }
    let n = f64::from(members);
    2.0 * (n - 1.0) / n * gradient_bytes
}

/// Extension: a ring all-reduce over one link level, Stash's per-layer
/// latency plus the ring's bytes over the link.
pub fn ring_time(
    latency_s: f64,
    gradient_bytes: f64,
    layers: f64,
    bytes_per_s: f64,
    members: u32,
) -> CommTime {
    if members <= 1 {
        return CommTime {
            latency_s: 0.0,
            bandwidth_s: 0.0,
        };
    }
    comm_time(
        latency_s,
        ring_bytes(members, gradient_bytes),
        layers,
        bytes_per_s,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_comm_model_is_latency_times_layers_plus_bytes_over_bandwidth() {
        // 100 layers, 100 MB, 10 µs, 10 GB/s: 1 ms + 10 ms.
        let t = comm_time(10e-6, 100e6, 100.0, 10e9);
        assert!((t.latency_s - 1e-3).abs() < 1e-15);
        assert!((t.bandwidth_s - 1e-2).abs() < 1e-15);
        assert_eq!(t.dominated_by(), "bandwidth");
        let l = crossover_layers(10e-6, 100e6, 10e9).unwrap();
        assert!((l - 1000.0).abs() < 1e-9);
        assert_eq!(crossover_layers(0.0, 100e6, 10e9), None);
        assert_eq!(crossover_layers(1e-320, 100e6, 10e9), None);
    }

    #[test]
    fn a_ring_moves_twice_the_gradients_less_one_share() {
        assert_eq!(ring_bytes(1, 8.0), 0.0);
        assert_eq!(ring_bytes(2, 8.0), 8.0);
        assert_eq!(ring_bytes(4, 8.0), 12.0);
        assert_eq!(ring_time(1e-5, 8.0, 3.0, 1.0, 1).total_s(), 0.0);
    }
}
