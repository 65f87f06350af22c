//! spotDNN's evaluation as the one report every model returns: the given
//! cluster's prediction, the exact plan next to Algorithm 1 and the
//! paper's comparisons, the takeovers after a revocation (each method's),
//! and the charts.

use super::eval::{Plans, Replan, SpotEvaluation};
use super::plan::{Candidate, Problem, NODE_BUDGET, SWEEP_BUDGET};
use super::{convergence_of, InstanceType, LossForm};
use serde_json::json;

use crate::hardware::WorkerGroup;
use crate::report::{
    fmt_count, fmt_sig, Action, Axis, Chart, Column, Figure, Marker, Note, Report, Series, Style,
    Table, Unit, Value,
};
use crate::scenario::Scenario;

/// The table of plans by instance counts (the page's "use this plan").
pub const PLAN_COUNTS: &str = "plan-counts";
/// Its row for the exact optimiser's plan.
pub const EXACT_ROW: &str = "exact optimiser";
/// Its row for Algorithm 1's plan.
pub const PAPER_ROW: &str = "Algorithm 1";
/// Its row for the exact optimiser's takeover after a revocation.
pub const REPLAN_EXACT_ROW: &str = "after the revocation: exact optimiser";
/// Its row for Algorithm 1's takeover after a revocation (Fig. 9).
pub const REPLAN_PAPER_ROW: &str = "after the revocation: Algorithm 1";
/// What computed a plan, as the labels name it.
const EXACT_METHOD: &str = "exact optimiser";
const PAPER_METHOD: &str = "Algorithm 1";

const COMPUTE_COLOR: &str = "#4c78a8";
const PCIE_COLOR: &str = "#f58518";
const NETWORK_COLOR: &str = "#54a24b";
const PLAN_COLOR: &str = "#d62728";

pub fn build(s: &Scenario, e: &SpotEvaluation) -> Report {
    let mut r = Report {
        model: "spotdnn".into(),
        model_name: "spotDNN heterogeneous spot model".into(),
        subject: subject(s, e),
        ..Report::default()
    };
    if let Some(p) = &e.plans {
        plan_figures(e, p, &mut r);
    }
    cluster_figures(e, &mut r);
    if let Some(rp) = &e.replan {
        replan_figures(e, rp, &mut r);
    }
    workload_figures(e, &mut r);
    r.tables.push(types_table(e));
    if let Some(t) = plan_table(e) {
        r.tables.push(t);
    }
    if let Some(p) = &e.plans {
        if !p.frontier.is_empty() {
            r.tables.push(frontier_table(p));
        }
    }
    notes(s, e, &mut r);
    if let Some(ch) = iteration_chart(e) {
        r.charts.push(ch);
    }
    if let Some(p) = &e.plans {
        if let Some(ch) = frontier_chart(e, p) {
            r.charts.push(ch);
            if crate::uncertainty::has_ranges(s) {
                r.notes.push(Note::info(
                    "The frontier's band: each time goal's plan, chosen on the inputs as given, costed over the samples (with other inputs a goal's cheapest plan may be another).",
                ));
            }
        }
    }
    if let Some(ch) = composition_chart(e) {
        r.charts.push(ch);
    }
    if let Some(ch) = convergence_chart(e) {
        r.charts.push(ch);
    }
    if let Some(a) = plan_action(e) {
        r.actions.push(a);
    }
    super::fit_report::add(e, &mut r);
    r
}

/// The exact plan as the scenario's cluster, each group at its Eq. 10
/// batch (`g · b_k`), so every model reads the cluster spotDNN planned.
fn plan_action(e: &SpotEvaluation) -> Option<Action> {
    let best = e.plans.as_ref()?.exact.best.as_ref()?;
    let workers: Vec<WorkerGroup> = e
        .types
        .iter()
        .zip(&best.counts)
        .filter(|(_, &c)| c > 0)
        .map(|(t, &count)| WorkerGroup {
            instance: t.name.clone(),
            count,
            batch_size: t.batch.min(f64::from(u32::MAX)) as u32,
        })
        .collect();
    Some(Action {
        key: "use-plan".into(),
        label: "Use the exact plan as the cluster".into(),
        description: format!(
            "Replaces the cluster's worker groups with {}.",
            plan_text(&e.types, &best.counts)
        ),
        patch: json!({"hardware": {"cluster": {"workers": workers}}}),
    })
}

