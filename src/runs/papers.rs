//! The papers' own accuracy (issue 35): the measured runs each paper
//! prints, shipped as measured-run sets whose runs carry the paper's own
//! prediction (`Run::published`), held against this product.
//!
//! Per cell: the measurement, the paper's prediction and its accuracy in
//! the paper's own convention, this product's recomputation as the paper
//! has the model, both errors, and the prediction calibrated on the other
//! runs of its set (leave-one-out, `calibration::calibrate_model`). Per
//! table: the median and worst absolute error of each, and whether the
//! calibrated median is under `GOAL` and below the paper's own, or why
//! not. Each model names its sets and tables (`Model::paper_check`);
//! nothing here names a model. The report depends on no scenario: it is
//! computed once per process (`paper_report`).

use std::sync::OnceLock;

use serde::Serialize;

use super::compare::{compare, Outcome};
use super::Measure;
use crate::calibration::fit::{calibrate_model, ErrorStats, FitOptions};
use crate::errors::Unavailable;
use crate::inputs::Need;
use crate::models::{from_json, Model, Work, MODELS};
use crate::report::{Column, Figure, Note, Report, Table, Unit, Value};
use crate::scenario::Scenario;

/// The calibrated median |error| the leave-one-out predictions aim under.
pub const GOAL: f64 = 0.10;

/// What one model's paper prints about its own accuracy.
pub struct PaperCheck {
    pub tables: &'static [PaperTable],
    pub sets: &'static [PaperSet],
    /// What a reader must know: which rows a fitted constant came from,
    /// the paper's misprints.
    pub notes: &'static [&'static str],
}

/// One table of the paper.
pub struct PaperTable {
    /// "Table 2".
    pub table: &'static str,
    /// What it measures, in the paper's words ("stand-alone CPU").
    pub what: &'static str,
    /// Runs whose label starts with this belong to it ("T2 ").
    pub prefix: &'static str,
    /// Its accuracy column's convention (`None`: it prints no prediction).
    pub accuracy: Option<Accuracy>,
    /// The physics the model leaves out that shows in this table: said
    /// beside the calibrated error when it misses the goal.
    pub leaves_out: &'static str,
}

/// One shipped runs file (a scenario whose runs carry `published`).
pub struct PaperSet {
    /// Its name in `public/examples/`.
    pub file: &'static str,
    pub text: &'static str,
    /// The factors calibrated on it (empty: every factor the model has).
    pub factors: &'static [&'static str],
}

/// How a paper's accuracy column reads its prediction PT and measurement
/// MT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Accuracy {
    /// `1 − |PT − MT| / PT`.
    OneMinusErrorOverPt,
    /// `PT / MT`.
    PtOverMt,
}

impl Accuracy {
    pub fn of(self, pt: f64, mt: f64) -> f64 {
        match self {
            Accuracy::OneMinusErrorOverPt => 1.0 - (pt - mt).abs() / pt,
            Accuracy::PtOverMt => pt / mt,
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            Accuracy::OneMinusErrorOverPt => "1 − |PT − MT| / PT",
            Accuracy::PtOverMt => "PT / MT",
        }
    }
}

/// One measured cell of a paper.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    pub model: &'static str,
    pub table: &'static str,
    /// The set's file in `public/examples/`.
    pub set: &'static str,
    /// The set's network ("VGG-16").
    pub network: String,
    pub label: String,
    pub measure: Measure,
    /// MT, in the measure's SI unit.
    pub measured: f64,
    /// Its citation.
    pub source: String,
    /// PT, when the paper prints one, and where.
    pub published: Option<f64>,
    pub published_source: String,
    /// The paper's accuracy of PT, in its convention.
    pub paper_accuracy: Option<f64>,
    /// This product's prediction as the paper has the model, or why none.
    pub recomputed: Result<f64, String>,
    /// Calibrated on the other runs of its set, or why none.
    pub loo: Result<f64, String>,
}

impl Cell {
    fn error(&self, p: Option<f64>) -> Option<f64> {
        p.map(|p| (p - self.measured) / self.measured)
    }
    pub fn published_error(&self) -> Option<f64> {
        self.error(self.published)
    }
    pub fn recomputed_error(&self) -> Option<f64> {
        self.error(self.recomputed.as_ref().ok().copied())
    }
    pub fn loo_error(&self) -> Option<f64> {
        self.error(self.loo.as_ref().ok().copied())
    }
}

