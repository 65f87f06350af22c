//! The measured ranking (`ranking.rs`) as the report shows it: one table,
//! measured ranks with and without stalls beside the predicted ones, and
//! notes at `models.stash.runs` (disagreements, configurations not ranked)
//! and `hardware.catalog` (missing prices).

use super::ranking::{name_list, Basis, Epoch, MeasuredRanking, Metric, Ranked, Unranked, NAMED};
use super::report::opt_num;
use crate::report::{fmt_count, Column, Note, Table, Unit, Value};

fn rank_cell(e: Result<&Epoch, &Unranked>, m: Metric) -> Value {
    e.ok()
        .and_then(|e| e.place(m))
        .map_or(Value::Empty, |p| Value::text(p.words()))
}

fn epoch_cells(r: &Ranked, b: Basis) -> [Value; 4] {
    let e = r.on(b);
    [
        e.map_or(Value::Empty, |e| Value::num(e.epoch_s, Unit::Seconds)),
        rank_cell(e, Metric::Time),
        opt_num(e.ok().and_then(|e| e.epoch_usd), Unit::Usd),
        rank_cell(e, Metric::Cost),
    ]
}

/// What a row's figures come from when it is not plain, and why a figure
/// is missing.
fn ranking_remarks(r: &Ranked) -> String {
    let mut w = Vec::new();
    for b in Basis::ALL {
        match r.on(b) {
            Ok(e) if b == Basis::WithoutStalls && e.source != "run (1)" => {
                w.push(format!("without stalls from {}", e.source))
            }
            Ok(_) => {}
            Err(why) => w.push(why.to_string()),
        }
    }
    if let Some(why) = &r.cost_missing {
        w.push(why.clone());
    }
    w.join("; ")
}

/// The measured configurations ranked per epoch (Sec. V), with and
/// without stalls, beside the prediction's ranks among them.
pub(super) fn measured_ranking_table(m: &MeasuredRanking) -> Table {
    let mut order: Vec<&Ranked> = m.rows.iter().collect();
    let key = |r: &Ranked, b: Basis| r.on(b).ok().map_or(usize::MAX, |e| e.time.rank);
    crate::order::sort_by_key(&mut order, |r| {
        (key(r, Basis::WithStalls), key(r, Basis::WithoutStalls))
    });
    let rows = order
        .iter()
        .map(|r| {
            let mut row = vec![
                Value::text(r.name.clone()),
                Value::count(r.gpus),
                opt_num(r.price_per_hour, Unit::UsdPerHour),
            ];
            for b in Basis::ALL {
                row.extend(epoch_cells(r, b));
            }
            row.push(Value::text(ranking_remarks(r)));
            row
        })
        .collect();
    let mut columns = vec![
        Column::new("configuration", Unit::None),
        Column::new("GPUs", Unit::Count),
        Column::new("price", Unit::UsdPerHour),
    ];
    for (epoch, cost, rank) in [
        (
            "epoch with stalls (run 3)",
            "epoch cost with stalls",
            "with stalls",
        ),
        (
            "epoch without stalls (run 1)",
            "epoch cost without stalls",
            "without stalls",
        ),
        (
            "predicted epoch (extension)",
            "predicted epoch cost",
            "predicted",
        ),
    ] {
        columns.push(Column::new(epoch, Unit::Seconds));
        columns.push(Column::new(format!("time rank, {rank}"), Unit::None));
        columns.push(Column::new(cost, Unit::Usd));
        columns.push(Column::new(format!("cost rank, {rank}"), Unit::None));
    }
    columns.push(Column::new("sources, and what is not ranked", Unit::None));
    Table {
        key: "measured-ranking".into(),
        title: "Measured configurations ranked by time and cost per epoch (Stash Sec. V), beside the prediction".into(),
        columns,
        rows,
        caption: format!(
            "An epoch of {} samples (samples per epoch) on n GPUs: t / (samples per GPU) × {}/n, t the run normalised to the configuration's samples per GPU. With stalls: run (3), real data from a cold cache (every stall). Without stalls: run (1), one GPU on synthetic data, as if every GPU ran alone (on several machines, their one-machine member's run (1) when they have none). Cost: epoch [s] / 3600 × machines × {} price [USD/h]. Ranks 1 = fastest or cheapest, among the measured configurations only; tied configurations share a rank and are named. Measured ties: within {}% of the least of their group; predicted ties: within {:e} relative (exact but for rounding).",
            fmt_count(m.epoch_samples),
            fmt_count(m.epoch_samples),
            m.pricing.word(),
            m.measured_tie * 100.0,
            m.predicted_tie
        ),
        omitted_rows: 0,
    }
}

