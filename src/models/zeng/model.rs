//! Zeng et al. in the registry: what it reads, its section's checks, and
//! its report.

use super::eval::{evaluate_validated, network_figures, worker_inputs};
use super::report::build;
use super::{factors, section};
use super::{simulate, Link, WorkerInput};
use crate::models::{Model, Need, RunPrediction, Unavailable, Work};
use crate::report::Report;
use crate::errors::FieldError;
use crate::scenario::Scenario;

pub struct Zeng;

/// The bandwidths of the bandwidth chart.
const BANDWIDTH_POINTS: f64 = super::eval::BANDWIDTH_POINTS as f64;
/// Worker positions queued in one evaluation at most: about a second
/// natively (the largest cluster, every group distinct, sweeps to 256).
const MAX_QUEUED: f64 = 2e7;
/// Worker positions the bands of the charts take on, over all samples:
/// about 0.1 s natively, 0.3 s in the page (the sweeps queue about 10⁷
/// positions a second natively, with their allocations).
const MAX_BAND_QUEUED: f64 = 1e6;

const NEEDS: [Need; 7] = [
    Need {
        field: "workload.network",
        what: "the network: a layer table, a preset or given figures (forward FLOP, weights, transfer size)",
        optional: false,
        shown: None,
    },
    Need {
        field: "hardware.cluster.workers",
        what: "worker groups: a catalog device with a clock-level description (CPU: GHz, SIMD; GPU: GHz, stream processors, FMA), count, batch size",
        optional: false,
        shown: None,
    },
    Need {
        field: "hardware.cluster.ps.link",
        what: "the PS link: count × per-node bandwidth [Gb/s] (typed, or the PS instance's network) and optional per-transfer latency [s]",
        optional: false,
        shown: None,
    },
    Need {
        field: "hardware.pricing",
        what: "for the cost: each worker's and the PS instance's price [USD/h], on demand or spot",
        optional: true,
        shown: None,
    },
    section::FLOPS_PER_WEIGHT.need(),
    section::SWEEP_MAX_WORKERS.need(),
    section::EPOCH_SAMPLES.need(),
];

impl Model for Zeng {
    fn id(&self) -> &'static str {
        "zeng"
    }

    fn name(&self) -> &'static str {
        "Zeng et al."
    }

    fn assumes(&self) -> &'static str {
        "Zeng et al. queue the workers' pushes one at a time on one PS link, after their computation (Algorithm 1/2);"
    }

    fn overview_figures(&self) -> &'static [&'static str] {
        &[
            "iteration-time",
            "regime",
            "cost-per-1000-iterations",
            "throughput",
        ]
    }

    fn overview_charts(&self) -> &'static [(&'static str, &'static str)] {
        &[("timeline", "timeline"), ("cost", "cost")]
    }

    /// The iteration's timeline (its total, the iteration end) and the
    /// time and cost against the worker count.
    fn banded_charts(&self) -> &'static [&'static str] {
        &["timeline", "workers-iteration", "cost"]
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
            "hardware.cluster.ps",
        ]
    }

    fn validate(&self, s: &Scenario) -> Vec<FieldError> {
        let mut errs = section::validate(s);
        errs.extend(crate::calibration::validate(s, section::ID, &factors::specs(s)));
        errs
    }

    fn factors(&self, s: &Scenario) -> Vec<crate::calibration::FactorSpec> {
        factors::specs(s)
    }

    fn paper_check(&self) -> Option<&'static crate::runs::papers::PaperCheck> {
        Some(&super::paper_check::PAPER_CHECK)
    }

    /// Worker positions the push queue orders: the cluster at every
    /// bandwidth of the chart, and every sweep line (one per device and
    /// batch, and the mix) at 1..=N workers.
    fn work(&self, s: &Scenario) -> Vec<Work> {
        let (workers, lines, n) = queue_shape(s);
        vec![Work {
            units: workers * (BANDWIDTH_POINTS + 1.0) + lines * n * (n + 1.0) / 2.0,
            unit: "worker positions in the push queue",
            limit: MAX_QUEUED,
            field: "models.zeng.sweep_max_workers".into(),
            reduce: "the sweep's largest worker count, or the number of distinct worker groups (device and batch size)".into(),
        }]
    }

    /// The push queue's iteration time (Algorithm 1/2) on the run's
    /// cluster, without the report's sweeps.
    fn predict_run(&self, s: &Scenario) -> Option<Result<RunPrediction, Unavailable>> {
        Some(predict_run(s))
    }

    fn run_predictor(&self, s: &Scenario) -> Option<crate::models::RunPredictor> {
        run_predictor(s)
    }

    /// The push queue once, without the sweeps.
    fn headline(&self, s: &Scenario) -> Result<Vec<crate::report::Figure>, Unavailable> {
        given(s)?;
        let e = super::eval::evaluate_headline(s).map_err(Unavailable::invalid)?;
        Ok(super::report::headline(&e))
    }

    /// The worker sweeps without the bandwidth line, numbers only.
    fn curves(&self, s: &Scenario) -> Result<Vec<crate::report::Chart>, Unavailable> {
        given(s)?;
        let e = super::eval::evaluate_worker_sweeps(s).map_err(Unavailable::invalid)?;
        Ok(super::report::curve_charts(&e))
    }

    /// Worker positions in the push queue and the worker sweeps.
    fn curves_work(&self, s: &Scenario) -> Vec<Work> {
        let (workers, lines, n) = queue_shape(s);
        vec![Work {
            units: workers + lines * n * (n + 1.0) / 2.0,
            unit: "worker positions in the push queue",
            limit: MAX_BAND_QUEUED,
            field: "models.zeng.sweep_max_workers".into(),
            reduce: "the scaling charts' largest worker count".into(),
        }]
    }

    /// Worker positions in one push queue.
    fn headline_work(&self, s: &Scenario) -> Vec<Work> {
        let workers: f64 = s
            .hardware
            .cluster
            .workers
            .iter()
            .map(|g| f64::from(g.count))
            .sum();
        vec![Work {
            units: workers,
            unit: "worker positions in the push queue",
            limit: MAX_QUEUED,
            field: "hardware.cluster.workers".into(),
            reduce: "the number of workers".into(),
        }]
    }

    fn report(&self, s: &Scenario) -> Result<Report, Unavailable> {
        given(s)?;
        let e = evaluate_validated(s).map_err(|errors| Unavailable::Invalid { errors })?;
        let mut r = build(s, &e);
        if let Some(note) = calibrated_note(s) {
            r.notes.push(note);
        }
        // Validation keeps every input where the arithmetic stays finite;
        // should a number still overflow, say so rather than show "inf s".
        if let Some(at) = r.non_finite() {
            return Err(Unavailable::Invalid {
                errors: vec![FieldError {
                    field: "hardware.cluster".into(),
                    message: format!(
                        "these inputs give a number too large or too small to compute ({at}): check the devices' rates, the link and the network's size"
                    ),
                }],
            });
        }
        Ok(r)
    }
}

