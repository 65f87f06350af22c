//! Where a range's values go: each range's dotted scenario path resolved
//! once to a setter, so a sample writes its values into one working copy
//! of the scenario without reading the document again.
//!
//! Paths are the ones field messages use:
//! - `hardware.cluster.ps.link` (bytes/s per PS node) and
//!   `hardware.cluster.ps.latency` (s);
//! - `hardware.catalog[i].<field>`: `flops_per_s`, `network_bytes_per_s`,
//!   `price_per_hour`, `spot_price_per_hour`, `interconnect_bytes_per_s`,
//!   `processor.hz`, `processor.simd`;
//! - `workload.loss.beta0`, `workload.loss.beta1`;
//! - `models.<id>.<field>` (dots for nested fields): a number a model's
//!   section holds, or an input the model lists (`Model::needs`);
//! - `calibration.<id>.<factor>`: a factor the model has on this
//!   scenario (`Model::factors`).

use std::sync::Arc;

use crate::hardware::{Instance, Processor};
use crate::models::MODELS;
use crate::scenario::Scenario;

/// A field of a catalog entry a range can be given on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CatalogField {
    FlopsPerS,
    NetworkBytesPerS,
    PricePerHour,
    SpotPricePerHour,
    InterconnectBytesPerS,
    ProcessorHz,
    ProcessorSimd,
}

const CATALOG_FIELDS: [(&str, CatalogField); 7] = [
    ("flops_per_s", CatalogField::FlopsPerS),
    ("network_bytes_per_s", CatalogField::NetworkBytesPerS),
    ("price_per_hour", CatalogField::PricePerHour),
    ("spot_price_per_hour", CatalogField::SpotPricePerHour),
    (
        "interconnect_bytes_per_s",
        CatalogField::InterconnectBytesPerS,
    ),
    ("processor.hz", CatalogField::ProcessorHz),
    ("processor.simd", CatalogField::ProcessorSimd),
];

/// One input a range writes.
#[derive(Clone, Debug, PartialEq)]
pub enum Setter {
    PsLink,
    PsLatency,
    Catalog {
        index: usize,
        field: CatalogField,
    },
    LossBeta0,
    LossBeta1,
    /// A number in model `model`'s section, at `keys` (nested objects);
    /// `integer`: the section holds a whole number there.
    Section {
        model: String,
        keys: Vec<String>,
        integer: bool,
    },
    Factor {
        model: String,
        name: String,
    },
}

/// Why no range can be given at a path.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PathError {
    #[error("this is not an input a range can be given on: give hardware.cluster.ps.link, hardware.cluster.ps.latency, hardware.catalog[i].<field>, workload.loss.beta0/beta1, models.<id>.<field> or calibration.<id>.<factor>")]
    Unsupported,
    #[error("the scenario has no loss model (β0, β1) to vary")]
    NoLoss,
    #[error("the catalog has no entry {index} (it has {len})")]
    NoCatalogEntry { index: usize, len: usize },
    #[error("a catalog entry's ranges can be on {fields}")]
    CatalogField { fields: String },
    #[error("'{name}' has no value there to vary: type one first")]
    NoValue { name: String },
    #[error("there is no model '{id}'")]
    NoModel { id: String },
    #[error("{model} has no number at '{field}' in its section here")]
    NoNumber { model: String, field: String },
    #[error("{model} has no calibration factors")]
    NoFactors { model: String },
    #[error("'{name}' is not a factor of {model} here; its factors: {known}")]
    UnknownFactor {
        name: String,
        model: String,
        known: String,
    },
}

/// The setter of `path` on `s`, or why no range can be given there.
pub fn resolve(s: &Scenario, path: &str) -> Result<Setter, PathError> {
    match path {
        "hardware.cluster.ps.link" => return Ok(Setter::PsLink),
        "hardware.cluster.ps.latency" => return Ok(Setter::PsLatency),
        "workload.loss.beta0" | "workload.loss.beta1" => {
            if s.workload.loss.is_none() {
                return Err(PathError::NoLoss);
            }
            return Ok(if path.ends_with("beta0") {
                Setter::LossBeta0
            } else {
                Setter::LossBeta1
            });
        }
        _ => {}
    }
    if let Some(rest) = path.strip_prefix("hardware.catalog[") {
        return catalog(s, rest);
    }
    let mut parts = path.splitn(3, '.');
    let (root, id, rest) = (parts.next(), parts.next(), parts.next());
    match (root, id, rest) {
        (Some("models"), Some(id), Some(field)) => section(s, id, field, path),
        (Some("calibration"), Some(id), Some(name)) => factor(s, id, name),
        _ => Err(PathError::Unsupported),
    }
}

