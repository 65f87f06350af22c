//! The JS package: the model core for documentation pages, built by
//! `make js` (`wasm-pack build … -- --features js`) into `target/js-pkg`.
//! See `docs/js-package.md`.
//!
//! Compiled only for wasm32 with the `js` feature, so the page's wasm
//! never carries these exports. Every scenario goes through
//! `Scenario::from_json`, the one path that migrates and validates a
//! document, whether it arrives as text or as a JS object; failures are
//! thrown as JS `Error`s with the message the CLI prints.

use serde::{Serialize, Serializer};
use wasm_bindgen::prelude::*;

use crate::models::decode_fragment;
use crate::models::{evaluate_all, Need, Unavailable, MODELS};
use crate::report::{plotly, Chart, Report, Value as ReportValue};
use crate::scenario::Scenario;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
/** A scenario document (docs/scenario.md): what `decode` and `example`
 *  return and what `evaluate` and `encode` read (any version this build
 *  reads; older ones are upgraded). Only the top level is typed here. */
export interface Scenario {
  version: number;
  title?: string;
  workload: Record<string, unknown>;
  hardware: Record<string, unknown>;
  [section: string]: unknown;
}

/** How a stored (SI) value is shown: seconds, hours, USD, bytes/s as Gb/s… */
export type Unit =
  | "none" | "count" | "seconds" | "hours" | "usd" | "usd_per_hour"
  | "flop" | "gflop" | "gflop_per_s" | "megabytes" | "gbit_per_s"
  | "megabytes_per_s" | "percent" | "times" | "samples_per_s" | "workers";

/** A number in SI units (seconds, FLOP, bytes, bytes/s, USD, fractions), words, or nothing. */
export type Value =
  | { kind: "number"; value: number; unit: Unit }
  | { kind: "text"; text: string }
  | { kind: "empty" };

export interface Figure {
  /** Stable identifier, e.g. "iteration-time". */
  key: string;
  label: string;
  value: Value;
  /** Where it comes from, e.g. "Algorithm 1/2". */
  source?: string;
  /** Its spread when the scenario gives ranges (`uncertainty`), in the value's SI unit. */
  band?: Band;
  /** The model as published, beside a calibrated figure that differs from it. */
  published?: Value;
}

/** 10th, 50th and 90th percentile of a seeded Monte Carlo over the scenario's ranges. */
export interface Band {
  p10: number;
  p50: number;
  p90: number;
  /** Samples with a finite value. */
  samples: number;
  /** The goal the figure is held against and the share of samples meeting it (0 to 1). */
  goal?: { what: string; goal: number; probability: number };
}

export interface Column { label: string; unit: Unit }

export interface Table {
  key: string;
  title: string;
  columns: Column[];
  rows: Value[][];
  caption?: string;
}

export interface Note {
  level: "info" | "warning";
  /** Dotted scenario path the note is about. */
  field?: string;
  text: string;
}

export interface Axis { label: string; unit: Unit; log: boolean; from_zero: boolean }

export type SeriesData =
  | { kind: "xy"; x: number[]; y: number[] }
  | { kind: "segments"; rows: string[]; start: number[]; end: number[] };

export interface Series {
  name: string;
  style: "line" | "points" | "line_points" | "bars" | "highlight";
  data: SeriesData;
  hover?: string[];
  hollow?: boolean[];
  color?: string;
  y2: boolean;
  /** 10th and 90th percentile per point, when inputs have ranges. */
  band?: SeriesBand;
}

export interface SeriesBand { p10: number[]; p90: number[]; samples: number }

export type Marker =
  | { kind: "vertical"; x: number; label: string }
  | { kind: "horizontal"; y: number; label: string }
  | { kind: "below"; y: number; label: string }
  /** A timeline total's 10th-90th percentile, when inputs have ranges. */
  | { kind: "span"; x0: number; x1: number; label: string };

/** A chart as data; `figure(chart)` makes it a plotly.js figure. */
export interface Chart {
  /** Stable identifier, e.g. "timeline". */
  key: string;
  title: string;
  x: Axis;
  y: Axis;
  y2?: Axis;
  series: Series[];
  markers?: Marker[];
}

/** Everything one model says about one scenario (the CLI's JSON `report`). */
export interface Report {
  /** Registry id, e.g. "zeng". */
  model: string;
  model_name: string;
  subject: string;
  headline: Figure[];
  figures: Figure[];
  tables: Table[];
  notes: Note[];
  charts: Chart[];
}

/** A problem with one scenario field (dotted path). */
export interface FieldError { field: string; message: string }

/** Why a model has no report: its inputs are missing, or invalid. */
export type Unavailable =
  | { kind: "missing"; needs: FieldError[] }
  | { kind: "invalid"; errors: FieldError[] };

