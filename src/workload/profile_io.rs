//! Import of a Cynthia profile (Table 4's parameters) and of a measured
//! loss curve to fit Eq. 1 from (`shared/models.md` §2).
//!
//! Profile JSON, either form (one per file, not mixed):
//! - the `Profile` struct's own form, SI units:
//!   `{"name", "sync": "bsp"|"asp", "w_iter_flop", "g_param_bytes",
//!   "c_prof_flops", "b_prof_bytes_per_s", "c_base_flops", "source"?}`;
//! - Table 4's units: `{"name", "sync", "w_iter_gflop", "g_param_mb",
//!   "c_prof_gflops", "b_prof_mb_per_s", "c_base_gflops", "source"?}`
//!   (MB = 1e6 bytes, GFLOP = 1e9 FLOP).
//!
//! Loss curve: CSV/TSV (or `;`- or space-separated) with a header row naming
//! an iteration column (`iteration`, `iter`, `step`, `s`, `global_step`) and
//! a loss column (`loss`, `value`, `train_loss`); other columns are ignored,
//! so TensorBoard's scalar export (`Wall time,Step,Value`) reads as is;
//! lines starting with `#` are comments. Or JSON: `[[s, loss], …]`,
//! `[{"iteration": s, "loss": l}, …]` (same aliases), or
//! `{"points": …, "workers": n, "sync": "bsp"|"asp"}`.
//!
//! Every error names the field (profile) or the line (curve).

use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::profile::{LossCurve, Profile, SyncMode};
use super::text::{json_error_parts, shorten};
use crate::errors::ReadError;

/// Largest file accepted, in bytes (UTF-8).
pub const MAX_INPUT_BYTES: usize = 5 * 1024 * 1024;
/// Most points one loss curve may have.
pub const MAX_LOSS_POINTS: usize = 1_000_000;

const ITERATION_NAMES: &[&str] = &[
    "iteration",
    "iterations",
    "iter",
    "step",
    "s",
    "global_step",
];
const LOSS_NAMES: &[&str] = &["loss", "value", "train_loss"];

/// (SI field, Table 4 unit field, factor to SI, what it is).
const NUMBER_FIELDS: [(&str, &str, f64, &str); 5] = [
    (
        "w_iter_flop",
        "w_iter_gflop",
        1e9,
        "work per iteration, FLOP (Table 4's GFLOPS column)",
    ),
    (
        "g_param_bytes",
        "g_param_mb",
        1e6,
        "parameter data per iteration, one direction, bytes",
    ),
    (
        "c_prof_flops",
        "c_prof_gflops",
        1e9,
        "PS CPU use while profiling, FLOP/s",
    ),
    (
        "b_prof_bytes_per_s",
        "b_prof_mb_per_s",
        1e6,
        "PS network throughput while profiling, bytes/s",
    ),
    (
        "c_base_flops",
        "c_base_gflops",
        1e9,
        "capability of the baseline worker, FLOP/s",
    ),
];