/// The inputs Zeng cannot do without (a network, workers, a PS link),
/// and the PS side's bandwidth [B/s].
fn given(s: &Scenario) -> Result<f64, Unavailable> {
    let net = &s.workload.network;
    if net.layers.is_empty() && net.given.is_none() {
        return Err(Unavailable::missing(
            "workload.network.layers",
            "a layer table: add conv or fc rows, import one, or pick a network preset",
        ));
    }
    if s.hardware.cluster.workers.is_empty() {
        return Err(Unavailable::missing(
            "hardware.cluster.workers",
            "the cluster has no workers: add a worker group",
        ));
    }
    s.hardware
        .cluster
        .ps
        .total_bandwidth(&s.hardware.catalog)
        .ok_or_else(|| {
            Unavailable::missing(
                "hardware.cluster.ps.link",
                "the PS link: type its bandwidth, or pick a PS instance that has a network bandwidth",
            )
        })
}

/// One push queue for the scenario's cluster: its iteration time.
fn predict_run(s: &Scenario) -> Result<RunPrediction, Unavailable> {
    let bandwidth = given(s)?;
    let workers = worker_inputs(s).map_err(Unavailable::invalid)?;
    let (_, net) = network_figures(s);
    let f = factors::applied(s);
    let link = Link {
        bandwidth_bytes_per_s: bandwidth * f.link,
        latency_s: s.hardware.cluster.ps.latency_s + f.latency_s,
    };
    Ok(RunPrediction::iteration(simulate(&net, &workers, &link).iteration_s))
}

/// `predict_run` with the network, the workers as published and the
/// PS side read once; each call applies the factors and runs the queue.
fn run_predictor(s: &Scenario) -> Option<crate::models::RunPredictor> {
    let bandwidth = given(s).ok()?;
    let mut base = s.clone();
    base.calibration.set(section::ID, Default::default());
    let workers = worker_inputs(&base).ok()?;
    // Each worker's rate factor by its key, so a call allocates no name.
    let rate_keys: Vec<String> = s
        .hardware
        .cluster
        .workers
        .iter()
        .flat_map(|g| {
            std::iter::repeat_n(
                format!("{}{}", factors::RATE_PREFIX, g.instance),
                g.count as usize,
            )
        })
        .collect();
    let (_, net) = network_figures(s);
    let ps_latency = s.hardware.cluster.ps.latency_s;
    Some(Box::new(move |values| {
        let get = |key: &str, published: f64| {
            values
                .get(key)
                .copied()
                .filter(|v| v.is_finite())
                .unwrap_or(published)
        };
        let scaled: Vec<WorkerInput> = workers
            .iter()
            .zip(&rate_keys)
            .map(|(w, key)| WorkerInput {
                name: String::new(),
                processor: factors::at_rate_fraction(w.processor.clone(), get(key, 1.0)),
                batch_size: w.batch_size,
            })
            .collect();
        let link = Link {
            bandwidth_bytes_per_s: bandwidth * get(factors::LINK, 1.0),
            latency_s: ps_latency + get(factors::LATENCY, 0.0),
        };
        Some(RunPrediction::iteration(
            simulate(&net, &scaled, &link).iteration_s,
        ))
    }))
}

/// "Calibrated: …" when the scenario has Zeng factors, so a figure is
/// never taken for the paper's own.
fn calibrated_note(s: &Scenario) -> Option<crate::report::Note> {
    let stored = s.calibration.of(section::ID)?;
    let list: Vec<String> = stored.iter().map(|(k, v)| format!("{k} = {v:.4}")).collect();
    Some(crate::report::Note::info(format!(
        "Calibrated on measured runs (calibration.zeng: {}): every figure, the timeline and the charts use these factors; without them the model is as published.",
        list.join(", ")
    )).at("calibration.zeng"))
}

/// What sizes the push queue's work: the cluster's workers, the sweep's
/// lines (one per device and batch, and the mix when there are several)
/// and its largest worker count.
fn queue_shape(s: &Scenario) -> (f64, f64, f64) {
    let groups = &s.hardware.cluster.workers;
    let workers: f64 = groups.iter().map(|g| f64::from(g.count)).sum();
    let mut kinds: Vec<(&str, u32)> = groups
        .iter()
        .map(|g| (g.instance.as_str(), g.batch_size))
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    let lines = kinds.len() + usize::from(kinds.len() > 1);
    let n = f64::from(section::settings(s).sweep_max_workers);
    (workers, lines as f64, n)
}