export type Outcome =
  | { report: Report; unavailable?: never }
  | { unavailable: Unavailable; report?: never };

/** `evaluate`'s result: the shape of `ddnn-planner eval --format json`
 *  (without `imports` and `network`), one entry per model in registry
 *  order, and every model held against the measured runs when the
 *  scenario has any. */
export interface Evaluation {
  title: string;
  models: Record<string, Outcome>;
  runs?: Outcome;
}

/** `calibrate`'s result, as `ddnn-planner calibrate` gives it: the report
 *  (factors; errors as published, calibrated in-sample and leave-one-out;
 *  every run) and the scenario with the fitted factors stored. */
export interface Calibration {
  report: Report;
  scenario: Scenario;
}

/** One scenario input a model reads. */
export interface Need { field: string; what: string; optional: boolean }

export interface ModelInfo {
  id: string;
  name: string;
  about: string;
  paper: string;
  needs: Need[];
}

/** A plotly.js figure: `Plotly.newPlot(element, figure)` draws it. */
export interface PlotlyFigure {
  data: Record<string, unknown>[];
  layout: Record<string, unknown>;
  config: Record<string, unknown>;
}
"#;

/// Panics (bugs) print their message on the console instead of only
/// "unreachable". (A `#[wasm_bindgen(start)]` function would also be
/// exported as `start()`.)
fn panic_hook() {
    console_error_panic_hook::set_once();
}

/// serde-wasm-bindgen's message, without the "Error: " of the JS error it wraps.
fn message(e: serde_wasm_bindgen::Error) -> String {
    let text = e.to_string();
    text.strip_prefix("Error: ").unwrap_or(&text).to_string()
}

/// Plain objects for maps, `null` for missing values: what `JSON.parse`
/// of the CLI's output gives, except that numbers JSON cannot hold
/// (NaN, ±Infinity) stay numbers.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&message(e)))
}

/// A scenario from its JSON text or a JS object, read, migrated and
/// validated as the CLI reads a file.
fn read_scenario(input: JsValue) -> Result<Scenario, JsError> {
    let text = match input.as_string() {
        Some(text) => text,
        None if input.is_object() => {
            let value: serde_json::Value = serde_wasm_bindgen::from_value(input)
                .map_err(|e| JsError::new(&format!("not a scenario document: {}", message(e))))?;
            value.to_string()
        }
        None => {
            return Err(JsError::new(
                "not a scenario document: expected a scenario object or its JSON text",
            ))
        }
    };
    crate::models::from_json(&text).map_err(|e| JsError::new(&e.to_string()))
}

/// One model's outcome as the CLI's JSON writes it: `{"report": …}` or
/// `{"unavailable": …}`.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum Outcome<'a> {
    Report(&'a Report),
    Unavailable(&'a Unavailable),
}

/// The models in registry order, as a map from id to outcome.
struct Outcomes<'a>(Vec<(&'static str, Outcome<'a>)>);

impl Serialize for Outcomes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(id, o)| (id, o)))
    }
}

#[derive(Serialize)]
struct Evaluation<'a> {
    title: &'a str,
    models: Outcomes<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    runs: Option<Outcome<'a>>,
}

fn outcome(r: &Result<Report, Unavailable>) -> Outcome<'_> {
    match r {
        Ok(rep) => Outcome::Report(rep),
        Err(u) => Outcome::Unavailable(u),
    }
}

/// Every model's report for a scenario (a JS object or its JSON text):
/// `{title, models: {zeng: {report} | {unavailable}, …}}`, the shape of
/// `ddnn-planner eval --format json`. Throws when the document cannot be
/// read (not JSON, a newer version, invalid fields).
#[wasm_bindgen(unchecked_return_type = "Evaluation")]
pub fn evaluate(
    #[wasm_bindgen(unchecked_param_type = "Scenario | string")] scenario: JsValue,
) -> Result<JsValue, JsError> {
    panic_hook();
    let s = read_scenario(scenario)?;
    let outcomes = evaluate_all(&s);
    let runs = (!s.runs.is_empty()).then(|| crate::runs::evaluate(&s, MODELS));
    let models = outcomes.iter().map(|(m, r)| (m.id(), outcome(r))).collect();
    to_js(&Evaluation {
        title: &s.display_title(),
        models: Outcomes(models),
        runs: runs.as_ref().map(outcome),
    })
}

#[derive(Serialize)]
struct Calibrated<'a> {
    report: &'a Report,
    scenario: &'a Scenario,
}

