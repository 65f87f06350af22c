//! Reports as CSV for spreadsheets: every figure in full precision SI
//! units, then every table as its own section. Text that came from user
//! files is neutralised against formula injection.

use super::{Column, Report, Value};

/// OWASP's CSV-injection rule: a cell a spreadsheet could read as a
/// formula gets a leading quote, so it stays text.
fn cell(s: &str) -> String {
    match s.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{s}"),
        _ => s.to_string(),
    }
}

/// Full precision SI for numbers (`{}` round-trips an f64), the text as is
/// (neutralised), nothing for empty cells.
fn value(v: &Value) -> String {
    match v {
        Value::Number { value, .. } => format!("{value}"),
        Value::Text { text } => cell(text),
        Value::Empty => String::new(),
    }
}

fn unit(v: &Value) -> &'static str {
    match v {
        Value::Number { unit, .. } => unit.si(),
        _ => "",
    }
}

/// "iteration time [s]": the stored (SI) unit, not the shown one.
fn header(c: &Column) -> String {
    match c.unit.si() {
        "" => cell(&c.label),
        u => cell(&format!("{} [{u}]", c.label)),
    }
}

/// One CSV section from its records. Writing to a `Vec` cannot fail; an
/// error would only drop what the writer held.
fn section(records: &[Vec<String>]) -> String {
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::new());
    for r in records {
        let _ = w.write_record(r);
    }
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// A figure's band as rows of section `band`: its percentiles in the
/// figure's unit (`<key>.p10` …) and the share meeting its goal.
fn band_rows(
    model: &str,
    f: &crate::report::Figure,
    b: &crate::uncertainty::Band,
    u: crate::report::Unit,
) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = [("p10", 10, b.p10), ("p50", 50, b.p50), ("p90", 90, b.p90)]
        .into_iter()
        .map(|(k, pct, v)| {
            vec![
                cell(model),
                "band".to_string(),
                cell(&format!("{}.{k}", f.key)),
                cell(&format!("{} ({pct}th percentile)", f.label)),
                format!("{v}"),
                u.si().to_string(),
            ]
        })
        .collect();
    if let Some(g) = &b.goal {
        rows.push(vec![
            cell(model),
            "band".to_string(),
            cell(&format!("{}.within-goal", f.key)),
            cell(&format!(
                "{}: share of samples within the {}",
                f.label, g.what
            )),
            format!("{}", g.probability),
            crate::report::Unit::Percent.si().to_string(),
        ]);
    }
    rows
}

/// Every report as CSV: a `figures` section (one row per headline and
/// detail figure: model, section, key, quantity, value, unit; a banded
/// headline figure's percentiles follow it in section `band`), then each
/// table after a blank line, headed `model,table,<column [si unit]>…`.
pub fn csv(reports: &[Report]) -> String {
    let mut rows = vec![["model", "section", "key", "quantity", "value", "unit"]
        .map(String::from)
        .to_vec()];
    for r in reports {
        let all = r
            .headline
            .iter()
            .map(|f| ("headline", f))
            .chain(r.figures.iter().map(|f| ("figures", f)));
        for (sec, f) in all {
            rows.push(vec![
                cell(&r.model),
                sec.to_string(),
                cell(&f.key),
                cell(&f.label),
                value(&f.value),
                unit(&f.value).to_string(),
            ]);
            if let (Some(b), Value::Number { unit: u, .. }) = (&f.band, &f.value) {
                rows.extend(band_rows(&r.model, f, b, *u));
            }
            if let Some(p) = &f.published {
                rows.push(vec![
                    cell(&r.model),
                    "published".to_string(),
                    cell(&f.key),
                    cell(&f.label),
                    value(p),
                    unit(p).to_string(),
                ]);
            }
        }
    }
    let mut out = section(&rows);
    for r in reports {
        for t in &r.tables {
            let ncols = t.width();
            let mut head = vec!["model".to_string(), "table".to_string()];
            head.extend((0..ncols).map(|i| t.columns.get(i).map(header).unwrap_or_default()));
            let mut rows = vec![head];
            for row in &t.rows {
                let mut rec = vec![cell(&r.model), cell(&t.key)];
                // Short rows are padded so every row has the header's width.
                rec.extend((0..ncols).map(|i| row.get(i).map(value).unwrap_or_default()));
                rows.push(rec);
            }
            out.push('\n');
            out.push_str(&section(&rows));
        }
    }
    let bands = chart_band_rows(reports);
    if bands.len() > 1 {
        out.push('\n');
        out.push_str(&section(&bands));
    }
    out
}