fn catalog(s: &Scenario, rest: &str) -> Result<Setter, PathError> {
    let (index, field) = rest
        .split_once("].")
        .and_then(|(i, f)| Some((i.parse::<usize>().ok()?, f)))
        .ok_or(PathError::Unsupported)?;
    let inst = s
        .hardware
        .catalog
        .get(index)
        .ok_or(PathError::NoCatalogEntry {
            index,
            len: s.hardware.catalog.len(),
        })?;
    let field = CATALOG_FIELDS
        .iter()
        .find(|(name, _)| *name == field)
        .map(|(_, f)| *f)
        .ok_or_else(|| PathError::CatalogField {
            fields: CATALOG_FIELDS.map(|(n, _)| n).join(", "),
        })?;
    if catalog_get(inst, field).is_none() {
        return Err(PathError::NoValue {
            name: inst.name.clone(),
        });
    }
    Ok(Setter::Catalog { index, field })
}

fn section(s: &Scenario, id: &str, field: &str, path: &str) -> Result<Setter, PathError> {
    let model = model(id)?;
    let keys: Vec<String> = field.split('.').map(str::to_string).collect();
    let held = s
        .models
        .get(id)
        .and_then(|v| keys.iter().try_fold(v.as_ref(), |v, k| v.get(k)));
    let listed = model.needs().iter().any(|n| n.field == path);
    match held {
        Some(v) if v.is_number() => Ok(Setter::Section {
            model: id.into(),
            integer: v.is_u64() || v.is_i64(),
            keys,
        }),
        None if listed => Ok(Setter::Section {
            model: id.into(),
            keys,
            integer: false,
        }),
        _ => Err(PathError::NoNumber {
            model: model.name().into(),
            field: field.into(),
        }),
    }
}

fn model(id: &str) -> Result<&'static dyn crate::models::Model, PathError> {
    MODELS
        .iter()
        .copied()
        .find(|m| m.id() == id)
        .ok_or_else(|| PathError::NoModel { id: id.into() })
}

