//! Field-level validation. Every message names the field it is about, so
//! the page can show it beside that input; nothing is clamped silently.

use super::Scenario;
use crate::bounds::{fmt_typed, positive, Bounds};
use crate::errors::{err, FieldError};
use crate::hardware::{
    ParameterServer, WorkerGroup, BATCH, GROUP_COUNT, LATENCY, MAX_CATALOG_ENTRIES, MAX_NAME_CHARS,
    MAX_WORKERS, NETWORK, PS_COUNT,
};
use crate::report::fmt_count;

impl Scenario {
    /// Checks of the shared document (workload, catalog, cluster, goals).
    /// Every number has a range that makes sense (see the `Bounds` in
    /// `hardware` and here); each message names the device or group and
    /// says the range and the value in the unit people type.
    pub fn validate_shared(&self) -> Vec<FieldError> {
        let mut errs: Vec<FieldError> = self
            .workload
            .network
            .validate_fields()
            .into_iter()
            .map(|(field, m)| err(field, m))
            .collect();

        let catalog = &self.hardware.catalog;
        if catalog.len() > MAX_CATALOG_ENTRIES {
            // Nothing else is read from a catalog this size: no model runs.
            errs.push(err(
                "hardware.catalog",
                format!(
                    "the catalog has {} instance types, more than the {} accepted: remove some",
                    fmt_count(catalog.len() as f64),
                    fmt_count(MAX_CATALOG_ENTRIES as f64)
                ),
            ));
            return errs;
        }
        errs.extend(long_name("title", "the scenario title", &self.title));
        let mut names = std::collections::HashSet::new();
        for (i, inst) in catalog.iter().enumerate() {
            let field = format!("hardware.catalog[{i}]");
            if let Some(e) = long_name(
                format!("{field}.name"),
                &format!("catalog entry {}'s name", i + 1),
                &inst.name,
            ) {
                errs.push(e);
                continue;
            }
            if inst.name.trim().is_empty() {
                errs.push(err(
                    format!("{field}.name"),
                    format!("catalog entry {} needs a name", i + 1),
                ));
            } else if !names.insert(inst.name.as_str()) {
                errs.push(err(
                    format!("{field}.name"),
                    format!("the name '{}' is used twice", inst.name),
                ));
            }
            errs.extend(
                inst.validate()
                    .into_iter()
                    .map(|(f, m)| err(format!("{field}.{f}"), m)),
            );
        }

        let cluster = &self.hardware.cluster;
        errs.extend(self.check_workers("hardware.cluster", &cluster.workers));
        errs.extend(self.check_ps("hardware.cluster", &cluster.ps));

        errs.extend(self.goals.validate());

        if let Some(p) = &self.workload.profile {
            for (field, what, bounds, v) in [
                ("workload.profile.w_iter", "w_iter", W_ITER, p.w_iter_flop),
                (
                    "workload.profile.g_param",
                    "g_param",
                    G_PARAM,
                    p.g_param_bytes,
                ),
                (
                    "workload.profile.c_prof",
                    "c_prof",
                    PROFILE_RATE,
                    p.c_prof_flops,
                ),
                (
                    "workload.profile.b_prof",
                    "b_prof",
                    B_PROF,
                    p.b_prof_bytes_per_s,
                ),
                (
                    "workload.profile.c_base",
                    "c_base",
                    PROFILE_RATE,
                    p.c_base_flops,
                ),
            ] {
                if let Some(m) = bounds.check(what, v) {
                    errs.push(err(field, format!("profile '{}': {m}", p.name)));
                }
            }
        }
        if let Some(l) = &self.workload.loss {
            if let Some(m) = BETA0.check("β0", l.beta0) {
                errs.push(err("workload.loss.beta0", m));
            }
            if let Some(m) = BETA1.check("β1", l.beta1) {
                errs.push(err("workload.loss.beta1", m));
            } else if BETA0.contains(l.beta0) && l.beta1 >= l.beta0 {
                let msg = format!(
                    "β1 = {} must be below β0 = {} (Eq. 1 assumes β0 > β1)",
                    fmt_typed(l.beta1, 1.0),
                    fmt_typed(l.beta0, 1.0)
                );
                errs.push(err("workload.loss.beta1", msg));
            }
        }
        errs.extend(crate::runs::validate::validate_runs(self));
        errs
    }
}

impl Scenario {
    /// Checks of worker groups at `{at}.workers[i]` (and their total at
    /// `{at}.workers`): the cluster's, and each measured run's.
    pub(crate) fn check_workers(&self, at: &str, workers: &[WorkerGroup]) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let mut total: u64 = 0;
        for (i, g) in workers.iter().enumerate() {
            let field = format!("{at}.workers[{i}]");
            if let Some(e) = long_name(
                format!("{field}.instance"),
                &format!("worker group {}'s instance type", i + 1),
                &g.instance,
            ) {
                errs.push(e);
                continue;
            }
            let who = if g.instance.trim().is_empty() {
                format!("worker group {}", i + 1)
            } else {
                format!("{} workers", g.instance)
            };
            if self.instance(&g.instance).is_none() {
                errs.push(err(
                    format!("{field}.instance"),
                    format!("'{}' is not in the instance catalog", g.instance),
                ));
            }
            if let Some(m) = GROUP_COUNT.check("count", f64::from(g.count)) {
                errs.push(err(format!("{field}.count"), format!("{who}: {m}")));
            }
            total += u64::from(g.count);
            if let Some(m) = BATCH.check("batch size", f64::from(g.batch_size)) {
                errs.push(err(format!("{field}.batch_size"), format!("{who}: {m}")));
            }
        }
        if total > u64::from(MAX_WORKERS) {
            errs.push(err(
                format!("{at}.workers"),
                format!(
                    "{} workers is more than the {} this page models",
                    fmt_count(total as f64),
                    fmt_count(f64::from(MAX_WORKERS))
                ),
            ));
        }
        errs
    }

    /// Checks of a PS side at `{at}.ps.…`: the cluster's, and a run's own.
    pub(crate) fn check_ps(&self, at: &str, ps: &ParameterServer) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if let Some(bw) = ps.link_bytes_per_s {
            if let Some(m) = NETWORK.check("the PS link per node", bw) {
                errs.push(err(format!("{at}.ps.link"), m));
            }
        }
        if let Some(m) = LATENCY.check("the start-up time per transfer", ps.latency_s) {
            errs.push(err(format!("{at}.ps.latency"), m));
        }
        if let Some(name) = &ps.instance {
            let field = format!("{at}.ps.instance");
            if let Some(e) = long_name(field.clone(), "the PS instance type", name) {
                errs.push(e);
            } else if self.instance(name).is_none() {
                errs.push(err(
                    field,
                    format!("'{name}' is not in the instance catalog"),
                ));
            }
        }
        if let Some(m) = PS_COUNT.check("PS nodes", f64::from(ps.count)) {
            errs.push(err(format!("{at}.ps.count"), m));
        }
        errs
    }
}