/// Every model with factors calibrated on the scenario's measured runs,
/// as `ddnn-planner calibrate` does: `{report, scenario}`, the scenario
/// with the fitted factors stored (a model that cannot be fitted keeps
/// what it had, and the report says why). Throws when the document
/// cannot be read or has no runs.
#[wasm_bindgen(unchecked_return_type = "Calibration")]
pub fn calibrate(
    #[wasm_bindgen(unchecked_param_type = "Scenario | string")] scenario: JsValue,
) -> Result<JsValue, JsError> {
    use crate::calibration::{self, FitOptions};
    panic_hook();
    let s = read_scenario(scenario)?;
    if s.runs.is_empty() {
        return Err(JsError::new(
            "the scenario has no measured runs (runs): give each a label, its worker groups and the iteration time [s] or throughput [samples/s] measured",
        ));
    }
    let models = calibration::analysis::calibrated_models(&s);
    let results = calibration::calibrate(&s, &models, &FitOptions::default());
    let report = calibration::report::build(&results, &s.display_title());
    let out = calibration::fit::with_factors(&s, &results);
    to_js(&Calibrated {
        report: &report,
        scenario: &out,
    })
}

/// The papers' own accuracy, as `ddnn-planner papers` gives it: every
/// shipped measured cell beside the paper's prediction, this product's
/// and the calibrated leave-one-out one, per cell and per table.
#[wasm_bindgen(unchecked_return_type = "Report")]
pub fn papers() -> Result<JsValue, JsError> {
    panic_hook();
    let report = crate::runs::papers::paper_report().map_err(|u| {
        JsError::new(&crate::report::text::unavailable(
            "Paper check",
            u.errors(),
            u.is_missing(),
        ))
    })?;
    to_js(&report)
}

/// The plotly.js figure for one of a report's charts, as the page draws
/// it: `Plotly.newPlot(element, figure(report.charts[0]))`.
#[wasm_bindgen(unchecked_return_type = "PlotlyFigure")]
pub fn figure(
    #[wasm_bindgen(unchecked_param_type = "Chart")] chart: JsValue,
) -> Result<JsValue, JsError> {
    panic_hook();
    let chart: Chart = serde_wasm_bindgen::from_value(chart)
        .map_err(|e| JsError::new(&format!("not a report chart: {}", message(e))))?;
    let mut fig = plotly::figure(&chart);
    fig["config"] = serde_json::json!({ "responsive": true, "displaylogo": false });
    to_js(&fig)
}

/// A report value as the page shows it, with its unit: "26.84 s",
/// "$1.96", "54%", or the words of a text value.
#[wasm_bindgen]
pub fn display(
    #[wasm_bindgen(unchecked_param_type = "Value")] value: JsValue,
) -> Result<String, JsError> {
    panic_hook();
    let value: ReportValue = serde_wasm_bindgen::from_value(value)
        .map_err(|e| JsError::new(&format!("not a report value: {}", message(e))))?;
    Ok(value.display())
}

/// The share fragment of a scenario (`s1.…`, without `#`): append it to
/// the page's address after `#` (or `?embed=1#` for the embed view).
#[wasm_bindgen]
pub fn encode(
    #[wasm_bindgen(unchecked_param_type = "Scenario | string")] scenario: JsValue,
) -> Result<String, JsError> {
    panic_hook();
    read_scenario(scenario)
        .and_then(|s| crate::models::encode_share(&s).map_err(|e| JsError::new(&e.to_string())))
}

/// The scenario a share fragment carries; takes `s1.…`, `#s1.…` or a
/// whole link. Throws with a message saying what is wrong with it.
#[wasm_bindgen(unchecked_return_type = "Scenario")]
pub fn decode(fragment: &str) -> Result<JsValue, JsError> {
    panic_hook();
    let s = decode_fragment(fragment).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&s)
}

/// The page's landing example scenario (VGG-16 on a mixed GPU cluster).
#[wasm_bindgen(unchecked_return_type = "Scenario")]
pub fn example() -> Result<JsValue, JsError> {
    panic_hook();
    to_js(&Scenario::example())
}

#[derive(Serialize)]
struct ModelInfo {
    id: &'static str,
    name: &'static str,
    about: &'static str,
    paper: &'static str,
    needs: &'static [Need],
}

/// The models in registry order and the scenario inputs each one reads,
/// as `ddnn-planner models` lists them.
#[wasm_bindgen(unchecked_return_type = "ModelInfo[]")]
pub fn models() -> Result<JsValue, JsError> {
    panic_hook();
    let list: Vec<ModelInfo> = MODELS
        .iter()
        .map(|m| ModelInfo {
            id: m.id(),
            name: m.name(),
            about: m.about(),
            paper: m.paper(),
            needs: m.needs(),
        })
        .collect();
    to_js(&list)
}
