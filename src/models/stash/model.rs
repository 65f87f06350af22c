//! Stash in the registry: what it reads, its section's checks, and its
//! report.

use super::eval::{achieved, candidate, evaluate, figures};
use super::predict::{calibrate_with_stall, iteration_s, Candidate, Setup, Workload};
use super::report::build;
use super::section::{self, parse_configuration};
use super::factors;
use crate::models::{Import, Model, Need, RunPrediction, Unavailable, Work};
use crate::readers::AnyImporter;
use crate::report::Report;
use crate::errors::{err, FieldError};
use crate::scenario::Scenario;
use std::collections::BTreeMap;

pub struct Stash;

/// Configurations ranked at most (well under a second natively).
const MAX_CONFIGURATIONS: f64 = 1e6;

const IMPORTS: [Import; 1] = [Import {
    key: "runs",
    what: "measured runs: CSV `configuration, run, seconds, samples[, reference]` or JSON; replaces the section's runs",
    apply: |s, text| {
        let runs = super::runs_text::parse_runs(text)?;
        let n = runs.len();
        let mut c = section::settings(s);
        c.runs = runs;
        s.set_section(section::ID, &c);
        Ok(format!("{n} Stash runs"))
    },
}];

const NEEDS: [Need; 20] = [
    Need {
        field: "models.stash.runs",
        what: "measured runs (1)-(5) per configuration: configuration, run, seconds, samples (CSV or JSON), for the stall breakdown",
        optional: true,
        shown: None,
    },
    Need {
        field: "workload.network",
        what: "a layer table (L, G, FLOP per sample), or L, G and F_s typed in the section",
        optional: true,
        shown: None,
    },
    Need {
        field: "hardware.catalog",
        what: "GPU instance types: GPUs per instance, dense peak per GPU at the chosen precision, interconnect kind and bandwidth, network bandwidth, price",
        optional: false,
        shown: None,
    },
    Need {
        field: "hardware.precision",
        what: "which dense peak the prediction uses (FP32, TF32, FP16, BF16)",
        optional: true,
        shown: None,
    },
    Need {
        field: "hardware.pricing",
        what: "on-demand or spot prices for the costs",
        optional: true,
        shown: None,
    },
    Need {
        field: "goals",
        what: "time goal [s] and budget [USD] for the cheapest configuration that meets them",
        optional: true,
        shown: None,
    },
    section::LAYERS.need(),
    section::EXTRA_LAYERS.need(),
    section::GRADIENT.need(),
    section::BYTES_PER_VALUE.need(),
    section::TAU_NVLINK.need(),
    section::TAU_PCIE.need(),
    section::TAU_NETWORK.need(),
    section::FLOP_PER_SAMPLE.need(),
    section::BATCH.need(),
    section::ACHIEVED.need(),
    section::OVERLAP.need(),
    section::EPOCH_SAMPLES.need(),
    section::EPOCHS.need(),
    section::MAX_MACHINES.need(),
];

/// What its paper prints of its own accuracy (`runs::papers`): nothing
/// a measured run can hold, and why.
static PAPER_CHECK: crate::runs::papers::PaperCheck = crate::runs::papers::PaperCheck {
    tables: &[],
    sets: &[],
    notes: &["it prints its measured times and costs per epoch only as figures (training time and cost per epoch of each instance), and in its text stall percentages, not times: no cell is shipped."],
};