/// Goals: positive and finite, said in the unit they are typed in.
impl super::Goals {
    pub fn validate(&self) -> Vec<FieldError> {
        let mut errs = Vec::new();
        for (field, what, scale, unit, v) in [
            ("goals.time", "time goal", 3600.0, " h", self.time_s),
            ("goals.loss", "loss goal", 1.0, "", self.loss),
            ("goals.budget", "budget", 1.0, " USD", self.budget_usd),
        ] {
            if let Some(v) = v {
                if !positive(v) {
                    errs.push(err(
                        field,
                        format!(
                            "{what} must be a positive number (got {}{unit})",
                            fmt_typed(v, scale)
                        ),
                    ));
                }
            }
        }
        errs
    }
}

/// "… is N characters long; names are limited to MAX" for a name longer
/// than any a report can show (its text is not repeated).
pub(crate) fn long_name(field: impl Into<String>, what: &str, name: &str) -> Option<FieldError> {
    let n = name.chars().count();
    (n > MAX_NAME_CHARS).then(|| {
        err(
            field,
            format!(
                "{what} is {} characters long; names are limited to {MAX_NAME_CHARS}",
                fmt_count(n as f64)
            ),
        )
    })
}

/// The job profile's figures: w_iter (typed in GFLOP), g_param (MB),
/// c_prof and c_base (GFLOP/s), b_prof (MB/s).
pub const W_ITER: Bounds = Bounds::shown(1e6, 1e21, 1e9, "GFLOP");
pub const G_PARAM: Bounds = Bounds::shown(1e3, 1e13, 1e6, "MB");
pub const PROFILE_RATE: Bounds = Bounds::shown(1e6, 1e18, 1e9, "GFLOP/s");
pub const B_PROF: Bounds = Bounds::shown(125.0, 1.25e12, 1e6, "MB/s");
/// Eq. 1's coefficients.
pub const BETA0: Bounds = Bounds::plain(1e-9, 1e12);
pub const BETA1: Bounds = Bounds::plain(-1e12, 1e12);

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn values_read_as_typed() {
        assert_eq!(fmt_typed(1e-320, 1e9), "1e-329");
        assert_eq!(fmt_typed(1e-320, 1.25e8), "8e-329");
        assert_eq!(fmt_typed(2.5e9, 1e9), "2.5");
        assert_eq!(fmt_typed(-3600.0, 3600.0), "−1");
        assert_eq!(fmt_typed(0.3e9, 1e9), "0.3");
        assert_eq!(fmt_typed(1.0 / 3.0, 1.0), "0.333333333333");
        assert_eq!(fmt_typed(1e300, 1e-9), "1e309");
        assert_eq!(fmt_typed(123456789.0, 1.0), "123456789");
        assert_eq!(fmt_typed(0.0, 1e9), "0");
        assert_eq!(fmt_typed(f64::NAN, 1.0), "not a number");
        assert_eq!(fmt_typed(f64::NEG_INFINITY, 1.0), "−infinity");
    }

    #[test]
    fn ranges_say_their_ends() {
        let clock = Bounds::shown(1e6, 1e11, 1e9, "GHz");
        assert!(clock.contains(1e6) && clock.contains(1e11));
        assert!(!clock.contains(1e-320) && !clock.contains(f64::NAN));
        assert_eq!(
            clock.check("clock", 1e-320).as_deref(),
            Some("clock must be between 0.001 and 100 GHz (got 1e-329 GHz)")
        );
        assert_eq!(
            Bounds::plain(1.0, 1e6).message("batch size", 0.0),
            "batch size must be a positive number, between 1 and 1,000,000 (got 0)"
        );
        assert_eq!(
            clock.message("clock", -2e9),
            "clock must be a positive number, between 0.001 and 100 GHz (got −2 GHz)"
        );
        let price = Bounds::shown(0.0, 1e4, 1.0, "USD/h").or_zero_from(1e-6);
        assert!(price.contains(0.0) && price.contains(1e-6) && !price.contains(1e-320));
        assert_eq!(
            price.message("price", 1e-320),
            "price must be 0 or between 0.000001 and 10,000 USD/h (got 1e-320 USD/h)"
        );
        // 1e308 typed in Gb/s overflows to infinity in B/s.
        let link = Bounds::shown(1.25e2, 1.25e12, 1.25e8, "Gb/s");
        assert_eq!(
            link.message("link", 1e308 * 1.25e8),
            "link must be between 0.000001 and 10,000 Gb/s (got a number too large to compute with)"
        );
    }
}
