//! Stash's calibration factors (`crate::calibration`), stored at
//! `calibration.stash` and applied wherever the prediction computes (the
//! ranking of every configuration, the comm model's links, the one-run
//! achieved fraction, `predict_run`):
//!
//! - `rate:<instance>`: the achieved fraction of that instance type's
//!   compute, 0.05 to 2 [×], on top of the section's achieved fraction
//!   `a`: its GPUs compute at `peak · a · f`.
//! - `interconnect`: the effective fraction of every instance's NVLink or
//!   PCIe bandwidth `B` in Sec. VI-A's `(τ + G/(L·B))·L`, 0.05 to 1.5 [×].
//! - `network`: the same for the network between machines.
//! - `stall_s`: a data-loading stall per iteration [s], 0 to 10, added to
//!   the iteration: the CPU-prep and disk stalls of Sec. IV-B, which the
//!   prediction leaves out.
//!
//! As published: no factors (every ratio 1, the stall 0).

use std::collections::BTreeMap;

use crate::calibration::{FactorKind, FactorSpec, Rates};
use crate::scenario::Scenario;

use super::predict::Candidate;
use super::section::ID;

pub use crate::calibration::RATE_PREFIX;
pub const INTERCONNECT: &str = "interconnect";
pub const NETWORK: &str = "network";
pub const STALL: &str = "stall_s";

/// The factors as the model applies them.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// `(instance, fraction of its compute)`.
    pub rates: Rates,
    pub interconnect: f64,
    pub network: f64,
    pub stall_s: f64,
}

/// The scenario's `calibration.stash`, as published where absent (a
/// value that does not validate is reported by `validate`).
pub fn applied(s: &Scenario) -> Applied {
    s.calibration
        .of(ID)
        .map_or_else(|| from_values(&BTreeMap::new()), from_values)
}

/// Factor values by name as the model applies them (absent or not
/// finite: as published).
pub fn from_values(stored: &BTreeMap<String, f64>) -> Applied {
    let mut a = Applied {
        rates: Rates::default(),
        interconnect: 1.0,
        network: 1.0,
        stall_s: 0.0,
    };
    for (name, &v) in stored {
        if !v.is_finite() {
            continue;
        }
        if a.rates.take(name, v) {
            continue;
        }
        if name == INTERCONNECT {
            a.interconnect = v;
        } else if name == NETWORK {
            a.network = v;
        } else if name == STALL {
            a.stall_s = v;
        }
    }
    a
}

impl Applied {
    /// The fraction of `instance`'s compute (1 when not calibrated).
    pub fn rate(&self, instance: &str) -> f64 {
        self.rates.of(instance)
    }

    /// `c` as calibrated: its GPUs' peak at the rate fraction, its links'
    /// bandwidths at their effective fractions. As published, `c` itself.
    pub fn candidate(&self, mut c: Candidate) -> Candidate {
        let f = self.rate(&c.instance);
        scale(&mut c, f, self.interconnect, self.network);
        c
    }

    /// An NVLink or PCIe bandwidth [B/s] at its effective fraction.
    pub fn intra_bytes_per_s(&self, b: f64) -> f64 {
        if self.interconnect == 1.0 {
            b
        } else {
            b * self.interconnect
        }
    }

    /// A network bandwidth [B/s] at its effective fraction.
    pub fn network_bytes_per_s(&self, b: f64) -> f64 {
        if self.network == 1.0 {
            b
        } else {
            b * self.network
        }
    }
}

/// `c`'s GPU peak at fraction `rate`, its NVLink/PCIe and network
/// bandwidths at `interconnect` and `network` (each left alone at 1).
pub fn scale(c: &mut Candidate, rate: f64, interconnect: f64, network: f64) {
    if rate != 1.0 {
        c.gpu_peak *= rate;
    }
    if let Some(l) = c.intra.as_mut() {
        if interconnect != 1.0 {
            l.bytes_per_s *= interconnect;
        }
    }
    if let Some(l) = c.network.as_mut() {
        if network != 1.0 {
            l.bytes_per_s *= network;
        }
    }
}

/// Factor `key` in `values` as `from_values` reads it: a finite value,
/// else `published`.
pub fn value(values: &BTreeMap<String, f64>, key: &str, published: f64) -> f64 {
    values
        .get(key)
        .copied()
        .filter(|v| v.is_finite())
        .unwrap_or(published)
}

/// Stash's factors for `s`, in the order they are fitted: one rate per
/// catalog instance the runs use (in order of first use) and any instance
/// the scenario already has a factor for, then the stall, the
/// interconnect and the network.
pub fn specs(s: &Scenario) -> Vec<FactorSpec> {
    let mut out = vec![
        FactorSpec {
            name: STALL.into(),
            label: "data-loading stall per iteration, added to it [s]".into(),
            unit: "s",
            min: 0.0,
            max: 10.0,
            published: 0.0,
            scales: "every iteration: t = t_c + (1 − o)·t_comm + stall (Sec. IV-B's CPU-prep and disk stalls, which the prediction leaves out)".into(),
            unseen: "the runs' iteration times do not depend on a stall".into(),
            kind: FactorKind::Offset,
        },
        FactorSpec {
            name: INTERCONNECT.into(),
            label: "effective fraction of the NVLink/PCIe bandwidth [×]".into(),
            unit: "×",
            min: 0.05,
            max: 1.5,
            published: 1.0,
            scales: "B of Sec. VI-A's (τ + G/(L·B))·L on every instance's interconnect (the ring inside a machine), and the comm model's chart".into(),
            unseen: "no run has two GPUs or more in one machine, or their all-reduce is hidden (overlap) or set by the network".into(),
            kind: FactorKind::Ratio,
        },
        FactorSpec {
            name: NETWORK.into(),
            label: "effective fraction of the network bandwidth between machines [×]".into(),
            unit: "×",
            min: 0.05,
            max: 1.5,
            published: 1.0,
            scales: "B of Sec. VI-A's (τ + G/(L·B))·L on the network (the ring across machines), and the comm model's chart".into(),
            unseen: "no run has two machines or more, or their all-reduce is hidden (overlap)".into(),
            kind: FactorKind::Ratio,
        },
    ];
    let fixed = out.len();
    for name in crate::calibration::rated_instances(s, ID, crate::calibration::run_workers(s)) {
        out.push(FactorSpec {
            name: format!("{RATE_PREFIX}{name}"),
            label: format!("achieved fraction of {name}'s GPU compute [×]"),
            unit: "×",
            min: 0.05,
            max: 2.0,
            published: 1.0,
            scales: format!(
                "t_c = (B_g/n)·F_s/(peak·a·f) of every {name} GPU, on top of the section's achieved fraction a"
            ),
            unseen: format!(
                "no run is of {name} machines alone, or the section's one-run calibration of a is on {name} (it absorbs the factor)"
            ),
            kind: FactorKind::Ratio,
        });
    }
    // Each run shows the rates of its own types; the shared factors
    // only some runs (links, the PS side where it binds): rates first.
    out.rotate_left(fixed);
    out
}