/// Why a profile file did not read; every message names the field.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ProfileError {
    #[error(transparent)]
    TooLarge(#[from] TooLarge),
    #[error("the profile is empty: expected a JSON object")]
    Empty,
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error(
        "a profile must be a JSON object {{\"name\": …, \"sync\": …, \"w_iter_gflop\": …, …}}"
    )]
    NotAnObject,
    #[error(
        "the profile mixes SI fields (w_iter_flop, g_param_bytes, …) with Table 4 unit \
         fields (w_iter_gflop, g_param_mb, …): use one form"
    )]
    MixedForms,
    #[error(
        "the profile has none of the expected fields: give w_iter_gflop, g_param_mb, \
         c_prof_gflops, b_prof_mb_per_s, c_base_gflops (or their SI forms w_iter_flop, \
         g_param_bytes, c_prof_flops, b_prof_bytes_per_s, c_base_flops)"
    )]
    NoFields,
    /// `key` shortened for the message.
    #[error("unknown field \"{key}\"; accepted fields: {accepted}")]
    UnknownField { key: String, accepted: String },
    #[error("field \"{field}\": expected a string, got {found}")]
    NotAString { field: String, found: &'static str },
    #[error("missing field \"sync\": give \"bsp\" or \"asp\"")]
    MissingSync,
    /// `text` shortened for the message.
    #[error("field \"sync\": '{text}' is not a sync mode; use \"bsp\" or \"asp\"")]
    BadSync { text: String },
    #[error("missing field \"{field}\" ({what})")]
    MissingField {
        field: &'static str,
        what: &'static str,
    },
    #[error("field \"{field}\": expected a number, got {found}")]
    NotANumber {
        field: &'static str,
        found: &'static str,
    },
    /// `shown`: the number as read, or "?" when it is none.
    #[error("field \"{field}\" ({what}) must be a positive number (got {shown})")]
    NotPositive {
        field: &'static str,
        what: &'static str,
        shown: String,
    },
    #[error("field \"{field}\": {value} is too large")]
    Overflows { field: &'static str, value: f64 },
    /// A figure of a profile already read (`validate_profile`).
    #[error("field \"{field}\" ({what}) must be a positive finite number (got {value})")]
    NotPositiveFinite {
        field: &'static str,
        what: &'static str,
        value: f64,
    },
}

/// Why a loss curve did not read; every message names the line or point.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LossCurveError {
    #[error(transparent)]
    TooLarge(#[from] TooLarge),
    #[error("the loss curve is empty: give a header row (iteration, loss) and one row per point")]
    Empty,
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error("the loss curve has no points")]
    NoPoints,
    #[error(
        "workers: an ASP loss curve needs the measured run's worker count n ≥ 1 \
         (loss = β0·√n/(s + β1))"
    )]
    AspWithoutWorkers,
    #[error(
        "the loss curve has only comments: give a header row (iteration, loss) and one row \
         per point"
    )]
    OnlyComments,
    /// Both names shortened for the message.
    #[error("line {line}: two columns could be the same one ('{first}' and '{second}'); keep one")]
    TwoColumns {
        line: usize,
        first: String,
        second: String,
    },
    /// `data`: the header row holds numbers (a data row in its place).
    #[error(
        "line {line}: the header row needs an iteration column (iteration, step or s) \
         and a loss column (loss or value){}",
        if *.data { "; the first line must be a header row naming the columns" } else { "" }
    )]
    NoHeader { line: usize, data: bool },
    #[error("line {line}: more than {MAX_LOSS_POINTS} points, the most one curve may have")]
    TooManyPoints { line: usize },
    #[error("line {line}, column {column}: no value (the row has {fields} fields)")]
    NoValue {
        line: usize,
        column: String,
        fields: usize,
    },
    /// `cell` shortened for the message.
    #[error("line {line}, column {column}: '{cell}' is not a number")]
    NotANumber {
        line: usize,
        column: String,
        cell: String,
    },
    #[error("line {line}: {problem}")]
    BadPoint { line: usize, problem: PointError },
}

/// What is wrong with one point of a loss curve.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum PointError {
    #[error("the iteration must be a finite number ≥ 0 (got {0})")]
    Iteration(f64),
    #[error("the loss must be a positive finite number (got {0})")]
    Loss(f64),
}

/// A file over `MAX_INPUT_BYTES`; `what` names its kind.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("the {what} is {bytes} bytes, more than the {MAX_INPUT_BYTES} bytes (5 MiB) accepted")]
pub struct TooLarge {
    pub what: &'static str,
    pub bytes: usize,
}

/// Malformed JSON, where serde_json found it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("JSON, line {line}, character {column}: {message}")]
pub struct JsonError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl From<ProfileError> for ReadError {
    fn from(e: ProfileError) -> Self {
        ReadError::Content(e.to_string())
    }
}

impl From<LossCurveError> for ReadError {
    fn from(e: LossCurveError) -> Self {
        ReadError::Content(e.to_string())
    }
}

fn check_size(text: &str, what: &'static str) -> Result<(), TooLarge> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(TooLarge {
            what,
            bytes: text.len(),
        });
    }
    Ok(())
}

fn json_error(e: &serde_json::Error) -> JsonError {
    let (line, column, message) = json_error_parts(e);
    JsonError {
        line,
        column,
        message,
    }
}

fn parse_sync(text: &str) -> Option<SyncMode> {
    match text.trim().to_ascii_lowercase().as_str() {
        "bsp" => Some(SyncMode::Bsp),
        "asp" => Some(SyncMode::Asp),
        _ => None,
    }
}

// ---- Profile ----

