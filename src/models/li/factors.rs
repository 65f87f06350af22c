//! Li et al.'s calibration factors (`crate::calibration`), stored at
//! `calibration.li` and applied wherever the simulation runs (`eval::prepare`:
//! the sweep over W, the timeline, Lin et al.'s phases, `predict_run`):
//!
//! - `compute`: the achieved fraction of the profile's op rates, 0.25 to
//!   2 [×]: every `worker` and `ps` op takes its profiled time ÷
//!   `compute`, and so does the parse overhead `α·bytes + β` (CPU time on
//!   the receiver).
//! - `network`: the effective fraction of each PS link's bandwidth `B`,
//!   0.1 to 1.5 [×]: a transfer takes `bytes / (B · network)`.
//!
//! Only durations enter the simulation, so scaling every one of them by
//! `k` scales every event time by `k` and keeps the events' order: the
//! throughput with both factors is `compute · X(network / compute)`, with
//! `X(ρ)` the throughput at the profile's op times and bandwidth `ρ·B`.
//! A run's prediction is therefore one function of the ratio `ρ`, which
//! the run predictor tabulates once (`Table`) at `ρ = 2^(j/2)` over the
//! ratios the bounds allow and interpolates in `ln ρ`.
//!
//! As published: no factors (both 1).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::calibration::{FactorKind, FactorSpec};
use crate::scenario::Scenario;

use super::profile::{Profile, Resource};
use super::sim::Parse;

pub const COMPUTE: &str = "compute";
pub const NETWORK: &str = "network";

/// `compute`'s bounds [×].
pub const COMPUTE_MIN: f64 = 0.25;
pub const COMPUTE_MAX: f64 = 2.0;
/// `network`'s bounds [×].
pub const NETWORK_MIN: f64 = 0.1;
pub const NETWORK_MAX: f64 = 1.5;

/// The table's ratios `ρ = 2^(j/2)`, `j` from `FIRST` to `LAST`: from
/// 2^−4.5 ≈ 0.044 (under `NETWORK_MIN / COMPUTE_MAX` = 0.05) to 2^3 = 8
/// (over `NETWORK_MAX / COMPUTE_MIN` = 6), `ρ = 1` among them.
const FIRST: i32 = -9;
const LAST: i32 = 6;
/// Simulations a table takes, one per ratio.
pub const POINTS: usize = (LAST - FIRST + 1) as usize;

/// The factors as the simulation applies them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Applied {
    pub compute: f64,
    pub network: f64,
}

/// The scenario's `calibration.li`, as published where absent (a value
/// that does not validate is reported by `validate`).
pub fn applied(s: &Scenario) -> Applied {
    s.calibration
        .of(super::section::ID)
        .map_or_else(|| from_values(&BTreeMap::new()), from_values)
}

/// Factor values by name (absent or not finite: as published).
pub fn from_values(stored: &BTreeMap<String, f64>) -> Applied {
    let get = |name: &str| {
        stored
            .get(name)
            .copied()
            .filter(|v| v.is_finite() && *v > 0.0)
            .unwrap_or(1.0)
    };
    Applied {
        compute: get(COMPUTE),
        network: get(NETWORK),
    }
}

impl Applied {
    /// `profile` with every `worker` and `ps` time ÷ `compute` (the
    /// transfers' bytes stay).
    pub fn profile(&self, mut profile: Profile) -> Profile {
        let timed: Vec<bool> = profile
            .ops
            .iter()
            .map(|op| matches!(op.resource, Resource::Worker | Resource::Ps))
            .collect();
        for row in &mut profile.steps {
            for (v, &t) in row.iter_mut().zip(&timed) {
                if t {
                    *v /= self.compute;
                }
            }
        }
        profile
    }

    /// The parse overhead `α·bytes + β` ÷ `compute`.
    pub fn parse(&self, parse: &mut Parse) {
        parse.alpha /= self.compute;
        parse.beta /= self.compute;
    }
}

