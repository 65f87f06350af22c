//! spotDNN's calibration factors (`crate::calibration`), stored at
//! `calibration.spotdnn` and applied wherever the model computes (the
//! given cluster, the plans, the frontier, the takeover, the contention
//! and loss fits, `predict_run`), by adjusting the instance types and the
//! workload once in `eval::prepare`:
//!
//! - `rate:<instance>`: the achieved fraction of that type's compute in
//!   a cluster against its measurement alone, 0.05 to 2 [×]:
//!   `T_comp,i / f` in Eq. 6.
//! - `ps_bandwidth`: the effective fraction of the PS side's bandwidth
//!   `B_ps`, 0.05 to 1.5 [×]: Eq. 8's share `B_ps/|N|`.
//!
//! As published: no factors (every one 1).

use std::collections::BTreeMap;

use crate::calibration::{FactorKind, FactorSpec, Rates};
use crate::scenario::Scenario;

use super::section::ID;
use super::{InstanceType, Workload};

pub use crate::calibration::RATE_PREFIX;
pub const PS_BANDWIDTH: &str = "ps_bandwidth";

/// The factors as the model applies them.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// `(instance, fraction of its compute)`.
    pub rates: Rates,
    pub ps_bandwidth: f64,
}

/// The scenario's `calibration.spotdnn`, as published where absent (a
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
        ps_bandwidth: 1.0,
    };
    for (name, &v) in stored {
        if !v.is_finite() {
            continue;
        }
        if a.rates.take(name, v) {
            continue;
        }
        if name == PS_BANDWIDTH {
            a.ps_bandwidth = v;
        }
    }
    a
}

impl Applied {
    /// The fraction of `instance`'s compute (1 when not calibrated).
    pub fn rate(&self, instance: &str) -> f64 {
        self.rates.of(instance)
    }

    /// `t` with its compute time at the achieved fraction (as
    /// published, `t` itself).
    pub fn instance(&self, mut t: InstanceType) -> InstanceType {
        let f = self.rate(&t.name);
        if f != 1.0 {
            t.compute_s /= f;
        }
        t
    }

    /// `w` with the PS side's bandwidth at its effective fraction.
    pub fn workload(&self, mut w: Workload) -> Workload {
        if self.ps_bandwidth != 1.0 {
            w.ps_bytes_per_s *= self.ps_bandwidth;
        }
        w
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

/// spotDNN's factors for `s`, in the order they are fitted: one rate per
/// catalog instance the runs use (in order of first use) and any instance
/// the scenario already has a factor for, then the PS bandwidth.
pub fn specs(s: &Scenario) -> Vec<FactorSpec> {
    let mut out = vec![FactorSpec {
        name: PS_BANDWIDTH.into(),
        label: "effective fraction of the PS side's bandwidth B_ps [×]".into(),
        unit: "×",
        min: 0.05,
        max: 1.5,
        published: 1.0,
        scales: "B_ps of Eq. 8: a worker's bandwidth B_wk = P·B_ps/|N| + (1 − P)·B_req once the share B_ps/|N| falls below B_req".into(),
        unseen: "in no run does the PS side's share B_ps/|N| fall below B_req (Eq. 8), or P is 0 there: the workers do not contend for it".into(),
        kind: FactorKind::Ratio,
    }];
    let fixed = out.len();
    for name in crate::calibration::rated_instances(s, ID, crate::calibration::run_workers(s)) {
        out.push(FactorSpec {
            name: format!("{RATE_PREFIX}{name}"),
            label: format!("achieved fraction of {name}'s compute, against its measurement alone [×]"),
            unit: "×",
            min: 0.05,
            max: 2.0,
            published: 1.0,
            scales: format!(
                "T_comp of every {name} worker (Eq. 6-7: T_i = T_comp,i/f + 2S/B_wk,i + 2·g_i·S/B_pcie)"
            ),
            unseen: format!("no run has a {name} worker that spotDNN predicts"),
            kind: FactorKind::Ratio,
        });
    }
    // Each run shows the rates of its own types; the shared factors
    // only some runs (links, the PS side where it binds): rates first.
    out.rotate_left(fixed);
    out
}
