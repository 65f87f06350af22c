//! Cynthia applied to a scenario: the given cluster's prediction, the
//! paper's Algorithm 1 next to the exact search, and the cost curves. Says
//! what is missing instead of guessing.

use serde::Serialize;

use super::{
    algorithm1, cost_curves, exact, iteration, run, saturation, ClusterSpec, CostCurve,
    ExactResult, Goals, Group, InstanceType, IterationTime, PaperResult, Run, Saturation,
};
use crate::hardware::{Instance, Precision, Pricing};
use crate::errors::FieldError;
use crate::scenario::Scenario;
use crate::workload::loss_fit::GoalError;
use crate::workload::profile::SyncMode;

/// The given cluster under Cynthia's model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClusterPrediction {
    pub iteration: IterationTime,
    pub saturation: Saturation,
    /// Time and cost to the loss goal, when loss and goal are known.
    pub run: Option<Run>,
    pub run_note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CynthiaEvaluation {
    pub profile_name: String,
    pub sync: SyncMode,
    /// Catalog entries usable as instance types (capability, bandwidth, price).
    pub types: Vec<InstanceType>,
    /// Catalog entries left out of planning, and why.
    pub skipped: Vec<String>,
    pub cluster: Option<ClusterPrediction>,
    pub cluster_note: Option<String>,
    pub goals: Option<Goals>,
    pub paper: Option<PaperResult>,
    pub exact: Option<ExactResult>,
    /// How much more Algorithm 1's plan costs than the exact optimum.
    pub paper_gap: Option<f64>,
    pub curves: Vec<CostCurve>,
    /// What the planning part still needs, at the field that would supply it.
    pub missing: Vec<FieldError>,
}

