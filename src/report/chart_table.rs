//! A chart's data as a table: what a screen reader, a printout or a reader
//! who wants the numbers gets instead of the drawing. One row per point,
//! bar and reference line, in the axes' units.

use super::{Chart, Column, Marker, SeriesData, Table, Unit, Value};

impl Chart {
    /// The chart as a table: series, then the columns its data needs —
    /// the timeline row, x (or a bar's start and end), y, the second y
    /// axis, the hover text — then one row per reference line.
    pub fn as_table(&self) -> Table {
        let xy = |s: &&super::Series| matches!(s.data, SeriesData::Xy { .. });
        let has_xy = self.series.iter().any(|s| xy(&s));
        let has_bars = self.series.iter().any(|s| !xy(&s));
        let y2 = self
            .y2
            .as_ref()
            .filter(|_| self.series.iter().any(|s| s.y2));
        let has_hover = self.series.iter().any(|s| !s.hover.is_empty());
        let has_y = has_xy
            || self
                .markers
                .iter()
                .any(|m| matches!(m, Marker::Horizontal { .. } | Marker::Below { .. }));
        let has_band = self.series.iter().any(|s| s.band.is_some());
        let has_span = self
            .markers
            .iter()
            .any(|m| matches!(m, Marker::Span { .. }));

        let mut columns = vec![Column::new("series", Unit::None)];
        let row_col = has_bars.then(|| push(&mut columns, "row", Unit::None));
        // A bar's start and end are on the x axis (the title names it).
        let x_label = match (has_bars, has_xy) {
            (false, _) => self.x.label.clone(),
            (true, false) => "start".to_string(),
            (true, true) => format!("{}, or a bar's start", self.x.label),
        };
        let x_col = push(&mut columns, &x_label, self.x.unit);
        let end_col = (has_bars || has_span).then(|| push(&mut columns, "end", self.x.unit));
        let y_col = has_y.then(|| push(&mut columns, &self.y.label, self.y.unit));
        let y2_col = y2.map(|a| push(&mut columns, &a.label, a.unit));
        // A band's percentiles in the y axis' unit (a band on the second
        // axis reads in its own).
        let band_unit = |s: &super::Series| match (&self.y2, s.y2) {
            (Some(a), true) => a.unit,
            _ => self.y.unit,
        };
        let band_cols = has_band.then(|| {
            let unit = self
                .series
                .iter()
                .find(|s| s.band.is_some())
                .map_or(self.y.unit, band_unit);
            (
                push(&mut columns, "10th percentile", unit),
                push(&mut columns, "90th percentile", unit),
            )
        });
        let hover_col = has_hover.then(|| push(&mut columns, "details", Unit::None));

        let width = columns.len();
        let blank = || vec![Value::Empty; width];
        let mut rows = Vec::new();
        for s in &self.series {
            let hover = |i: usize| s.hover.get(i).cloned().unwrap_or_default();
            match &s.data {
                SeriesData::Xy { x, y } => {
                    let y_at = if s.y2 { y2_col } else { y_col };
                    for (i, (&xv, &yv)) in x.iter().zip(y).enumerate() {
                        let mut r = blank();
                        r[0] = Value::text(&s.name);
                        r[x_col] = Value::num(xv, self.x.unit);
                        if let Some(c) = y_at {
                            let unit = columns[c].unit;
                            r[c] = Value::num(yv, unit);
                        }
                        if let Some(c) = hover_col {
                            r[c] = Value::text(hover(i));
                        }
                        if let (Some((c10, c90)), Some(b)) = (band_cols, &s.band) {
                            let unit = band_unit(s);
                            if let (Some(&lo), Some(&hi)) = (b.p10.get(i), b.p90.get(i)) {
                                r[c10] = Value::num(lo, unit);
                                r[c90] = Value::num(hi, unit);
                            }
                        }
                        rows.push(r);
                    }
                }
                SeriesData::Segments {
                    rows: names,
                    start,
                    end,
                } => {
                    for (i, ((name, &a), &b)) in names.iter().zip(start).zip(end).enumerate() {
                        let mut r = blank();
                        r[0] = Value::text(&s.name);
                        if let Some(c) = row_col {
                            r[c] = Value::text(name);
                        }
                        r[x_col] = Value::num(a, self.x.unit);
                        if let Some(c) = end_col {
                            r[c] = Value::num(b, self.x.unit);
                        }
                        if let Some(c) = hover_col {
                            r[c] = Value::text(hover(i));
                        }
                        rows.push(r);
                    }
                }
            }
        }
        for m in &self.markers {
            let mut r = blank();
            match m {
                Marker::Vertical { x, label } => {
                    r[0] = Value::text(label);
                    r[x_col] = Value::num(*x, self.x.unit);
                }
                Marker::Horizontal { y, label } | Marker::Below { y, label } => {
                    r[0] = Value::text(label);
                    if let Some(c) = y_col {
                        r[c] = Value::num(*y, self.y.unit);
                    }
                }
                Marker::Span { x0, x1, label } => {
                    r[0] = Value::text(label);
                    r[x_col] = Value::num(*x0, self.x.unit);
                    if let Some(c) = end_col {
                        r[c] = Value::num(*x1, self.x.unit);
                    }
                }
            }
            rows.push(r);
        }
        Table {
            key: format!("{}-data", self.key),
            title: format!("{} — the chart's data", self.title),
            columns,
            rows,
            caption: String::new(),
            omitted_rows: 0,
        }
    }
}

