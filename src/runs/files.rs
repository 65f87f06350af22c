//! Measured runs from a file, the same way for the CLI (`--import
//! runs=FILE`) and the page's import worker (`RUNS`).
//!
//! CSV, one row per worker group, a header row naming the columns (any
//! order, `#` comments allowed):
//!
//! ```text
//! label, instance, count, batch_size, iteration_s, source
//! T6 VGG-16 bs 32, Quadro RTX 4000, 2, 32, 28.66, Zeng et al. Table 6
//! T6 VGG-16 bs 32, GTX 1060, 1, 32
//! ```
//!
//! Rows with the same label are one run with several worker groups; its
//! measurement (`iteration_s` [s] or `throughput` [samples/s]) and source
//! are given once, or repeated alike. The PS side of a run is the
//! scenario's; a run with its own PS side is written in JSON: an array of
//! runs as the scenario holds them, or an object with such a `runs` array
//! (a whole scenario's).

use std::collections::HashMap;

use serde::Deserialize;

use super::{Run, MAX_RUNS};
use crate::errors::ReadError;
use crate::hardware::WorkerGroup;
use crate::readers::{text, Importer};
use crate::report::fmt_count;
use crate::scenario::Scenario;
use crate::workload::text::{csv_number, json_error_parts, shorten, CsvError};

/// What an empty file (or one with no run) is told, as the other
/// importers say it.
pub const EMPTY: &str = "the runs file is empty: give a header row (label, instance, count, batch_size, iteration_s or throughput, source) and one row per worker group";

const COLUMNS: &str = "label, instance, count, batch_size, iteration_s or throughput, source";

/// Why a runs file cannot be read; each names its line where it has one.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RunsFileError {
    #[error("{EMPTY}")]
    Empty,
    #[error("{} runs is more than the {} accepted", fmt_count(*.runs as f64), fmt_count(MAX_RUNS as f64))]
    TooMany { runs: usize },
    #[error("line {line}: {} runs is more than the {} accepted", fmt_count((MAX_RUNS + 1) as f64), fmt_count(MAX_RUNS as f64))]
    TooManyAt { line: usize },
    #[error("not JSON: {message} (line {line}, column {column})")]
    NotJson {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("JSON with no runs: expected an array of {{label, workers, iteration_s or throughput}} objects, or an object with such a \"runs\" array")]
    NoRunsInJson,
    #[error("line {line}: \"{name}\" is not a column of a runs file; the first row names the columns: {COLUMNS}")]
    UnknownColumn { line: usize, name: String },
    #[error("line {line}: \"{name}\" appears twice in the header row")]
    ColumnTwice { line: usize, name: String },
    #[error("line {line}: the header row lacks {lacks}; the columns are: {COLUMNS}")]
    HeaderLacks { line: usize, lacks: String },
    #[error(
        "line {line}: the header row needs an iteration_s [s] or a throughput [samples/s] column"
    )]
    NoMeasureColumn { line: usize },
    #[error("line {line}: the {what} \"{text}\" is not a whole number")]
    NotWhole {
        line: usize,
        what: &'static str,
        text: String,
    },
    #[error("line {line}: run '{label}' has the {what} {had} on line {at}; this row says {value}")]
    Disagrees {
        line: usize,
        label: String,
        what: &'static str,
        had: String,
        at: usize,
        value: String,
    },
    #[error("row {row}: {why}")]
    Unreadable { row: usize, why: String },
    #[error("line {line}: {fields} fields, but the header row has {columns} columns (quote a text that holds a comma)")]
    TooManyFields {
        line: usize,
        fields: usize,
        columns: usize,
    },
    #[error("line {line}: no label (rows of one run share a label)")]
    NoLabel { line: usize },
    #[error("line {line}: no instance")]
    NoInstance { line: usize },
    #[error(transparent)]
    Number(#[from] CsvError),
}

impl From<RunsFileError> for ReadError {
    fn from(e: RunsFileError) -> Self {
        ReadError::Content(e.to_string())
    }
}

