//! One row of a FLOP-count layer table (Zeng et al., Sec. 4.1, Eq. 4).
//!
//! Units: FLOP per sample for the forward pass; counts are plain numbers.
//! A fully connected layer is a convolution with `kh = kw = outh = outw = 1`.

use serde::{Deserialize, Serialize};

/// The layer kinds Eq. 4 counts. Everything else (pooling, activations, …)
/// is listed as ignored by the importers, never silently dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LayerKind {
    Conv,
    Fc,
}

impl LayerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LayerKind::Conv => "conv",
            LayerKind::Fc => "fc",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "conv" | "convolution" => Some(LayerKind::Conv),
            "fc" | "dense" | "linear" | "fully_connected" | "innerproduct" => Some(LayerKind::Fc),
            _ => None,
        }
    }
}

/// Largest value accepted for any single dimension: generous for real
/// networks, small enough that products stay exact in `f64`.
pub const MAX_DIM: u64 = 1 << 24;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Layer {
    pub name: String,
    pub kind: LayerKind,
    /// Input channels (`inch`).
    pub inch: u64,
    /// Kernel height and width.
    pub kh: u64,
    pub kw: u64,
    /// Output channels (`outn`), height and width.
    pub outn: u64,
    pub outh: u64,
    pub outw: u64,
    /// Trainable weights, when they differ from `inch·kh·kw·outn`
    /// (e.g. grouped convolutions). Biases are never included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<u64>,
}

impl Layer {
    pub fn conv(name: &str, inch: u64, k: u64, outn: u64, out: u64) -> Self {
        Layer {
            name: name.to_string(),
            kind: LayerKind::Conv,
            inch,
            kh: k,
            kw: k,
            outn,
            outh: out,
            outw: out,
            params: None,
        }
    }

    pub fn fc(name: &str, inputs: u64, outputs: u64) -> Self {
        Layer {
            name: name.to_string(),
            kind: LayerKind::Fc,
            inch: inputs,
            kh: 1,
            kw: 1,
            outn: outputs,
            outh: 1,
            outw: 1,
            params: None,
        }
    }

    /// Eq. 4: `2 · inch · kh · kw · outn · outh · outw` FLOP per sample.
    pub fn forward_flop(&self) -> f64 {
        2.0 * self.inch as f64
            * self.kh as f64
            * self.kw as f64
            * self.outn as f64
            * self.outh as f64
            * self.outw as f64
    }

    /// Trainable weights, biases excluded (Table 1's backward = 85 × this).
    pub fn weights(&self) -> u64 {
        self.params.unwrap_or_else(|| {
            self.inch
                .saturating_mul(self.kh)
                .saturating_mul(self.kw)
                .saturating_mul(self.outn)
        })
    }

    /// One bias per output channel.
    pub fn biases(&self) -> u64 {
        self.outn
    }

    /// Elements of the layer's output tensor, per sample.
    pub fn output_elements(&self) -> u64 {
        self.outn
            .saturating_mul(self.outh)
            .saturating_mul(self.outw)
    }

    /// Checks every dimension; the error names the layer and the field.
    pub fn validate(&self) -> Result<(), LayerError> {
        let dims = [
            ("inch", self.inch),
            ("kh", self.kh),
            ("kw", self.kw),
            ("outn", self.outn),
            ("outh", self.outh),
            ("outw", self.outw),
        ];
        let layer = || self.name.clone();
        for (field, value) in dims {
            if value == 0 {
                return Err(LayerError::Zero {
                    layer: layer(),
                    field,
                });
            }
            if value > MAX_DIM {
                return Err(LayerError::TooLarge {
                    layer: layer(),
                    field,
                    value,
                });
            }
        }
        if self.kind == LayerKind::Fc
            && (self.kh != 1 || self.kw != 1 || self.outh != 1 || self.outw != 1)
        {
            return Err(LayerError::FcShape { layer: layer() });
        }
        Ok(())
    }
}

/// Why a layer's dimensions describe no layer Eq. 4 can count.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LayerError {
    #[error("layer '{layer}': {field} must be at least 1")]
    Zero { layer: String, field: &'static str },
    #[error("layer '{layer}': {field} = {value} is larger than {MAX_DIM}, the largest accepted dimension")]
    TooLarge {
        layer: String,
        field: &'static str,
        value: u64,
    },
    #[error("layer '{layer}': a fully connected layer has kh = kw = outh = outw = 1")]
    FcShape { layer: String },
}