/// One table's errors over its cells.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TableCheck {
    pub model: &'static str,
    pub table: &'static str,
    pub what: &'static str,
    pub accuracy: Option<Accuracy>,
    /// What the model leaves out that shows in this table.
    pub leaves_out: &'static str,
    pub cells: usize,
    pub published: ErrorStats,
    pub recomputed: ErrorStats,
    pub loo: ErrorStats,
    /// The calibrated median is under `GOAL` and below the paper's.
    pub goal_met: bool,
    /// Why not, when not.
    pub why_not: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    pub cells: Vec<Cell>,
    pub tables: Vec<TableCheck>,
    /// Every model's notes, prefixed with its name.
    pub notes: Vec<String>,
}

/// Runs the check over every set is `sets` runs²: each set's
/// leave-one-out refits once per run over its runs.
pub fn work() -> Work {
    let units = MODELS
        .iter()
        .filter_map(|m| m.paper_check())
        .flat_map(|p| p.sets)
        .map(|s| {
            let n = s.text.matches("\"published\"").count() as f64;
            n * n
        })
        .sum();
    Work {
        units,
        unit: "run-refits (runs squared, summed over the papers' sets)",
        limit: crate::calibration::fit::MAX_RUNS_SQUARED,
        field: "papers".into(),
        reduce: "the papers' shipped sets".into(),
    }
}

/// Every registry model's paper check, or the first shipped file that
/// does not read.
pub fn check() -> Result<Check, String> {
    let mut cells = Vec::new();
    let mut tables = Vec::new();
    let mut notes = Vec::new();
    for &m in MODELS {
        let Some(p) = m.paper_check() else {
            continue;
        };
        notes.extend(p.notes.iter().map(|n| format!("{}: {n}", m.name())));
        let first = cells.len();
        for set in p.sets {
            cells.extend(check_set(m, p, set)?);
        }
        for t in p.tables {
            tables.push(table_check(m, t, &cells[first..]));
        }
    }
    Ok(Check {
        cells,
        tables,
        notes,
    })
}

fn check_set(m: &'static dyn Model, p: &PaperCheck, set: &PaperSet) -> Result<Vec<Cell>, String> {
    let s: Scenario = from_json(set.text).map_err(|e| format!("{}: {e}", set.file))?;
    let c = compare(&s, &[m]).map_err(|u| format!("{}: {}", set.file, joined(&u)))?;
    let outcomes = c.models.first().map(|r| r.outcomes.clone());
    let opts = FitOptions {
        only: set.factors.iter().map(|f| f.to_string()).collect(),
        ..FitOptions::default()
    };
    let fit = calibrate_model(&s, m, &opts);
    s.runs
        .iter()
        .zip(&c.runs)
        .enumerate()
        .map(|(i, (run, measured))| {
            let table = p
                .tables
                .iter()
                .find(|t| run.label.starts_with(t.prefix))
                .ok_or_else(|| {
                    format!(
                        "{}: run '{}' belongs to none of the paper's tables",
                        set.file, run.label
                    )
                })?;
            let recomputed = match outcomes.as_ref().and_then(|o| o.get(i)) {
                Some(Outcome::Predicted { value, .. }) => Ok(*value),
                Some(Outcome::Unavailable { why }) => Err(joined(why)),
                None => Err(format!("{} does not predict measured runs", m.name())),
            };
            let loo = match &fit {
                Ok(f) => f.runs.get(i).and_then(|r| r.loo).ok_or_else(|| {
                    f.runs
                        .get(i)
                        .and_then(|r| r.why_not.clone())
                        .or_else(|| f.loo_note.clone())
                        .unwrap_or_else(|| "no refit without this run".into())
                }),
                Err(e) => Err(format!("not calibrated: {e}")),
            };
            Ok(Cell {
                model: m.name(),
                table: table.table,
                set: set.file,
                network: s.workload.network.name.clone(),
                label: run.label.clone(),
                measure: measured.measure,
                measured: measured.value,
                source: run.source.clone(),
                published: run.published.as_ref().map(|p| p.value),
                published_source: run
                    .published
                    .as_ref()
                    .map(|p| p.source.clone())
                    .unwrap_or_default(),
                paper_accuracy: run
                    .published
                    .as_ref()
                    .zip(table.accuracy)
                    .map(|(p, a)| a.of(p.value, measured.value)),
                recomputed,
                loo,
            })
        })
        .collect()
}