/// "2× g4dn.4xlarge + 5× g3.8xlarge".
pub fn plan_text(types: &[InstanceType], counts: &[u32]) -> String {
    let parts: Vec<String> = types
        .iter()
        .zip(counts)
        .filter(|(_, &c)| c > 0)
        .map(|(t, c)| format!("{c}× {}", t.name))
        .collect();
    if parts.is_empty() {
        "no instances".into()
    } else {
        parts.join(" + ")
    }
}

fn subject(s: &Scenario, e: &SpotEvaluation) -> String {
    let what = match &e.cluster {
        Some(c) => plan_text(&e.types, &c.counts),
        None if s.hardware.cluster.workers.is_empty() => "no cluster (planning only)".into(),
        // As written, since spotDNN could not read it (the notes say why).
        None => {
            let groups: Vec<String> = s
                .hardware
                .cluster
                .workers
                .iter()
                .map(|g| format!("{}× {}", g.count, g.instance))
                .collect();
            format!("{} (not predicted)", groups.join(" + "))
        }
    };
    format!(
        "{}, ASP, on {what}, PS side {} MB/s, {} prices",
        s.workload.network.name,
        fmt_sig(e.workload.ps_bytes_per_s / 1e6),
        e.pricing.word()
    )
}

fn plan_figures(e: &SpotEvaluation, p: &Plans, r: &mut Report) {
    let src = "Eq. 11-14";
    match &p.exact.best {
        Some(b) => {
            r.headline.push(
                Figure::new(
                    "exact-plan",
                    "cheapest plan (exact)",
                    Value::text(plan_text(&e.types, &b.counts)),
                )
                .source(format!("exact optimiser, {src}")),
            );
            r.headline.push(
                Figure::new(
                    "exact-cost",
                    format!("its cost ({})", e.pricing.word()),
                    Value::num(b.run.cost, Unit::Usd),
                )
                .source("Eq. 11"),
            );
            r.figures.push(
                Figure::new(
                    "exact-time",
                    "its training time",
                    Value::num(b.time_s, Unit::Seconds),
                )
                .source("Eq. 1"),
            );
        }
        None => r.headline.push(Figure::new(
            "exact-plan",
            "cheapest plan (exact)",
            Value::text("no plan meets the goals"),
        )),
    }
    match &p.paper.best {
        Some(b) => {
            r.headline.push(
                Figure::new(
                    "paper-plan",
                    "Algorithm 1's plan",
                    Value::text(plan_text(&e.types, &b.counts)),
                )
                .source("Algorithm 1"),
            );
            r.figures.push(Figure::new(
                "paper-cost",
                format!("Algorithm 1's cost ({})", e.pricing.word()),
                Value::num(b.run.cost, Unit::Usd),
            ));
            r.figures.push(Figure::new(
                "paper-time",
                "Algorithm 1's training time",
                Value::num(b.time_s, Unit::Seconds),
            ));
        }
        None => r.headline.push(Figure::new(
            "paper-plan",
            "Algorithm 1's plan",
            Value::text("none found"),
        )),
    }
    if let Some(g) = p.gap {
        r.headline.push(
            Figure::new(
                "gap",
                "Algorithm 1 costs more by",
                Value::num(g, Unit::Percent),
            )
            .source("Algorithm 1 vs exact"),
        );
    }
    r.figures.push(Figure::new(
        "exact-examined",
        "clusters the exact optimiser evaluated",
        Value::count(p.exact.evaluated as f64),
    ));
    r.figures.push(Figure::new(
        "paper-examined",
        "windows Algorithm 1 evaluated",
        Value::count(p.paper.evaluated as f64),
    ));
    r.figures.push(
        Figure::new(
            "paper-workers",
            "Algorithm 1's worker range (Eq. 15-16)",
            Value::text(format!("{}–{}", p.paper.workers_from, p.paper.workers_to)),
        )
        .source("Eq. 15, 16"),
    );
}

