//! Layer table import and export: CSV, TSV or JSON in, CSV out.
//!
//! Columns (CSV/TSV, header row required, any order, case-insensitive):
//! `name, kind, inch, kh, kw, outn, outh, outw` and optionally `params`.
//! Unknown columns are ignored so spreadsheets may carry extra working
//! columns; lines starting with `#` are comments.
//! JSON: an array of layer objects, or an object with a `layers` array
//! (so a saved network imports too).
//!
//! Every error names the line (and, for CSV/TSV, the column) it refers to.

use serde::de::{Error as _, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::layer::{Layer, LayerKind};
use super::network::MAX_LAYERS;
use super::text::{json_error_parts, shorten};

/// Largest table accepted, in bytes (UTF-8).
pub const MAX_TABLE_BYTES: usize = 5 * 1024 * 1024;

/// The columns every CSV/TSV table must have, in export order.
const REQUIRED: [&str; 8] = ["name", "kind", "inch", "kh", "kw", "outn", "outh", "outw"];
const PARAMS: &str = "params";
const ACCEPTED_KINDS: &str =
    "conv (or convolution), fc (or dense, linear, fully_connected, innerproduct); \
     leave pooling and activation layers out, Eq. 4 does not count them";

#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum TableError {
    #[error("the table is {size} bytes, more than the {max} bytes (5 MiB) accepted")]
    TooLarge { size: usize, max: usize },
    #[error("the table has no layers: add a header row and one row per conv or fc layer")]
    Empty,
    #[error("line {line}: more than {max} layers, the most one table may have")]
    TooManyLayers { line: usize, max: usize },
    #[error("the JSON has {count} layers, more than the {max} one table may have")]
    TooManyJsonLayers { count: usize, max: usize },
    #[error(
        "line {line}, column {column}: missing from the header row (required columns: \
         name, kind, inch, kh, kw, outn, outh, outw; optional: params){hint}"
    )]
    MissingColumn {
        line: usize,
        column: String,
        hint: String,
    },
    #[error("line {line}, column {column}: appears twice in the header row")]
    DuplicateColumn { line: usize, column: String },
    #[error("line {line}: {fields} fields, but the header row has {columns} columns (quote names that contain the delimiter)")]
    TooManyFields {
        line: usize,
        fields: usize,
        columns: usize,
    },
    #[error("line {line}, column {column}: no value (the row has only {fields} fields)")]
    MissingValue {
        line: usize,
        column: String,
        fields: usize,
    },
    #[error("line {line}, column {column}: '{value}' is not a whole number")]
    BadNumber {
        line: usize,
        column: String,
        value: String,
    },
    #[error("line {line}, column kind: unknown kind '{value}'; accepted kinds: {ACCEPTED_KINDS}")]
    UnknownKind { line: usize, value: String },
    #[error("line {line}: {message}")]
    InvalidLayer { line: usize, message: String },
    #[error("line {line}: {message}")]
    Csv { line: usize, message: String },
    #[error("JSON, line {line}, character {column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
}

/// Reads a layer table: JSON if the first non-space character is `[` or
/// `{`, otherwise CSV or TSV (tab-separated if the header line has a tab).
pub fn parse_layer_table(text: &str) -> Result<Vec<Layer>, TableError> {
    if text.len() > MAX_TABLE_BYTES {
        return Err(TableError::TooLarge {
            size: text.len(),
            max: MAX_TABLE_BYTES,
        });
    }
    // Spreadsheets on Windows like to prepend a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let layers = match text.trim_start().chars().next() {
        None => return Err(TableError::Empty),
        Some('[') | Some('{') => parse_json(text)?,
        Some(_) => parse_delimited(text)?,
    };
    if layers.is_empty() {
        return Err(TableError::Empty);
    }
    Ok(layers)
}

