//! Stash applied to a scenario: the measured runs' stalls, the comm model
//! over the chosen instance's links, and the all-reduce prediction with
//! its ranking over every GPU configuration of the catalog.

use serde::Serialize;

use super::predict::{self, Candidate, Link, LinkKind, Prediction, Ranking, Setup, Workload};
use super::ranking::{rank_measured, MeasuredRanking};
use super::section::{self, parse_configuration, StashSettings, ID};
use super::stalls::{analyse, StallAnalysis};
use crate::hardware::{Instance, Precision, Pricing};
use crate::report::fmt_sig;
use crate::errors::err;
use crate::errors::{FieldError, Unavailable};
use crate::scenario::Scenario;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StashEvaluation {
    pub settings: StashSettings,
    pub precision: Precision,
    pub pricing: Pricing,
    pub stalls: StallAnalysis,
    /// `F_s`, `L`, `G` as far as known, with where each comes from.
    pub workload: Figures,
    pub comm: Option<CommView>,
    pub prediction: Option<Predictions>,
    /// The measured configurations ranked per epoch, with and without
    /// stalls, beside the prediction's order (`ranking.rs`).
    pub measured_ranking: Option<MeasuredRanking>,
    /// Parts that cannot run, and the inputs they need.
    pub missing: Vec<FieldError>,
    pub time_goal_s: Option<f64>,
    pub budget_usd: Option<f64>,
}

/// The workload's figures, each `None` when neither typed nor derivable.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Figures {
    pub flop_per_sample: Option<(f64, String)>,
    pub layers: Option<(f64, String)>,
    pub gradient_bytes: Option<(f64, String)>,
}

impl Figures {
    pub(super) fn workload(&self) -> Option<Workload> {
        Some(Workload {
            flop_per_sample: self.flop_per_sample.as_ref()?.0,
            layers: self.layers.as_ref()?.0,
            gradient_bytes: self.gradient_bytes.as_ref()?.0,
        })
    }
}

/// The comm model on one instance's links.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CommView {
    pub instance: String,
    pub links: Vec<Link>,
    pub layers: f64,
    pub gradient_bytes: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Predictions {
    pub rows: Vec<Prediction>,
    /// Catalog entries or configurations left out, and why.
    pub skipped: Vec<String>,
    pub achieved: f64,
    /// The measured iteration `achieved` was calibrated from.
    pub calibrated_from: Option<(String, f64)>,
    pub ranking: Ranking,
    pub setup: Setup,
    pub workload: Workload,
}


/// `F_s`, `L`, `G`: typed in the section, else from the layer table.
pub(super) fn figures(s: &Scenario, set: &StashSettings) -> Figures {
    let net = &s.workload.network;
    let sum = net.summary();
    let flop_per_sample = match set.flop_per_sample {
        Some(f) => Some((f, "typed".to_string())),
        None => (sum.forward_flop > 0.0).then(|| {
            (
                3.0 * sum.forward_flop,
                format!(
                    "3 × the forward FLOP per sample of {} (forward + backward ≈ 3 × forward for a dense network)",
                    net.name
                ),
            )
        }),
    };
    let layers = match set.layers {
        Some(l) => Some((f64::from(l), "typed".to_string())),
        None => (!net.layers.is_empty()).then(|| {
            let table = net.layers.len();
            let extra = set.extra_layers;
            (
                (table as f64) + f64::from(extra),
                if extra > 0 {
                    format!("{table} layers of {}'s table + {extra} more (BatchNorm)", net.name)
                } else {
                    format!("{table} layers of {}'s table (BatchNorm layers count too: add them as extra layers)", net.name)
                },
            )
        }),
    };
    let gradient_bytes = match set.gradient_bytes {
        Some(g) => Some((g, "typed".to_string())),
        None => (sum.weights > 0.0).then(|| {
            let values = sum.weights + sum.biases;
            (
                values * set.bytes_per_value,
                format!(
                    "{} weights and biases of {} × {} B",
                    crate::report::fmt_count(values),
                    net.name,
                    set.bytes_per_value
                ),
            )
        }),
    };
    Figures {
        flop_per_sample,
        layers,
        gradient_bytes,
    }
}

fn gpus_of(i: &Instance) -> u32 {
    match i.gpus {
        Some(g) => g,
        None if i.processor.as_ref().is_some_and(|p| p.is_gpu()) => 1,
        None => 0,
    }
}

/// One GPU's dense peak at `p`: the catalog's per-GPU figure, else the
/// instance's rate over its GPUs.
fn gpu_peak(i: &Instance, p: Precision) -> Option<f64> {
    let g = gpus_of(i);
    if g == 0 {
        return None;
    }
    i.gpu_peak
        .and_then(|k| k.at(p))
        .or_else(|| i.flops().map(|f| f / f64::from(g)))
        .filter(|v| *v > 0.0)
}

