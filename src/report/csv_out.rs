//! Result rows shared by the page's tables, the CSV export and
//! `ddnn-planner eval --format csv|table`, so all three always agree.

use super::ZengEvaluation;

/// One labelled figure: quantity, value (full precision), unit.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub quantity: String,
    pub value: f64,
    pub unit: &'static str,
}

fn row(q: impl Into<String>, value: f64, unit: &'static str) -> Row {
    Row {
        quantity: q.into(),
        value,
        unit,
    }
}

/// The headline figures.
pub fn summary_rows(e: &ZengEvaluation) -> Vec<Row> {
    let s = &e.summary;
    let mut rows = vec![
        row(
            "forward per sample (Eq. 4 conv+fc)",
            s.forward_flop_eq4,
            "FLOP",
        ),
        row(
            "forward per sample incl. extra activation FLOP",
            s.forward_flop,
            "FLOP",
        ),
        row("backward per iteration (Eq. 22)", e.backward_flop, "FLOP"),
        row("weights", s.weights, "count"),
        row("values per push/pull", s.transfer_values, "count"),
        row("bytes per push/pull", e.transfer_bytes, "B"),
    ];
    if let Some(p) = e.pushes {
        rows.push(row("gradient pushes per iteration", f64::from(p), "count"));
    }
    for g in &e.groups {
        rows.push(row(
            format!(
                "FLOP per iteration, {} bs {} (Eq. 27)",
                g.instance, g.batch_size
            ),
            g.iteration_flop,
            "FLOP",
        ));
    }
    rows.extend([
        row("T_push per worker (Eq. 31)", e.queue.t_push_s, "s"),
        row("T_pull per worker (Eq. 30)", e.queue.t_pull_s, "s"),
        row(
            "iteration time, push queue (Alg. 1/2)",
            e.queue.iteration_s,
            "s",
        ),
        row("Eq. 32 communication-bound shortcut", e.regime.eq32_s, "s"),
    ]);
    if let Some(t) = e.regime.eq29_s {
        rows.push(row("Eq. 29 homogeneous BSP", t, "s"));
    }
    rows.extend([
        row("PS link idle between pushes", e.queue.link_idle_s, "s"),
        row("throughput", e.throughput.samples_per_s, "samples/s"),
        row("speedup vs fastest worker alone", e.throughput.speedup, "×"),
    ]);
    rows
}

/// Column names of `worker_rows`.
pub const WORKER_COLUMNS: [&str; 8] = [
    "worker",
    "kind",
    "batch size",
    "stand-alone iteration [s] (Eq. 28/33)",
    "compute before first push [s]",
    "wait in push queue [s]",
    "push start [s]",
    "push end [s]",
];

/// One row per worker, in push order.
pub fn worker_rows(e: &ZengEvaluation) -> Vec<[String; 8]> {
    e.queue
        .workers
        .iter()
        .map(|w| {
            [
                w.name.clone(),
                w.kind.to_string(),
                w.batch_size.to_string(),
                fmt_full(w.standalone_s),
                fmt_full(w.compute_s),
                fmt_full(w.wait_s),
                fmt_full(w.push_start_s),
                fmt_full(w.push_end_s),
            ]
        })
        .collect()
}

/// Full precision, shortest round-trip form.
pub fn fmt_full(v: f64) -> String {
    format!("{v}")
}

/// Four significant digits for people.
pub fn fmt_sig(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let mag = v.abs().log10().floor() as i32;
    if !(-3..6).contains(&mag) {
        return format!("{v:.3e}");
    }
    let decimals = (3 - mag).max(0) as usize;
    format!("{v:.decimals$}")
}

/// The results as CSV: a summary section, then the per-worker queue, then
/// the timeline segments.
pub fn to_csv(e: &ZengEvaluation) -> String {
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::new());
    let mut put = |rec: &[&str]| {
        // Writing to a Vec cannot fail; an error would only drop a line.
        let _ = w.write_record(rec);
    };
    put(&["section", "quantity", "value", "unit"]);
    for r in summary_rows(e) {
        put(&["summary", &r.quantity, &fmt_full(r.value), r.unit]);
    }
    put(&[]);
    let mut head = vec!["section"];
    head.extend(WORKER_COLUMNS);
    put(&head);
    for r in worker_rows(e) {
        let mut rec = vec!["worker"];
        rec.extend(r.iter().map(String::as_str));
        put(&rec);
    }
    put(&[]);
    put(&["section", "worker", "segment", "start [s]", "end [s]"]);
    for s in &e.queue.segments {
        let name = e
            .queue
            .workers
            .get(s.worker)
            .map_or("", |w| w.name.as_str());
        put(&[
            "timeline",
            name,
            s.kind.label(),
            &fmt_full(s.start_s),
            &fmt_full(s.end_s),
        ]);
    }
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// A plain-text table for terminals.
pub fn to_table(e: &ZengEvaluation) -> String {
    let mut out = format!("Zeng et al. push-queue model — {}\n\n", e.network_name);
    out.push_str(&rows_table(&summary_rows(e)));
    out.push_str(&format!("\n  regime: {}\n\n", e.regime.explanation));
    out.push_str(&format!("  {}\n", WORKER_COLUMNS.join(" | ")));
    for r in worker_rows(e) {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i >= 3 {
                    c.parse::<f64>().map(fmt_sig).unwrap_or_else(|_| c.clone())
                } else {
                    c.clone()
                }
            })
            .collect();
        out.push_str(&format!("  {}\n", cells.join(" | ")));
    }
    out
}

/// Rows as aligned text: quantity, value (four significant digits), unit.
pub fn rows_table(rows: &[Row]) -> String {
    let width = rows
        .iter()
        .map(|r| r.quantity.chars().count())
        .max()
        .unwrap_or(0);
    rows.iter()
        .map(|r| {
            format!(
                "  {:<width$}  {:>14} {}\n",
                r.quantity,
                fmt_sig(r.value),
                r.unit
            )
        })
        .collect()
}