/// Li's two factors, in the order they are fitted.
pub fn specs() -> Vec<FactorSpec> {
    vec![
        FactorSpec {
            name: COMPUTE.into(),
            label: "achieved fraction of the profile's op rates [×]".into(),
            unit: "×",
            min: COMPUTE_MIN,
            max: COMPUTE_MAX,
            published: 1.0,
            scales: "every worker and PS op's profiled time (÷) and the parse overhead α·bytes + β (÷)".into(),
            unseen: "in every run the links alone set the throughput (compute never waits on nor delays a transfer), so the op times do not show".into(),
            kind: FactorKind::Ratio,
        },
        FactorSpec {
            name: NETWORK.into(),
            label: "effective fraction of the PS link's bandwidth [×]".into(),
            unit: "×",
            min: NETWORK_MIN,
            max: NETWORK_MAX,
            published: 1.0,
            scales: "B of every PS link direction (a transfer takes bytes / B)".into(),
            unseen: "in every run the transfers overlap compute that lasts longer, so the link's bandwidth does not show".into(),
            kind: FactorKind::Ratio,
        },
    ]
}

/// `ρ = 2^(j/2)`, exact for even `j`.
fn ratio(j: i32) -> f64 {
    let whole = 2f64.powi(j.div_euclid(2));
    if j.rem_euclid(2) == 0 {
        whole
    } else {
        whole * std::f64::consts::SQRT_2
    }
}

/// A run's throughput [samples/s] at the profile's op times over the
/// link ratios `ρ = 2^(j/2)`: `X(ρ)` of the module's header, each ratio
/// simulated when a fit first reaches it (a fit visits a few of them).
pub struct Table {
    /// `X` at each ratio once simulated.
    x: Vec<OnceLock<f64>>,
    /// `X(ρ)`: the simulation with the link at `ρ·B`.
    simulate: Box<dyn Fn(f64) -> f64 + Send + Sync>,
}

impl Table {
    /// The table of `simulate`, `X(ρ)` (`w` workers over the section's
    /// seeds, at the profile's op times and the link at `ρ·B`).
    pub fn new(simulate: impl Fn(f64) -> f64 + Send + Sync + 'static) -> Table {
        Table {
            x: (FIRST..=LAST).map(|_| OnceLock::new()).collect(),
            simulate: Box::new(simulate),
        }
    }

    /// `X` at the `i`-th ratio, simulated once.
    fn x(&self, i: usize) -> Option<f64> {
        let cell = self.x.get(i)?;
        Some(*cell.get_or_init(|| (self.simulate)(ratio(FIRST + i as i32))))
    }

    /// `ln X` at the `i`-th ratio (not finite: no prediction near it).
    fn ln_x(&self, i: usize) -> Option<f64> {
        let v = self.x(i)?;
        Some(if v.is_finite() && v > 0.0 {
            v.ln()
        } else {
            f64::NAN
        })
    }

    /// The ratios tabulated.
    pub fn ratios() -> Vec<f64> {
        (FIRST..=LAST).map(ratio).collect()
    }

    /// `X(ρ)`, linear in `(ln ρ, ln X)` between the two ratios around
    /// `ρ` (past the ends, the end interval's line); at a whole power of
    /// two, its simulation to the bit (elsewhere among the ratios, within
    /// the rounding of `log2`). `None` when not a finite positive number.
    pub fn at(&self, rho: f64) -> Option<f64> {
        if !(rho.is_finite() && rho > 0.0) {
            return None;
        }
        // Position in half-octaves from the first ratio.
        let pos = rho.log2() * 2.0 - f64::from(FIRST);
        let last = self.x.len().checked_sub(2)?;
        let i = (pos.floor().max(0.0) as usize).min(last);
        let t = pos - i as f64;
        let v = if t == 0.0 {
            self.x(i)?
        } else {
            let (a, b) = (self.ln_x(i)?, self.ln_x(i + 1)?);
            (a + t * (b - a)).exp()
        };
        (v.is_finite() && v > 0.0).then_some(v)
    }
}
