//! Zeng et al.'s calibration factors (`crate::calibration`), stored at
//! `calibration.zeng` and applied wherever the model computes (report,
//! timeline, sweeps, cost, `predict_run`):
//!
//! - `rate:<instance>`: the achieved fraction of that catalog instance's
//!   Eq. 28/33 rate (FLOP/s), 0.05 to 2 [×]; one per instance the runs use.
//!   A CPU's effective SIMD factor calibrated from one measured iteration
//!   (the catalog panel) is this factor folded into `simd`.
//! - `link`: the effective fraction of every PS link's bandwidth `B`
//!   (Eq. 30/31), 0.05 to 1.5 [×].
//! - `latency_s`: a start-up time per transfer [s], 0 to 5, added to the
//!   PS side's own `latency_s` (the authors mention ≈0.5 s per transfer;
//!   the paper's model leaves it out).
//!
//! As published: no factors (every ratio 1, the latency 0).

use std::collections::BTreeMap;

use crate::calibration::{FactorKind, FactorSpec, Rates};
use crate::hardware::Processor;
use crate::scenario::Scenario;

use super::section::ID;

pub use crate::calibration::RATE_PREFIX;
pub const LINK: &str = "link";
pub const LATENCY: &str = "latency_s";

/// The factors as the model applies them.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// `(instance, fraction of its rate)`.
    pub rates: Rates,
    pub link: f64,
    pub latency_s: f64,
}

/// The scenario's `calibration.zeng`, as published where absent (a
/// factor that does not validate is reported by `validate`).
pub fn applied(s: &Scenario) -> Applied {
    s.calibration
        .of(ID)
        .map_or_else(|| from_values(&BTreeMap::new()), from_values)
}

/// Factor values by name as the model applies them (absent: as
/// published; a value that is not finite is left out).
pub fn from_values(stored: &BTreeMap<String, f64>) -> Applied {
    let mut a = Applied {
        rates: Rates::default(),
        link: 1.0,
        latency_s: 0.0,
    };
    for (name, &v) in stored {
        if !v.is_finite() {
            continue;
        }
        if a.rates.take(name, v) {
            continue;
        }
        if name == LINK {
            a.link = v;
        } else if name == LATENCY {
            a.latency_s = v;
        }
    }
    a
}

impl Applied {
    /// The fraction of `instance`'s rate (1 when not calibrated).
    pub fn rate(&self, instance: &str) -> f64 {
        self.rates.of(instance)
    }

    /// `p` at the achieved fraction of its rate: the clock term scaled,
    /// so `flops()` scales and the rest of the description stays.
    pub fn processor(&self, instance: &str, p: Processor) -> Processor {
        at_rate_fraction(p, self.rate(instance))
    }
}

/// `p` at fraction `f` of its rate: the clock term scaled, so `flops()`
/// scales and the rest of the description stays.
pub fn at_rate_fraction(p: Processor, f: f64) -> Processor {
    if f == 1.0 {
        return p;
    }
    match p {
        Processor::Cpu { hz, simd } => Processor::Cpu { hz: hz * f, simd },
        Processor::Gpu {
            hz,
            stream_processors,
            fma,
        } => Processor::Gpu {
            hz: hz * f,
            stream_processors,
            fma,
        },
    }
}

/// Zeng's factors for `s`, in the order they are fitted: the link, the
/// latency, then one rate per catalog instance the runs use (in order of
/// first use), and any instance the scenario already has a factor for.
pub fn specs(s: &Scenario) -> Vec<FactorSpec> {
    let mut out = vec![
        FactorSpec {
            name: LINK.into(),
            label: "effective fraction of the PS link's bandwidth [×]".into(),
            unit: "×",
            min: 0.05,
            max: 1.5,
            published: 1.0,
            scales: "B of Eq. 30/31 (T_push = G/B, T_pull = P/B) on every PS link, and the bandwidth chart's".into(),
            unseen: "the runs' iteration times do not depend on the link's bandwidth".into(),
            kind: FactorKind::Ratio,
        },
        FactorSpec {
            name: LATENCY.into(),
            label: "start-up time per transfer, added to the PS side's [s]".into(),
            unit: "s",
            min: 0.0,
            max: 5.0,
            published: 0.0,
            scales: "every push and pull: T = bytes / B + latency (the authors mention ≈0.5 s per transfer)".into(),
            unseen: "the runs' iteration times do not depend on the transfers' start-up time".into(),
            kind: FactorKind::Offset,
        },
    ];
    for name in crate::calibration::rated_instances(s, ID, crate::calibration::run_workers(s)) {
        out.push(FactorSpec {
            name: format!("{RATE_PREFIX}{name}"),
            label: format!("achieved fraction of {name}'s rate [×]"),
            unit: "×",
            min: 0.05,
            max: 2.0,
            published: 1.0,
            scales: format!("the rate (FLOP/s) of Eq. 28/33 of every {name} worker"),
            unseen: format!(
                "in every run a {name} worker's gradient is ready before the PS link frees up (the push queue waits on the link or on other workers), so its rate does not show in the iteration time"
            ),
            kind: FactorKind::Ratio,
        });
    }
    out
}