fn joined(u: &Unavailable) -> String {
    u.errors()
        .iter()
        .map(|e| e.message.clone())
        .collect::<Vec<_>>()
        .join("; ")
}

fn table_check(m: &dyn Model, t: &'static PaperTable, cells: &[Cell]) -> TableCheck {
    let mine: Vec<&Cell> = cells.iter().filter(|c| c.table == t.table).collect();
    let published = ErrorStats::of(mine.iter().map(|c| c.published_error()));
    let recomputed = ErrorStats::of(mine.iter().map(|c| c.recomputed_error()));
    let loo = ErrorStats::of(mine.iter().map(|c| c.loo_error()));
    let (goal_met, why_not) = match (loo.median_abs, published.median_abs) {
        (Some(l), Some(p)) if l < GOAL && l < p => (true, None),
        (Some(l), p) => {
            let missed = if l >= GOAL {
                format!("not under {:.0}%", GOAL * 100.0)
            } else {
                "not below the paper's own".to_string()
            };
            let below = p.map_or(String::new(), |p| {
                format!(" (the paper's: {})", Unit::Percent.display(p))
            });
            (
                false,
                Some(format!(
                    "calibrated median {}{below}: {missed}; {}",
                    Unit::Percent.display(l),
                    t.leaves_out
                )),
            )
        }
        (None, _) => (
            false,
            Some(format!(
                "no cell has a leave-one-out prediction: {}",
                t.leaves_out
            )),
        ),
    };
    TableCheck {
        model: m.name(),
        table: t.table,
        what: t.what,
        accuracy: t.accuracy,
        leaves_out: t.leaves_out,
        cells: mine.len(),
        published,
        recomputed,
        loo,
        goal_met,
        why_not,
    }
}

/// Percent, or empty.
fn pct(v: Option<f64>) -> Value {
    v.map_or(Value::Empty, |v| Value::num(v, Unit::Percent))
}

/// A prediction in its measure, or empty.
fn in_measure(v: Option<f64>, measure: Measure) -> Value {
    v.map_or(Value::Empty, |v| Value::num(v, measure.unit()))
}

/// The check as a report: the tables' summary, then every cell.
pub fn build(c: &Check) -> Report {
    let mut headline = vec![Figure::new(
        "cells",
        "measured cells",
        Value::count(c.cells.len() as f64),
    )];
    let models: Vec<&'static str> = c.tables.iter().fold(Vec::new(), |mut v, t| {
        if !v.contains(&t.model) {
            v.push(t.model);
        }
        v
    });
    for (k, name) in models.iter().enumerate() {
        let mine = || c.cells.iter().filter(|x| x.model == *name);
        // A paper none of whose cells can be predicted has no figures
        // here; its note says why.
        let predicted = mine().any(|x| {
            x.published_error().is_some()
                || x.recomputed_error().is_some()
                || x.loo_error().is_some()
        });
        if !predicted {
            continue;
        }
        let stat = |f: fn(&Cell) -> Option<f64>| {
            ErrorStats::of(mine().map(f))
                .median_abs
                .map_or(Value::text("no cell"), |v| Value::num(v, Unit::Percent))
        };
        let key = |what: &str| format!("{}-{what}", model_key(k, name));
        headline.push(
            Figure::new(
                key("published-median"),
                format!("{name}: median |error| of the paper's prediction"),
                stat(Cell::published_error),
            )
            .source("printed PT against printed MT"),
        );
        headline.push(Figure::new(
            key("recomputed-median"),
            format!("{name}: median |error| recomputed"),
            stat(Cell::recomputed_error),
        ));
        headline.push(
            Figure::new(
                key("loo-median"),
                format!("{name}: median |error| calibrated, leave-one-out"),
                stat(Cell::loo_error),
            )
            .source("each cell predicted by the fit on the other cells of its set"),
        );
    }
    let mut notes = vec![Note::info(
        "error = (predicted − measured) / measured; the papers' own accuracy column is shown in each table's convention. Recomputed: this product's model as the paper has it, from the set's scenario. Calibrated, leave-one-out: the model's factors fitted on the other runs of the cell's set, then this cell predicted.",
    )];
    notes.extend(c.notes.iter().map(Note::info));
    notes.extend(c.tables.iter().filter_map(|t| {
        t.why_not
            .as_ref()
            .map(|w| Note::warning(format!("{} {}: {w}", t.model, t.table)))
    }));
    Report {
        model: "papers".into(),
        model_name: "Paper check".into(),
        subject: format!(
            "{} measured cells from {} tables: each paper's prediction, this product's and the calibrated one",
            c.cells.len(),
            c.tables.len()
        ),
        headline,
        figures: Vec::new(),
        tables: vec![tables_table(c), sets_table(c), cells_table(c)],
        notes,
        charts: Vec::new(),
        actions: Vec::new(),
        downloads: Vec::new(),
    }
}

