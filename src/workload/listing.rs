//! The network a scenario uses, as `ddnn-planner eval` lists it: per layer
//! its shape, weights and forward FLOP (Eq. 4, and Paleo's count for a
//! Paleo import), the totals, and the layers Eq. 4 does not count, each
//! with the reason.
//!
//! Units: FLOP per sample (Eq. 4), FLOP per batch (Paleo), counts.

use std::collections::HashMap;

use serde::Serialize;

use super::layer::LayerKind;
use super::network::{GivenFigures, Network};
use super::paleo::PaleoImport;
use crate::report::{fmt_count, Column, Table, Unit, Value};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Listing {
    pub name: String,
    /// The layers Eq. 4 counts, in order.
    pub layers: Vec<LayerRow>,
    pub totals: Totals,
    /// The layers an importer read and Eq. 4 does not count.
    pub ignored: Vec<IgnoredRow>,
    /// Figures that replace the sums over the layers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub given: Option<GivenFigures>,
    /// A Paleo import: its batch (the Input's N; `None` when the file
    /// leaves it open, and Paleo's figures are for N = 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paleo: Option<PaleoBatch>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PaleoBatch {
    pub batch: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayerRow {
    pub name: String,
    pub kind: LayerKind,
    pub inch: u64,
    pub kh: u64,
    pub kw: u64,
    pub outn: u64,
    pub outh: u64,
    pub outw: u64,
    /// Trainable weights, biases excluded.
    pub weights: u64,
    pub biases: u64,
    /// [FLOP per sample] Eq. 4.
    pub forward_flop: f64,
    /// [FLOP per batch] Paleo's own count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paleo_flop: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Totals {
    pub layers: usize,
    /// Summed over the layers, or given.
    pub weights: f64,
    pub biases: f64,
    /// [FLOP per sample] Eq. 4, summed over the layers or given.
    pub forward_flop: f64,
    /// [FLOP per batch] Paleo's count over every layer of the file,
    /// pooling and dropout included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paleo_flop: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IgnoredRow {
    pub name: String,
    /// The importer's type name ("Pooling").
    pub kind: String,
    pub reason: String,
    /// Paleo's output `[N, H, W, C]` and FLOP per batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paleo_output: Option<[u64; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paleo_flop: Option<f64>,
}

/// `net` as listed; `paleo` is the import it came from, if a Paleo file.
pub fn listing(net: &Network, paleo: Option<&PaleoImport>) -> Listing {
    let by_name: HashMap<&str, _> = paleo
        .map(|p| p.layers.iter().map(|l| (l.name.as_str(), l)).collect())
        .unwrap_or_default();
    let layers = net
        .layers
        .iter()
        .map(|l| LayerRow {
            name: l.name.clone(),
            kind: l.kind,
            inch: l.inch,
            kh: l.kh,
            kw: l.kw,
            outn: l.outn,
            outh: l.outh,
            outw: l.outw,
            weights: l.weights(),
            biases: l.biases(),
            forward_flop: l.forward_flop(),
            paleo_flop: by_name.get(l.name.as_str()).map(|p| p.paleo_flop_per_batch),
        })
        .collect();
    let ignored = net
        .ignored
        .iter()
        .map(|i| {
            let p = by_name.get(i.name.as_str());
            IgnoredRow {
                name: i.name.clone(),
                kind: i.kind.clone(),
                reason: i.reason.clone(),
                paleo_output: p.map(|p| p.output_shape),
                paleo_flop: p.map(|p| p.paleo_flop_per_batch),
            }
        })
        .collect();
    let s = net.summary();
    Listing {
        name: net.name.clone(),
        layers,
        totals: Totals {
            layers: net.layers.len(),
            weights: s.weights,
            biases: s.biases,
            forward_flop: s.forward_flop_eq4,
            paleo_flop: paleo.map(|p| p.paleo_forward_flop_per_batch),
        },
        ignored,
        given: net.given.clone(),
        paleo: paleo.map(|p| PaleoBatch {
            batch: p.batch_size,
        }),
    }
}

impl Listing {
    /// The layers with their total, and the layers not counted, as tables.
    pub fn tables(&self) -> Vec<Table> {
        let paleo_col = self.paleo.map(|p| match p.batch {
            Some(n) => format!("Paleo FLOP/batch of {n}"),
            None => "Paleo FLOP/sample".to_string(),
        });
        let mut columns = vec![
            Column::new("layer", Unit::None),
            Column::new("kind", Unit::None),
            Column::new("inch", Unit::Count),
            Column::new("kernel", Unit::None),
            Column::new("output (n×h×w)", Unit::None),
            Column::new("weights", Unit::Count),
            Column::new("forward FLOP/sample (Eq. 4)", Unit::Count),
        ];
        columns.extend(
            paleo_col
                .iter()
                .map(|c| Column::new(c.clone(), Unit::Count)),
        );
        let paleo = self.paleo.is_some();
        let mut rows: Vec<Vec<Value>> = self
            .layers
            .iter()
            .map(|l| {
                let mut row = vec![
                    Value::text(l.name.clone()),
                    Value::text(l.kind.as_str()),
                    Value::count(l.inch as f64),
                    Value::text(format!("{}×{}", l.kh, l.kw)),
                    Value::text(format!("{}×{}×{}", l.outn, l.outh, l.outw)),
                    Value::count(l.weights as f64),
                    Value::count(l.forward_flop),
                ];
                if paleo {
                    row.push(l.paleo_flop.map_or(Value::text(""), Value::count));
                }
                row
            })
            .collect();
        let t = &self.totals;
        let mut total = vec![
            Value::text(format!("total ({} layers)", fmt_count(t.layers as f64))),
            Value::text(""),
            Value::text(""),
            Value::text(""),
            Value::text(""),
            Value::count(t.weights),
            Value::count(t.forward_flop),
        ];
        if paleo {
            let counted: f64 = self.layers.iter().filter_map(|l| l.paleo_flop).sum();
            total.push(Value::count(counted));
        }
        rows.push(total);
        let mut caption = format!(
            "Eq. 4: 2·inch·kh·kw·outn·outh·outw FLOP per sample; weights exclude the {} biases (one per output channel).",
            fmt_count(t.biases)
        );
        if let Some(g) = &self.given {
            caption.push_str(&format!(
                " The totals are given figures, not the layers' sums: {}.",
                g.source
            ));
        }
        if let (Some(total), Some(p)) = (t.paleo_flop, self.paleo) {
            caption.push_str(&format!(
                " Paleo counts {} FLOP {} over every layer (pooling and dropout included).",
                fmt_count(total),
                match p.batch {
                    Some(n) => format!("per batch of {n}"),
                    None => "per sample (the file leaves its batch open)".to_string(),
                }
            ));
        }
        let mut tables = vec![Table {
            key: "network-layers".into(),
            title: format!(
                "Network '{}': {} counted by Eq. 4",
                self.name,
                plural(t.layers, "layer")
            ),
            columns,
            rows,
            caption,
            omitted_rows: 0,
        }];
        if !self.ignored.is_empty() {
            let mut columns = vec![
                Column::new("layer", Unit::None),
                Column::new("type", Unit::None),
            ];
            if paleo {
                columns.push(Column::new("output (N×H×W×C)", Unit::None));
                columns.extend(
                    paleo_col
                        .iter()
                        .map(|c| Column::new(c.clone(), Unit::Count)),
                );
            }
            columns.push(Column::new("why not counted", Unit::None));
            let rows = self
                .ignored
                .iter()
                .map(|i| {
                    let mut row = vec![Value::text(i.name.clone()), Value::text(i.kind.clone())];
                    if paleo {
                        row.push(Value::text(
                            i.paleo_output
                                .map_or(String::new(), |[n, h, w, c]| format!("{n}×{h}×{w}×{c}")),
                        ));
                        row.push(i.paleo_flop.map_or(Value::text(""), Value::count));
                    }
                    row.push(Value::text(i.reason.clone()));
                    row
                })
                .collect();
            tables.push(Table {
                key: "network-ignored".into(),
                title: format!(
                    "{} not counted by Eq. 4",
                    plural(self.ignored.len(), "layer")
                ),
                columns,
                rows,
                caption: String::new(),
                omitted_rows: 0,
            });
        }
        tables
    }
}

/// "1 layer", "1,024 layers".
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", fmt_count(n as f64))
    }
}
