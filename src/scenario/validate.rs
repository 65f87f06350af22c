//! Field-level validation. Every message names the field it is about, so
//! the page can show it beside that input; nothing is clamped silently.

use serde::Serialize;

use super::Scenario;
use crate::hardware::{MAX_BATCH, MAX_WORKERS};

#[derive(Clone, Debug, PartialEq, Serialize, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FieldError {
    /// Dotted path into the scenario, e.g. `hardware.cluster.ps.bandwidth`.
    pub field: String,
    pub message: String,
}

fn err(field: impl Into<String>, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

fn positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

impl Scenario {
    pub fn validate(&self) -> Vec<FieldError> {
        let mut errs: Vec<FieldError> = self
            .workload
            .network
            .validate()
            .into_iter()
            .map(|m| err("workload.network", m))
            .collect();

        let mut names = std::collections::HashSet::new();
        for (i, inst) in self.hardware.catalog.iter().enumerate() {
            let field = format!("hardware.catalog[{i}]");
            if inst.name.trim().is_empty() {
                errs.push(err(&field, "every instance needs a name"));
            } else if !names.insert(inst.name.as_str()) {
                errs.push(err(
                    &field,
                    format!("the name '{}' is used twice", inst.name),
                ));
            }
            if let Some(p) = &inst.processor {
                errs.extend(p.validate(&inst.name).into_iter().map(|m| err(&field, m)));
            }
            for (what, v) in [
                ("network bandwidth", inst.network_bytes_per_s),
                ("price per hour", inst.price_per_hour),
                ("spot price per hour", inst.spot_price_per_hour),
            ] {
                if let Some(v) = v {
                    if !(v.is_finite() && v >= 0.0) {
                        errs.push(err(
                            &field,
                            format!("{}: {what} must be ≥ 0 (got {v})", inst.name),
                        ));
                    }
                }
            }
        }

        let cluster = &self.hardware.cluster;
        if cluster.workers.is_empty() {
            errs.push(err(
                "hardware.cluster.workers",
                "the cluster has no workers: add a worker group",
            ));
        }
        let mut total: u64 = 0;
        for (i, g) in cluster.workers.iter().enumerate() {
            let field = format!("hardware.cluster.workers[{i}]");
            if self.instance(&g.instance).is_none() {
                errs.push(err(
                    &field,
                    format!("'{}' is not in the instance catalog", g.instance),
                ));
            }
            if g.count == 0 {
                errs.push(err(format!("{field}.count"), "count must be at least 1"));
            }
            total += u64::from(g.count);
            if g.batch_size == 0 || g.batch_size > MAX_BATCH {
                errs.push(err(
                    format!("{field}.batch_size"),
                    format!(
                        "batch size must be between 1 and {MAX_BATCH} (got {})",
                        g.batch_size
                    ),
                ));
            }
        }
        if total > u64::from(MAX_WORKERS) {
            errs.push(err(
                "hardware.cluster.workers",
                format!("{total} workers is more than the {MAX_WORKERS} this page models"),
            ));
        }
        let bw = cluster.ps.bandwidth_bytes_per_s;
        if !positive(bw) {
            errs.push(err(
                "hardware.cluster.ps.bandwidth",
                format!(
                    "PS link bandwidth must be a positive number of Gb/s (got {})",
                    bw * 8.0 / 1e9
                ),
            ));
        }
        let lat = cluster.ps.latency_s;
        if !(lat.is_finite() && lat >= 0.0) {
            errs.push(err(
                "hardware.cluster.ps.latency",
                format!("latency must be ≥ 0 s (got {lat})"),
            ));
        }

        for (field, v) in [
            ("goals.time", self.goals.time_s),
            ("goals.loss", self.goals.loss),
            ("goals.budget", self.goals.budget_usd),
        ] {
            if let Some(v) = v {
                if !positive(v) {
                    errs.push(err(field, format!("must be a positive number (got {v})")));
                }
            }
        }

        let z = &self.settings.zeng;
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
}