impl Model for Stash {
    fn paper_check(&self) -> Option<&'static crate::runs::papers::PaperCheck> {
        Some(&PAPER_CHECK)
    }


    fn id(&self) -> &'static str {
        section::ID
    }

    fn name(&self) -> &'static str {
        "Stash"
    }

    fn about(&self) -> &'static str {
        "data-parallel all-reduce training on cloud GPUs: interconnect, network, CPU and disk stalls from five measured runs, the layer-wise comm model (τ + G/(L·B))·L, and (an extension) time and cost of every catalog configuration, ranked"
    }

    fn paper(&self) -> &'static str {
        "Sharma, Bhasi, Singh, Jain, Gunasekaran, Mitra, Kandemir, Kesidis, Das. Stash: A comprehensive stall-centric characterization of public cloud VMs for distributed deep learning. ICDCS 2023 (Sec. IV-B, VI-A, Table I)"
    }

    fn assumes(&self) -> &'static str {
        "Stash's prediction (an extension) is synchronous all-reduce without a parameter server: compute from FLOP per sample at an achieved fraction of the GPU's peak, plus a ring all-reduce."
    }

    fn needs(&self) -> &'static [Need] {
        &NEEDS
    }

    fn file_importers(&self) -> &'static [&'static dyn AnyImporter] {
        &[&super::runs_text::RUNS]
    }

    fn imports(&self) -> &'static [Import] {
        &IMPORTS
    }

    fn reads(&self) -> &'static [&'static str] {
        &[
            "workload.network",
            "hardware.catalog",
            "hardware.pricing",
            "hardware.precision",
            "goals.",
            "models.stash",
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

    fn run_predictor(&self, s: &Scenario) -> Option<crate::models::RunPredictor> {
        run_predictor(s)
    }

    /// Configurations ranked: every catalog type at 1..=M machines, plus
    /// the measured runs.
    fn work(&self, s: &Scenario) -> Vec<Work> {
        let settings = section::settings(s);
        vec![Work {
            units: s.hardware.catalog.len() as f64 * f64::from(settings.max_machines)
                + settings.runs.len() as f64,
            unit: "configurations",
            limit: MAX_CONFIGURATIONS,
            field: "models.stash.max_machines".into(),
            reduce: "the most machines per configuration, or the catalog".into(),
        }]
    }

    /// The all-reduce prediction (`predict.rs`) of the run's cluster when
    /// it is one of Stash's configurations: machines of one type.
    fn predict_run(&self, s: &Scenario) -> Option<Result<RunPrediction, Unavailable>> {
        Some(predict_run(s))
    }

    fn report(&self, s: &Scenario) -> Result<Report, Unavailable> {
        let mut r = evaluate(s).map(|e| build(s, &e))?;
        r.notes
            .extend(crate::calibration::calibrated_note(s, section::ID));
        Ok(r)
    }

    /// The evaluation without the report's tables and charts.
    fn headline(&self, s: &Scenario) -> Result<Vec<crate::report::Figure>, Unavailable> {
        evaluate(s).map(|e| super::report::headline(&e))
    }
}

/// The run as a configuration of `m` machines of one type, predicted at
/// the run's global batch with the section's achieved fraction (typed or
/// calibrated), overlap and ring: compute plus the exposed all-reduce.
fn predict_run(s: &Scenario) -> Result<RunPrediction, Unavailable> {
    let none = Default::default();
    let values = s.calibration.of(section::ID).unwrap_or(&none);
    RunInputs::of(s)?.predict(values)
}

/// `predict_run` read once from the scenario; each call applies the
/// factors (`Model::run_predictor`).
fn run_predictor(s: &Scenario) -> Option<crate::models::RunPredictor> {
    let inputs = RunInputs::of(s).ok()?;
    Some(Box::new(move |values| inputs.predict(values).ok()))
}

/// What a run's prediction reads from the scenario, before the factors.
struct RunInputs {
    /// The run's configuration, as published.
    config: Candidate,
    workload: Workload,
    own: Setup,
    run: Setup,
    /// Typed `a`, or the configuration (as published) and the measured
    /// iteration [s] it is calibrated from.
    achieved: Result<f64, (Candidate, f64)>,
    /// `rate:<instance>` of the configuration.
    rate_key: String,
    /// `hardware.catalog[k]`, where the configuration's errors are.
    at: String,
    /// The section's `calibrate.iteration_s`, where its errors are.
    calibrate_at: String,
}

impl RunInputs {
    fn of(s: &Scenario) -> Result<Self, Unavailable> {
        let set = section::settings(s);
        let figs = figures(s, &set);
        let Some(w) = figs.workload() else {
            let needs = [
                (figs.flop_per_sample.is_none(), "flop_per_sample", "the training FLOP per sample"),
                (figs.layers.is_none(), "layers", "the layers L that carry gradients"),
                (figs.gradient_bytes.is_none(), "gradient_bytes", "the gradient bytes G"),
            ]
            .into_iter()
            .filter(|(lacks, _, _)| *lacks)
            .map(|(_, field, what)| {
                err(
                    format!("models.{}.{field}", section::ID),
                    format!("{what}: a layer table in the workload, or typed"),
                )
            })
            .collect();
            return Err(Unavailable::Missing { needs });
        };
        let groups = &s.hardware.cluster.workers;
        let Some(first) = groups.first() else {
            return Err(Unavailable::missing(
                "hardware.cluster.workers",
                "the cluster has no workers",
            ));
        };
        if let Some(other) = groups.iter().find(|g| g.instance != first.instance) {
            return Err(Unavailable::missing(
                "hardware.cluster.workers",
                format!(
                    "Stash predicts machines of one instance type; this cluster mixes {} and {}",
                    first.instance, other.instance
                ),
            ));
        }
        let Some(k) = s.hardware.catalog.iter().position(|i| i.name == first.instance) else {
            return Err(Unavailable::missing(
                "hardware.cluster.workers",
                format!("'{}' is not in the instance catalog", first.instance),
            ));
        };
        let at = format!("hardware.catalog[{k}]");
        let machines: u32 = groups.iter().map(|g| g.count).sum();
        let global: u64 = groups
            .iter()
            .map(|g| u64::from(g.count) * u64::from(g.batch_size))
            .sum();
        // Validation bounds it (4,096 workers × 10⁶ samples < 2³²).
        let batch = u32::try_from(global).map_err(|_| {
            Unavailable::missing("hardware.cluster.workers", "a global batch below 2³² samples")
        })?;
        let (precision, pricing) = (s.hardware.precision, s.hardware.pricing);
        let config = candidate(&s.hardware.catalog[k], machines, &set, precision, pricing)
            .map_err(|m| Unavailable::missing(&at, m.to_string()))?;
        let own = Setup {
            batch: set.batch,
            batch_per_gpu: set.batch_per_gpu,
            overlap: set.overlap,
            ring: set.ring,
            epoch_samples: set.epoch_samples,
            epochs: set.epochs,
        };
        // The one-run calibration's configuration, read as `achieved`
        // reads it (its errors are `achieved`'s, as published).
        let mut published = s.clone();
        published.calibration.set(section::ID, Default::default());
        achieved(&published, &set, &w, &own)?;
        let achieved = match &set.calibrate {
            None => Ok(set.achieved),
            Some(cal) => {
                let from = parse_configuration(&cal.configuration)
                    .ok()
                    .and_then(|(name, m)| {
                        let inst = s.instance(&name)?;
                        candidate(inst, m, &set, precision, pricing).ok()
                    })
                    .ok_or_else(|| {
                        Unavailable::missing(
                            &format!("models.{}.calibrate.configuration", section::ID),
                            "a configuration of the catalog to calibrate on",
                        )
                    })?;
                Err((from, cal.iteration_s))
            }
        };
        let run = Setup {
            batch,
            batch_per_gpu: false,
            ..own
        };
        Ok(RunInputs {
            rate_key: format!("{}{}", factors::RATE_PREFIX, config.instance),
            config,
            workload: w,
            own,
            run,
            achieved,
            at,
            calibrate_at: format!("models.{}.calibrate.iteration_s", section::ID),
        })
    }

    /// The prediction with the factors `values` (by name; absent: as
    /// published), applied as `factors::Applied` applies them.
    fn predict(&self, values: &BTreeMap<String, f64>) -> Result<RunPrediction, Unavailable> {
        let get = |key: &str, published: f64| factors::value(values, key, published);
        let (interconnect, network) = (get(factors::INTERCONNECT, 1.0), get(factors::NETWORK, 1.0));
        let stall_s = get(factors::STALL, 0.0);
        let rate = |c: &Candidate| get(&format!("{}{}", factors::RATE_PREFIX, c.instance), 1.0);
        let a = match &self.achieved {
            Ok(a) => *a,
            Err((from, iteration_s)) => {
                let f = rate(from);
                let mut from = from.clone();
                factors::scale(&mut from, f, interconnect, network);
                calibrate_with_stall(&from, &self.workload, &self.own, *iteration_s, stall_s)
                    .map_err(|e| {
                        Unavailable::invalid(vec![err(&self.calibrate_at, e.to_string())])
                    })?
            }
        };
        let mut c = self.config.clone();
        factors::scale(&mut c, get(&self.rate_key, 1.0), interconnect, network);
        let t = iteration_s(&c, &self.workload, &self.run, a, stall_s)
            .map_err(|m| Unavailable::missing(&self.at, m.to_string()))?;
        Ok(RunPrediction::iteration(t).with_note(
            "Stash's prediction (this product's all-reduce extension) has no parameter server, and leaves out the CPU-prep and disk stalls its measured runs show",
        ))
    }
}
