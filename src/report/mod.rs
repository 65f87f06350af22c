//! The one report type every model returns: headline figures with units,
//! tables, notes tied to scenario fields, and charts as data. The page
//! renders it with plotly (`plotly.rs` here builds the figure), the CLI
//! prints it as a table, JSON or CSV (`text.rs`, `csv.rs`), and the JS
//! package hands it to documentation pages. Nothing here knows a model.
//!
//! Values are stored in SI units (seconds, FLOP, bytes, bytes/s, USD); a
//! `Unit` says how people read them (hours, GFLOP, Gb/s…), so the
//! conversion happens once, at the edge.

mod chart_table;
pub mod csv;
pub mod plotly;
pub mod text;
pub mod unit;

use serde::{Deserialize, Serialize};

use crate::tagged::{need, MissingField};

pub use unit::{fmt_count, fmt_sig, Unit};

/// Everything one model says about one scenario.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Registry id of the model that produced it, e.g. `zeng`.
    pub model: String,
    /// The model as people cite it, e.g. "Zeng et al. push queue".
    pub model_name: String,
    /// What was evaluated, in one line (network, cluster, link).
    pub subject: String,
    /// The few figures a reader looks at first.
    pub headline: Vec<Figure>,
    /// Every other figure, each with its own unit ("all figures").
    pub figures: Vec<Figure>,
    pub tables: Vec<Table>,
    pub notes: Vec<Note>,
    pub charts: Vec<Chart>,
    /// Changes to the scenario a reader can apply from this result (a plan
    /// as the cluster, fitted coefficients into their fields).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<Action>,
    /// Files a reader can save from this result (a synthetic trace for
    /// Perfetto), each whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<Download>,
}

/// A file made from a result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Download {
    /// Stable identifier (`data-testid`).
    pub key: String,
    /// The button's words, e.g. "Trace for Perfetto (JSON)".
    pub label: String,
    pub filename: String,
    pub mime: String,
    pub text: String,
}

/// A change to the scenario offered by a result: an RFC 7386 JSON merge
/// patch of the scenario document (`scenario::patch`), so the page, the
/// JS package and any script apply it the same way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Action {
    /// Stable identifier (`data-testid`).
    pub key: String,
    /// The button's words, e.g. "Use the exact plan as the cluster".
    pub label: String,
    /// What applying it changes, in one sentence.
    pub description: String,
    pub patch: serde_json::Value,
}

/// One labelled value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// Stable identifier (CSV rows, `data-testid`, JS lookups).
    pub key: String,
    pub label: String,
    pub value: Value,
    /// Where the figure comes from, e.g. "Eq. 3" or "Algorithm 1/2".
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
    /// Its spread when inputs are given ranges (`crate::uncertainty`);
    /// absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<crate::uncertainty::Band>,
    /// The same figure with the model as published, beside a calibrated
    /// one (`crate::calibration`) where they differ; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<Value>,
}

/// A value as people read it: a number with its unit, or words.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", try_from = "ValueRepr")]
pub enum Value {
    /// A number in SI units; `unit` says how it is shown.
    Number { value: f64, unit: Unit },
    /// Words: an enum ("BSP"), a plan ("6 workers + 1 PS of c3.xlarge").
    Text { text: String },
    /// Not applicable here (an empty table cell).
    Empty,
}

/// `Value` as read (see `crate::tagged`).
#[derive(Deserialize)]
struct ValueRepr {
    kind: ValueKind,
    value: Option<f64>,
    unit: Option<Unit>,
    text: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum ValueKind {
    Number,
    Text,
    Empty,
}

impl TryFrom<ValueRepr> for Value {
    type Error = MissingField;
    fn try_from(r: ValueRepr) -> Result<Self, Self::Error> {
        Ok(match r.kind {
            ValueKind::Number => Value::Number {
                value: need(r.value, "number", "value")?,
                unit: need(r.unit, "number", "unit")?,
            },
            ValueKind::Text => Value::Text {
                text: need(r.text, "text", "text")?,
            },
            ValueKind::Empty => Value::Empty,
        })
    }
}

impl Value {
    pub fn num(value: f64, unit: Unit) -> Self {
        Value::Number { value, unit }
    }