fn intra_link(i: &Instance, set: &StashSettings) -> Option<Link> {
    let bytes_per_s = i.interconnect_bytes_per_s?;
    let kind = i.interconnect.as_deref().unwrap_or("").to_ascii_lowercase();
    let nvlink = kind.contains("nvlink") || kind.contains("nvswitch");
    Some(if nvlink {
        Link {
            kind: LinkKind::NvLink,
            latency_s: set.latency_nvlink_s,
            bytes_per_s,
        }
    } else {
        Link {
            kind: LinkKind::Pcie,
            latency_s: set.latency_pcie_s,
            bytes_per_s,
        }
    })
}

fn network_link(i: &Instance, set: &StashSettings) -> Option<Link> {
    Some(Link {
        kind: LinkKind::Network,
        latency_s: set.latency_network_s,
        bytes_per_s: i.network_bytes_per_s?,
    })
}

/// What a catalog instance lacks to be a configuration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CandidateError {
    #[error("{instance}: no GPUs")]
    NoGpus { instance: String },
    #[error("{instance}: no {} peak per GPU", .precision.word())]
    NoPeak {
        instance: String,
        precision: Precision,
    },
}

/// `machines` instances of `i` as a configuration, or what it lacks.
pub(super) fn candidate(
    i: &Instance,
    machines: u32,
    set: &StashSettings,
    precision: Precision,
    pricing: Pricing,
) -> Result<Candidate, CandidateError> {
    let gpus = gpus_of(i);
    if gpus == 0 {
        return Err(CandidateError::NoGpus {
            instance: i.name.clone(),
        });
    }
    let peak = gpu_peak(i, precision).ok_or_else(|| CandidateError::NoPeak {
        instance: i.name.clone(),
        precision,
    })?;
    Ok(Candidate {
        instance: i.name.clone(),
        machines,
        gpus_per_machine: gpus,
        gpu_peak: peak,
        price_per_hour: i.price(pricing),
        intra: intra_link(i, set),
        network: network_link(i, set),
    })
}

/// Reads the section, catalog and workload; runs whatever parts their
/// inputs allow (`Missing`: none can, `Invalid`: an input is wrong).
pub fn evaluate(s: &Scenario) -> Result<StashEvaluation, Unavailable> {
    let set = section::settings(s);
    let precision = s.hardware.precision;
    let pricing = s.hardware.pricing;
    let catalog = &s.hardware.catalog;
    let stalls = analyse(&set.runs, catalog);
    let figs = figures(s, &set);
    let mut missing = Vec::new();
    if figs.flop_per_sample.is_none() {
        missing.push(err(
            format!("models.{ID}.flop_per_sample"),
            "the training FLOP per sample: a layer table in the workload, or typed",
        ));
    }
    if figs.layers.is_none() {
        missing.push(err(
            format!("models.{ID}.layers"),
            "the layers L that carry gradients: a layer table in the workload, or typed",
        ));
    }
    if figs.gradient_bytes.is_none() {
        missing.push(err(
            format!("models.{ID}.gradient_bytes"),
            "the gradient bytes G: a layer table in the workload, or typed",
        ));
    }
    let setup = Setup {
        batch: set.batch,
        batch_per_gpu: set.batch_per_gpu,
        overlap: set.overlap,
        ring: set.ring,
        epoch_samples: set.epoch_samples,
        epochs: set.epochs,
    };
    let prediction = match figs.workload() {
        Some(w) => predictions(s, &set, w, setup, &mut missing)?,
        None => None,
    };
    let comm = comm_view(s, &set, &figs, &stalls, prediction.as_ref());
    let measured_ranking = rank_measured(
        &stalls,
        catalog,
        pricing,
        set.epoch_samples,
        prediction.as_ref(),
        set.max_machines,
    );
    if stalls.configs.is_empty() && set.runs.is_empty() {
        missing.push(err(
            format!("models.{ID}.runs"),
            "measured runs (1)-(5) of Stash's method, for the stall breakdown",
        ));
    }
    if stalls.configs.is_empty() && comm.is_none() && prediction.is_none() {
        return Err(Unavailable::Missing { needs: missing });
    }
    Ok(StashEvaluation {
        settings: set,
        precision,
        pricing,
        stalls,
        workload: figs,
        comm,
        prediction,
        measured_ranking,
        missing,
        time_goal_s: s.goals.time_s,
        budget_usd: s.goals.budget_usd,
    })
}

/// The achieved fraction: typed, or calibrated so the section's measured
/// iteration is reproduced (with the configuration and time it came from).
pub(super) fn achieved(
    s: &Scenario,
    set: &StashSettings,
    w: &Workload,
    setup: &Setup,
) -> Result<(f64, Option<(String, f64)>), Unavailable> {
    let (precision, pricing) = (s.hardware.precision, s.hardware.pricing);
    let Some(cal) = &set.calibrate else {
        return Ok((set.achieved, None));
    };
    let field = format!("models.{ID}.calibrate.configuration");
    let (name, m) = parse_configuration(&cal.configuration)
        .map_err(|e| Unavailable::invalid(vec![err(&field, e.to_string())]))?;
    let inst = s.instance(&name).ok_or_else(|| {
        Unavailable::invalid(vec![err(
            &field,
            format!("{name} is not in the catalog: calibrate on a configuration it lists"),
        )])
    })?;
    let f = super::factors::applied(s);
    let c = candidate(inst, m, set, precision, pricing)
        .map(|c| f.candidate(c))
        .map_err(|e| Unavailable::invalid(vec![err(&field, e.to_string())]))?;
    let a = predict::calibrate_with_stall(&c, w, setup, cal.iteration_s, f.stall_s).map_err(|e| {
        Unavailable::invalid(vec![err(
            format!("models.{ID}.calibrate.iteration_s"),
            e.to_string(),
        )])
    })?;
    Ok((a, Some((c.name(), cal.iteration_s))))
}