/// Checks that every figure of a profile is a positive finite number.
pub fn validate_profile(p: &Profile) -> Result<(), ProfileError> {
    let values = [
        p.w_iter_flop,
        p.g_param_bytes,
        p.c_prof_flops,
        p.b_prof_bytes_per_s,
        p.c_base_flops,
    ];
    for (v, (field, _, _, what)) in values.iter().zip(NUMBER_FIELDS) {
        if !(v.is_finite() && *v > 0.0) {
            return Err(ProfileError::NotPositiveFinite {
                field,
                what,
                value: *v,
            });
        }
    }
    Ok(())
}

/// Reads a profile in either documented form (see the module docs).
pub fn parse_profile_json(text: &str) -> Result<Profile, ProfileError> {
    check_size(text, "profile")?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(ProfileError::Empty);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| json_error(&e))?;
    let Value::Object(map) = value else {
        return Err(ProfileError::NotAnObject);
    };
    let has_si = NUMBER_FIELDS.iter().any(|f| map.contains_key(f.0));
    let has_units = NUMBER_FIELDS.iter().any(|f| map.contains_key(f.1));
    let units = match (has_si, has_units) {
        (true, true) => return Err(ProfileError::MixedForms),
        (true, false) => false,
        (false, true) => true,
        (false, false) => return Err(ProfileError::NoFields),
    };
    let allowed: Vec<&str> = ["name", "sync", "source"]
        .into_iter()
        .chain(NUMBER_FIELDS.iter().map(|f| if units { f.1 } else { f.0 }))
        .collect();
    // Unknown keys are refused so that a misspelt field is not silently lost.
    if let Some(key) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(ProfileError::UnknownField {
            key: shorten(key),
            accepted: allowed.join(", "),
        });
    }

    let name = optional_string(&map, "name")?
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "imported profile".to_string());
    let source = optional_string(&map, "source")?.unwrap_or_default();
    let sync_text = optional_string(&map, "sync")?.ok_or(ProfileError::MissingSync)?;
    let sync = parse_sync(&sync_text).ok_or_else(|| ProfileError::BadSync {
        text: shorten(&sync_text),
    })?;

    let mut si = [0.0f64; 5];
    for (slot, &(si_name, unit_name, factor, what)) in si.iter_mut().zip(NUMBER_FIELDS.iter()) {
        let field = if units { unit_name } else { si_name };
        let value = match map.get(field) {
            None => return Err(ProfileError::MissingField { field, what }),
            Some(Value::Number(n)) => n.as_f64(),
            Some(other) => {
                return Err(ProfileError::NotANumber {
                    field,
                    found: json_kind(other),
                })
            }
        };
        let Some(v) = value.filter(|v| v.is_finite() && *v > 0.0) else {
            let shown = value.map_or_else(|| "?".to_string(), |v| v.to_string());
            return Err(ProfileError::NotPositive { field, what, shown });
        };
        let converted = if units { v * factor } else { v };
        if !converted.is_finite() {
            return Err(ProfileError::Overflows { field, value: v });
        }
        *slot = converted;
    }
    let [w_iter_flop, g_param_bytes, c_prof_flops, b_prof_bytes_per_s, c_base_flops] = si;
    Ok(Profile {
        name,
        sync,
        w_iter_flop,
        g_param_bytes,
        c_prof_flops,
        b_prof_bytes_per_s,
        c_base_flops,
        source,
    })
}

fn optional_string(map: &Map<String, Value>, field: &str) -> Result<Option<String>, ProfileError> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ProfileError::NotAString {
            field: field.to_string(),
            found: json_kind(other),
        }),
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

// ---- Loss curve ----

/// Reads a measured loss curve (see the module docs). `sync` and `workers`
/// describe the measured run; a JSON object's own `"sync"` and `"workers"`
/// take precedence, since they come with the data.
pub fn parse_loss_curve(
    text: &str,
    sync: SyncMode,
    workers: u32,
) -> Result<LossCurve, LossCurveError> {
    check_size(text, "loss curve")?;
    // Spreadsheets on Windows like to prepend a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (points, sync, workers) = match text.trim_start().chars().next() {
        None => return Err(LossCurveError::Empty),
        Some('[') | Some('{') => {
            let doc: CurveDoc = serde_json::from_str(text).map_err(|e| json_error(&e))?;
            (
                doc.points,
                doc.sync.unwrap_or(sync),
                doc.workers.unwrap_or(workers),
            )
        }
        Some(_) => (parse_delimited(text)?, sync, workers),
    };
    if points.is_empty() {
        return Err(LossCurveError::NoPoints);
    }
    if sync == SyncMode::Asp && workers == 0 {
        return Err(LossCurveError::AspWithoutWorkers);
    }
    Ok(LossCurve {
        points,
        workers,
        sync,
    })
}

