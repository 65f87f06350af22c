//! Cynthia's four profiled workloads (Table 4, 30-iteration profiling on an
//! m4.xlarge worker) and illustrative loss-model coefficients for them.
//!
//! Table 4's columns, converted to SI: "GFLOPS" is GFLOP per iteration
//! (`w_iter`), `g_param` MB (1e6 bytes) one direction, `c_prof` GFLOP/s,
//! `b_prof` MB/s. The four rows are not mutually consistent
//! (`shared/models.md` §2): presets, not validation targets.

use super::profile::{LossParams, Profile, SyncMode};
use crate::hardware::aws::M4_XLARGE_DOCKER_FLOPS;

const TABLE4_SOURCE: &str = "Cynthia Table 4 (30-iteration profile on an m4.xlarge worker): \
     w_iter in GFLOP per iteration (the column says GFLOPS), g_param in MB one direction, \
     c_prof in GFLOP/s, b_prof in MB/s. c_base = 1.13/0.326 ≈ 3.466 GFLOP/s, the m4.xlarge \
     docker capability derived from Table 2 (PS at 32.6% CPU with one worker) and mnist's c_prof.";

/// Where [`loss_presets`] come from.
pub const LOSS_PRESET_SOURCE: &str = "Illustrative values, not the paper's: Cynthia publishes no \
     β0, β1. Chosen so that the loss starts near ln 10 ≈ 2.3 (ten-class cross-entropy; \
     β0/β1 for BSP and one ASP worker) and reaches the paper's goal losses (0.6-0.8) in about \
     as many iterations as Table 1 runs. Fit your own curve for real planning.";

fn table4(
    name: &str,
    sync: SyncMode,
    w_iter_gflop: f64,
    g_param_mb: f64,
    c_prof_gflops: f64,
    b_prof_mb_per_s: f64,
    note: &str,
) -> Profile {
    Profile {
        name: name.to_string(),
        sync,
        w_iter_flop: w_iter_gflop * 1e9,
        g_param_bytes: g_param_mb * 1e6,
        c_prof_flops: c_prof_gflops * 1e9,
        b_prof_bytes_per_s: b_prof_mb_per_s * 1e6,
        c_base_flops: M4_XLARGE_DOCKER_FLOPS,
        source: format!("{TABLE4_SOURCE} {note}"),
    }
}

/// Table 4's four workloads with the sync mode the paper's figures use for
/// each (Table 1): `(id, profile)`.
pub fn profile_presets() -> Vec<(&'static str, Profile)> {
    vec![
        (
            "resnet32-asp",
            table4(
                "ResNet-32 (cifar10, ASP)",
                SyncMode::Asp,
                39.87,
                2.22,
                0.12,
                0.19,
                "ASP as in Table 1 and Fig. 1, 4, 9, 10 (Fig. 11's caption says BSP).",
            ),
        ),
        (
            "vgg19-asp",
            table4(
                "VGG-19 (cifar10, ASP)",
                SyncMode::Asp,
                58.81,
                135.84,
                0.33,
                13.49,
                "ASP as in Table 1 and Fig. 6, 7, 13.",
            ),
        ),
        (
            "cifar10-dnn-bsp",
            table4(
                "cifar10 DNN (TensorFlow tutorial, BSP)",
                SyncMode::Bsp,
                26.86,
                4.94,
                0.06,
                1.56,
                "BSP as in Table 1 and Fig. 3, 4, 6, 12.",
            ),
        ),
        (
            "mnist-dnn-bsp",
            table4(
                "mnist DNN (TensorFlow tutorial, BSP)",
                SyncMode::Bsp,
                0.04,
                0.33,
                1.13,
                16.69,
                "BSP as in Table 1 and Fig. 1, 2, 9, 10.",
            ),
        ),
    ]
}

/// The profile preset with this id.
pub fn profile_preset(id: &str) -> Option<Profile> {
    profile_presets()
        .into_iter()
        .find(|(i, _)| *i == id)
        .map(|(_, p)| p)
}

/// Illustrative `β0, β1` per workload, same ids as [`profile_presets`];
/// see [`LOSS_PRESET_SOURCE`]. ASP values are for Eq. 1 with the global
/// step count, so the loss at `s = 0` is `β0·√n/β1`.
pub fn loss_presets() -> Vec<(&'static str, LossParams)> {
    vec![
        // Starts at 2.0 (n = 1); 0.6 at ≈2,330 global steps on one worker.
        (
            "resnet32-asp",
            LossParams {
                beta0: 2000.0,
                beta1: 1000.0,
            },
        ),
        // Starts at 2.3 (n = 1); 0.8 at 1,500 global steps on one worker.
        (
            "vgg19-asp",
            LossParams {
                beta0: 1840.0,
                beta1: 800.0,
            },
        ),
        // Starts at 2.3; 0.8 at 6,000 and 0.6 at ≈9,070 iterations.
        (
            "cifar10-dnn-bsp",
            LossParams {
                beta0: 7360.0,
                beta1: 3200.0,
            },
        ),
        // Starts at 2.3; 0.1 at 2,200 iterations.
        (
            "mnist-dnn-bsp",
            LossParams {
                beta0: 230.0,
                beta1: 100.0,
            },
        ),
    ]
}
