//! A `Report` for terminals, as `ddnn-planner eval` prints it: aligned
//! plain text, nothing truncated. Charts are only named here; their data
//! is in `--format json`.

use super::{Figure, Report, Table, Unit, Value};
use crate::errors::FieldError;

/// Width in characters, so "×" and "—" count as one column.
fn width(s: &str) -> usize {
    s.chars().count()
}

fn pad_right(s: &str, w: usize) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(width(s))))
}

fn pad_left(s: &str, w: usize) -> String {
    format!("{}{s}", " ".repeat(w.saturating_sub(width(s))))
}

/// Appends one line without trailing blanks (padding of the last column).
fn line(out: &mut String, s: &str) {
    out.push_str(s.trim_end());
    out.push('\n');
}

/// Prose (notes, captions) wrapped at `WIDTH` columns on spaces, with a
/// hanging indent; a word longer than a line gets a line of its own.
const WIDTH: usize = 100;

fn wrap(out: &mut String, first: &str, indent: usize, text: &str) {
    let mut cur = first.to_string();
    for (i, para) in text.split('\n').enumerate() {
        if i > 0 {
            line(out, &cur);
            cur = " ".repeat(indent);
        }
        let mut empty = true;
        for word in para.split(' ').filter(|w| !w.is_empty()) {
            if !empty && width(&cur) + 1 + width(word) > WIDTH {
                line(out, &cur);
                cur = " ".repeat(indent);
                empty = true;
            }
            if !empty {
                cur.push(' ');
            }
            cur.push_str(word);
            empty = false;
        }
    }
    line(out, &cur);
}

/// "  label  value  (source)" lines, labels padded to one width.
fn figures(out: &mut String, list: &[Figure]) {
    let label_w = list.iter().map(|f| width(&f.label)).max().unwrap_or(0);
    let values: Vec<String> = list.iter().map(|f| f.value.display()).collect();
    // Sources line up after the short values; a long text value (a plan
    // in words) would push them off screen, so it does not set the width.
    let value_w = values
        .iter()
        .map(|v| width(v))
        .filter(|&w| w <= 24)
        .max()
        .unwrap_or(0);
    for (f, v) in list.iter().zip(&values) {
        let label = pad_right(&f.label, label_w);
        if f.source.is_empty() {
            line(out, &format!("  {label}  {v}"));
        } else {
            line(
                out,
                &format!("  {label}  {}  ({})", pad_right(v, value_w), f.source),
            );
        }
        if let Some(b) = f
            .band
            .as_ref()
            .and_then(|b| crate::uncertainty::display(b, &f.value))
        {
            line(out, &format!("  {}  {b}", pad_right("", label_w)));
        }
        if let Some(p) = &f.published {
            line(
                out,
                &format!(
                    "  {}  as published: {}",
                    pad_right("", label_w),
                    p.display()
                ),
            );
        }
    }
}

/// A table as aligned columns: numbers right-aligned, words left-aligned,
/// two spaces between columns.
fn write_table(out: &mut String, t: &Table) {
    let ncols = t.width();
    let unit = |i: usize| t.columns.get(i).map_or(Unit::None, |c| c.unit);
    let header: Vec<String> = (0..ncols)
        .map(|i| t.columns.get(i).map(|c| c.header()).unwrap_or_default())
        .collect();
    let cells: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|row| {
            (0..ncols)
                .map(|i| {
                    row.get(i)
                        .map(|v| v.display_in(unit(i)))
                        .unwrap_or_default()
                })
                .collect()
        })
        .collect();
    // A column is numeric when every filled cell in it is a number.
    let numeric: Vec<bool> = (0..ncols)
        .map(|i| {
            let filled: Vec<&Value> = t
                .rows
                .iter()
                .filter_map(|r| r.get(i))
                .filter(|v| !v.display().is_empty())
                .collect();
            !filled.is_empty() && filled.iter().all(|v| v.number().is_some())
        })
        .collect();
    let widths: Vec<usize> = (0..ncols)
        .map(|i| {
            cells
                .iter()
                .map(|r| width(&r[i]))
                .chain([width(&header[i])])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let render = |row: &[String]| -> String {
        let cols: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if numeric[i] {
                    pad_left(c, widths[i])
                } else {
                    pad_right(c, widths[i])
                }
            })
            .collect();
        format!("  {}", cols.join("  "))
    };
    out.push('\n');
    if !t.title.is_empty() {
        line(out, &t.title);
    }
    line(out, &render(&header));
    let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    line(out, &render(&rule));
    for r in &cells {
        line(out, &render(r));
    }
    if !t.caption.is_empty() {
        wrap(out, "  ", 2, &t.caption);
    }
}