/// A file's runs, read as JSON when it looks like JSON, else as CSV.
pub fn parse_runs(text: &str) -> Result<Vec<Run>, RunsFileError> {
    let t = text.strip_prefix('\u{feff}').unwrap_or(text);
    let runs = match t.trim_start().chars().next() {
        None => return Err(RunsFileError::Empty),
        Some('[' | '{') => parse_json(t)?,
        Some(_) => parse_csv(t)?,
    };
    if runs.is_empty() {
        return Err(RunsFileError::Empty);
    }
    if runs.len() > MAX_RUNS {
        return Err(RunsFileError::TooMany { runs: runs.len() });
    }
    Ok(runs)
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RunsJson {
    List(Vec<Run>),
    Holder { runs: Vec<Run> },
}

fn parse_json(text: &str) -> Result<Vec<Run>, RunsFileError> {
    if let Err(e) = serde_json::from_str::<serde_json::Value>(text) {
        let (line, column, message) = json_error_parts(&e);
        return Err(RunsFileError::NotJson {
            line,
            column,
            message,
        });
    }
    match serde_json::from_str::<RunsJson>(text) {
        Ok(RunsJson::List(r) | RunsJson::Holder { runs: r }) => Ok(r),
        Err(_) => Err(RunsFileError::NoRunsInJson),
    }
}

/// Which field each column holds.
#[derive(Clone, Copy, PartialEq)]
enum Col {
    Label,
    Instance,
    Count,
    Batch,
    Iteration,
    Throughput,
    Source,
}

const NAMES: [(&str, Col); 7] = [
    ("label", Col::Label),
    ("instance", Col::Instance),
    ("count", Col::Count),
    ("batch_size", Col::Batch),
    ("iteration_s", Col::Iteration),
    ("throughput", Col::Throughput),
    ("source", Col::Source),
];

fn header(line: usize, fields: &[String]) -> Result<Vec<Col>, RunsFileError> {
    let mut cols = Vec::new();
    for f in fields {
        let name = f.to_ascii_lowercase();
        let Some(&(_, col)) = NAMES.iter().find(|(n, _)| *n == name) else {
            return Err(RunsFileError::UnknownColumn {
                line,
                name: shorten(f),
            });
        };
        if cols.contains(&col) {
            return Err(RunsFileError::ColumnTwice { line, name });
        }
        cols.push(col);
    }
    let lacks: Vec<&str> = NAMES[..4]
        .iter()
        .filter(|(_, c)| !cols.contains(c))
        .map(|(n, _)| *n)
        .collect();
    if !lacks.is_empty() {
        return Err(RunsFileError::HeaderLacks {
            line,
            lacks: lacks.join(", "),
        });
    }
    if !cols.contains(&Col::Iteration) && !cols.contains(&Col::Throughput) {
        return Err(RunsFileError::NoMeasureColumn { line });
    }
    Ok(cols)
}

/// A whole number in a CSV field, or a message naming its line.
fn whole(line: usize, what: &'static str, s: &str) -> Result<u32, RunsFileError> {
    let v = csv_number(line, what, s)?;
    if v.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&v) {
        return Err(RunsFileError::NotWhole {
            line,
            what,
            text: shorten(s),
        });
    }
    Ok(v as u32)
}

/// `value` into `slot`, unless the run already has another there.
fn once<T: PartialEq + std::fmt::Display>(
    slot: &mut Option<(T, usize)>,
    value: T,
    line: usize,
    what: &'static str,
    label: &str,
) -> Result<(), RunsFileError> {
    match slot {
        Some((v, at)) if *v != value => Err(RunsFileError::Disagrees {
            line,
            label: shorten(label),
            what,
            had: v.to_string(),
            at: *at,
            value: value.to_string(),
        }),
        Some(_) => Ok(()),
        None => {
            *slot = Some((value, line));
            Ok(())
        }
    }
}