/// Appends a column; its index.
fn push(columns: &mut Vec<Column>, label: &str, unit: Unit) -> usize {
    columns.push(Column::new(label, unit));
    columns.len() - 1
}

#[cfg(test)]
mod tests {
    use super::super::{Axis, Series, Style};
    use super::*;

    fn cost_chart() -> Chart {
        Chart {
            key: "cost".into(),
            title: "Cost against workers".into(),
            x: Axis::new("workers", Unit::Count),
            y: Axis::new("cost", Unit::Usd),
            y2: Some(Axis::new("time", Unit::Hours)),
            series: vec![
                Series::xy("cost", Style::LinePoints, vec![1.0, 2.0], vec![10.0, 12.5])
                    .hover(vec!["one worker".into(), "two workers".into()]),
                Series::xy("time", Style::Line, vec![1.0, 2.0], vec![7200.0, 3600.0]).on_y2(),
            ],
            markers: vec![
                Marker::Vertical {
                    x: 2.0,
                    label: "this cluster".into(),
                },
                Marker::Horizontal {
                    y: 11.0,
                    label: "budget".into(),
                },
            ],
        }
    }

    #[test]
    fn an_xy_chart_reads_as_one_row_per_point_and_reference_line() {
        let t = cost_chart().as_table();
        let headers: Vec<String> = t.columns.iter().map(Column::header).collect();
        assert_eq!(
            headers,
            ["series", "workers", "cost [USD]", "time [h]", "details"]
        );
        let shown: Vec<Vec<String>> = t
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .zip(&t.columns)
                    .map(|(v, c)| v.display_in(c.unit))
                    .collect()
            })
            .collect();
        assert_eq!(shown.len(), 6);
        assert_eq!(shown[1][..3], ["cost", "2", "12.50"]);
        assert_eq!(shown[1][4], "two workers");
        // The second series on the right-hand axis, in hours.
        assert_eq!(shown[2][3], "2.000");
        assert_eq!(shown[2][2], "");
        assert_eq!(shown[4][..2], ["this cluster", "2"]);
        assert_eq!(shown[5][0], "budget");
        assert_eq!(shown[5][2], "11.00");
    }

    #[test]
    fn a_timeline_reads_as_one_row_per_bar() {
        let c = Chart {
            key: "timeline".into(),
            title: "Iteration".into(),
            x: Axis::new("time", Unit::Seconds),
            y: Axis::new("", Unit::None),
            y2: None,
            series: vec![Series::segments(
                "push",
                vec!["worker 1".into(), "worker 2".into()],
                vec![0.0, 0.5],
                vec![0.5, 1.25],
            )],
            markers: vec![],
        };
        let t = c.as_table();
        let headers: Vec<String> = t.columns.iter().map(Column::header).collect();
        assert_eq!(headers, ["series", "row", "start [s]", "end [s]"]);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[1][1], Value::text("worker 2"));
        assert_eq!(t.rows[1][3].number(), Some(1.25));
        assert_eq!(t.key, "timeline-data");
    }

    #[test]
    fn bands_read_as_percentile_columns_and_a_span_row() {
        let mut c = cost_chart();
        c.series[0].band = Some(crate::report::SeriesBand {
            p10: vec![9.0, 11.0],
            p90: vec![11.0, 14.0],
            samples: 100,
        });
        c.markers.push(Marker::Span {
            x0: 1.5,
            x1: 2.5,
            label: "spread".into(),
        });
        let t = c.as_table();
        let headers: Vec<String> = t.columns.iter().map(Column::header).collect();
        assert_eq!(
            headers,
            [
                "series",
                "workers",
                "end",
                "cost [USD]",
                "time [h]",
                "10th percentile [USD]",
                "90th percentile [USD]",
                "details"
            ]
        );
        assert_eq!(t.rows[1][5].number(), Some(11.0));
        assert_eq!(t.rows[1][6].number(), Some(14.0));
        assert_eq!(t.rows[2][5], Value::Empty);
        let span = t.rows.last().cloned().unwrap_or_default();
        assert_eq!(span[0], Value::text("spread"));
        assert_eq!((span[1].number(), span[2].number()), (Some(1.5), Some(2.5)));
    }
}