fn cluster_figures(e: &SpotEvaluation, r: &mut Report) {
    let Some(c) = &e.cluster else { return };
    let f = &c.figures;
    if let Some(run) = &c.run {
        r.headline.push(
            Figure::new(
                "train-time",
                "this cluster: training time to the loss goal",
                Value::num(run.time_s, Unit::Seconds),
            )
            .source("Eq. 1, 3"),
        );
        r.headline.push(
            Figure::new(
                "cost",
                format!("this cluster: cost ({})", e.pricing.word()),
                Value::num(run.cost, Unit::Usd),
            )
            .source("Eq. 11"),
        );
        if let Some(o) = run.other_cost {
            r.figures.push(Figure::new(
                "other-cost",
                format!("this cluster: cost at {} prices", e.pricing.other().word()),
                Value::num(o, Unit::Usd),
            ));
        }
        r.figures.push(
            Figure::new(
                "iterations",
                "normalized iterations j",
                Value::count(run.iterations.round()),
            )
            .source("Eq. 3"),
        );
    }
    r.headline.push(
        Figure::new(
            "expected-iteration",
            "expected iteration time T_exp",
            Value::num(f.expected_iteration_s, Unit::Seconds),
        )
        .source("Eq. 2"),
    );
    r.headline.push(
        Figure::new(
            "convergence",
            "convergence coefficient R",
            Value::num(f.convergence, Unit::None),
        )
        .source("Eq. 5"),
    );
    let fig = |k: &str, l: &str, v: Value, src: &str| Figure::new(k, l, v).source(src);
    r.figures.extend([
        fig(
            "workers",
            "workers |N|",
            Value::count(f64::from(f.workers)),
            "",
        ),
        fig(
            "wa-batch",
            "WA batch b_w",
            Value::num(f.wa_batch, Unit::None),
            "Eq. 4",
        ),
        fig(
            "speed",
            "cluster speed v",
            Value::num(f.speed, Unit::SamplesPerS),
            "Eq. 4",
        ),
        fig(
            "contention",
            "PS bottleneck probability P",
            Value::num(f.contention, Unit::Percent),
            "Eq. 9",
        ),
        fig(
            "worker-bandwidth",
            "each worker's bandwidth B_wk",
            Value::num(f.worker_bandwidth, Unit::MegabytesPerS),
            "Eq. 8",
        ),
        fig(
            "price",
            format!("cluster price ({})", e.pricing.word()).as_str(),
            Value::num(f.price_per_hour, Unit::UsdPerHour),
            "",
        ),
    ]);
}

/// The two takeovers side by side, each labelled by what computed it:
/// the exact optimiser's and Algorithm 1's (the paper's Fig. 9 replan),
/// with the gap in cost; both add `T_ohd` to the time (Algorithm 1, lines
/// 11-13).
fn replan_figures(e: &SpotEvaluation, rp: &Replan, r: &mut Report) {
    let ohd = format!(
        "revocation time + T_ohd {} s (Algorithm 1, lines 11-13) + remaining work",
        fmt_sig(e.settings.overhead_s)
    );
    for (key, method, search) in [
        ("", EXACT_METHOD, &rp.exact),
        ("paper-", PAPER_METHOD, &rp.paper),
    ] {
        let k = |x: &str| format!("{key}{x}");
        match &search.best {
            Some(b) => {
                let added: Vec<u32> = b
                    .counts
                    .iter()
                    .zip(&rp.survivors)
                    .map(|(&c, &x)| c - x.min(c))
                    .collect();
                r.headline.push(
                    Figure::new(
                        k("takeover-plan"),
                        format!("after {} revoked, {method}: add", rp.revoked),
                        Value::text(if added.iter().all(|&c| c == 0) {
                            "nothing: the survivors finish in time".to_string()
                        } else {
                            plan_text(&e.types, &added)
                        }),
                    )
                    .source(format!("{method}, survivors kept")),
                );
                r.figures.push(
                    Figure::new(
                        k("takeover-cluster"),
                        format!("cluster after the takeover ({method})"),
                        Value::text(plan_text(&e.types, &b.counts)),
                    )
                    .source(method),
                );
                r.headline.push(
                    Figure::new(
                        k("finish-after"),
                        format!("finish with the takeover ({method})"),
                        Value::num(rp.at_s + b.time_s, Unit::Seconds),
                    )
                    .source(ohd.clone()),
                );
                r.figures.push(
                    Figure::new(
                        k("cost-after"),
                        format!(
                            "total cost with the takeover ({method}, {})",
                            e.pricing.word()
                        ),
                        Value::num(rp.spent + b.run.cost, Unit::Usd),
                    )
                    .source("cost before the revocation + Eq. 11 of the takeover"),
                );
            }
            None => r.headline.push(
                Figure::new(
                    k("takeover-plan"),
                    format!("after {} revoked, {method}: add", rp.revoked),
                    Value::text("no takeover meets the goals in the time left"),
                )
                .source(method),
            ),
        }
    }
    if let Some(g) = rp.gap {
        r.headline.push(
            Figure::new(
                "takeover-gap",
                "Algorithm 1's takeover costs more by",
                Value::num(g, Unit::Percent),
            )
            .source("Algorithm 1 vs exact optimiser, the takeover's cost (Eq. 11)"),
        );
    }
    if let Some(b) = &rp.before {
        r.figures.push(Figure::new(
            "finish-before",
            "finish had nothing been revoked",
            Value::num(b.time_s, Unit::Seconds),
        ));
        r.figures.push(Figure::new(
            "cost-before",
            "cost had nothing been revoked",
            Value::num(b.cost, Unit::Usd),
        ));
    }
    r.figures.push(Figure::new(
        "time-left",
        "time left at the revocation",
        Value::num(rp.time_left_s, Unit::Seconds),
    ));
}

