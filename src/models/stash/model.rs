//! Stash in the registry: what it reads, its section's checks, and its
//! report.

use super::eval::evaluate;
use super::report::build;
use super::section;
use crate::models::{Import, Model, Need, Unavailable, Work};
use crate::readers::AnyImporter;
use crate::report::Report;
use crate::errors::FieldError;
use crate::scenario::Scenario;

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
    },
    Need {
        field: "workload.network",
        what: "a layer table (L, G, FLOP per sample), or L, G and F_s typed in the section",
        optional: true,
    },
    Need {
        field: "hardware.catalog",
        what: "GPU instance types: GPUs per instance, dense peak per GPU at the chosen precision, interconnect kind and bandwidth, network bandwidth, price",
        optional: false,
    },
    Need {
        field: "hardware.precision",
        what: "which dense peak the prediction uses (FP32, TF32, FP16, BF16)",
        optional: true,
    },
    Need {
        field: "hardware.pricing",
        what: "on-demand or spot prices for the costs",
        optional: true,
    },
    Need {
        field: "goals",
        what: "time goal [s] and budget [USD] for the cheapest configuration that meets them",
        optional: true,
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

impl Model for Stash {
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
        section::validate(s)
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

    fn report(&self, s: &Scenario) -> Result<Report, Unavailable> {
        evaluate(s).map(|e| build(s, &e))
    }
}