/// A stable key for a model's figures: its position and first word.
fn model_key(k: usize, name: &str) -> String {
    let word: String = name
        .chars()
        .take_while(|c| c.is_alphanumeric())
        .collect::<String>()
        .to_lowercase();
    if word.is_empty() {
        format!("model{k}")
    } else {
        word
    }
}

fn tables_table(c: &Check) -> Table {
    let rows = c
        .tables
        .iter()
        .map(|t| {
            vec![
                Value::text(t.model),
                Value::text(t.table),
                Value::text(t.what),
                Value::count(t.cells as f64),
                t.accuracy.map_or(Value::text("prints no prediction"), |a| {
                    Value::text(a.words())
                }),
                pct(t.published.median_abs),
                pct(t.published.worst_abs),
                pct(t.recomputed.median_abs),
                pct(t.recomputed.worst_abs),
                pct(t.loo.median_abs),
                pct(t.loo.worst_abs),
                Value::text(if t.goal_met { "yes" } else { "no" }),
                t.why_not.as_ref().map_or(Value::Empty, Value::text),
            ]
        })
        .collect();
    Table {
        key: "tables".into(),
        title: "Per table: the paper's error, this product's, and calibrated leave-one-out".into(),
        columns: vec![
            Column::new("paper", Unit::None),
            Column::new("table", Unit::None),
            Column::new("what", Unit::None),
            Column::new("cells", Unit::Count),
            Column::new("paper's accuracy convention", Unit::None),
            Column::new("paper's PT: median |error|", Unit::Percent),
            Column::new("paper's PT: worst |error|", Unit::Percent),
            Column::new("recomputed: median |error|", Unit::Percent),
            Column::new("recomputed: worst |error|", Unit::Percent),
            Column::new("calibrated, leave-one-out: median |error|", Unit::Percent),
            Column::new("calibrated, leave-one-out: worst |error|", Unit::Percent),
            Column::new(
                format!(
                    "calibrated median under {:.0}% and below the paper's",
                    GOAL * 100.0
                ),
                Unit::None,
            ),
            Column::new("why not", Unit::None),
        ],
        rows,
        caption: "|error| = |predicted − measured| / measured over the table's cells; leave-one-out: each cell predicted by the model calibrated on the other cells of its set.".into(),
        omitted_rows: 0,
    }
}

/// Per shipped set: the paper's error and the calibrated leave-one-out.
fn sets_table(c: &Check) -> Table {
    let mut sets: Vec<(&'static str, &'static str)> = Vec::new();
    for x in &c.cells {
        if !sets.contains(&(x.model, x.set)) {
            sets.push((x.model, x.set));
        }
    }
    let rows = sets
        .iter()
        .map(|&(model, set)| {
            let mine = || c.cells.iter().filter(|x| x.set == set && x.model == model);
            let published = ErrorStats::of(mine().map(Cell::published_error));
            let loo = ErrorStats::of(mine().map(Cell::loo_error));
            let goal_met = matches!((loo.median_abs, published.median_abs), (Some(l), Some(p)) if l < GOAL && l < p);
            // The physics its tables' models leave out, when it misses.
            let mut why: Vec<&str> = Vec::new();
            for x in mine() {
                if let Some(t) = c.tables.iter().find(|t| t.model == model && t.table == x.table) {
                    if !why.contains(&t.leaves_out) {
                        why.push(t.leaves_out);
                    }
                }
            }
            vec![
                Value::text(model),
                Value::text(set),
                Value::count(mine().count() as f64),
                pct(published.median_abs),
                pct(published.worst_abs),
                pct(loo.median_abs),
                pct(loo.worst_abs),
                Value::text(if goal_met { "yes" } else { "no" }),
                if goal_met {
                    Value::Empty
                } else {
                    Value::text(why.join("; "))
                },
            ]
        })
        .collect();
    Table {
        key: "sets".into(),
        title: "Per shipped measured-run set: the paper's error and calibrated leave-one-out"
            .into(),
        columns: vec![
            Column::new("paper", Unit::None),
            Column::new("set (public/examples/)", Unit::None),
            Column::new("cells", Unit::Count),
            Column::new("paper's PT: median |error|", Unit::Percent),
            Column::new("paper's PT: worst |error|", Unit::Percent),
            Column::new("calibrated, leave-one-out: median |error|", Unit::Percent),
            Column::new("calibrated, leave-one-out: worst |error|", Unit::Percent),
            Column::new(
                format!(
                    "calibrated median under {:.0}% and below the paper's",
                    GOAL * 100.0
                ),
                Unit::None,
            ),
            Column::new("why not (what the model leaves out)", Unit::None),
        ],
        rows,
        caption:
            "Each set is calibrated on its own runs; leave-one-out refits without each run in turn."
                .into(),
        omitted_rows: 0,
    }
}