fn workload_figures(e: &SpotEvaluation, r: &mut Report) {
    let w = &e.workload;
    r.figures.push(
        Figure::new(
            "ps-bandwidth",
            "PS side B_ps",
            Value::num(w.ps_bytes_per_s, Unit::MegabytesPerS),
        )
        .source("hardware.cluster.ps"),
    );
    if let Some(n) = w.max_workers() {
        r.figures.push(
            Figure::new(
                "max-workers",
                "most workers with P < 1",
                Value::count(f64::from(n)),
            )
            .source("Eq. 15"),
        );
    }
}

fn types_table(e: &SpotEvaluation) -> Table {
    let w = &e.workload;
    let rows = e
        .types
        .iter()
        .map(|t| {
            let alone = t.alone_s(w);
            vec![
                Value::text(&t.name),
                Value::count(f64::from(t.gpus)),
                Value::count(t.gpu_batch),
                Value::count(t.batch),
                Value::num(t.compute_s, Unit::Seconds),
                Value::num(t.pcie_s, Unit::Seconds),
                Value::num(alone, Unit::Seconds),
                Value::num(t.batch / alone, Unit::SamplesPerS),
                Value::num(t.price, Unit::UsdPerHour),
                t.quota
                    .map_or(Value::text("no limit"), |q| Value::count(f64::from(q))),
            ]
        })
        .collect();
    Table {
        key: "types".into(),
        title: "Instance types: Eq. 10 batch, Eq. 6-7 parts alone".into(),
        columns: vec![
            Column::new("instance", Unit::None),
            Column::new("GPUs", Unit::Count),
            Column::new("batch per GPU b_k", Unit::Count),
            Column::new("worker batch", Unit::Count),
            Column::new("T_comp", Unit::Seconds),
            Column::new("PCIe", Unit::Seconds),
            Column::new("iteration alone", Unit::Seconds),
            Column::new("speed alone", Unit::SamplesPerS),
            Column::new(format!("price ({})", e.pricing.word()), Unit::UsdPerHour),
            Column::new("quota", Unit::Count),
        ],
        rows,
        caption: "T_comp = T_meas − 2S/B_req − 2gS/B_pcie (Eq. 6-7, one worker alone)".into(),
        omitted_rows: 0,
    }
}

/// One row of the plan table.
/// A plan as the table shows it: its label, counts, run, the time goal it
/// is held to, and whether it is priced at the other pricing.
struct PlanRow<'a> {
    label: String,
    counts: Vec<u32>,
    candidate: Option<&'a Candidate>,
    goal: Option<f64>,
    at_other: bool,
}

impl<'a> PlanRow<'a> {
    fn new(label: &str, c: &'a Candidate, goal: Option<f64>) -> Self {
        PlanRow {
            label: label.into(),
            counts: c.counts.clone(),
            candidate: Some(c),
            goal,
            at_other: false,
        }
    }
}

fn plan_row(e: &SpotEvaluation, shown: &[usize], p: &PlanRow) -> Vec<Value> {
    let (label, counts, c, goal, at_other) = (&p.label, &p.counts, p.candidate, p.goal, p.at_other);
    let mut row = vec![Value::text(label.clone())];
    row.extend(shown.iter().map(|&k| Value::count(f64::from(counts[k]))));
    row.push(Value::count(f64::from(counts.iter().sum::<u32>())));
    match c {
        Some(c) => {
            let cost = if at_other {
                c.run.other_cost
            } else {
                Some(c.run.cost)
            };
            row.push(Value::num(c.time_s, Unit::Seconds));
            row.push(cost.map_or(Value::Empty, |v| Value::num(v, Unit::Usd)));
            row.push(Value::text(
                if at_other {
                    e.pricing.other()
                } else {
                    e.pricing
                }
                .word(),
            ));
            row.push(Value::num(c.cluster.convergence, Unit::None));
            row.push(Value::num(c.cluster.wa_batch, Unit::None));
            row.push(Value::text(match goal {
                Some(g) if c.time_s <= g => "yes",
                Some(_) => "no",
                None => "",
            }));
        }
        None => {
            row.extend([
                Value::Empty,
                Value::Empty,
                Value::Empty,
                Value::Empty,
                Value::Empty,
            ]);
            row.push(Value::text("does not reach the loss goal"));
        }
    }
    row
}

