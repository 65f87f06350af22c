//! A network as the models see it: its layer table, or the figures a paper
//! gives when no layer table reproduces them (Zeng Table 1's ResNets).
//!
//! Units: FLOP per sample (forward), FLOP per iteration (backward), counts.

use serde::{Deserialize, Serialize};

use super::layer::Layer;
use crate::bounds::Bounds;

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
    /// Values sent per push (`G`, the gradients) and, unless
    /// `pull_values` says otherwise, per pull; defaults to the weights.
    /// Tables 6-7 send weights + biases of TensorFlow's 1001-class variants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer_values: Option<f64>,
    /// Values per pull (`P`, the parameters, Eq. 30) when they differ from
    /// a push's (compressed or lower-precision gradients); defaults to
    /// the push's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_values: Option<f64>,
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
    /// Values per push.
    pub transfer_values: f64,
    /// Values per pull.
    pub pull_values: f64,
    pub from_given_figures: bool,
}

/// Largest number of layers accepted in one table.
pub const MAX_LAYERS: usize = 10_000;

impl Network {
    /// A network of `layers` and nothing else: no given figures, pushes
    /// or transfer count (the model defaults apply).
    pub fn from_layers(name: impl Into<String>, layers: Vec<Layer>) -> Self {
        Network {
            name: name.into(),
            layers,
            given: None,
            pushes: None,
            extra_forward_flop_per_sample: 0.0,
            transfer_values: None,
            pull_values: None,
            ignored: Vec::new(),
        }
    }

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
            pull_values: self.pull_values.or(self.transfer_values).unwrap_or(weights),
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
        self.validate_fields().into_iter().map(|(_, m)| m).collect()
    }

    /// Every problem as (scenario field, message): the network's own
    /// figures at `workload.network.<field>`, a layer at
    /// `workload.network.layers[i]`. Messages name the network or layer.
    pub fn validate_fields(&self) -> Vec<(String, String)> {
        const AT: &str = "workload.network";
        let name = &self.name;
        let mut errs: Vec<(String, String)> = Vec::new();
        if self.layers.len() > MAX_LAYERS {
            errs.push((
                format!("{AT}.layers"),
                format!(
                    "network '{name}': {} layers is more than the {MAX_LAYERS} accepted",
                    self.layers.len()
                ),
            ));
            return errs;
        }
        let mut check = |field: &str, what: &str, b: Bounds, v: f64| {
            if let Some(m) = b.check(what, v) {
                errs.push((format!("{AT}.{field}"), format!("network '{name}': {m}")));
            }
        };
        match &self.given {
            Some(g) => {
                check(
                    "given.forward_flop",
                    "given forward FLOP per sample",
                    FORWARD_FLOP,
                    g.forward_flop,
                );
                check("given.weights", "given weights", WEIGHTS, g.weights);
            }
            None => {
                // No layers is not an error: models that need them (Zeng)
                // say so; the others (spotDNN's measured profiles) run.
                let mut bad_layer = false;
                for (i, l) in self.layers.iter().enumerate() {
                    if let Err(m) = l.validate() {
                        bad_layer = true;
                        errs.push((format!("{AT}.layers[{i}]"), m.to_string()));
                    }
                }
                if !bad_layer && !self.layers.is_empty() {
                    // Every dimension is in range; their products may still
                    // describe no trainable network.
                    let s = self.summary();
                    let mut check = |field: &str, what: &str, b: Bounds, v: f64| {
                        if let Some(m) = b.check(what, v) {
                            errs.push((format!("{AT}.{field}"), format!("network '{name}': {m}")));
                        }
                    };
                    check(
                        "layers",
                        "forward FLOP per sample (Eq. 4, all layers)",
                        FORWARD_FLOP,
                        s.forward_flop_eq4,
                    );
                    check("layers", "weights (all layers)", WEIGHTS_OR_NONE, s.weights);
                }
            }
        }
        let mut check = |field: &str, what: &str, b: Bounds, v: f64| {
            if let Some(m) = b.check(what, v) {
                errs.push((format!("{AT}.{field}"), format!("network '{name}': {m}")));
            }
        };
        if let Some(p) = self.pushes {
            check("pushes", "pushes per iteration", PUSHES, f64::from(p));
        }
        check(
            "extra_forward_flop_per_sample",
            "extra forward FLOP per sample",
            EXTRA_FLOP,
            self.extra_forward_flop_per_sample,
        );
        if let Some(t) = self.transfer_values {
            check("transfer_values", "values per push", WEIGHTS, t);
        }
        if let Some(t) = self.pull_values {
            check("pull_values", "values per pull", WEIGHTS, t);
        }
        errs
    }
}

/// Forward FLOP per sample: up to 10^18 (a thousand times GPT-3's).
pub const FORWARD_FLOP: Bounds = Bounds::plain(1.0, 1e18);
/// Weights, and values per push/pull: 1 to 10^13.
pub const WEIGHTS: Bounds = Bounds::plain(1.0, 1e13);
/// A layer table's weights may sum to 0 (every layer's `params` 0).
const WEIGHTS_OR_NONE: Bounds = Bounds::plain(0.0, 1e13);
/// Gradient pushes per iteration.
pub const PUSHES: Bounds = Bounds::plain(1.0, 1e6);
/// Activation FLOP Eq. 4 leaves out, per sample.
pub const EXTRA_FLOP: Bounds = Bounds::plain(0.0, 1e18);