/// Tables alone, each as a report prints it.
pub fn tables(list: &[Table]) -> String {
    let mut out = String::new();
    for t in list {
        write_table(&mut out, t);
    }
    out
}

/// The whole report for a terminal: heading, headline figures, notes,
/// tables, every figure, and the charts by key.
pub fn table(r: &Report) -> String {
    let mut out = String::new();
    if r.subject.is_empty() {
        line(&mut out, &r.model_name);
    } else {
        line(&mut out, &format!("{} — {}", r.model_name, r.subject));
    }
    if !r.headline.is_empty() || !r.notes.is_empty() {
        out.push('\n');
    }
    figures(&mut out, &r.headline);
    for n in &r.notes {
        let mut text = n.text.clone();
        if let Some(f) = &n.field {
            text.push_str(&format!(" [{f}]"));
        }
        wrap(&mut out, &format!("  {}: ", n.level.label()), 4, &text);
    }
    for t in &r.tables {
        write_table(&mut out, t);
    }
    if !r.figures.is_empty() {
        out.push('\n');
        line(&mut out, "all figures");
        figures(&mut out, &r.figures);
    }
    if !r.charts.is_empty() {
        out.push('\n');
        for c in &r.charts {
            let banded = c.series.iter().any(|s| s.band.is_some())
                || c.markers
                    .iter()
                    .any(|m| matches!(m, super::Marker::Span { .. }));
            let band = if banded {
                ", with its 10th-90th percentile band"
            } else {
                ""
            };
            line(
                &mut out,
                &format!("chart {}: {}{band} (see --format json)", c.key, c.title),
            );
        }
    }
    if !r.actions.is_empty() {
        out.push('\n');
        for a in &r.actions {
            wrap(
                &mut out,
                &format!("  action {}: ", a.key),
                4,
                &format!(
                    "{}: {} (its merge patch is in --format json)",
                    a.label, a.description
                ),
            );
        }
    }
    if !r.downloads.is_empty() {
        out.push('\n');
        for d in &r.downloads {
            line(
                &mut out,
                &format!(
                    "file {}: {} ({}, {} bytes; its text is in --format json)",
                    d.key,
                    d.label,
                    d.filename,
                    d.text.len()
                ),
            );
        }
    }
    out
}