pub(super) fn measured_ranking_notes(m: &MeasuredRanking) -> Vec<Note> {
    let runs = format!("models.{}.runs", super::section::ID);
    let mut n = Vec::new();
    for d in &m.disagreements {
        let pairs: Vec<String> = d
            .pairs
            .iter()
            .map(|(a, b)| format!("{a} ahead of {b} measured, behind it predicted"))
            .collect();
        let more = d.count.saturating_sub(d.pairs.len());
        let text = format!(
            "The {} order and the predicted order disagree on {}: {}{}.",
            d.basis.word(),
            d.metric.word(),
            pairs.join("; "),
            if more > 0 {
                format!("; and {more} more pairs (see the ranking table)")
            } else {
                String::new()
            }
        );
        n.push(
            if d.basis == Basis::WithStalls {
                Note::warning(format!(
                    "{text} The prediction (an extension) misses what these runs measured: check τ, the links' bandwidth and the achieved fraction, or calibrate on a measured iteration."
                ))
            } else {
                Note::info(format!(
                    "{text} Run (1) has no all-reduce; the prediction has."
                ))
            }
            .at(runs.clone()),
        );
    }
    let compared = |metric: Metric| {
        m.rows
            .iter()
            .filter(|r| {
                [Basis::WithStalls, Basis::Predicted]
                    .iter()
                    .all(|&b| r.on(b).ok().and_then(|e| e.place(metric)).is_some())
            })
            .count()
    };
    let (time, cost) = (compared(Metric::Time), compared(Metric::Cost));
    if time > 1 && !m.disagreements.iter().any(|d| d.basis == Basis::WithStalls) {
        n.push(
            Note::info(format!(
                "The measured order with stalls and the predicted order agree on {} among the {time} configurations both rank.",
                if cost > 1 {
                    "epoch time [s] and cost [USD]"
                } else {
                    "epoch time [s]"
                }
            ))
            .at(runs.clone()),
        );
    }
    for b in Basis::MEASURED {
        let left: Vec<&Ranked> = m.rows.iter().filter(|r| r.on(b).is_err()).collect();
        if !left.is_empty() {
            let names: Vec<String> = left.iter().take(NAMED).map(|r| r.name.clone()).collect();
            n.push(
                Note::info(format!(
                    "Not ranked {}: {} (the ranking table's last column says why).",
                    b.word(),
                    name_list(&names, left.len())
                ))
                .at(runs.clone()),
            );
        }
    }
    // One warning per instance type without a price.
    let mut unpriced: Vec<(&str, Vec<&Ranked>)> = Vec::new();
    for r in m.rows.iter().filter(|r| r.cost_missing.is_some()) {
        match unpriced.iter_mut().find(|(i, _)| *i == r.instance) {
            Some((_, rs)) => rs.push(r),
            None => unpriced.push((&r.instance, vec![r])),
        }
    }
    for (instance, rs) in unpriced {
        let names: Vec<String> = rs.iter().take(NAMED).map(|r| r.name.clone()).collect();
        n.push(
            Note::warning(format!(
                "{instance} has no {} price in the catalog: the epoch cost [USD] of {} {} not ranked (give its price per hour [USD/h]).",
                m.pricing.word(),
                name_list(&names, rs.len()),
                if rs.len() > 1 { "are" } else { "is" }
            ))
            .at("hardware.catalog"),
        );
    }
    n
}