fn plan_table(e: &SpotEvaluation) -> Option<Table> {
    // The rows' plans, then only the types some plan uses as columns.
    let mut plans: Vec<PlanRow> = Vec::new();
    let goal = e.plans.as_ref().map(|p| p.time_goal_s);
    if let Some(p) = &e.plans {
        if let Some(b) = &p.exact.best {
            plans.push(PlanRow::new(EXACT_ROW, b, goal));
        }
        if let Some(b) = &p.paper.best {
            plans.push(PlanRow::new(PAPER_ROW, b, goal));
        }
        for c in &p.comparisons {
            plans.push(PlanRow {
                label: c.label.clone(),
                counts: c.counts.clone(),
                candidate: c.candidate.as_ref(),
                goal,
                at_other: c.other_pricing,
            });
        }
    }
    if let Some(rp) = &e.replan {
        if let Some(b) = &rp.exact.best {
            plans.push(PlanRow::new(REPLAN_EXACT_ROW, b, Some(rp.time_left_s)));
        }
        if let Some(b) = &rp.paper.best {
            plans.push(PlanRow::new(REPLAN_PAPER_ROW, b, Some(rp.time_left_s)));
        }
    }
    if plans.is_empty() {
        return None;
    }
    let shown: Vec<usize> = (0..e.types.len())
        .filter(|&k| plans.iter().any(|p| p.counts[k] > 0))
        .collect();
    let rows = plans.iter().map(|p| plan_row(e, &shown, p)).collect();
    let mut columns = vec![Column::new("plan", Unit::None)];
    columns.extend(
        shown
            .iter()
            .map(|&k| Column::new(e.types[k].name.clone(), Unit::Count)),
    );
    columns.extend([
        Column::new("workers", Unit::Count),
        Column::new("time", Unit::Seconds),
        Column::new("cost", Unit::Usd),
        Column::new("prices", Unit::None),
        Column::new("R", Unit::None),
        Column::new("b_w", Unit::None),
        Column::new("meets T_obj", Unit::None),
    ]);
    Some(Table {
        key: PLAN_COUNTS.into(),
        title: "Plans: instances per type (Tables I, V, VI)".into(),
        columns,
        rows,
        caption: "Homo-fast and Homo-slow have as many workers as the exact plan, all of its fastest or slowest type (quotas not applied), as in Sec. V-C; the takeover rows count time and cost from the revocation (T_ohd in the time) and meet the time left".into(),
        omitted_rows: 0,
    })
}

fn frontier_table(p: &Plans) -> Table {
    Table {
        key: "frontier".into(),
        title: format!(
            "Cheapest cost by time goal, loss goal {}",
            fmt_sig(p.loss_goal)
        ),
        columns: vec![
            Column::new("time goal", Unit::Seconds),
            Column::new("cheapest cost", Unit::Usd),
        ],
        rows: p
            .frontier
            .iter()
            .map(|(t, c)| {
                vec![
                    Value::num(*t, Unit::Seconds),
                    c.as_ref()
                        .map_or(Value::text("no plan"), |c| Value::num(c.run.cost, Unit::Usd)),
                ]
            })
            .collect(),
        caption: String::new(),
        omitted_rows: 0,
    }
}