/// Why a model printed no report: "zeng: not evaluated — needs 1 input:"
/// (inputs missing) or "… — fix 2 inputs:" (inputs invalid), then one
/// "  field: message" line per error.
pub fn unavailable(model_name: &str, errors: &[FieldError], missing: bool) -> String {
    let what = if missing { "needs" } else { "fix" };
    let n = errors.len();
    let plural = if n == 1 { "input" } else { "inputs" };
    let mut out = String::new();
    if n == 0 {
        let why = if missing {
            "needs inputs"
        } else {
            "fix its inputs"
        };
        line(&mut out, &format!("{model_name}: not evaluated — {why}"));
    } else {
        line(
            &mut out,
            &format!("{model_name}: not evaluated — {what} {n} {plural}:"),
        );
    }
    for e in errors {
        line(&mut out, &format!("  {}: {}", e.field, e.message));
    }
    out
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::report::{Chart, Column, Note};

    fn report() -> Report {
        Report {
            model: "zeng".into(),
            model_name: "Zeng et al. push queue".into(),
            subject: "AlexNet on 2 workers".into(),
            headline: vec![
                Figure::new(
                    "iteration_s",
                    "iteration time",
                    Value::num(26.843674, Unit::Seconds),
                )
                .source("Alg. 1/2"),
                Figure::new("workers", "workers", Value::count(4096)),
                Figure::new("sync", "synchronisation", Value::text("BSP")),
            ],
            figures: vec![Figure::new(
                "flop",
                "forward FLOP",
                Value::num(3.0947e10, Unit::Gflop),
            )],
            tables: vec![Table {
                omitted_rows: 0,
                key: "workers".into(),
                title: "Workers".into(),
                columns: vec![
                    Column::new("worker", Unit::None),
                    Column::new("batch size", Unit::Count),
                    Column::new("iteration", Unit::Seconds),
                    Column::new("note", Unit::None),
                ],
                rows: vec![
                    vec![
                        Value::text("w1"),
                        Value::count(32),
                        Value::num(1.5, Unit::Seconds),
                        Value::num(2.0, Unit::Seconds),
                    ],
                    vec![
                        Value::text("gpu-long-name"),
                        Value::count(1024),
                        Value::num(12.25, Unit::Seconds),
                        Value::Empty,
                    ],
                ],
                caption: "per worker".into(),
            }],
            notes: vec![
                Note::info("push queue binds"),
                Note::warning("no price").at("hardware.instances[0].price"),
            ],
            charts: vec![Chart {
                key: "timeline".into(),
                title: "One iteration".into(),
                ..Chart::default()
            }],
            actions: Vec::new(),
            downloads: Vec::new(),
        }
    }

    #[test]
    fn aligned_report() {
        let out = table(&report());
        let expected = "\
Zeng et al. push queue — AlexNet on 2 workers

  iteration time   26.84 s  (Alg. 1/2)
  workers          4,096
  synchronisation  BSP
  note: push queue binds
  warning: no price [hardware.instances[0].price]

Workers
  worker         batch size  iteration [s]     note
  -------------  ----------  -------------  -------
  w1                     32          1.500  2.000 s
  gpu-long-name       1,024          12.25
  per worker

all figures
  forward FLOP  30.95 GFLOP

chart timeline: One iteration (see --format json)
";
        assert_eq!(out, expected, "\n{out}");
    }

    #[test]
    fn counts_are_whole_numbers() {
        let mut r = report();
        r.headline = vec![Figure::new("n", "iterations", Value::count(7))];
        let out = table(&r);
        assert!(out.contains("  iterations  7\n"), "{out}");
        assert!(!out.contains("7.000"), "{out}");
    }

    #[test]
    fn notes_carry_their_field() {
        let out = table(&report());
        assert!(out.contains("  warning: no price [hardware.instances[0].price]\n"));
        assert!(out.contains("  note: push queue binds\n"));
    }

    #[test]
    fn long_notes_wrap_without_losing_words() {
        let mut r = report();
        let text = "word ".repeat(60) + &"x".repeat(120);
        r.notes = vec![Note::info(text.clone()).at("workload.profile")];
        let out = table(&r);
        let note: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with("  note: "))
            .take_while(|l| l.starts_with("  note: ") || l.starts_with("    "))
            .collect();
        assert!(note.len() >= 3, "{out}");
        // Only the over-long word may pass 100 columns, alone on its line.
        for l in &note {
            assert!(l.chars().count() <= 100 || !l.trim().contains(' '), "{l}");
        }
        let words: Vec<&str> = note
            .iter()
            .flat_map(|l| l.split_whitespace())
            .skip(1)
            .collect();
        assert_eq!(
            words.join(" "),
            format!("{} [workload.profile]", text.trim_end())
        );
    }

    #[test]
    fn unavailable_lists_fields() {
        let errors = vec![
            FieldError {
                field: "workload.profile".into(),
                message: "no job profile".into(),
            },
            FieldError {
                field: "hardware.cluster.ps.bandwidth".into(),
                message: "must be > 0".into(),
            },
        ];
        assert_eq!(
            unavailable("Cynthia", &errors[..1], true),
            "Cynthia: not evaluated — needs 1 input:\n  workload.profile: no job profile\n"
        );
        let out = unavailable("Zeng", &errors, false);
        assert!(out.starts_with("Zeng: not evaluated — fix 2 inputs:\n"));
        assert!(out.contains("\n  hardware.cluster.ps.bandwidth: must be > 0\n"));
        assert_eq!(
            unavailable("Zeng", &[], true),
            "Zeng: not evaluated — needs inputs\n"
        );
    }
}
