//! Zeng et al. in the registry: what it reads, its section's checks, and
//! its report.

use super::eval::evaluate_validated;
use super::report::build;
use crate::models::{Model, Need, Unavailable};
use crate::report::Report;
use crate::scenario::validate::err;
use crate::scenario::{FieldError, Scenario};

pub struct Zeng;

const NEEDS: [Need; 5] = [
    Need {
        field: "workload.network",
        what: "the network: a layer table, a preset or given figures (forward FLOP, weights, transfer size)",
        optional: false,
    },
    Need {
        field: "hardware.cluster.workers",
        what: "worker groups: a catalog device with a clock-level description (CPU: GHz, SIMD; GPU: GHz, stream processors, FMA), count, batch size",
        optional: false,
    },
    Need {
        field: "hardware.cluster.ps.bandwidth",
        what: "the PS link bandwidth [Gb/s] and optional per-transfer latency [s]",
        optional: false,
    },
    Need {
        field: "settings.zeng.flops_per_weight",
        what: "backward FLOP per weight (Table 1 uses 85)",
        optional: true,
    },
    Need {
        field: "settings.zeng.sweep_max_workers",
        what: "largest worker count in the scaling charts",
        optional: true,
    },
];

impl Model for Zeng {
    fn id(&self) -> &'static str {
        "zeng"
    }

    fn name(&self) -> &'static str {
        "Zeng et al."
    }

    fn about(&self) -> &'static str {
        "iteration time of synchronous (BSP) training on a heterogeneous CPU/GPU parameter-server cluster: FLOP-count layer tables and the PS push queue"
    }

    fn paper(&self) -> &'static str {
        "Zeng et al. 2023, Modeling the Training Iteration Time for Heterogeneous Distributed Deep Learning Systems (Eq. 4, 27-33, Algorithms 1-2)"
    }

    fn needs(&self) -> &'static [Need] {
        &NEEDS
    }

    fn reads(&self) -> &'static [&'static str] {
        &[
            "workload.network",
            "hardware.catalog",
            "hardware.cluster.workers",
            "hardware.cluster.ps.bandwidth",
            "hardware.cluster.ps.latency",
        ]
    }

    fn validate(&self, s: &Scenario) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let z = &s.settings.zeng;
        if !(z.flops_per_weight.is_finite() && z.flops_per_weight >= 0.0) {
            errs.push(err(
                "settings.zeng.flops_per_weight",
                format!(
                    "backward FLOP per weight must be ≥ 0 (got {})",
                    z.flops_per_weight
                ),
            ));
        }
        if z.sweep_max_workers == 0 || z.sweep_max_workers > 256 {
            errs.push(err(
                "settings.zeng.sweep_max_workers",
                format!(
                    "chart range must be 1-256 workers (got {})",
                    z.sweep_max_workers
                ),
            ));
        }
        errs
    }

    fn report(&self, s: &Scenario) -> Result<Report, Unavailable> {
        if s.hardware.cluster.workers.is_empty() {
            return Err(Unavailable::missing(
                "hardware.cluster.workers",
                "the cluster has no workers: add a worker group",
            ));
        }
        let e = evaluate_validated(s).map_err(|errors| Unavailable::Invalid { errors })?;
        Ok(build(s, &e))
    }
}