fn notes(s: &Scenario, e: &SpotEvaluation, r: &mut Report) {
    let f = |x: &str| format!("models.spotdnn.{x}");
    if let Some(n) = &e.cluster_note {
        r.notes
            .push(Note::info(n.clone()).at("hardware.cluster.workers"));
    }
    for sk in &e.skipped {
        r.notes
            .push(Note::warning(format!("not used: {sk}")).at(f("measured")));
    }
    if e.settings.loss.is_none() {
        r.notes.push(
            Note::info("training time, cost and plans need the loss law (γ1…γ5 of Eq. 3)")
                .at(f("loss")),
        );
    } else if s.goals.loss.is_none() || s.goals.time_s.is_none() {
        r.notes
            .push(Note::info("plans need a loss goal and a time goal").at("goals"));
    }
    if let Some(l) = &e.settings.loss {
        if l.form == LossForm::RFree {
            r.notes.push(Note::info("R-free loss law (the authors' code): √|N| without the convergence coefficient; R is shown, not used").at(f("loss.form")));
        }
    }
    if e.workload.alpha1 == 0.0 && e.workload.beta1 == 0.0 {
        r.notes
            .push(Note::info("α1 = β1 = 0: no PS contention modelled (P = 0)").at(f("alpha1")));
    }
    if let Some(c) = &e.cluster {
        let n = f64::from(c.figures.workers);
        let raw = e.workload.alpha1 * n.sqrt() + e.workload.beta1;
        if !(0.0..=1.0).contains(&raw) {
            r.notes.push(
                Note::info(format!(
                    "α1·√|N| + β1 = {} for {} workers: P is clamped to {}",
                    fmt_sig(raw),
                    c.figures.workers,
                    fmt_sig(raw.clamp(0.0, 1.0))
                ))
                .at(f("beta1")),
            );
        }
        for g in &s.hardware.cluster.workers {
            if let Some(t) = e.types.iter().find(|t| t.name == g.instance) {
                if f64::from(g.batch_size) != t.batch {
                    r.notes.push(
                        Note::info(format!(
                            "{}: spotDNN trains the Eq. 10 batch {} per worker, not the group's {}",
                            g.instance,
                            fmt_sig(t.batch),
                            g.batch_size
                        ))
                        .at("hardware.cluster.workers"),
                    );
                }
            }
        }
    }
    if let Some(p) = &e.plans {
        if p.exact.best.is_none() {
            r.notes.push(binding(e, p));
        }
        let unproven = |what: &str, budget: u64| {
            Note::warning(format!(
                "{what} stopped at its budget of {} steps: its plans are the best found, not proven the best (these types and goals make the exact search a long hunt); fewer types or quotas, or another goal, let it finish",
                fmt_count(budget as f64)
            ))
            .at("goals.time")
        };
        if !p.exact.complete {
            r.notes.push(unproven("the exact optimiser", NODE_BUDGET));
        }
        if !p.frontier_complete && !p.frontier.is_empty() {
            r.notes
                .push(unproven("the frontier's search", SWEEP_BUDGET));
        }
        if let Some(rp) = e.replan.as_ref().filter(|rp| !rp.exact.complete) {
            let what = format!("the takeover search after {} revoked", rp.revoked);
            r.notes.push(unproven(&what, NODE_BUDGET));
        }
        if e.types.iter().all(|t| t.quota == Some(0)) {
            r.notes.push(
                Note::warning("every type's quota is 0: no plan can add an instance")
                    .at("hardware.catalog"),
            );
        }
    }
    r.notes.push(Note::info(
        "costs count the workers only (Eq. 11); the PS is not priced",
    ));
}

/// Which goal binds when nothing meets both, and by how much.
fn binding(e: &SpotEvaluation, p: &Plans) -> Note {
    match &p.fastest {
        Some(f) => Note::warning(format!(
            "no plan {}meets the time goal {} s: the fastest cluster {} ({}) needs {} s, {} more; raise the quotas or the time goal",
            if p.exact.complete { "" } else { "found " },
            fmt_sig(p.time_goal_s),
            if p.fastest_complete {
                "the quotas allow"
            } else {
                "found (its search stopped at its budget)"
            },
            plan_text(&e.types, &f.counts),
            fmt_sig(f.time_s),
            Unit::Percent.display(f.time_s / p.time_goal_s - 1.0)
        ))
        .at("goals.time"),
        None => Note::warning(format!(
            "no cluster within the quotas reaches the loss goal {} under the loss law",
            fmt_sig(p.loss_goal)
        ))
        .at("goals.loss"),
    }
}

/// The cluster's iteration per type: compute, PCIe, network (Eq. 6-7).
/// The charts spotDNN bands (`Model::curves`): the given cluster's
/// iteration timeline, whose total is `T_exp`.
pub fn curve_charts(e: &SpotEvaluation) -> Vec<Chart> {
    iteration_chart(e).into_iter().collect()
}

