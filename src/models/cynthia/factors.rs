//! Cynthia's calibration factors (`crate::calibration`), stored at
//! `calibration.cynthia` and applied wherever the model computes (the
//! given cluster, Algorithm 1, the exact search, the cost curves,
//! `predict_run`), by adjusting its inputs once, so the formulas in
//! `mod.rs` stay the paper's:
//!
//! - `rate:<instance>`: the achieved fraction of that instance type's CPU
//!   capability `c` (FLOP/s), 0.05 to 2 [×], wherever it serves: a
//!   worker's `r_j = c_j·u` (Eq. 4), `r_scale` (Eq. 6), and the PS CPU
//!   supply when the type is a PS node (Eq. 7).
//! - `ps_bandwidth`: the effective fraction of the PS nodes' bandwidth
//!   `b_ps`, 0.05 to 1.5 [×]: `t_comm` (Eq. 5) and the bandwidth supply
//!   (Eq. 7).
//! - `c_prof`: the PS CPU demand per unit of worker rate as a multiple of
//!   the profiled `c_prof`, 0.1 to 10 [×] (Eq. 6's `c_demand`).
//!
//! As published: no factors (every one 1).

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::calibration::{FactorKind, FactorSpec, Rates};
use crate::scenario::Scenario;
use crate::workload::profile::Profile;

use super::section::ID;
use super::InstanceType;

pub use crate::calibration::RATE_PREFIX;
pub const PS_BANDWIDTH: &str = "ps_bandwidth";
pub const C_PROF: &str = "c_prof";

/// The factors as the model applies them.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// `(instance, fraction of its capability c)`.
    pub rates: Rates,
    pub ps_bandwidth: f64,
    pub c_prof: f64,
}

/// The scenario's `calibration.cynthia`, as published where absent (a
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
        c_prof: 1.0,
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
        } else if name == C_PROF {
            a.c_prof = v;
        }
    }
    a
}

impl Applied {
    /// The fraction of `instance`'s capability (1 when not calibrated).
    pub fn rate(&self, instance: &str) -> f64 {
        self.rates.of(instance)
    }

    /// `t` as calibrated: its capability at the achieved fraction, its
    /// bandwidth (read only where it is a PS node) at the effective one.
    /// As published, `t` itself.
    pub fn instance(&self, mut t: InstanceType) -> InstanceType {
        let f = self.rate(&t.name);
        scale(&mut t, f, self.ps_bandwidth);
        t
    }

    /// The profile with its PS CPU demand calibrated (borrowed as
    /// published).
    pub fn profile<'a>(&self, p: &'a Profile) -> Cow<'a, Profile> {
        profile_at(p, self.c_prof)
    }
}

/// `t`'s capability at fraction `rate`, its bandwidth at `ps_bandwidth`
/// (each left alone at 1).
pub fn scale(t: &mut InstanceType, rate: f64, ps_bandwidth: f64) {
    if rate != 1.0 {
        t.c_flops *= rate;
    }
    if ps_bandwidth != 1.0 {
        t.b_bytes_per_s *= ps_bandwidth;
    }
}

/// `p` with `c_prof` at `multiple` of the profiled value (borrowed at 1).
pub fn profile_at(p: &Profile, multiple: f64) -> Cow<'_, Profile> {
    if multiple == 1.0 {
        Cow::Borrowed(p)
    } else {
        let mut q = p.clone();
        q.c_prof_flops *= multiple;
        Cow::Owned(q)
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

/// The instance types the runs use (workers and PS nodes, in order of
/// first use), then any the scenario already has a factor for.
fn instances(s: &Scenario) -> Vec<&str> {
    let default_ps = s.hardware.cluster.ps.instance.as_deref();
    let used = s.runs.iter().flat_map(|run| {
        let ps = run.ps.as_ref().map_or(default_ps, |p| p.instance.as_deref());
        run.workers.iter().map(|g| g.instance.as_str()).chain(ps)
    });
    crate::calibration::rated_instances(s, ID, used)
}

/// Cynthia's factors for `s`, in the order they are fitted: one rate per
/// catalog instance the runs use (workers and PS nodes, in order of first
/// use) and any instance the scenario already has a factor for, then the
/// PS bandwidth and the PS CPU demand.
pub fn specs(s: &Scenario) -> Vec<FactorSpec> {
    let mut out = vec![
        FactorSpec {
            name: PS_BANDWIDTH.into(),
            label: "effective fraction of the PS nodes' bandwidth b_ps [×]".into(),
            unit: "×",
            min: 0.05,
            max: 1.5,
            published: 1.0,
            scales: "b_ps of every PS node: t_comm = 2·g·n_wk/Σb_ps (BSP) or 2·g/Σb_ps (ASP) of Eq. 5, and the bandwidth supply of Eq. 7".into(),
            unseen: "in every run the workers' computation outlasts the transfers (BSP) and the PS network does not bind, or the transfers are a negligible part of the step".into(),
            kind: FactorKind::Ratio,
        },
        FactorSpec {
            name: C_PROF.into(),
            label: "PS CPU demand as a multiple of the profiled c_prof [×]".into(),
            unit: "×",
            min: 0.1,
            max: 10.0,
            published: 1.0,
            scales: "c_prof of Eq. 6 (c_demand = c_prof·r_scale): where the PS CPU binds, u = c_supply/c_demand slows every worker".into(),
            unseen: "in no run does the PS CPU bind (its supply exceeds the demand at every size run)".into(),
            kind: FactorKind::Ratio,
        },
    ];
    let fixed = out.len();
    for name in instances(s) {
        out.push(FactorSpec {
            name: format!("{RATE_PREFIX}{name}"),
            label: format!("achieved fraction of {name}'s capability c [×]"),
            unit: "×",
            min: 0.05,
            max: 2.0,
            published: 1.0,
            scales: format!(
                "c of every {name} node: a worker's r_j = c_j·u (Eq. 4), r_scale (Eq. 6), and the PS CPU supply where it is a PS node (Eq. 7)"
            ),
            unseen: format!(
                "in every run a {name} node neither sets the computation (BSP takes the slowest worker, and the transfers may outlast it) nor a PS CPU that binds"
            ),
            kind: FactorKind::Ratio,
        });
    }
    // Each run shows the rates of its own types; the shared factors
    // only some runs (links, the PS side where it binds): rates first.
    out.rotate_left(fixed);
    out
}