    pub fn count(n: impl Into<f64>) -> Self {
        Value::Number {
            value: n.into(),
            unit: Unit::Count,
        }
    }

    pub fn text(t: impl Into<String>) -> Self {
        Value::Text { text: t.into() }
    }

    /// The number, if this is one.
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Number { value, .. } => Some(*value),
            _ => None,
        }
    }

    /// How people read it, with its unit: "26.84 s", "$12.40", "8".
    pub fn display(&self) -> String {
        match self {
            Value::Number { value, unit } => unit.display(*value),
            Value::Text { text } => text.clone(),
            Value::Empty => String::new(),
        }
    }

    /// How people read it in a column of `column` unit: bare when the
    /// header names the unit, with its own unit in a column of words.
    pub fn display_in(&self, column: Unit) -> String {
        if column == Unit::None {
            self.display()
        } else {
            self.display_bare()
        }
    }

    /// How people read it in a column whose header names the unit.
    pub fn display_bare(&self) -> String {
        match self {
            Value::Number { value, unit } => unit.format(*value),
            Value::Text { text } => text.clone(),
            Value::Empty => String::new(),
        }
    }
}

impl Figure {
    pub fn new(key: impl Into<String>, label: impl Into<String>, value: Value) -> Self {
        Figure {
            key: key.into(),
            label: label.into(),
            value,
            source: String::new(),
            band: None,
            published: None,
        }
    }

    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = source.into();
        self
    }
}

/// A table: named columns with one unit each, rows of values.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub key: String,
    pub title: String,
    /// One unit per column, so a column reads and exports uniformly.
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Value>>,
    /// Shown under the table: what a reader must know to read it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub caption: String,
    /// Rows left out of this copy (the page's copy of a long table; the
    /// exports have every row).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub omitted_rows: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Table {
    /// This table with at most `max` rows, counting the rest as omitted.
    pub fn trimmed(&self, max: usize) -> Table {
        let keep = self.rows.len().min(max);
        Table {
            rows: self.rows[..keep].to_vec(),
            omitted_rows: self.omitted_rows + (self.rows.len() - keep),
            ..self.clone()
        }
    }

    /// Columns to lay out: the header's, or more if a row is longer.
    pub fn width(&self) -> usize {
        self.rows
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(0)
            .max(self.columns.len())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Column {
    pub label: String,
    /// The unit every number in the column is shown in (`Unit::None` for
    /// words, `Unit::Count` for whole numbers).
    pub unit: Unit,
}

impl Column {
    pub fn new(label: impl Into<String>, unit: Unit) -> Self {
        Column {
            label: label.into(),
            unit,
        }
    }

    /// "iteration time [s]", or the bare label when the unit has no symbol.
    pub fn header(&self) -> String {
        match self.unit.symbol() {
            "" => self.label.clone(),
            u => format!("{} [{u}]", self.label),
        }
    }
}

/// A remark a reader needs, tied to the field it is about when there is one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Note {
    pub level: Level,
    /// Dotted scenario path (as in `FieldError`), if the note concerns one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// How to read a result (which regime applies, why two figures differ).
    Info,
    /// Something the user should act on (a missing price, an ignored entry).
    Warning,
}

impl Level {
    pub fn label(self) -> &'static str {
        match self {
            Level::Info => "note",
            Level::Warning => "warning",
        }
    }
}

impl Note {
    pub fn info(text: impl Into<String>) -> Self {
        Note {
            level: Level::Info,
            field: None,
            text: text.into(),
        }
    }

    pub fn warning(text: impl Into<String>) -> Self {
        Note {
            level: Level::Warning,
            field: None,
            text: text.into(),
        }
    }

    pub fn at(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
}

/// A chart as data: what to draw, not how. `plotly::figure` turns it into
/// a plotly.js figure; the CLI's JSON carries it as is.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    /// Stable identifier (`data-testid`, export file names).
    pub key: String,
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    /// A second y axis on the right, for series with `y2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y2: Option<Axis>,
    pub series: Vec<Series>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<Marker>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    pub label: String,
    /// Unit of the series' values on this axis (stored SI, shown per unit).
    pub unit: Unit,
    #[serde(default)]
    pub log: bool,
    /// Start the axis at zero (ratios and speedups must not look steep).
    #[serde(default)]
    pub from_zero: bool,
}