fn iteration_chart(e: &SpotEvaluation) -> Option<Chart> {
    let c = e.cluster.as_ref()?;
    let mut rows = Vec::new();
    let (mut comp, mut pcie, mut net) = (Vec::new(), Vec::new(), Vec::new());
    for (k, t) in e.types.iter().enumerate() {
        if c.counts[k] == 0 {
            continue;
        }
        let it = c.figures.iterations[k];
        rows.push(format!("{}× {}", c.counts[k], t.name));
        comp.push((0.0, it.compute_s));
        pcie.push((it.compute_s, it.compute_s + it.pcie_s));
        net.push((it.compute_s + it.pcie_s, it.total()));
    }
    let seg = |name: &str, parts: &[(f64, f64)], color: &str| {
        Series::segments(
            name,
            rows.clone(),
            parts.iter().map(|p| p.0).collect(),
            parts.iter().map(|p| p.1).collect(),
        )
        .hover(
            parts
                .iter()
                .map(|p| format!("{name}: {}", Unit::Seconds.display(p.1 - p.0)))
                .collect(),
        )
        .color(color)
    };
    Some(Chart {
        key: "iteration".into(),
        title: "One iteration per worker type (ASP: no barrier)".into(),
        x: Axis::new("time in one iteration", Unit::Seconds),
        y: Axis::new("", Unit::None),
        y2: None,
        series: vec![
            seg("compute T_comp", &comp, COMPUTE_COLOR),
            seg("PCIe aggregation", &pcie, PCIE_COLOR),
            seg("push + pull to the PS", &net, NETWORK_COLOR),
        ],
        markers: vec![Marker::Vertical {
            x: c.figures.expected_iteration_s,
            label: format!(
                "T_exp = {}",
                Unit::Seconds.display(c.figures.expected_iteration_s)
            ),
        }],
    })
}

/// The frontier's line: (time goal, cost) points.
fn frontier_line(pts: &[(f64, f64)]) -> Series {
    Series::xy(
        FRONTIER_LINE,
        Style::LinePoints,
        pts.iter().map(|p| p.0).collect(),
        pts.iter().map(|p| p.1).collect(),
    )
}

const FRONTIER_LINE: &str = "cheapest plan meeting the time goal";

/// The frontier's line for one sample of its band: each goal's plan
/// (`counts`, from the as-given report) costed under the sample's inputs
/// (`p`); a plan the sample cannot run adds no point.
pub fn frontier_sample(p: &Problem, plans: &[(f64, Vec<u32>)]) -> Chart {
    let pts: Vec<(f64, f64)> = plans
        .iter()
        .filter_map(|(goal, counts)| Some((*goal, p.candidate(counts)?.run.cost)))
        .collect();
    Chart {
        key: FRONTIER.into(),
        title: String::new(),
        x: Axis::new("time goal T_obj", Unit::Seconds),
        y: Axis::new("cost", Unit::Usd),
        y2: None,
        series: vec![frontier_line(&pts)],
        markers: Vec::new(),
    }
}

pub const FRONTIER: &str = "frontier";

/// Cheapest cost against the time goal, the chosen plan marked.
fn frontier_chart(e: &SpotEvaluation, p: &Plans) -> Option<Chart> {
    let (pts, plans): (Vec<(f64, f64)>, Vec<String>) = p
        .frontier
        .iter()
        .filter_map(|(t, c)| {
            let c = c.as_ref()?;
            Some(((*t, c.run.cost), plan_text(&e.types, &c.counts)))
        })
        .unzip();
    if pts.is_empty() {
        return None;
    }
    let mut series = vec![frontier_line(&pts).hover(
        pts.iter()
            .zip(plans)
            .map(|(&(t, c), plan)| {
                format!(
                    "T_obj {}: {plan}, {}",
                    Unit::Seconds.display(t),
                    Unit::Usd.display(c)
                )
            })
            .collect(),
    )];
    if let Some(b) = &p.paper.best {
        series.push(
            Series::xy(
                "Algorithm 1",
                Style::Points,
                vec![b.time_s],
                vec![b.run.cost],
            )
            .hover(vec![format!(
                "Algorithm 1: {}",
                plan_text(&e.types, &b.counts)
            )]),
        );
    }
    if let Some(b) = &p.exact.best {
        series.push(
            Series::xy(
                "exact plan",
                Style::Highlight,
                vec![b.time_s],
                vec![b.run.cost],
            )
            .hover(vec![format!("exact: {}", plan_text(&e.types, &b.counts))])
            .color(PLAN_COLOR),
        );
    }
    Some(Chart {
        key: FRONTIER.into(),
        title: format!(
            "Cheapest cost by time goal (loss goal {})",
            fmt_sig(p.loss_goal)
        ),
        x: Axis::new("time goal T_obj", Unit::Seconds),
        y: Axis::new(format!("cost ({})", e.pricing.word()), Unit::Usd).from_zero(),
        y2: None,
        series,
        markers: vec![Marker::Vertical {
            x: p.time_goal_s,
            label: "time goal".into(),
        }],
    })
}