/// Writes a header row and one row per layer; `params` is filled only
/// when set. [`parse_layer_table`] reads the result back unchanged,
/// except that the reader trims whitespace around names and names an
/// unnamed layer `layerN`.
pub fn layers_to_csv(layers: &[Layer]) -> String {
    let mut out = String::new();
    out.push_str(&REQUIRED.join(","));
    out.push(',');
    out.push_str(PARAMS);
    out.push('\n');
    for l in layers {
        let params = l.params.map(|p| p.to_string()).unwrap_or_default();
        let row = [
            csv_field(&l.name),
            l.kind.as_str().to_string(),
            l.inch.to_string(),
            l.kh.to_string(),
            l.kw.to_string(),
            l.outn.to_string(),
            l.outh.to_string(),
            l.outw.to_string(),
            params,
        ];
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// Quotes a name when the reader would otherwise split it, take it for a
/// comment (leading `#`) or a quoted field.
fn csv_field(s: &str) -> String {
    let needs_quotes = s.starts_with('#') || s.contains([',', '"', '\n', '\r', '\t', ';']);
    if needs_quotes {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Header line = first line that is neither blank nor a comment.
fn detect_delimiter(text: &str) -> u8 {
    let header = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or("");
    if header.contains('\t') {
        b'\t'
    } else if !header.contains(',') && header.contains(';') {
        // Spreadsheets in locales with a decimal comma export ';'.
        b';'
    } else {
        b','
    }
}

/// Column positions found in the header row.
struct Columns {
    required: [usize; 8],
    params: Option<usize>,
    count: usize,
}

fn parse_delimited(text: &str) -> Result<Vec<Layer>, TableError> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(detect_delimiter(text))
        .has_headers(false)
        .flexible(true)
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());

    let lines = LineIndex::new(text);
    let mut columns: Option<Columns> = None;
    let mut layers = Vec::new();
    for result in reader.records() {
        let record = result.map_err(|e| TableError::Csv {
            line: lines.record_line(e.position().map(csv::Position::byte)),
            message: e.to_string(),
        })?;
        let line = lines.record_line(record.position().map(csv::Position::byte));
        if record.iter().all(str::is_empty) {
            continue; // whitespace-only line
        }
        let Some(cols) = &columns else {
            columns = Some(read_header(&record, line)?);
            continue;
        };
        if layers.len() >= MAX_LAYERS {
            return Err(TableError::TooManyLayers {
                line,
                max: MAX_LAYERS,
            });
        }
        let layer = read_row(&record, cols, line, layers.len())?;
        layers.push(layer);
    }
    Ok(layers)
}

/// Maps byte offsets to 1-based line numbers. The csv crate's own line
/// counter skips comment and blank lines, so it cannot be shown to users.
struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { text, starts }
    }

    /// The line a record starts on. The reader may report the offset where
    /// it started reading, before skipped comment or blank lines, so those
    /// are stepped over here.
    fn record_line(&self, byte: Option<u64>) -> usize {
        let byte = byte.and_then(|b| usize::try_from(b).ok()).unwrap_or(0);
        let mut line = self.starts.partition_point(|&s| s <= byte).max(1);
        while let Some(text) = self.line_text(line) {
            if !(text.trim().is_empty() || text.starts_with('#')) {
                break;
            }
            line += 1;
        }
        line
    }

    fn line_text(&self, line: usize) -> Option<&'a str> {
        let start = *self.starts.get(line.checked_sub(1)?)?;
        let end = self.starts.get(line).copied().unwrap_or(self.text.len());
        self.text.get(start..end)
    }
}

fn read_header(record: &csv::StringRecord, line: usize) -> Result<Columns, TableError> {
    let mut required = [None; 8];
    let mut params = None;
    for (i, cell) in record.iter().enumerate() {
        let name = cell.trim().to_ascii_lowercase();
        let slot = if name == PARAMS {
            &mut params
        } else if let Some(r) = REQUIRED.iter().position(|c| *c == name) {
            match required.get_mut(r) {
                Some(slot) => slot,
                None => continue,
            }
        } else {
            continue; // extra working columns are fine
        };
        if slot.is_some() {
            return Err(TableError::DuplicateColumn { line, column: name });
        }
        *slot = Some(i);
    }
    let mut found = [0usize; 8];
    for ((slot, col), name) in found.iter_mut().zip(required).zip(REQUIRED) {
        match col {
            Some(i) => *slot = i,
            None => {
                // A first row of numbers is data, not a header.
                let looks_like_data = record.iter().any(|c| c.trim().parse::<f64>().is_ok());
                let hint = if looks_like_data {
                    "; the first line must be a header row naming the columns".to_string()
                } else {
                    String::new()
                };
                return Err(TableError::MissingColumn {
                    line,
                    column: name.to_string(),
                    hint,
                });
            }
        }
    }
    Ok(Columns {
        required: found,
        params,
        count: record.len(),
    })
}

fn read_row(
    record: &csv::StringRecord,
    cols: &Columns,
    line: usize,
    index: usize,
) -> Result<Layer, TableError> {
    if record.len() > cols.count {
        return Err(TableError::TooManyFields {
            line,
            fields: record.len(),
            columns: cols.count,
        });
    }
    let cell = |column: &str, at: usize| -> Result<&str, TableError> {
        record.get(at).ok_or_else(|| TableError::MissingValue {
            line,
            column: column.to_string(),
            fields: record.len(),
        })
    };
    let [c_name, c_kind, c_inch, c_kh, c_kw, c_outn, c_outh, c_outw] = cols.required;
    let count = |column: &str, at: usize| -> Result<u64, TableError> {
        let value = cell(column, at)?;
        parse_count(value).ok_or_else(|| TableError::BadNumber {
            line,
            column: column.to_string(),
            value: shorten(value),
        })
    };

    let kind_text = cell("kind", c_kind)?;
    let kind = LayerKind::parse(kind_text).ok_or_else(|| TableError::UnknownKind {
        line,
        value: shorten(kind_text),
    })?;
    let params = match cols.params.and_then(|at| record.get(at)) {
        None | Some("") => None,
        Some(_) => cols.params.map(|at| count(PARAMS, at)).transpose()?,
    };
    let layer = Layer {
        name: default_name(cell("name", c_name)?, index),
        kind,
        inch: count("inch", c_inch)?,
        kh: count("kh", c_kh)?,
        kw: count("kw", c_kw)?,
        outn: count("outn", c_outn)?,
        outh: count("outh", c_outh)?,
        outw: count("outw", c_outw)?,
        params,
    };
    layer.validate().map_err(|e| TableError::InvalidLayer {
        line,
        message: e.to_string(),
    })?;
    Ok(layer)
}