/// Checks one point; the message is completed with its line or position.
fn check_point(s: f64, loss: f64) -> Result<(), PointError> {
    if !(s.is_finite() && s >= 0.0) {
        return Err(PointError::Iteration(s));
    }
    if !(loss.is_finite() && loss > 0.0) {
        return Err(PointError::Loss(loss));
    }
    Ok(())
}

enum Delimiter {
    Char(char),
    Whitespace,
}

impl Delimiter {
    fn detect(header: &str) -> Self {
        if header.contains('\t') {
            Delimiter::Char('\t')
        } else if header.contains(',') {
            Delimiter::Char(',')
        } else if header.contains(';') {
            Delimiter::Char(';')
        } else {
            Delimiter::Whitespace
        }
    }

    fn split<'a>(&self, line: &'a str) -> Vec<&'a str> {
        let cells: Vec<&str> = match self {
            Delimiter::Char(c) => line.split(*c).collect(),
            Delimiter::Whitespace => line.split_whitespace().collect(),
        };
        cells.into_iter().map(unquote).collect()
    }
}

/// Numbers and the column names this reader looks for never contain the
/// delimiter, so stripping quotes is all the CSV quoting we need.
fn unquote(cell: &str) -> &str {
    let t = cell.trim();
    t.strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(t)
        .trim()
}

fn find_column(
    cells: &[&str],
    names: &[&str],
    line: usize,
) -> Result<Option<usize>, LossCurveError> {
    let mut found: Option<usize> = None;
    for (i, cell) in cells.iter().enumerate() {
        if names.contains(&cell.to_ascii_lowercase().as_str()) {
            if let Some(prev) = found {
                return Err(LossCurveError::TwoColumns {
                    line,
                    first: shorten(cells.get(prev).copied().unwrap_or("")),
                    second: shorten(cell),
                });
            }
            found = Some(i);
        }
    }
    Ok(found)
}

fn parse_delimited(text: &str) -> Result<Vec<(f64, f64)>, LossCurveError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let Some((header_line, header)) = lines.next() else {
        return Err(LossCurveError::OnlyComments);
    };
    let delimiter = Delimiter::detect(header);
    let cells = delimiter.split(header);
    let iter_col = find_column(&cells, ITERATION_NAMES, header_line)?;
    let loss_col = find_column(&cells, LOSS_NAMES, header_line)?;
    let (Some(iter_col), Some(loss_col)) = (iter_col, loss_col) else {
        return Err(LossCurveError::NoHeader {
            line: header_line,
            data: cells.iter().any(|c| c.parse::<f64>().is_ok()),
        });
    };
    let names = [
        (
            iter_col,
            cells.get(iter_col).copied().unwrap_or("iteration"),
        ),
        (loss_col, cells.get(loss_col).copied().unwrap_or("loss")),
    ];

    let mut points = Vec::new();
    for (line, row) in lines {
        if points.len() >= MAX_LOSS_POINTS {
            return Err(LossCurveError::TooManyPoints { line });
        }
        let cells = delimiter.split(row);
        let mut values = [0.0f64; 2];
        for (slot, &(col, name)) in values.iter_mut().zip(names.iter()) {
            let name = shorten(name);
            let cell = match cells.get(col) {
                Some(c) if !c.is_empty() => *c,
                _ => {
                    return Err(LossCurveError::NoValue {
                        line,
                        column: name,
                        fields: cells.len(),
                    })
                }
            };
            *slot = cell
                .parse::<f64>()
                .map_err(|_| LossCurveError::NotANumber {
                    line,
                    column: name.clone(),
                    cell: shorten(cell),
                })?;
        }
        let [s, loss] = values;
        check_point(s, loss).map_err(|problem| LossCurveError::BadPoint { line, problem })?;
        points.push((s, loss));
    }
    Ok(points)
}

// ---- Loss curve JSON ----

/// A JSON curve: an array of points, or an object with `points`. Read
/// with visitors so that every error carries serde_json's line.
struct CurveDoc {
    points: Vec<(f64, f64)>,
    workers: Option<u32>,
    sync: Option<SyncMode>,
}

impl<'de> Deserialize<'de> for CurveDoc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CurveDocVisitor)
    }
}

struct CurveDocVisitor;

