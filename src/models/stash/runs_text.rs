//! The measured runs as the page's text box and uploads hold them.
//!
//! CSV, one row per run (a header row and `#` comments allowed):
//! `configuration, run, seconds, samples[, reference]`, e.g.
//! `2× p3.8xlarge, 5, 410.2, 100000, p3.16xlarge`. JSON: an array of
//! `{configuration, run, seconds, samples, reference?}` objects, or an
//! object with such a `runs` array (a section or a whole scenario's).
//!
//! Numbers are written back in full (Rust's shortest exact form), so
//! editing the box and leaving it never rounds the runs it already held.

use serde::Deserialize;

use super::section::{within_run_limit, Run, TooManyRuns};
use crate::errors::ReadError;
use crate::readers::{text, Importer};
use crate::workload::text::{csv_number, csv_rows, json_error_parts, CsvError};

/// Why a runs box or file does not read, naming the line where it can.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunsError {
    #[error(transparent)]
    Csv(#[from] CsvError),
    #[error("line {line}: the run \"{run}\" is not one of Stash's steps 1 to 5")]
    NotAStep { line: usize, run: String },
    #[error("not JSON: {message} (line {line}, column {column})")]
    NotJson {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("JSON with no runs: expected an array of {{configuration, run, seconds, samples}} objects, or an object with such a \"runs\" array")]
    NoRuns,
    #[error(transparent)]
    TooMany(#[from] TooManyRuns),
}

/// A runs file read by an importer says its error as the file's content.
impl From<RunsError> for ReadError {
    fn from(e: RunsError) -> Self {
        ReadError::Content(e.to_string())
    }
}

pub fn parse_runs_csv(text: &str) -> Result<Vec<Run>, RunsError> {
    csv_rows(text, 4, 5)?
        .into_iter()
        .map(|(line, f)| {
            let run = csv_number(line, "run", &f[1])?;
            if run.fract() != 0.0 || !(1.0..=5.0).contains(&run) {
                return Err(RunsError::NotAStep {
                    line,
                    run: f[1].clone(),
                });
            }
            Ok(Run {
                configuration: f[0].clone(),
                run: run as u8,
                seconds: csv_number(line, "time [s]", &f[2])?,
                samples: csv_number(line, "samples", &f[3])?,
                reference: f.get(4).filter(|r| !r.is_empty()).cloned(),
            })
        })
        .collect()
}

pub fn format_runs_csv(runs: &[Run]) -> String {
    runs.iter()
        .map(|r| {
            let reference = r
                .reference
                .as_ref()
                .map(|x| format!(", {x}"))
                .unwrap_or_default();
            format!(
                "{}, {}, {}, {}{reference}\n",
                r.configuration, r.run, r.seconds, r.samples
            )
        })
        .collect()
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RunsJson {
    List(Vec<Run>),
    Section { runs: Vec<Run> },
    Scenario { models: Models },
}

#[derive(Deserialize)]
struct Models {
    stash: Section,
}

#[derive(Deserialize)]
struct Section {
    runs: Vec<Run>,
}

pub fn parse_runs_json(text: &str) -> Result<Vec<Run>, RunsError> {
    if let Err(e) = serde_json::from_str::<serde_json::Value>(text) {
        let (line, column, message) = json_error_parts(&e);
        return Err(RunsError::NotJson {
            line,
            column,
            message,
        });
    }
    match serde_json::from_str::<RunsJson>(text) {
        Ok(RunsJson::List(r)) | Ok(RunsJson::Section { runs: r }) => Ok(r),
        Ok(RunsJson::Scenario { models }) => Ok(models.stash.runs),
        Err(_) => Err(RunsError::NoRuns),
    }
}

/// A file's runs, read as JSON when it looks like JSON, else as CSV.
pub fn parse_runs(text: &str) -> Result<Vec<Run>, RunsError> {
    let t = text.trim_start();
    let runs = if t.starts_with('[') || t.starts_with('{') {
        parse_runs_json(text)?
    } else {
        parse_runs_csv(text)?
    };
    within_run_limit(runs.len())?;
    Ok(runs)
}

/// A runs file read in the import worker (`crate::readers`).
pub const RUNS: Importer<Vec<Run>> = Importer {
    id: "stash.runs",
    read: |_, bytes, ()| Ok(parse_runs(&text(bytes)?)?),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_reads_with_a_header_and_a_reference_and_round_trips() {
        let r = parse_runs(
            "configuration, run, seconds, samples, reference\n# P3\np3.16xlarge, 2, 100.5, 80000\n2× p3.8xlarge, 5, 150, 80000, p3.16xlarge\n",
        )
        .unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].reference.as_deref(), Some("p3.16xlarge"));
        assert_eq!(r[0].run, 2);
        assert_eq!(parse_runs(&format_runs_csv(&r)).unwrap(), r);
    }

    #[test]
    fn bad_rows_and_files_say_what_is_wrong() {
        let says = |text: &str| parse_runs(text).map_err(|e| e.to_string()).unwrap_err();
        assert_eq!(
            says("p3.2xlarge, 6, 10, 100\n"),
            "line 1: the run \"6\" is not one of Stash's steps 1 to 5"
        );
        assert_eq!(
            says("p3.2xlarge, 1, ten, 100\n"),
            "line 1: the time [s] \"ten\" is not a number"
        );
        assert_eq!(
            says("p3.2xlarge, 1, 10\n"),
            "line 1: 3 fields, expected 4 to 5"
        );
        assert_eq!(
            says("[{\"configuration\": 1}]"),
            "JSON with no runs: expected an array of {configuration, run, seconds, samples} objects, or an object with such a \"runs\" array"
        );
        assert!(says("{\"runs\": [").starts_with("not JSON: "));
        let j = parse_runs(
            "{\"models\": {\"stash\": {\"runs\": [{\"configuration\": \"p2.xlarge\", \"run\": 1, \"seconds\": 5, \"samples\": 10}]}}}",
        )
        .unwrap();
        assert_eq!(j[0].configuration, "p2.xlarge");
    }
}