/// Whole numbers ≥ 0; "64.0" and "1e3" pass because spreadsheets write them.
fn parse_count(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Ok(v) = s.parse::<u64>() {
        return Some(v);
    }
    let v: f64 = s.parse().ok()?;
    // Above 2^53 a float no longer names one whole number.
    let ok = v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v <= 9_007_199_254_740_992.0;
    ok.then_some(v as u64)
}

fn default_name(name: &str, index: usize) -> String {
    if name.trim().is_empty() {
        format!("layer{}", index + 1)
    } else {
        name.trim().to_string()
    }
}

// ---- JSON ----

/// A layer read from JSON. Read field by field and validated inside the
/// object, so that serde_json reports the line of the object's closing
/// brace rather than of whatever follows it.
struct JsonLayer(Layer);

const JSON_FIELDS: &[&str] = &[
    "name", "kind", "inch", "kh", "kw", "outn", "outh", "outw", "params",
];

impl<'de> Deserialize<'de> for JsonLayer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_struct("Layer", JSON_FIELDS, JsonLayerVisitor)
    }
}

struct JsonLayerVisitor;

impl<'de> Visitor<'de> for JsonLayerVisitor {
    type Value = JsonLayer;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a layer object with kind, inch, kh, kw, outn, outh, outw")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonLayer, A::Error> {
        let mut name: Option<String> = None;
        let mut kind: Option<LayerKind> = None;
        // inch, kh, kw, outn, outh, outw in REQUIRED's order (from index 2).
        let mut dims: [Option<u64>; 6] = [None; 6];
        let mut params: Option<Option<u64>> = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "name" => set_once(
                    &mut name,
                    "name",
                    map.next_value::<Option<String>>()?.unwrap_or_default(),
                )?,
                "kind" => {
                    let text: String = map.next_value()?;
                    let parsed = LayerKind::parse(&text).ok_or_else(|| {
                        A::Error::custom(format!(
                            "unknown kind '{}'; accepted kinds: {ACCEPTED_KINDS}",
                            shorten(&text)
                        ))
                    })?;
                    set_once(&mut kind, "kind", parsed)?;
                }
                "params" => set_once(&mut params, "params", map.next_value::<Option<u64>>()?)?,
                other => {
                    let slot = REQUIRED
                        .iter()
                        .skip(2)
                        .zip(dims.iter_mut())
                        .find(|(c, _)| **c == other);
                    match slot {
                        Some((field, slot)) => set_once(slot, field, map.next_value::<u64>()?)?,
                        // A saved network's layers may carry fields we do not use.
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
            }
        }
        let kind = kind.ok_or_else(|| A::Error::missing_field("kind"))?;
        let mut values = [0u64; 6];
        for ((v, d), field) in values.iter_mut().zip(dims).zip(REQUIRED.iter().skip(2)) {
            *v = d.ok_or_else(|| A::Error::missing_field(field))?;
        }
        let [inch, kh, kw, outn, outh, outw] = values;
        let layer = Layer {
            name: name.unwrap_or_default().trim().to_string(),
            kind,
            inch,
            kh,
            kw,
            outn,
            outh,
            outw,
            params: params.flatten(),
        };
        let mut named = layer.clone();
        if named.name.is_empty() {
            named.name = "(unnamed)".into();
        }
        named.validate().map_err(A::Error::custom)?;
        Ok(JsonLayer(layer))
    }
}

fn set_once<T, E: serde::de::Error>(
    slot: &mut Option<T>,
    field: &'static str,
    value: T,
) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(field));
    }
    *slot = Some(value);
    Ok(())
}

#[derive(Deserialize)]
struct JsonDoc {
    layers: Vec<JsonLayer>,
}

fn parse_json(text: &str) -> Result<Vec<Layer>, TableError> {
    let parsed: Vec<JsonLayer> = if text.trim_start().starts_with('[') {
        serde_json::from_str(text).map_err(json_error)?
    } else {
        serde_json::from_str::<JsonDoc>(text)
            .map_err(json_error)?
            .layers
    };
    if parsed.len() > MAX_LAYERS {
        return Err(TableError::TooManyJsonLayers {
            count: parsed.len(),
            max: MAX_LAYERS,
        });
    }
    Ok(parsed
        .into_iter()
        .enumerate()
        .map(|(i, JsonLayer(mut l))| {
            l.name = default_name(&l.name, i);
            l
        })
        .collect())
}

fn json_error(e: serde_json::Error) -> TableError {
    let (line, column, message) = json_error_parts(&e);
    TableError::Json {
        line,
        column,
        message,
    }
}