impl<'de> Visitor<'de> for CurveDocVisitor {
    type Value = CurveDoc;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of [iteration, loss] points or an object with a \"points\" array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<CurveDoc, A::Error> {
        Ok(CurveDoc {
            points: PointsVisitor.visit_seq(seq)?,
            workers: None,
            sync: None,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CurveDoc, A::Error> {
        let mut points = None;
        let mut workers = None;
        let mut sync = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "points" => {
                    if points.is_some() {
                        return Err(A::Error::duplicate_field("points"));
                    }
                    points = Some(map.next_value_seed(PointsSeed)?);
                }
                "workers" => {
                    if workers.is_some() {
                        return Err(A::Error::duplicate_field("workers"));
                    }
                    workers = Some(map.next_value::<u32>()?);
                }
                "sync" => {
                    if sync.is_some() {
                        return Err(A::Error::duplicate_field("sync"));
                    }
                    let text: String = map.next_value()?;
                    let mode = parse_sync(&text).ok_or_else(|| {
                        A::Error::custom(format!(
                            "\"sync\": '{}' is not a sync mode; use \"bsp\" or \"asp\"",
                            shorten(&text)
                        ))
                    })?;
                    sync = Some(mode);
                }
                // A saved curve may carry a name or notes.
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let points = points.ok_or_else(|| {
            A::Error::custom("the object has no \"points\" array of [iteration, loss] pairs")
        })?;
        Ok(CurveDoc {
            points,
            workers,
            sync,
        })
    }
}

struct PointsSeed;

impl<'de> DeserializeSeed<'de> for PointsSeed {
    type Value = Vec<(f64, f64)>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(PointsVisitor)
    }
}

struct PointsVisitor;

impl<'de> Visitor<'de> for PointsVisitor {
    type Value = Vec<(f64, f64)>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of [iteration, loss] points")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut points = Vec::new();
        loop {
            let number = points.len() + 1;
            let Some(point) = seq.next_element_seed(PointSeed { number })? else {
                break;
            };
            if points.len() >= MAX_LOSS_POINTS {
                return Err(A::Error::custom(format!(
                    "more than {MAX_LOSS_POINTS} points, the most one curve may have"
                )));
            }
            points.push(point);
        }
        Ok(points)
    }
}

/// One point, `[s, loss]` or `{"iteration": s, "loss": l}` (with the CSV
/// aliases), checked inside so that serde_json reports the point's line.
struct PointSeed {
    /// 1-based, for messages.
    number: usize,
}

impl<'de> DeserializeSeed<'de> for PointSeed {
    type Value = (f64, f64);

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl PointSeed {
    fn check<E: serde::de::Error>(&self, s: f64, loss: f64) -> Result<(f64, f64), E> {
        check_point(s, loss)
            .map(|()| (s, loss))
            .map_err(|m| E::custom(format!("point {}: {m}", self.number)))
    }
}

impl<'de> Visitor<'de> for PointSeed {
    type Value = (f64, f64);

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "point {}: [iteration, loss] or {{\"iteration\": …, \"loss\": …}}",
            self.number
        )
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let short = || {
            A::Error::custom(format!(
                "point {}: needs two numbers, [iteration, loss]",
                self.number
            ))
        };
        let s: f64 = seq.next_element()?.ok_or_else(short)?;
        let loss: f64 = seq.next_element()?.ok_or_else(short)?;
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(A::Error::custom(format!(
                "point {}: more than two numbers; expected [iteration, loss]",
                self.number
            )));
        }
        self.check(s, loss)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut s: Option<f64> = None;
        let mut loss: Option<f64> = None;
        while let Some(key) = map.next_key::<String>()? {
            let lower = key.to_ascii_lowercase();
            let (slot, what) = if ITERATION_NAMES.contains(&lower.as_str()) {
                (&mut s, "iteration")
            } else if LOSS_NAMES.contains(&lower.as_str()) {
                (&mut loss, "loss")
            } else {
                // e.g. TensorBoard's wall_time.
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if slot.is_some() {
                return Err(A::Error::custom(format!(
                    "point {}: names its {what} twice (field \"{}\")",
                    self.number,
                    shorten(&key)
                )));
            }
            *slot = Some(map.next_value()?);
        }
        let missing = |what: &str| {
            A::Error::custom(format!(
                "point {}: no {what} (give \"iteration\" and \"loss\")",
                self.number
            ))
        };
        let s = s.ok_or_else(|| missing("iteration"))?;
        let loss = loss.ok_or_else(|| missing("loss"))?;
        self.check(s, loss)
    }
}
