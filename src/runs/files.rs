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
use crate::workload::text::{csv_number, json_error_parts, shorten};

/// What an empty file (or one with no run) is told, as the other
/// importers say it.
pub const EMPTY: &str = "the runs file is empty: give a header row (label, instance, count, batch_size, iteration_s or throughput, source) and one row per worker group";

const COLUMNS: &str = "label, instance, count, batch_size, iteration_s or throughput, source";

/// A file's runs, read as JSON when it looks like JSON, else as CSV.
pub fn parse_runs(text: &str) -> Result<Vec<Run>, String> {
    let t = text.strip_prefix('\u{feff}').unwrap_or(text);
    let runs = match t.trim_start().chars().next() {
        None => return Err(EMPTY.into()),
        Some('[' | '{') => parse_json(t)?,
        Some(_) => parse_csv(t)?,
    };
    if runs.is_empty() {
        return Err(EMPTY.into());
    }
    if runs.len() > MAX_RUNS {
        return Err(too_many(runs.len()));
    }
    Ok(runs)
}

fn too_many(n: usize) -> String {
    format!(
        "{} runs is more than the {} accepted",
        fmt_count(n as f64),
        fmt_count(MAX_RUNS as f64)
    )
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RunsJson {
    List(Vec<Run>),
    Holder { runs: Vec<Run> },
}

fn parse_json(text: &str) -> Result<Vec<Run>, String> {
    if let Err(e) = serde_json::from_str::<serde_json::Value>(text) {
        let (line, column, message) = json_error_parts(&e);
        return Err(format!(
            "not JSON: {message} (line {line}, column {column})"
        ));
    }
    match serde_json::from_str::<RunsJson>(text) {
        Ok(RunsJson::List(r) | RunsJson::Holder { runs: r }) => Ok(r),
        Err(_) => Err(
            "JSON with no runs: expected an array of {label, workers, iteration_s or throughput} objects, or an object with such a \"runs\" array"
                .into(),
        ),
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

fn header(line: usize, fields: &[String]) -> Result<Vec<Col>, String> {
    let mut cols = Vec::new();
    for f in fields {
        let name = f.to_ascii_lowercase();
        let Some(&(_, col)) = NAMES.iter().find(|(n, _)| *n == name) else {
            return Err(format!(
                "line {line}: \"{}\" is not a column of a runs file; the first row names the columns: {COLUMNS}",
                shorten(f)
            ));
        };
        if cols.contains(&col) {
            return Err(format!(
                "line {line}: \"{name}\" appears twice in the header row"
            ));
        }
        cols.push(col);
    }
    let lacks: Vec<&str> = NAMES[..4]
        .iter()
        .filter(|(_, c)| !cols.contains(c))
        .map(|(n, _)| *n)
        .collect();
    if !lacks.is_empty() {
        return Err(format!(
            "line {line}: the header row lacks {}; the columns are: {COLUMNS}",
            lacks.join(", ")
        ));
    }
    if !cols.contains(&Col::Iteration) && !cols.contains(&Col::Throughput) {
        return Err(format!(
            "line {line}: the header row needs an iteration_s [s] or a throughput [samples/s] column"
        ));
    }
    Ok(cols)
}

/// A whole number in a CSV field, or a message naming its line.
fn whole(line: usize, what: &str, s: &str) -> Result<u32, String> {
    let v = csv_number(line, what, s).map_err(|e| e.to_string())?;
    if v.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&v) {
        return Err(format!(
            "line {line}: the {what} \"{}\" is not a whole number",
            shorten(s)
        ));
    }
    Ok(v as u32)
}

/// `value` into `slot`, unless the run already has another there.
fn once<T: PartialEq + std::fmt::Display>(
    slot: &mut Option<(T, usize)>,
    value: T,
    line: usize,
    what: &str,
    label: &str,
) -> Result<(), String> {
    match slot {
        Some((v, at)) if *v != value => Err(format!(
            "line {line}: run '{}' has the {what} {v} on line {at}; this row says {value}",
            shorten(label)
        )),
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

fn parse_csv(text: &str) -> Result<Vec<Run>, String> {
    let mut rdr = crate::workload::text::csv_reader(text);
    let mut cols: Option<Vec<Col>> = None;
    let mut runs: Vec<Rows> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| format!("row {}: {e}", i + 1))?;
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
            return Err(format!(
                "line {line}: {} fields, but the header row has {} columns (quote a text that holds a comma)",
                fields.len(),
                cols.len()
            ));
        }
        let get = |c: Col| {
            cols.iter()
                .position(|&x| x == c)
                .and_then(|k| fields.get(k))
                .map(String::as_str)
                .filter(|v| !v.is_empty())
        };
        let label = get(Col::Label)
            .ok_or_else(|| format!("line {line}: no label (rows of one run share a label)"))?;
        let instance = get(Col::Instance).ok_or_else(|| format!("line {line}: no instance"))?;
        let count = whole(line, "count", get(Col::Count).unwrap_or(""))?;
        let batch_size = whole(line, "batch size", get(Col::Batch).unwrap_or(""))?;
        let k = match index.get(label) {
            Some(&k) => k,
            None => {
                if runs.len() == MAX_RUNS {
                    return Err(format!("line {line}: {}", too_many(MAX_RUNS + 1)));
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
            let t = csv_number(line, "iteration time [s]", v).map_err(|e| e.to_string())?;
            once(&mut run.iteration, t, line, "iteration time [s]", label)?;
        }
        if let Some(v) = get(Col::Throughput) {
            let x = csv_number(line, "throughput [samples/s]", v).map_err(|e| e.to_string())?;
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