fn err(field: &str, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

/// A catalog instance Cynthia cannot use, and what it lacks.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{name}: no {}", .lacks.join(", no "))]
pub struct Unusable {
    pub name: String,
    /// "rate (FLOP/s)", "network bandwidth", "spot price", …
    pub lacks: Vec<&'static str>,
}

/// Why the scenario's cluster has no prediction.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClusterError {
    #[error("pick the PS instance type (Cluster panel) to predict this cluster")]
    NoPsType,
    #[error("'{0}' is not in the catalog")]
    NotInCatalog(String),
    #[error(transparent)]
    Unusable(#[from] Unusable),
}

/// Reads an instance type, naming what is missing.
pub fn instance_type(
    inst: &Instance,
    pricing: Pricing,
    precision: Precision,
) -> Result<InstanceType, Unusable> {
    let mut lacks = Vec::new();
    let c = inst.flops_at(precision);
    if c.is_none() {
        lacks.push("rate (FLOP/s)");
    }
    if inst.network_bytes_per_s.is_none() {
        lacks.push("network bandwidth");
    }
    let price = inst.price(pricing);
    if price.is_none() {
        lacks.push(match pricing {
            Pricing::Spot => "spot price",
            Pricing::OnDemand => "price per hour",
        });
    }
    match (c, inst.network_bytes_per_s, price) {
        (Some(c), Some(b), Some(p)) => Ok(InstanceType {
            name: inst.name.clone(),
            c_flops: c,
            b_bytes_per_s: b,
            price_per_hour: p,
        }),
        _ => Err(Unusable {
            name: inst.name.clone(),
            lacks,
        }),
    }
}

/// Like `instance_type`, for prediction only: a missing price becomes 0,
/// and `link` (the PS nodes' own link) replaces the network bandwidth.
fn instance_for_prediction(
    inst: &Instance,
    pricing: Pricing,
    precision: Precision,
    link: Option<f64>,
) -> Result<(InstanceType, bool), Unusable> {
    let probe = Instance {
        network_bytes_per_s: link.or(inst.network_bytes_per_s),
        ..inst.clone()
    };
    match instance_type(&probe, pricing, precision) {
        Ok(t) => Ok((t, true)),
        Err(e) => match (inst.flops_at(precision), probe.network_bytes_per_s) {
            (Some(c), Some(b)) => Ok((
                InstanceType {
                    name: inst.name.clone(),
                    c_flops: c,
                    b_bytes_per_s: b,
                    price_per_hour: 0.0,
                },
                false,
            )),
            _ => Err(e),
        },
    }
}

/// The scenario's cluster as Cynthia reads it, and whether every
/// instance has a price; or what it lacks.
pub(super) fn given_cluster(s: &Scenario) -> Result<(ClusterSpec, bool), ClusterError> {
    let pricing = s.hardware.pricing;
    let ps = &s.hardware.cluster.ps;
    let Some(ps_name) = &ps.instance else {
        return Err(ClusterError::NoPsType);
    };
    let mut priced = true;
    let mut lookup = |name: &str, link: Option<f64>| -> Result<InstanceType, ClusterError> {
        let inst = s
            .instance(name)
            .ok_or_else(|| ClusterError::NotInCatalog(name.to_string()))?;
        let (t, has_price) = instance_for_prediction(inst, pricing, s.hardware.precision, link)?;
        priced &= has_price;
        Ok(t)
    };
    let f = super::factors::applied(s);
    let ps_kind = f.instance(lookup(ps_name, ps.link_bytes_per_s)?);
    let mut workers = Vec::new();
    for g in &s.hardware.cluster.workers {
        workers.push(Group {
            kind: f.instance(lookup(&g.instance, None)?),
            count: g.count,
        });
    }
    Ok((
        ClusterSpec {
            workers,
            ps: vec![Group {
                kind: ps_kind,
                count: ps.count,
            }],
        },
        priced,
    ))
}

/// Validates what Cynthia reads, then evaluates.
pub fn evaluate_cynthia(s: &Scenario) -> Result<CynthiaEvaluation, Vec<FieldError>> {
    let errs = crate::models::validate_for(&super::Cynthia, s);
    if !errs.is_empty() {
        return Err(errs);
    }
    evaluate_validated(s)
}

/// The evaluation of a scenario that passed `validate_for(&Cynthia)` (the
/// registry validates before it asks for a report).
pub fn evaluate_validated(s: &Scenario) -> Result<CynthiaEvaluation, Vec<FieldError>> {
    evaluate_with(s, Depth::All)
}

/// `evaluate_validated` of the given cluster alone, without the plan
/// searches and cost curves: the headline's numbers, for an uncertainty
/// band's samples.
pub fn evaluate_cluster(s: &Scenario) -> Result<CynthiaEvaluation, Vec<FieldError>> {
    evaluate_with(s, Depth::Cluster)
}

/// `evaluate_validated` without the plan searches: the cost curves'
/// numbers, for the samples of their uncertainty bands.
pub fn evaluate_curves(s: &Scenario) -> Result<CynthiaEvaluation, Vec<FieldError>> {
    evaluate_with(s, Depth::Curves)
}

/// How much of the evaluation to compute.
#[derive(Clone, Copy, PartialEq)]
enum Depth {
    Cluster,
    Curves,
    All,
}

fn evaluate_with(s: &Scenario, depth: Depth) -> Result<CynthiaEvaluation, Vec<FieldError>> {
    let Some(profile) = &s.workload.profile else {
        return Err(vec![err(
            "workload.profile",
            "Cynthia needs a job profile (w_iter, g_param, c_prof, b_prof, c_base): pick a Table 4 preset, type it in, upload it, or derive it from the layer table",
        )]);
    };
    let f = super::factors::applied(s);
    let calibrated = f.profile(profile);
    let profile = calibrated.as_ref();
    let pricing = s.hardware.pricing;
    let mut types = Vec::new();
    let mut skipped = Vec::new();
    for inst in &s.hardware.catalog {
        match instance_type(inst, pricing, s.hardware.precision) {
            Ok(t) => types.push(f.instance(t)),
            Err(e) => skipped.push(e.to_string()),
        }
    }
    let loss = s.workload.loss.as_ref();
    let goals = match (s.goals.time_s, s.goals.loss) {
        (Some(time_s), Some(loss)) => Some(Goals {
            time_s,
            loss,
            budget_usd: s.goals.budget_usd,
        }),
        _ => None,
    };

    let (cluster, cluster_note) = match given_cluster(s) {
        Ok((c, priced)) => {
            let it = iteration(profile, &c);
            let sat = saturation(profile, &c);
            let (run_result, run_note) = match (loss, s.goals.loss) {
                (Some(l), Some(goal)) => match run(profile, l, goal, &c) {
                    Ok(r) => {
                        let note = (!priced).then(|| {
                            "some instances have no price: the cost counts them as free".to_string()
                        });
                        (Some(r), note)
                    }
                    Err(e) => (None, Some(e.to_string())),
                },
                _ => (
                    None,
                    Some("training time and cost need β0, β1 and a loss goal".to_string()),
                ),
            };
            (
                Some(ClusterPrediction {
                    iteration: it,
                    saturation: sat,
                    run: run_result,
                    run_note,
                }),
                None,
            )
        }
        Err(e) => (None, Some(e.to_string())),
    };

    let mut missing = Vec::new();
    if loss.is_none() {
        missing.push(err(
            "workload.loss",
            "β0, β1 (Loss panel: type them or fit a measured curve)",
        ));
    }
    if s.goals.time_s.is_none() {
        missing.push(err("goals.time", "a time goal T_g"));
    }
    if s.goals.loss.is_none() {
        missing.push(err("goals.loss", "a loss goal l_g"));
    }
    if types.is_empty() {
        missing.push(err(
            "hardware.catalog",
            "a catalog instance with CPU capability, bandwidth and price",
        ));
    }
    let max = super::section::settings(s).max_workers;
    let (mut paper, mut exact_r, mut curves) = (None, None, Vec::new());
    if let (Some(l), Some(g), false) = (loss, goals.as_ref(), types.is_empty()) {
        let field = "goals.loss";
        let at_goal = |e: GoalError| vec![err(field, e.to_string())];
        if depth == Depth::All {
            paper = Some(algorithm1(profile, l, g, &types).map_err(at_goal)?);
            exact_r = Some(exact(profile, l, g, &types, max).map_err(at_goal)?);
        }
        if depth != Depth::Cluster {
            curves = cost_curves(profile, l, g, &types, max).map_err(at_goal)?;
        }
    }
    let paper_gap = match (&paper, &exact_r) {
        (Some(PaperResult { plan: Some(p), .. }), Some(ExactResult { plan: Some(e), .. }))
            if e.run.cost_usd > 0.0 =>
        {
            Some(p.run.cost_usd / e.run.cost_usd - 1.0)
        }
        _ => None,
    };
    Ok(CynthiaEvaluation {
        profile_name: profile.name.clone(),
        sync: profile.sync,
        types,
        skipped,
        cluster,
        cluster_note,
        goals,
        paper,
        exact: exact_r,
        paper_gap,
        curves,
        missing,
    })
}