fn cells_table(c: &Check) -> Table {
    let rows = c
        .cells
        .iter()
        .map(|x| {
            vec![
                Value::text(x.model),
                Value::text(x.table),
                Value::text(&x.network),
                Value::text(&x.label),
                Value::num(x.measured, x.measure.unit()),
                in_measure(x.published, x.measure),
                x.paper_accuracy
                    .map_or(Value::Empty, |a| Value::num(a, Unit::None)),
                match &x.recomputed {
                    Ok(v) => Value::num(*v, x.measure.unit()),
                    Err(why) => Value::text(why),
                },
                pct(x.published_error()),
                pct(x.recomputed_error()),
                match &x.loo {
                    Ok(v) => Value::num(*v, x.measure.unit()),
                    Err(why) => Value::text(why),
                },
                pct(x.loo_error()),
                Value::text(&x.source),
                Value::text(&x.published_source),
            ]
        })
        .collect();
    Table {
        key: "cells".into(),
        title: "Every measured cell: measured, the paper's prediction, recomputed, calibrated".into(),
        columns: vec![
            Column::new("paper", Unit::None),
            Column::new("table", Unit::None),
            Column::new("network", Unit::None),
            Column::new("run", Unit::None),
            Column::new("measured (MT)", Unit::None),
            Column::new("paper's prediction (PT)", Unit::None),
            Column::new("paper's accuracy (its convention)", Unit::None),
            Column::new("recomputed", Unit::None),
            Column::new("paper's error", Unit::Percent),
            Column::new("recomputed error", Unit::Percent),
            Column::new("calibrated, leave-one-out", Unit::None),
            Column::new("leave-one-out error", Unit::Percent),
            Column::new("measurement's source", Unit::None),
            Column::new("prediction's source", Unit::None),
        ],
        rows,
        caption: "Measured and predicted values in the run's measure (s per iteration, or samples/s); errors = (predicted − measured) / measured.".into(),
        omitted_rows: 0,
    }
}

/// The check's report, computed once per process (it reads only the
/// shipped files).
pub fn paper_report() -> Result<Report, Unavailable> {
    static REPORT: OnceLock<Result<Report, String>> = OnceLock::new();
    REPORT
        .get_or_init(|| check().map(|c| build(&c)))
        .clone()
        .map_err(|e| Unavailable::invalid(vec![crate::errors::err("papers", e)]))
}

pub struct Papers;

/// The paper check as the worker and the page list it.
pub static PAPERS: Papers = Papers;

impl Model for Papers {
    fn id(&self) -> &'static str {
        "papers"
    }
    fn name(&self) -> &'static str {
        "Paper check"
    }
    fn about(&self) -> &'static str {
        "each paper's printed prediction and measurement beside this product's recomputation and its calibrated leave-one-out prediction"
    }
    fn paper(&self) -> &'static str {
        ""
    }
    fn needs(&self) -> &'static [Need] {
        &[]
    }
    fn reads(&self) -> &'static [&'static str] {
        &[]
    }
    fn work(&self, _s: &Scenario) -> Vec<Work> {
        vec![work()]
    }
    fn report(&self, _s: &Scenario) -> Result<Report, Unavailable> {
        paper_report()
    }
}