fn factor(s: &Scenario, id: &str, name: &str) -> Result<Setter, PathError> {
    let model = model(id)?;
    let specs = model.factors(s);
    if specs.iter().any(|f| f.name == name) {
        Ok(Setter::Factor {
            model: id.into(),
            name: name.into(),
        })
    } else if specs.is_empty() {
        Err(PathError::NoFactors {
            model: model.name().into(),
        })
    } else {
        Err(PathError::UnknownFactor {
            name: name.into(),
            model: model.name().into(),
            known: specs
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
    }
}

fn catalog_get(inst: &Instance, field: CatalogField) -> Option<f64> {
    match field {
        CatalogField::FlopsPerS => inst.flops_per_s,
        CatalogField::NetworkBytesPerS => inst.network_bytes_per_s,
        CatalogField::PricePerHour => inst.price_per_hour,
        CatalogField::SpotPricePerHour => inst.spot_price_per_hour,
        CatalogField::InterconnectBytesPerS => inst.interconnect_bytes_per_s,
        CatalogField::ProcessorHz => match inst.processor {
            Some(Processor::Cpu { hz, .. } | Processor::Gpu { hz, .. }) => Some(hz),
            None => None,
        },
        CatalogField::ProcessorSimd => match inst.processor {
            Some(Processor::Cpu { simd, .. }) => Some(simd),
            _ => None,
        },
    }
}

impl Setter {
    /// How the page shows the input: SI units per shown unit, and the
    /// unit ("" for a plain number), as its own field does.
    pub fn shown(&self, s: &Scenario) -> (f64, &'static str) {
        match self {
            Setter::PsLink => (1.25e8, "Gb/s"),
            Setter::PsLatency => (1.0, "s"),
            Setter::Catalog { field, .. } => match field {
                CatalogField::FlopsPerS => (1e9, "GFLOP/s"),
                CatalogField::NetworkBytesPerS => (1.25e8, "Gb/s"),
                CatalogField::PricePerHour | CatalogField::SpotPricePerHour => (1.0, "USD/h"),
                CatalogField::InterconnectBytesPerS => (1e9, "GB/s"),
                CatalogField::ProcessorHz => (1e9, "GHz"),
                CatalogField::ProcessorSimd => (1.0, "FLOP/cycle"),
            },
            Setter::LossBeta0 | Setter::LossBeta1 => (1.0, ""),
            Setter::Section { model, keys, .. } => {
                let path = format!("models.{model}.{}", keys.join("."));
                MODELS
                    .iter()
                    .filter(|m| m.id() == model)
                    .flat_map(|m| m.needs())
                    .find(|n| n.field == path)
                    .and_then(|n| n.shown)
                    .unwrap_or((1.0, ""))
            }
            Setter::Factor { model, name } => MODELS
                .iter()
                .filter(|m| m.id() == model)
                .flat_map(|m| m.factors(s))
                .find(|f| &f.name == name)
                .map_or((1.0, ""), |f| (1.0, f.unit)),
        }
    }

    /// The value `s` holds there (`None`: as published, or not given).
    pub fn get(&self, s: &Scenario) -> Option<f64> {
        match self {
            Setter::PsLink => s.hardware.cluster.ps.link_bytes_per_s,
            Setter::PsLatency => Some(s.hardware.cluster.ps.latency_s),
            Setter::Catalog { index, field } => s
                .hardware
                .catalog
                .get(*index)
                .and_then(|i| catalog_get(i, *field)),
            Setter::LossBeta0 => s.workload.loss.as_ref().map(|l| l.beta0),
            Setter::LossBeta1 => s.workload.loss.as_ref().map(|l| l.beta1),
            Setter::Section { model, keys, .. } => s
                .models
                .get(model)
                .and_then(|v| keys.iter().try_fold(v.as_ref(), |v, k| v.get(k)))
                .and_then(serde_json::Value::as_f64),
            Setter::Factor { model, name } => s.calibration.get(model, name),
        }
    }

    /// Writes `v` there (an integer input takes `v` rounded).
    pub fn set(&self, s: &mut Scenario, v: f64) {
        match self {
            Setter::PsLink => s.hardware.cluster.ps.link_bytes_per_s = Some(v),
            Setter::PsLatency => s.hardware.cluster.ps.latency_s = v,
            Setter::Catalog { index, field } => {
                if let Some(inst) = s.hardware.catalog.get_mut(*index) {
                    catalog_set(inst, *field, v);
                }
            }
            Setter::LossBeta0 => {
                if let Some(l) = s.workload.loss.as_mut() {
                    l.beta0 = v;
                }
            }
            Setter::LossBeta1 => {
                if let Some(l) = s.workload.loss.as_mut() {
                    l.beta1 = v;
                }
            }
            Setter::Section {
                model,
                keys,
                integer,
            } => {
                let value = if *integer && v.round() >= 0.0 && v.round() < 9.0e15 {
                    serde_json::Value::from(v.round() as u64)
                } else {
                    serde_json::Value::from(v)
                };
                let section = s
                    .models
                    .entry(model.clone())
                    .or_insert_with(|| Arc::new(serde_json::json!({})));
                set_json(Arc::make_mut(section), keys, value);
            }
            Setter::Factor { model, name } => {
                s.calibration
                    .0
                    .entry(model.clone())
                    .or_default()
                    .insert(name.clone(), v);
            }
        }
    }
}

fn catalog_set(inst: &mut Instance, field: CatalogField, v: f64) {
    match field {
        CatalogField::FlopsPerS => inst.flops_per_s = Some(v),
        CatalogField::NetworkBytesPerS => inst.network_bytes_per_s = Some(v),
        CatalogField::PricePerHour => inst.price_per_hour = Some(v),
        CatalogField::SpotPricePerHour => inst.spot_price_per_hour = Some(v),
        CatalogField::InterconnectBytesPerS => inst.interconnect_bytes_per_s = Some(v),
        CatalogField::ProcessorHz => {
            if let Some(Processor::Cpu { hz, .. } | Processor::Gpu { hz, .. }) =
                inst.processor.as_mut()
            {
                *hz = v;
            }
        }
        CatalogField::ProcessorSimd => {
            if let Some(Processor::Cpu { simd, .. }) = inst.processor.as_mut() {
                *simd = v;
            }
        }
    }
}

/// Sets `value` at `keys` under `v`, making the objects on the way.
fn set_json(v: &mut serde_json::Value, keys: &[String], value: serde_json::Value) {
    let Some((last, parents)) = keys.split_last() else {
        return;
    };
    let mut at = v;
    for k in parents {
        if !at.is_object() {
            *at = serde_json::json!({});
        }
        let Some(obj) = at.as_object_mut() else {
            return;
        };
        at = obj
            .entry(k.clone())
            .or_insert_with(|| serde_json::json!({}));
    }
    if !at.is_object() {
        *at = serde_json::json!({});
    }
    if let Some(obj) = at.as_object_mut() {
        obj.insert(last.clone(), value);
    }
}