fn predictions(
    s: &Scenario,
    set: &StashSettings,
    w: Workload,
    setup: Setup,
    missing: &mut Vec<FieldError>,
) -> Result<Option<Predictions>, Unavailable> {
    let (precision, pricing) = (s.hardware.precision, s.hardware.pricing);
    let f = super::factors::applied(s);
    let mut skipped = Vec::new();
    let mut candidates = Vec::new();
    for i in &s.hardware.catalog {
        if gpus_of(i) == 0 {
            continue;
        }
        let most = match i.quota {
            Some(0) => {
                skipped.push(format!("{}: quota 0", i.name));
                continue;
            }
            Some(q) => q.min(set.max_machines),
            None => set.max_machines,
        };
        match candidate(i, 1, set, precision, pricing).map(|c| f.candidate(c)) {
            Ok(c) => {
                for m in 1..=most {
                    candidates.push(Candidate {
                        machines: m,
                        ..c.clone()
                    });
                }
            }
            Err(why) => skipped.push(why.to_string()),
        }
    }
    let (achieved, calibrated_from) = achieved(s, set, &w, &setup)?;
    if candidates.is_empty() {
        missing.push(err(
            "hardware.catalog",
            format!(
                "GPU instance types with GPUs per instance and a {} peak per GPU, for the prediction",
                precision.word()
            ),
        ));
        return Ok(None);
    }
    let mut rows = Vec::new();
    for c in &candidates {
        match predict::predict_with_stall(c, &w, &setup, achieved, f.stall_s) {
            Ok(p) => rows.push(p),
            Err(why) => {
                let why = why.to_string();
                if !skipped.contains(&why) {
                    skipped.push(why)
                }
            }
        }
    }
    let ranking = predict::rank(&rows, s.goals.time_s, s.goals.budget_usd);
    Ok(Some(Predictions {
        rows,
        skipped,
        achieved,
        calibrated_from,
        ranking,
        setup,
        workload: w,
    }))
}

/// The comm model on the chosen instance, else the first measured
/// configuration's, else the fastest prediction's, else the first GPU type.
fn comm_view(
    s: &Scenario,
    set: &StashSettings,
    figs: &Figures,
    stalls: &StallAnalysis,
    prediction: Option<&Predictions>,
) -> Option<CommView> {
    let layers = figs.layers.as_ref()?.0;
    let gradient_bytes = figs.gradient_bytes.as_ref()?.0;
    let fastest = prediction.and_then(|p| {
        p.ranking
            .fastest
            .first()
            .map(|&i| p.rows[i].instance.clone())
    });
    let name = set
        .comm_instance
        .clone()
        .or_else(|| stalls.configs.first().map(|c| c.instance.clone()))
        .or(fastest)
        .or_else(|| {
            s.hardware
                .catalog
                .iter()
                .find(|i| gpus_of(i) > 1)
                .map(|i| i.name.clone())
        })?;
    let inst = s.instance(&name)?;
    let f = super::factors::applied(s);
    let intra = intra_link(inst, set).map(|l| Link {
        bytes_per_s: f.intra_bytes_per_s(l.bytes_per_s),
        ..l
    });
    let network = network_link(inst, set).map(|l| Link {
        bytes_per_s: f.network_bytes_per_s(l.bytes_per_s),
        ..l
    });
    let links: Vec<Link> = [intra, network].into_iter().flatten().collect();
    (!links.is_empty()).then_some(CommView {
        instance: name,
        links,
        layers,
        gradient_bytes,
    })
}

/// "p3.16xlarge = p3.8xlarge (tie)" for a ranking's rows.
pub fn names(rows: &[Prediction], idx: &[usize]) -> String {
    let names: Vec<&str> = idx.iter().map(|&i| rows[i].name.as_str()).collect();
    match names.len() {
        0 => "none".into(),
        1 => names[0].to_string(),
        n => format!("{} ({n}-way tie)", names.join(" = ")),
    }
}

/// "0.4 (typed)" or "0.312 (calibrated on p3.2xlarge at 0.1 s)".
pub fn achieved_words(p: &Predictions) -> String {
    match &p.calibrated_from {
        Some((c, t)) => format!(
            "{} (calibrated so {c}'s measured {} s iteration is reproduced)",
            fmt_sig(p.achieved),
            fmt_sig(*t)
        ),
        None => format!("{} (typed)", fmt_sig(p.achieved)),
    }
}