/// The charts' bands (`crate::uncertainty::curves`), one row per point:
/// model, chart, series, x, its 10th and 90th percentile, their SI unit
/// and the samples; a timeline's total as one row with no x. Only the
/// header when no chart has a band, so a document without ranges keeps
/// its bytes.
fn chart_band_rows(reports: &[Report]) -> Vec<Vec<String>> {
    let mut rows = vec![[
        "model",
        "chart_band",
        "series",
        "x",
        "x unit",
        "p10",
        "p90",
        "unit",
        "samples",
    ]
    .map(String::from)
    .to_vec()];
    for r in reports {
        for c in &r.charts {
            for s in &c.series {
                let (super::SeriesData::Xy { x, .. }, Some(b)) = (&s.data, &s.band) else {
                    continue;
                };
                let unit = match (&c.y2, s.y2) {
                    (Some(a), true) => a.unit,
                    _ => c.y.unit,
                };
                for ((xv, lo), hi) in x.iter().zip(&b.p10).zip(&b.p90) {
                    rows.push(vec![
                        cell(&r.model),
                        cell(&c.key),
                        cell(&s.name),
                        format!("{xv}"),
                        c.x.unit.si().to_string(),
                        format!("{lo}"),
                        format!("{hi}"),
                        unit.si().to_string(),
                        b.samples.to_string(),
                    ]);
                }
            }
            for m in &c.markers {
                if let super::Marker::Span { x0, x1, label } = m {
                    rows.push(vec![
                        cell(&r.model),
                        cell(&c.key),
                        cell(label),
                        String::new(),
                        String::new(),
                        format!("{x0}"),
                        format!("{x1}"),
                        c.x.unit.si().to_string(),
                        String::new(),
                    ]);
                }
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::report::{Figure, Table, Unit};

    fn report() -> Report {
        Report {
            model: "zeng".into(),
            model_name: "Zeng et al.".into(),
            subject: "AlexNet".into(),
            headline: vec![
                Figure::new(
                    "iteration_s",
                    "iteration time",
                    Value::num(26.843674729417838, Unit::Seconds),
                ),
                Figure::new("sync", "synchronisation", Value::text("BSP")),
            ],
            figures: vec![
                Figure::new("bw", "PS link", Value::num(1.25e8, Unit::GbitPerS)),
                Figure::new("u", "utilisation", Value::num(0.54, Unit::Percent)),
            ],
            tables: vec![Table {
                omitted_rows: 0,
                key: "workers".into(),
                title: "Workers".into(),
                columns: vec![
                    Column::new("worker", Unit::None),
                    Column::new("batch size", Unit::Count),
                    Column::new("iteration", Unit::Hours),
                    Column::new("transfer", Unit::Megabytes),
                ],
                rows: vec![
                    vec![
                        Value::text("=cmd|' /C calc'!A0"),
                        Value::count(32),
                        Value::num(0.1 + 0.2, Unit::Hours),
                        Value::num(2.5e8, Unit::Megabytes),
                    ],
                    vec![Value::text("w, \"2\""), Value::count(64), Value::Empty],
                ],
                caption: String::new(),
            }],
            ..Report::default()
        }
    }

    fn read(s: &str) -> Vec<Vec<String>> {
        let mut r = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(s.as_bytes());
        r.records()
            .map(|rec| match rec {
                Ok(rec) => rec.iter().map(String::from).collect(),
                Err(e) => panic!("{e}"),
            })
            .collect()
    }

    #[test]
    fn round_trips_through_a_csv_reader() {
        let text = csv(&[report()]);
        let rows = read(&text);
        assert_eq!(
            rows[0],
            ["model", "section", "key", "quantity", "value", "unit"]
        );
        assert!(rows[..5].iter().all(|r| r.len() == 6), "{rows:?}");
        assert_eq!(
            rows[1],
            [
                "zeng",
                "headline",
                "iteration_s",
                "iteration time",
                "26.843674729417838",
                "s"
            ]
        );
        assert_eq!(rows[2][4], "BSP");
        assert_eq!(rows[2][5], "");
        assert_eq!(rows[3][1], "figures");
        assert_eq!(rows[3][4], "125000000");
        assert_eq!(rows[3][5], "B/s");
        assert_eq!(rows[4][4], "0.54");
        assert_eq!(rows[4][5], "fraction");

        // The table section follows a blank line.
        assert!(text.contains("\n\nmodel,table,"), "{text}");
        assert_eq!(
            rows[5],
            [
                "model",
                "table",
                "worker",
                "batch size [count]",
                "iteration [s]",
                "transfer [B]"
            ]
        );
        assert!(rows[5..].iter().all(|r| r.len() == 6), "{rows:?}");
        assert_eq!(rows[6][0..2], ["zeng", "workers"]);
        assert_eq!(rows[6][2], "'=cmd|' /C calc'!A0");
        assert_eq!(rows[6][3], "32");
        assert_eq!(rows[6][4], "0.30000000000000004");
        assert_eq!(rows[6][5], "250000000");
        assert_eq!(rows[7][2], "w, \"2\"");
        assert_eq!(rows[7][4], "");
        assert_eq!(rows[7][5], "");
        assert_eq!(rows.len(), 8);
    }

    #[test]
    fn formula_starts_are_neutralised() {
        for s in ["=1+1", "+1", "-2", "@SUM(A1)", "\tx", "\rx"] {
            assert_eq!(cell(s), format!("'{s}"));
        }
        assert_eq!(cell("a=b"), "a=b");
        assert_eq!(cell(""), "");
        // Numbers are ours, not user text: a negative one stays a number.
        assert_eq!(value(&Value::num(-5.5e8, Unit::Megabytes)), "-550000000");
    }

    #[test]
    fn several_reports_share_the_figures_section() {
        let mut b = report();
        b.model = "cynthia".into();
        b.tables.clear();
        let rows = read(&csv(&[report(), b]));
        let models: Vec<&str> = rows[1..9].iter().map(|r| r[0].as_str()).collect();
        assert_eq!(models, [["zeng"; 4], ["cynthia"; 4]].concat());
        assert_eq!(rows[9][0], "model");
        assert_eq!(rows.len(), 12);
    }
}
