//! Cynthia's results as rows, shared by the page, the CSV export and
//! `ddnn-planner eval`.

use super::csv_out::{fmt_full, rows_table, Row};
use super::CynthiaEvaluation;
use crate::models::cynthia::Run;

fn row(q: impl Into<String>, value: f64, unit: &'static str) -> Row {
    Row {
        quantity: q.into(),
        value,
        unit,
    }
}

fn run_rows(prefix: &str, r: &Run, out: &mut Vec<Row>) {
    out.extend([
        row(format!("{prefix}: workers"), f64::from(r.n_wk), "count"),
        row(format!("{prefix}: PS nodes"), f64::from(r.n_ps), "count"),
        row(
            format!("{prefix}: iterations to the loss goal"),
            r.iterations as f64,
            "count",
        ),
        row(format!("{prefix}: iteration time"), r.t_iter_s, "s"),
        row(format!("{prefix}: training time"), r.train_time_s, "s"),
        row(format!("{prefix}: cost"), r.cost_usd, "USD"),
        row(format!("{prefix}: worker utilisation u"), r.u, "fraction"),
    ]);
}

/// The headline figures of the Cynthia evaluation.
pub fn cynthia_rows(e: &CynthiaEvaluation) -> Vec<Row> {
    let mut out = Vec::new();
    if let Some(c) = &e.cluster {
        let it = &c.iteration;
        out.extend([
            row(
                "this cluster: compute time per iteration (Eq. 4)",
                it.t_comp_s,
                "s",
            ),
            row(
                "this cluster: communication time per iteration (Eq. 5)",
                it.t_comm_s,
                "s",
            ),
            row("this cluster: iteration time (Eq. 3)", it.t_iter_s, "s"),
            row(
                "this cluster: worker utilisation u (Eq. 6-7)",
                it.utilisation.u,
                "fraction",
            ),
            row(
                "this cluster: PS CPU demand",
                it.utilisation.c_demand,
                "FLOP/s",
            ),
            row(
                "this cluster: PS CPU supply",
                it.utilisation.c_supply,
                "FLOP/s",
            ),
            row(
                "this cluster: PS network demand",
                it.utilisation.b_demand,
                "B/s",
            ),
            row(
                "this cluster: PS network supply",
                it.utilisation.b_supply,
                "B/s",
            ),
            row(
                "this cluster: PS CPU binds beyond",
                c.saturation.cpu_from_workers,
                "workers",
            ),
            row(
                "this cluster: PS network binds beyond",
                c.saturation.network_from_workers,
                "workers",
            ),
        ]);
        if let Some(r) = &c.run {
            out.extend([
                row(
                    "this cluster: iterations to the loss goal",
                    r.iterations as f64,
                    "count",
                ),
                row("this cluster: training time", r.train_time_s, "s"),
                row("this cluster: cost", r.cost_usd, "USD"),
            ]);
        }
    }
    if let Some(p) = e.exact.as_ref().and_then(|x| x.plan.as_ref()) {
        run_rows(&format!("exact plan ({})", p.instance), &p.run, &mut out);
    }
    if let Some(p) = e.paper.as_ref().and_then(|x| x.plan.as_ref()) {
        run_rows(
            &format!("Algorithm 1 plan ({})", p.instance),
            &p.run,
            &mut out,
        );
    }
    if let Some(g) = e.paper_gap {
        out.push(row(
            "Algorithm 1 cost above the exact optimum",
            100.0 * g,
            "%",
        ));
    }
    out
}

/// The Cynthia section of the results CSV.
pub fn cynthia_csv(e: &CynthiaEvaluation) -> String {
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::new());
    let mut put = |rec: &[&str]| {
        // Writing to a Vec cannot fail; an error would only drop a line.
        let _ = w.write_record(rec);
    };
    put(&[]);
    put(&["section", "quantity", "value", "unit"]);
    for r in cynthia_rows(e) {
        put(&["cynthia", &r.quantity, &fmt_full(r.value), r.unit]);
    }
    put(&[]);
    put(&[
        "section",
        "instance",
        "workers",
        "PS nodes",
        "training time [s]",
        "cost [USD]",
        "meets T_g",
        "within budget",
        "u",
    ]);
    for c in &e.curves {
        for p in &c.points {
            put(&[
                "cost curve",
                &c.instance,
                &p.run.n_wk.to_string(),
                &p.run.n_ps.to_string(),
                &fmt_full(p.run.train_time_s),
                &fmt_full(p.run.cost_usd),
                if p.meets_time { "yes" } else { "no" },
                if p.within_budget { "yes" } else { "no" },
                &fmt_full(p.run.u),
            ]);
        }
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The Cynthia section for terminals.
pub fn cynthia_table(e: &CynthiaEvaluation) -> String {
    let mut out = format!(
        "\nCynthia PS-bottleneck and cost model — profile {} ({:?})\n\n",
        e.profile_name, e.sync
    );
    out.push_str(&rows_table(&cynthia_rows(e)));
    for note in e
        .cluster_note
        .iter()
        .chain(e.cluster.as_ref().and_then(|c| c.run_note.as_ref()))
    {
        out.push_str(&format!("  note: {note}\n"));
    }
    if let Some(x) = &e.exact {
        if x.plan.is_none() {
            out.push_str("  no plan meets the goals:\n");
        }
        for s in &x.shortfalls {
            out.push_str(&format!("    {}: {}\n", s.instance, s.reason));
        }
    }
    for m in &e.missing {
        out.push_str(&format!("  planning needs {m}\n"));
    }
    for s in &e.skipped {
        out.push_str(&format!("  not planned: {s}\n"));
    }
    out
}
