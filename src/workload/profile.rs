//! A profiled training job as Cynthia reads it (Cynthia Sec. 3, Table 4;
//! `shared/models.md` §2): measured once on a baseline worker.
//!
//! Units: FLOP per iteration, bytes per iteration (one direction), FLOP/s,
//! bytes/s.

use serde::{Deserialize, Serialize};

/// How workers synchronise with the parameter servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncMode {
    /// Bulk synchronous: every iteration waits for all workers.
    Bsp,
    /// Asynchronous: each worker pushes and pulls on its own.
    Asp,
}

/// Training-specific parameters from a short profiling run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub name: String,
    pub sync: SyncMode,
    /// `w_iter`: FLOP per iteration (`t_base · c_base`).
    pub w_iter_flop: f64,
    /// `g_param`: parameter bytes per iteration, one direction.
    pub g_param_bytes: f64,
    /// `c_prof`: PS CPU used while profiling, FLOP/s.
    pub c_prof_flops: f64,
    /// `b_prof`: PS network throughput while profiling, bytes/s.
    pub b_prof_bytes_per_s: f64,
    /// `c_base`: capability of the baseline worker, FLOP/s.
    pub c_base_flops: f64,
    /// Where the figures come from.
    #[serde(default)]
    pub source: String,
}

/// Cynthia's loss model (Eq. 1): BSP `β0 / (s + β1)`, ASP `β0·√n / (s + β1)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LossParams {
    pub beta0: f64,
    pub beta1: f64,
}

/// A measured loss curve to fit `β0, β1` from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LossCurve {
    /// (global iteration, loss) pairs.
    pub points: Vec<(f64, f64)>,
    /// Workers of the measured run (needed for an ASP fit).
    #[serde(default = "one")]
    pub workers: u32,
    pub sync: SyncMode,
}

fn one() -> u32 {
    1
}