/// A run as its rows give it, before it is a `Run`.
#[derive(Default)]
struct Rows {
    label: String,
    workers: Vec<WorkerGroup>,
    iteration: Option<(f64, usize)>,
    throughput: Option<(f64, usize)>,
    source: Option<(String, usize)>,
}

fn parse_csv(text: &str) -> Result<Vec<Run>, RunsFileError> {
    let mut rdr = crate::workload::text::csv_reader(text);
    let mut cols: Option<Vec<Col>> = None;
    let mut runs: Vec<Rows> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| RunsFileError::Unreadable {
            row: i + 1,
            why: e.to_string(),
        })?;
        let line = rec.position().map_or(i + 1, |p| p.line() as usize);
        let fields: Vec<String> = rec.iter().map(str::to_string).collect();
        if fields.iter().all(String::is_empty) {
            continue;
        }
        let Some(cols) = &cols else {
            cols = Some(header(line, &fields)?);
            continue;
        };
        if fields.len() > cols.len() {
            return Err(RunsFileError::TooManyFields {
                line,
                fields: fields.len(),
                columns: cols.len(),
            });
        }
        let get = |c: Col| {
            cols.iter()
                .position(|&x| x == c)
                .and_then(|k| fields.get(k))
                .map(String::as_str)
                .filter(|v| !v.is_empty())
        };
        let label = get(Col::Label).ok_or(RunsFileError::NoLabel { line })?;
        let instance = get(Col::Instance).ok_or(RunsFileError::NoInstance { line })?;
        let count = whole(line, "count", get(Col::Count).unwrap_or(""))?;
        let batch_size = whole(line, "batch size", get(Col::Batch).unwrap_or(""))?;
        let k = match index.get(label) {
            Some(&k) => k,
            None => {
                if runs.len() == MAX_RUNS {
                    return Err(RunsFileError::TooManyAt { line });
                }
                index.insert(label.to_string(), runs.len());
                runs.push(Rows {
                    label: label.to_string(),
                    ..Rows::default()
                });
                runs.len() - 1
            }
        };
        let run = &mut runs[k];
        run.workers.push(WorkerGroup {
            instance: instance.to_string(),
            count,
            batch_size,
        });
        if let Some(v) = get(Col::Iteration) {
            let t = csv_number(line, "iteration time [s]", v)?;
            once(&mut run.iteration, t, line, "iteration time [s]", label)?;
        }
        if let Some(v) = get(Col::Throughput) {
            let x = csv_number(line, "throughput [samples/s]", v)?;
            once(
                &mut run.throughput,
                x,
                line,
                "throughput [samples/s]",
                label,
            )?;
        }
        if let Some(v) = get(Col::Source) {
            once(&mut run.source, v.to_string(), line, "source", label)?;
        }
    }
    Ok(runs
        .into_iter()
        .map(|r| Run {
            label: r.label,
            workers: r.workers,
            ps: None,
            iteration_s: r.iteration.map(|v| v.0),
            throughput: r.throughput.map(|v| v.0),
            source: r.source.map(|v| v.0).unwrap_or_default(),
            published: None,
            lacks: None,
        })
        .collect())
}

/// A runs file read in the import worker (`crate::readers`).
pub const RUNS: Importer<Vec<Run>> = Importer {
    id: "runs",
    read: |_, bytes, ()| Ok(parse_runs(&text(bytes)?)?),
};

/// `--import runs=FILE`: the file's runs replace the scenario's; what was
/// read, in one sentence. Their fields are checked with the scenario's.
pub fn apply_runs(s: &mut Scenario, text: &str) -> Result<String, ReadError> {
    let runs = parse_runs(text)?;
    let groups: usize = runs.iter().map(|r| r.workers.len()).sum();
    let msg = format!(
        "{} measured {} ({} worker {})",
        fmt_count(runs.len() as f64),
        if runs.len() == 1 { "run" } else { "runs" },
        fmt_count(groups as f64),
        if groups == 1 { "group" } else { "groups" }
    );
    s.runs = runs;
    Ok(msg)
}
