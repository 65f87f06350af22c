//! A network as the models see it: its layer table, or the figures a paper
//! gives when no layer table reproduces them (Zeng Table 1's ResNets).
//!
//! Units: FLOP per sample (forward), FLOP per iteration (backward), counts.

use serde::{Deserialize, Serialize};

use super::layer::Layer;

/// Figures taken as given instead of derived from layers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GivenFigures {
    /// Forward FLOP per sample (Table 1, column 2).
    pub forward_flop: f64,
    /// Trainable weights; Table 1's backward column is 85 × this.
    pub weights: f64,
    /// Where the figures come from, shown beside them.
    pub source: String,
}

/// A layer an importer read but Eq. 4 does not count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IgnoredLayer {
    pub name: String,
    pub kind: String,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Network {
    pub name: String,
    #[serde(default)]
    pub layers: Vec<Layer>,
    /// When set, these figures replace the sums over `layers`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<GivenFigures>,
    /// Gradient pushes per iteration (Table 1's "Number of push"); GPU
    /// workers start pushing after `backward / pushes` (Algorithm 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pushes: Option<u32>,
    /// Extra forward FLOP per sample for activations, which Eq. 4 leaves
    /// out; the authors' spreadsheet adds 83 per output element to AlexNet only.
    #[serde(default)]
    pub extra_forward_flop_per_sample: f64,
    /// Values sent per push and per pull; defaults to the weights.
    /// Tables 6-7 send weights + biases of TensorFlow's 1001-class variants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer_values: Option<f64>,
    /// Layers an importer skipped, kept so the UI can list them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<IgnoredLayer>,
}

/// What the models read from a network.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NetworkSummary {
    /// Eq. 4 summed over layers (or given), FLOP per sample.
    pub forward_flop_eq4: f64,
    /// `forward_flop_eq4 + extra_forward_flop_per_sample`.
    pub forward_flop: f64,
    pub weights: f64,
    pub biases: f64,
    pub output_elements: f64,
    /// Values per push/pull.
    pub transfer_values: f64,
    pub from_given_figures: bool,
}

/// Largest number of layers accepted in one table.
pub const MAX_LAYERS: usize = 10_000;

impl Network {
    pub fn summary(&self) -> NetworkSummary {
        let (fwd, weights, from_given) = match &self.given {
            Some(g) => (g.forward_flop, g.weights, true),
            None => (
                self.layers.iter().map(Layer::forward_flop).sum(),
                self.layers.iter().map(|l| l.weights() as f64).sum(),
                false,
            ),
        };
        NetworkSummary {
            forward_flop_eq4: fwd,
            forward_flop: fwd + self.extra_forward_flop_per_sample,
            weights,
            biases: self.layers.iter().map(|l| l.biases() as f64).sum(),
            output_elements: self.layers.iter().map(|l| l.output_elements() as f64).sum(),
            transfer_values: self.transfer_values.unwrap_or(weights),
            from_given_figures: from_given,
        }
    }

    /// Backward FLOP per iteration: `flops_per_weight × weights`
    /// (Eq. 22 with Table 1's convention, no bias term; 85 by default).
    pub fn backward_flop(&self, flops_per_weight: f64) -> f64 {
        flops_per_weight * self.summary().weights
    }

    /// Every problem, each naming the field or layer that causes it.
    pub fn validate(&self) -> Vec<String> {
        let mut errs = Vec::new();
        if self.layers.len() > MAX_LAYERS {
            errs.push(format!(
                "network '{}': {} layers is more than the {MAX_LAYERS} accepted",
                self.name,
                self.layers.len()
            ));
            return errs;
        }
        match &self.given {
            Some(g) => {
                if !(g.forward_flop.is_finite() && g.forward_flop > 0.0) {
                    errs.push("given forward FLOP must be a positive number".into());
                }
                if !(g.weights.is_finite() && g.weights > 0.0) {
                    errs.push("given weights must be a positive number".into());
                }
            }
            None => {
                if self.layers.is_empty() {
                    errs.push(format!(
                        "network '{}' has no conv or fc layers: add rows to the layer table or pick a preset",
                        self.name
                    ));
                }
                errs.extend(self.layers.iter().filter_map(|l| l.validate().err()));
            }
        }
        if let Some(p) = self.pushes {
            if p == 0 {
                errs.push("number of pushes must be at least 1".into());
            }
        }
        let extra = self.extra_forward_flop_per_sample;
        if !(extra.is_finite() && extra >= 0.0) {
            errs.push(format!(
                "extra forward FLOP per sample must be ≥ 0 (got {extra})"
            ));
        }
        if let Some(t) = self.transfer_values {
            if !(t.is_finite() && t > 0.0) {
                errs.push(format!(
                    "values per transfer must be a positive number (got {t})"
                ));
            }
        }
        errs
    }
}