impl Axis {
    pub fn new(label: impl Into<String>, unit: Unit) -> Self {
        Axis {
            label: label.into(),
            unit,
            log: false,
            from_zero: false,
        }
    }

    pub fn log(mut self) -> Self {
        self.log = true;
        self
    }

    pub fn from_zero(mut self) -> Self {
        self.from_zero = true;
        self
    }

    /// "iteration time [s]".
    pub fn title(&self) -> String {
        match self.unit.symbol() {
            "" => self.label.clone(),
            u => format!("{} [{u}]", self.label),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub name: String,
    pub style: Style,
    pub data: SeriesData,
    /// Hover text per point (plain text; escaped when drawn).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hover: Vec<String>,
    /// Points drawn hollow (e.g. plans that miss a goal).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hollow: Vec<bool>,
    /// A CSS colour; `None` lets the palette choose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Drawn against the chart's second y axis.
    #[serde(default)]
    pub y2: bool,
    /// Its 10th-90th percentile per point when inputs are given ranges
    /// (`crate::uncertainty`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<SeriesBand>,
}

/// A curve's spread over an uncertainty band's samples: the 10th and
/// 90th percentile at each of its points, in the series' y unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeriesBand {
    pub p10: Vec<f64>,
    pub p90: Vec<f64>,
    /// Samples drawn (a point counts those the model had a value for).
    pub samples: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Style {
    Line,
    Points,
    LinePoints,
    /// Vertical bars at x.
    Bars,
    /// One emphasised point (the chosen plan).
    Highlight,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", try_from = "SeriesDataRepr")]
pub enum SeriesData {
    /// Points `(x[i], y[i])` in the axes' SI units.
    Xy { x: Vec<f64>, y: Vec<f64> },
    /// A timeline: bars on named rows from `start[i]` to `end[i]` (x axis).
    Segments {
        rows: Vec<String>,
        start: Vec<f64>,
        end: Vec<f64>,
    },
}

/// `SeriesData` as read (see `crate::tagged`).
#[derive(Deserialize)]
struct SeriesDataRepr {
    kind: SeriesDataKind,
    x: Option<Vec<f64>>,
    y: Option<Vec<f64>>,
    rows: Option<Vec<String>>,
    start: Option<Vec<f64>>,
    end: Option<Vec<f64>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum SeriesDataKind {
    Xy,
    Segments,
}

impl TryFrom<SeriesDataRepr> for SeriesData {
    type Error = MissingField;
    fn try_from(r: SeriesDataRepr) -> Result<Self, Self::Error> {
        Ok(match r.kind {
            SeriesDataKind::Xy => SeriesData::Xy {
                x: need(r.x, "xy", "x")?,
                y: need(r.y, "xy", "y")?,
            },
            SeriesDataKind::Segments => SeriesData::Segments {
                rows: need(r.rows, "segments", "rows")?,
                start: need(r.start, "segments", "start")?,
                end: need(r.end, "segments", "end")?,
            },
        })
    }
}

impl Series {
    pub fn xy(name: impl Into<String>, style: Style, x: Vec<f64>, y: Vec<f64>) -> Self {
        Series {
            name: name.into(),
            style,
            data: SeriesData::Xy { x, y },
            hover: Vec::new(),
            hollow: Vec::new(),
            color: None,
            y2: false,
            band: None,
        }
    }

    pub fn segments(
        name: impl Into<String>,
        rows: Vec<String>,
        start: Vec<f64>,
        end: Vec<f64>,
    ) -> Self {
        Series {
            name: name.into(),
            style: Style::Bars,
            data: SeriesData::Segments { rows, start, end },
            hover: Vec::new(),
            hollow: Vec::new(),
            color: None,
            y2: false,
            band: None,
        }
    }

    pub fn color(mut self, c: impl Into<String>) -> Self {
        self.color = Some(c.into());
        self
    }

    pub fn hover(mut self, h: Vec<String>) -> Self {
        self.hover = h;
        self
    }

    pub fn hollow(mut self, h: Vec<bool>) -> Self {
        self.hollow = h;
        self
    }

    pub fn on_y2(mut self) -> Self {
        self.y2 = true;
        self
    }
}

/// A reference drawn over the data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", try_from = "MarkerRepr")]
pub enum Marker {
    /// A vertical line at `x` (the current cluster size, the iteration end).
    Vertical { x: f64, label: String },
    /// A horizontal line at `y` (a goal).
    Horizontal { y: f64, label: String },
    /// The region below `y` shaded (where a goal is met).
    Below { y: f64, label: String },
    /// The region from `x0` to `x1` shaded: the 10th-90th percentile of
    /// the vertical marker before it (a timeline's total) over an
    /// uncertainty band's samples.
    Span { x0: f64, x1: f64, label: String },
}

/// `Marker` as read (see `crate::tagged`).
#[derive(Deserialize)]
struct MarkerRepr {
    kind: MarkerKind,
    x: Option<f64>,
    y: Option<f64>,
    x0: Option<f64>,
    x1: Option<f64>,
    label: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum MarkerKind {
    Vertical,
    Horizontal,
    Below,
    Span,
}

impl TryFrom<MarkerRepr> for Marker {
    type Error = MissingField;
    fn try_from(r: MarkerRepr) -> Result<Self, Self::Error> {
        let label = r.label;
        Ok(match r.kind {
            MarkerKind::Vertical => Marker::Vertical {
                x: need(r.x, "vertical", "x")?,
                label,
            },
            MarkerKind::Horizontal => Marker::Horizontal {
                y: need(r.y, "horizontal", "y")?,
                label,
            },
            MarkerKind::Below => Marker::Below {
                y: need(r.y, "below", "y")?,
                label,
            },
            MarkerKind::Span => Marker::Span {
                x0: need(r.x0, "span", "x0")?,
                x1: need(r.x1, "span", "x1")?,
                label,
            },
        })
    }
}

impl Report {
    /// The report with every table cut to `max_rows` rows: what the page
    /// holds (the exports are built from the whole report).
    pub fn trimmed(&self, max_rows: usize) -> Report {
        Report {
            tables: self.tables.iter().map(|t| t.trimmed(max_rows)).collect(),
            ..self.clone()
        }
    }

    /// The headline or detail figure with this key.
    pub fn figure(&self, key: &str) -> Option<&Figure> {
        self.headline
            .iter()
            .chain(&self.figures)
            .find(|f| f.key == key)
    }

    /// The table with this key.
    pub fn table(&self, key: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.key == key)
    }

    /// The chart with this key.
    pub fn chart(&self, key: &str) -> Option<&Chart> {
        self.charts.iter().find(|c| c.key == key)
    }

    /// Where the report holds a number that is not finite (NaN or ±∞),
    /// e.g. "figure iteration-time", if anywhere. Validation keeps every
    /// input in a range where no model overflows; this is the check that
    /// nothing slipped through ("inf s" or "$NaN" must never be shown).
    pub fn non_finite(&self) -> Option<String> {
        let bad = |v: f64| !v.is_finite();
        let value = |v: &Value| v.number().is_some_and(bad);
        if let Some(f) = self
            .headline
            .iter()
            .chain(&self.figures)
            .find(|f| value(&f.value))
        {
            return Some(format!("figure {}", f.key));
        }
        for t in &self.tables {
            if t.rows.iter().flatten().any(value) {
                return Some(format!("table {}", t.key));
            }
        }
        for c in &self.charts {
            let data = c.series.iter().any(|s| {
                let band = s
                    .band
                    .as_ref()
                    .is_some_and(|b| b.p10.iter().chain(&b.p90).copied().any(bad));
                band || match &s.data {
                    SeriesData::Xy { x, y } => x.iter().chain(y).copied().any(bad),
                    SeriesData::Segments { start, end, .. } => {
                        start.iter().chain(end).copied().any(bad)
                    }
                }
            });
            let marks = c.markers.iter().any(|m| match m {
                Marker::Vertical { x, .. } => bad(*x),
                Marker::Horizontal { y, .. } | Marker::Below { y, .. } => bad(*y),
                Marker::Span { x0, x1, .. } => bad(*x0) || bad(*x1),
            });
            if data || marks {
                return Some(format!("chart {}", c.key));
            }
        }
        None
    }
}
