//! Field-level validation. Every message names the field it is about, so
//! the page can show it beside that input; nothing is clamped silently.

use serde::{Deserialize, Serialize};

use super::Scenario;
use crate::hardware::{MAX_BATCH, MAX_WORKERS};
use crate::models::{Model, MODELS};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FieldError {
    /// Dotted path into the scenario, e.g. `hardware.cluster.ps.bandwidth`.
    pub field: String,
    pub message: String,
}

pub(crate) fn err(field: impl Into<String>, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

pub(crate) fn positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

impl Scenario {
    /// The messages that stop `model`: shared fields it reads plus its own
    /// section. One model's bad field must not blank another's results.
    pub fn validate_for(&self, model: &dyn Model) -> Vec<FieldError> {
        let reads = model.reads();
        let mut errs: Vec<FieldError> = self
            .validate_shared()
            .into_iter()
            .filter(|e| reads.iter().any(|p| e.field.starts_with(p)))
            .collect();
        errs.extend(model.validate(self));
        errs
    }

    /// Every message about the scenario: shared fields and every model's
    /// section.
    pub fn validate(&self) -> Vec<FieldError> {
        let mut errs = self.validate_shared();
        for m in MODELS {
            errs.extend(m.validate(self));
        }
        errs
    }

    /// Checks of the shared document (workload, catalog, cluster, goals).
    pub fn validate_shared(&self) -> Vec<FieldError> {
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
            errs.extend(inst.validate().into_iter().map(|m| err(&field, m)));
        }

        let cluster = &self.hardware.cluster;
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
        if let Some(bw) = cluster.ps.link_bytes_per_s {
            if !(positive(bw) && bw <= 1e15) {
                errs.push(err(
                    "hardware.cluster.ps.link",
                    format!(
                        "the PS link must be a positive number of Gb/s up to 8,000,000 (got {})",
                        bw * 8.0 / 1e9
                    ),
                ));
            }
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

        if let Some(p) = &self.workload.profile {
            for (field, v) in [
                ("workload.profile.w_iter", p.w_iter_flop),
                ("workload.profile.g_param", p.g_param_bytes),
                ("workload.profile.c_prof", p.c_prof_flops),
                ("workload.profile.b_prof", p.b_prof_bytes_per_s),
                ("workload.profile.c_base", p.c_base_flops),
            ] {
                if !positive(v) {
                    errs.push(err(field, format!("must be a positive number (got {v})")));
                }
            }
        }
        if let Some(l) = &self.workload.loss {
            if !positive(l.beta0) {
                errs.push(err(
                    "workload.loss.beta0",
                    format!("β0 must be a positive number (got {})", l.beta0),
                ));
            }
            if !l.beta1.is_finite() {
                errs.push(err(
                    "workload.loss.beta1",
                    format!("β1 must be a number (got {})", l.beta1),
                ));
            } else if positive(l.beta0) && l.beta1 >= l.beta0 {
                let msg = format!(
                    "β1 = {} must be below β0 = {} (Eq. 1 assumes β0 > β1)",
                    l.beta1, l.beta0
                );
                errs.push(err("workload.loss.beta1", msg));
            }
        }
        if let Some(name) = &cluster.ps.instance {
            if self.instance(name).is_none() {
                errs.push(err(
                    "hardware.cluster.ps.instance",
                    format!("'{name}' is not in the instance catalog"),
                ));
            }
        }
        if cluster.ps.count == 0 || cluster.ps.count > MAX_WORKERS {
            errs.push(err(
                "hardware.cluster.ps.count",
                format!(
                    "PS nodes must be between 1 and {MAX_WORKERS} (got {})",
                    cluster.ps.count
                ),
            ));
        }
        errs
    }
}