/// The plans as stacked bars of instances per type.
fn composition_chart(e: &SpotEvaluation) -> Option<Chart> {
    let mut plans: Vec<(String, Vec<u32>)> = Vec::new();
    if let Some(c) = &e.cluster {
        plans.push(("this cluster".into(), c.counts.clone()));
    }
    if let Some(p) = &e.plans {
        if let Some(b) = &p.paper.best {
            plans.push((PAPER_ROW.into(), b.counts.clone()));
        }
        if let Some(b) = &p.exact.best {
            plans.push((EXACT_ROW.into(), b.counts.clone()));
        }
    }
    if let Some(rp) = &e.replan {
        if let Some(b) = &rp.paper.best {
            plans.push((REPLAN_PAPER_ROW.into(), b.counts.clone()));
        }
        if let Some(b) = &rp.exact.best {
            plans.push((REPLAN_EXACT_ROW.into(), b.counts.clone()));
        }
    }
    if plans.is_empty() {
        return None;
    }
    let series = e
        .types
        .iter()
        .enumerate()
        .filter(|(k, _)| plans.iter().any(|(_, c)| c[*k] > 0))
        .map(|(k, t)| {
            let (mut rows, mut start, mut end) = (Vec::new(), Vec::new(), Vec::new());
            for (label, counts) in &plans {
                if counts[k] == 0 {
                    continue;
                }
                let before: u32 = counts[..k].iter().sum();
                rows.push(label.clone());
                start.push(f64::from(before));
                end.push(f64::from(before + counts[k]));
            }
            let hover = rows
                .iter()
                .zip(start.iter().zip(&end))
                .map(|(r, (a, b))| format!("{r}: {}× {}", b - a, t.name))
                .collect();
            Series::segments(t.name.clone(), rows, start, end).hover(hover)
        })
        .collect();
    Some(Chart {
        key: "composition".into(),
        title: "Plan composition".into(),
        x: Axis::new("instances", Unit::Count).from_zero(),
        y: Axis::new("", Unit::None),
        y2: None,
        series,
        markers: Vec::new(),
    })
}

/// R of an n-worker mix of two types against how many are of the faster
/// one (Eq. 5): the exact plan's two fastest types, else the catalog's.
fn convergence_chart(e: &SpotEvaluation) -> Option<Chart> {
    let counts = e
        .plans
        .as_ref()
        .and_then(|p| p.exact.best.as_ref().map(|b| b.counts.clone()))
        .or_else(|| e.cluster.as_ref().map(|c| c.counts.clone()))?;
    let n: u32 = counts.iter().sum();
    if n < 2 {
        return None;
    }
    let w = &e.workload;
    let speed = |k: usize| e.types[k].batch / e.types[k].iteration(w, f64::from(n)).total();
    let mut used: Vec<usize> = (0..e.types.len()).filter(|&k| counts[k] > 0).collect();
    if used.len() < 2 {
        used = (0..e.types.len()).collect();
    }
    crate::order::sort_positions(&mut used, &|a, b| speed(b).total_cmp(&speed(a)));
    let (&fast, &slow) = (used.first()?, used.get(1)?);
    let (vf, vs) = (speed(fast), speed(slow));
    let xs: Vec<f64> = (0..=n).map(f64::from).collect();
    let ys: Vec<f64> = (0..=n)
        .map(|a| {
            let b = n - a;
            let v = f64::from(a) * vf + f64::from(b) * vs;
            let mut shares = vec![vf / v; a as usize];
            shares.extend(std::iter::repeat_n(vs / v, b as usize));
            convergence_of(&shares)
        })
        .collect();
    Some(Chart {
        key: "convergence".into(),
        title: format!(
            "R of {n} workers: {} and {}",
            e.types[fast].name, e.types[slow].name
        ),
        x: Axis::new(format!("workers of {}", e.types[fast].name), Unit::Count),
        y: Axis::new("convergence coefficient R (Eq. 5)", Unit::None).from_zero(),
        y2: None,
        series: vec![Series::xy("R", Style::LinePoints, xs, ys)],
        markers: Vec::new(),
    })
}
