//! Cynthia's evaluation as the one report every model returns: the given
//! cluster's prediction, the plans (exact search next to Algorithm 1), why
//! nothing is feasible, Algorithm 1 type by type, the cost curves and the
//! charts, all as data in SI units.

use super::eval::{ClusterPrediction, CynthiaEvaluation};
use crate::workload::loss_fit::{fit_loss, loss_at};
use super::{Bottleneck, CostCurve, Plan, Run};
use crate::report::{
    fmt_sig, Axis, Chart, Column, Figure, Marker, Note, Report, Series, Style, Table, Unit, Value,
};
use crate::scenario::Scenario;
use crate::workload::profile::{LossCurve, SyncMode};

const COMPUTE_COLOR: &str = "#4c78a8";
const COMM_COLOR: &str = "#54a24b";
const PLAN_COLOR: &str = "#d62728";

/// What the workers axis of the per-type curves means.
const CURVE_X: &str = "workers (cheapest PS count meeting T_g)";

pub fn build(s: &Scenario, e: &CynthiaEvaluation) -> Report {
    let mut r = Report {
        model: "cynthia".into(),
        model_name: "Cynthia PS-bottleneck model".into(),
        subject: subject(s, e),
        ..Report::default()
    };
    match &e.cluster {
        Some(c) => given_cluster(s, e, c, &mut r),
        None => {
            if let Some(n) = &e.cluster_note {
                // No PS picked is a choice (planning still runs); a PS or
                // worker type the catalog cannot describe is a problem.
                r.notes.push(if s.hardware.cluster.ps.instance.is_none() {
                    Note::info(n.clone()).at("hardware.cluster.ps.instance")
                } else {
                    Note::warning(n.clone()).at("hardware.cluster")
                });
            }
        }
    }
    plans(e, &mut r);
    for m in &e.missing {
        r.notes
            .push(Note::info(format!("planning needs {}", m.message)).at(m.field.clone()));
    }
    for sk in &e.skipped {
        r.notes.push(
            Note::warning(format!("not planned (catalog entry missing figures): {sk}"))
                .at("hardware.catalog"),
        );
    }
    if let Some(ch) = iteration_chart(e) {
        r.charts.push(ch);
    }
    if !e.curves.is_empty() {
        r.charts.push(cost_chart(e, true));
        r.charts.push(time_chart(e, true));
        r.charts.push(utilisation_chart(e));
    }
    if let Some(ch) = s.workload.loss_curve.as_ref().and_then(loss_fit_chart) {
        r.charts.push(ch);
    }
    r
}

fn sync_word(m: SyncMode) -> &'static str {
    match m {
        SyncMode::Bsp => "BSP",
        SyncMode::Asp => "ASP",
    }
}

/// "cifar10 DNN, BSP, on 8 × m4.xlarge docker + 1 PS of m4.xlarge docker".
fn subject(s: &Scenario, e: &CynthiaEvaluation) -> String {
    let c = &s.hardware.cluster;
    let workers = if c.workers.is_empty() {
        "no workers".to_string()
    } else {
        c.workers
            .iter()
            .map(|g| format!("{} × {}", g.count, g.instance))
            .collect::<Vec<_>>()
            .join(" + ")
    };
    let ps = match &c.ps.instance {
        Some(name) => format!("{} PS of {name}", c.ps.count),
        None => "no PS type chosen".to_string(),
    };
    format!(
        "{}, {}, on {workers} + {ps}",
        e.profile_name,
        sync_word(e.sync)
    )
}

/// "6 workers + 1 PS of c3.xlarge docker".
fn plan_words(p: &Plan) -> String {
    format!(
        "{} workers + {} PS of {}",
        p.run.n_wk, p.run.n_ps, p.instance
    )
}

/// "cheapest plan: 6 × c3.xlarge docker + 1 PS".
fn plan_short(p: &Plan) -> String {
    format!(
        "cheapest plan: {} × {} + {} PS",
        p.run.n_wk, p.instance, p.run.n_ps
    )
}

fn yes_no(b: bool) -> Value {
    Value::text(if b { "yes" } else { "no" })
}

/// More than one instance type among the workers of an ASP cluster: each
/// iterates at its own pace (models.md §2, "heterogeneous ASP").
fn heterogeneous_asp(e: &CynthiaEvaluation, c: &ClusterPrediction) -> bool {
    let t = &c.iteration.per_type;
    e.sync == SyncMode::Asp && t.iter().any(|x| x.instance != t[0].instance)
}

fn given_cluster(s: &Scenario, e: &CynthiaEvaluation, c: &ClusterPrediction, r: &mut Report) {
    let it = &c.iteration;
    let u = &it.utilisation;
    let sat = &c.saturation;
    let hetero = heterogeneous_asp(e, c);
    let iter_label = if hetero {
        "this cluster: iteration time per worker (n / Σ 1/t_iter_j)"
    } else {
        "this cluster: iteration time"
    };
    r.headline.push(
        Figure::new(
            "iteration-time",
            iter_label,
            Value::num(it.t_iter_s, Unit::Seconds),
        )
        .source("Eq. 3"),
    );
    if let Some(run) = &c.run {
        r.headline.push(
            Figure::new(
                "train-time",
                "this cluster: training time to l_g",
                Value::num(run.train_time_s, Unit::Hours),
            )
            .source("Eq. 1, 3"),
        );
        r.headline.push(
            Figure::new(
                "cost",
                "this cluster: cost to l_g",
                Value::num(run.cost_usd, Unit::Usd),
            )
            .source("Eq. 8"),
        );
    }
    r.headline.push(
        Figure::new(
            "u",
            "this cluster: worker utilisation u",
            Value::num(u.u, Unit::Percent),
        )
        .source("Eq. 6-7"),
    );
    let binds = match u.binding {
        Bottleneck::None => format!(
            "no PS bottleneck: the PS CPU binds beyond {} workers, its network beyond {}",
            fmt_sig(sat.cpu_from_workers),
            fmt_sig(sat.network_from_workers)
        ),
        b => format!(
            "the {} binds (demand exceeds supply beyond {} workers), so every worker runs at u = {:.0}%",
            b.label(),
            fmt_sig(sat.cpu_from_workers.min(sat.network_from_workers)),
            100.0 * u.u
        ),
    };
    r.headline.push(
        Figure::new("binding", "this cluster: PS bottleneck", Value::text(binds)).source("Eq. 6-7"),
    );

    let comp_label = if hetero {
        "this cluster: slowest worker's compute time per iteration"
    } else {
        "this cluster: compute time per iteration"
    };
    r.figures.extend([
        Figure::new(
            "compute-time",
            comp_label,
            Value::num(it.t_comp_s, Unit::Seconds),
        )
        .source("Eq. 4"),
        Figure::new(
            "comm-time",
            "this cluster: communication time per iteration",
            Value::num(it.t_comm_s, Unit::Seconds),
        )
        .source("Eq. 5"),
        Figure::new(
            "ps-cpu-demand",
            "this cluster: PS CPU demand",
            Value::num(u.c_demand, Unit::GflopPerS),
        )
        .source("Eq. 6"),
        Figure::new(
            "ps-cpu-supply",
            "this cluster: PS CPU supply",
            Value::num(u.c_supply, Unit::GflopPerS),
        )
        .source("Eq. 6"),
        Figure::new(
            "ps-network-demand",
            "this cluster: PS network demand",
            Value::num(u.b_demand, Unit::MegabytesPerS),
        )
        .source("Eq. 7"),
        Figure::new(
            "ps-network-supply",
            "this cluster: PS network supply",
            Value::num(u.b_supply, Unit::MegabytesPerS),
        )
        .source("Eq. 7"),
        Figure::new(
            "ps-cpu-binds-beyond",
            "this cluster: PS CPU binds beyond",
            Value::num(sat.cpu_from_workers, Unit::Workers),
        ),
        Figure::new(
            "ps-network-binds-beyond",
            "this cluster: PS network binds beyond",
            Value::num(sat.network_from_workers, Unit::Workers),
        ),
    ]);
    if let Some(run) = &c.run {
        let label = match e.sync {
            SyncMode::Bsp => "this cluster: iterations to the loss goal",
            SyncMode::Asp => "this cluster: iterations to the loss goal (per worker)",
        };
        r.figures.push(
            Figure::new("iterations", label, Value::count(run.iterations as f64)).source("Eq. 1"),
        );
    }
    if hetero {
        r.figures.extend([
            Figure::new(
                "cluster-rate",
                "this cluster: cluster rate [iterations/s]",
                Value::num(it.cluster_rate, Unit::None),
            )
            .source("Σ_j 1/t_iter_j (this product's reading)"),
            Figure::new(
                "cluster-iteration-time",
                "this cluster: time between updates, 1/Σ(1/t_iter_j)",
                Value::num(it.cluster_iter_s, Unit::Seconds),
            )
            .source("this product's reading"),
        ]);
        r.tables.push(Table {
            omitted_rows: 0,
            key: "asp-types".into(),
            title: "Heterogeneous ASP: each worker type's own iteration".into(),
            columns: vec![
                Column::new("instance", Unit::None),
                Column::new("workers", Unit::Count),
                Column::new("compute", Unit::Seconds),
                Column::new("communication", Unit::Seconds),
                Column::new("iteration time", Unit::Seconds),
            ],
            rows: it
                .per_type
                .iter()
                .map(|t| {
                    vec![
                        Value::text(t.instance.clone()),
                        Value::count(t.workers),
                        Value::num(t.t_comp_s, Unit::Seconds),
                        Value::num(t.t_comm_s, Unit::Seconds),
                        Value::num(t.t_iter_s, Unit::Seconds),
                    ]
                })
                .collect(),
            caption: format!(
                "The paper leaves heterogeneous ASP open (l.158). Cluster rate {} iterations/s; per-worker iteration time n/Σ(1/t_iter_j) = {}, used for the training time.",
                fmt_sig(it.cluster_rate),
                Unit::Seconds.display(it.t_iter_s)
            ),
        });
        r.notes.push(Note::info(
            "heterogeneous ASP: this product's reading — each type iterates at its own pace; the cluster's iteration time is 1/Σ(1/t_iter_j)",
        ));
    }
    if let Some(n) = &c.run_note {
        // Three sources: a missing price (cost counts it as free), missing
        // loss inputs, or a loss goal the model cannot reach.
        let note = if c.run.is_some() {
            Note::warning(n.clone()).at("hardware.catalog")
        } else if s.workload.loss.is_some() && s.goals.loss.is_some() {
            Note::warning(n.clone()).at("goals.loss")
        } else {
            Note::info(n.clone()).at("workload.loss")
        };
        r.notes.push(note);
    }
    r.notes.push(Note::info(
        "Why Cynthia's iteration time differs from Zeng's for the same cluster: Cynthia's Eq. 3 overlaps compute and communication in BSP (t_iter = max) and models the PS as a pool of bandwidth and CPU with one cluster-wide utilisation u, while Zeng's push queue serialises every worker's push and pull on one link — so Zeng's figure is larger when communication is significant.",
    ));
}

/// The seven figures of one plan, keyed `{prefix}-…`.
fn run_figures(prefix: &str, what: &str, run: &Run, source: &str) -> Vec<Figure> {
    let f = |key: &str, label: &str, v: Value| {
        Figure::new(format!("{prefix}-{key}"), format!("{what}: {label}"), v).source(source)
    };
    vec![
        f("workers", "workers", Value::count(run.n_wk)),
        f("ps-nodes", "PS nodes", Value::count(run.n_ps)),
        f(
            "iterations",
            "iterations to the loss goal",
            Value::count(run.iterations as f64),
        ),
        f(
            "iteration-time",
            "iteration time",
            Value::num(run.t_iter_s, Unit::Seconds),
        ),
        f(
            "train-time",
            "training time",
            Value::num(run.train_time_s, Unit::Hours),
        ),
        f("cost", "cost", Value::num(run.cost_usd, Unit::Usd)),
        f(
            "u",
            "worker utilisation u",
            Value::num(run.u, Unit::Percent),
        ),
    ]
}

fn plans(e: &CynthiaEvaluation, r: &mut Report) {
    let Some(x) = &e.exact else {
        return;
    };
    let paper_plan = e.paper.as_ref().and_then(|p| p.plan.as_ref());
    let constraint11 = paper_plan.is_some_and(|p| p.run.n_ps > p.run.n_wk);
    const C11: &str = "n_ps > n_wk: Constraint 11 is not checked";

    let exact_text = match &x.plan {
        Some(p) => format!(
            "{}: {}, {}, u = {:.0}%",
            plan_words(p),
            Unit::Hours.display(p.run.train_time_s),
            Unit::Usd.display(p.run.cost_usd),
            100.0 * p.run.u
        ),
        None => "no plan meets the goals".to_string(),
    };
    r.headline.push(
        Figure::new(
            "exact-plan",
            "cheapest plan (exact search)",
            Value::text(exact_text),
        )
        .source("exact search over types × n_ps × n_wk"),
    );
    let paper_text = match paper_plan {
        Some(p) => format!(
            "{}: {}, {}{}",
            plan_words(p),
            Unit::Hours.display(p.run.train_time_s),
            Unit::Usd.display(p.run.cost_usd),
            if constraint11 {
                format!(" ({C11})")
            } else {
                String::new()
            }
        ),
        None => "reports infeasible".to_string(),
    };
    r.headline.push(
        Figure::new(
            "paper-plan",
            "Algorithm 1 as printed (paper mode)",
            Value::text(paper_text),
        )
        .source("Algorithm 1"),
    );

    if let Some(p) = &x.plan {
        r.figures.extend(run_figures(
            "exact",
            &format!("exact plan ({})", p.instance),
            &p.run,
            "exact search",
        ));
    }
    if let Some(p) = paper_plan {
        r.figures.extend(run_figures(
            "paper",
            &format!("Algorithm 1 plan ({})", p.instance),
            &p.run,
            "Algorithm 1",
        ));
    }
    let gap_words = e.paper_gap.map(|g| {
        if g > 1e-9 {
            format!(
                "Algorithm 1 misses a plan {:.1}% cheaper.",
                100.0 * g / (1.0 + g)
            )
        } else if g < -1e-9 {
            // Only possible when its plan breaks a constraint the exact
            // search enforces (n_ps ≤ n_wk, the budget, the worker limit).
            format!(
                "Algorithm 1's plan is {:.1}% cheaper than the exact optimum but breaks a constraint the exact search enforces (n_ps ≤ n_wk, the budget or the worker limit).",
                -100.0 * g
            )
        } else {
            "Algorithm 1 finds the cheapest plan here.".to_string()
        }
    });
    if let Some(g) = e.paper_gap {
        r.figures.push(
            Figure::new(
                "paper-gap",
                "Algorithm 1 cost above the exact optimum",
                Value::num(g, Unit::Percent),
            )
            .source("Algorithm 1 vs exact search"),
        );
    }
    if let Some(w) = &gap_words {
        r.notes.push(Note::info(w.clone()));
    }

    // The plans table: one row per method.
    let plan_cells = |p: &Plan| {
        vec![
            Value::text(p.instance.clone()),
            Value::count(p.run.n_wk),
            Value::count(p.run.n_ps),
            Value::num(p.run.train_time_s, Unit::Hours),
            Value::num(p.run.cost_usd, Unit::Usd),
            Value::num(p.run.u, Unit::Percent),
        ]
    };
    let no_plan = |why: &str| {
        let mut v = vec![Value::Empty; 6];
        v.push(Value::text(why));
        v
    };
    let exact_row = {
        let method = Value::text(format!(
            "exact search (1 ≤ n_ps ≤ n_wk; {} plans evaluated)",
            x.evaluated
        ));
        let mut row = vec![method];
        match &x.plan {
            Some(p) => {
                row.extend(plan_cells(p));
                row.push(Value::Empty);
            }
            None => row.extend(no_plan("no plan meets the goals")),
        }
        row
    };
    let paper_row = {
        let mut row = vec![Value::text("Algorithm 1 as printed (paper mode)")];
        match paper_plan {
            Some(p) => {
                row.extend(plan_cells(p));
                let mut why = Vec::new();
                if constraint11 {
                    why.push(C11.to_string());
                }
                if let Some(g) = e.paper_gap.filter(|g| *g > 1e-9) {
                    why.push(format!("{:.1}% dearer than the exact plan", 100.0 * g));
                }
                row.push(if why.is_empty() {
                    Value::Empty
                } else {
                    Value::text(why.join("; "))
                });
            }
            None => row.extend(no_plan("reports infeasible")),
        }
        row
    };
    r.tables.push(Table {
        omitted_rows: 0,
        key: "plans".into(),
        title: "Plans".into(),
        columns: vec![
            Column::new("method", Unit::None),
            Column::new("instance", Unit::None),
            Column::new("workers", Unit::Count),
            Column::new("PS nodes", Unit::Count),
            Column::new("training time", Unit::Hours),
            Column::new("cost", Unit::Usd),
            Column::new("u", Unit::Percent),
            Column::new("note", Unit::None),
        ],
        rows: vec![exact_row, paper_row],
        caption: gap_words.unwrap_or_else(|| {
            "Algorithm 1 keeps the first feasible n_wk cheaper than the best so far; it never checks n_ps ≤ n_wk nor the budget.".to_string()
        }),
    });

    if !x.shortfalls.is_empty() {
        r.tables.push(Table {
            omitted_rows: 0,
            key: "shortfalls".into(),
            title: if x.plan.is_none() {
                "No plan meets the goals: what fails, per type".into()
            } else {
                "Types without a plan meeting the goals".into()
            },
            columns: vec![
                Column::new("instance", Unit::None),
                Column::new("reason", Unit::None),
            ],
            rows: x
                .shortfalls
                .iter()
                .map(|s| {
                    vec![
                        Value::text(s.instance.clone()),
                        Value::text(s.reason.clone()),
                    ]
                })
                .collect(),
            caption: String::new(),
        });
    }

    if let Some(p) = &e.paper {
        r.tables.push(Table {
            omitted_rows: 0,
            key: "algorithm1".into(),
            title: "Algorithm 1, type by type (Theorem 4.1 bounds)".into(),
            columns: vec![
                Column::new("type", Unit::None),
                Column::new("r (Eq. 12)", Unit::None),
                Column::new("u (Eq. 17; ASP: r)", Unit::None),
                Column::new("n_lo", Unit::Count),
                Column::new("n_hi", Unit::Count),
                Column::new("n_ps", Unit::Count),
                Column::new("outcome", Unit::None),
            ],
            rows: p
                .per_type
                .iter()
                .map(|t| {
                    let b = t.bounds.as_ref();
                    // Bounds are u64; f64 is exact below 2^53, far beyond
                    // any range Algorithm 1 walks.
                    let n = |f: fn(&super::Bounds) -> u64| {
                        b.map_or(Value::Empty, |b| Value::count(f(b) as f64))
                    };
                    vec![
                        Value::text(t.instance.clone()),
                        b.map_or(Value::Empty, |b| Value::num(b.r, Unit::None)),
                        b.map_or(Value::Empty, |b| Value::num(b.ratio, Unit::None)),
                        n(|b| b.n_lo),
                        n(|b| b.n_hi),
                        n(|b| b.n_ps),
                        Value::text(t.note.clone()),
                    ]
                })
                .collect(),
            caption: "Per type, u = min(r, T_g·b/(2·s·g)) is the ratio Eq. 17 updates r to under BSP (ASP keeps r); n_ps is fixed by Eq. 18/22 and n_wk rises from n_lo to n_hi; the first n_wk with t_iter·s < T_g that is cheaper than the best so far is kept and the loop stops.".into(),
        });
    }

    if !e.curves.is_empty() {
        r.tables.push(cost_curve_table(&e.curves));
    }
}

fn cost_curve_table(curves: &[CostCurve]) -> Table {
    let rows = curves
        .iter()
        .flat_map(|c| {
            c.points.iter().map(move |p| {
                vec![
                    Value::text(c.instance.clone()),
                    Value::count(p.run.n_wk),
                    Value::count(p.run.n_ps),
                    Value::num(p.run.train_time_s, Unit::Seconds),
                    Value::num(p.run.cost_usd, Unit::Usd),
                    yes_no(p.meets_time),
                    yes_no(p.within_budget),
                    Value::num(p.run.u, Unit::Percent),
                ]
            })
        })
        .collect();
    Table {
        omitted_rows: 0,
        key: "cost-curves".into(),
        title: "Cost curves: per type and worker count, the cheapest PS count meeting T_g (else the fastest)".into(),
        columns: vec![
            Column::new("instance", Unit::None),
            Column::new("workers", Unit::Count),
            Column::new("PS nodes", Unit::Count),
            Column::new("training time", Unit::Seconds),
            Column::new("cost", Unit::Usd),
            Column::new("meets T_g", Unit::None),
            Column::new("within budget", Unit::None),
            Column::new("u", Unit::Percent),
        ],
        rows,
        caption: String::new(),
    }
}

/// The chosen plan's iteration, else the given cluster's: compute and
/// communication overlapped (BSP) or one after the other (ASP).
fn iteration_chart(e: &CynthiaEvaluation) -> Option<Chart> {
    let chosen = e.exact.as_ref().and_then(|x| x.plan.as_ref());
    let (what, t_comp, t_comm) = match chosen {
        Some(p) => (plan_short(p), p.run.t_comp_s, p.run.t_comm_s),
        None => {
            let c = e.cluster.as_ref()?;
            let what = if heterogeneous_asp(e, c) {
                "this cluster's slowest worker"
            } else {
                "this cluster"
            };
            (what.to_string(), c.iteration.t_comp_s, c.iteration.t_comm_s)
        }
    };
    let (comm_start, end, how) = match e.sync {
        SyncMode::Bsp => (
            0.0,
            t_comp.max(t_comm),
            "BSP overlaps compute and communication: t_iter = max",
        ),
        SyncMode::Asp => (
            t_comp,
            t_comp + t_comm,
            "ASP runs them one after the other: t_iter = sum",
        ),
    };
    Some(Chart {
        key: "iteration".into(),
        title: format!("One iteration, {what}"),
        x: Axis::new(format!("time since iteration start — {how}"), Unit::Seconds),
        y: Axis::new("", Unit::None),
        y2: None,
        series: vec![
            Series::segments(
                "compute (Eq. 4)",
                vec!["compute".into()],
                vec![0.0],
                vec![t_comp],
            )
            .color(COMPUTE_COLOR),
            Series::segments(
                "communication (Eq. 5)",
                vec!["push + pull".into()],
                vec![comm_start],
                vec![comm_start + t_comm],
            )
            .color(COMM_COLOR),
        ],
        markers: vec![Marker::Vertical {
            x: end,
            label: format!("t_iter = {}", Unit::Seconds.display(end)),
        }],
    })
}

/// The cost and time curves alone, numbers only (the charts Cynthia
/// bands, for a band's samples).
pub fn curve_charts(e: &CynthiaEvaluation) -> Vec<Chart> {
    if e.curves.is_empty() {
        return Vec::new();
    }
    vec![cost_chart(e, false), time_chart(e, false)]
}

/// Most instance types a chart draws a line for: more stop being readable
/// (and slow the page); the tables and the CSV keep every type.
pub const CHART_MAX_TYPES: usize = 6;

/// The types the charts draw: all, or the `CHART_MAX_TYPES` whose cheapest
/// point costs least (ties: by name), and a title suffix saying so.
fn charted(e: &CynthiaEvaluation) -> (Vec<&CostCurve>, String) {
    let mut curves: Vec<&CostCurve> = e.curves.iter().collect();
    if curves.len() <= CHART_MAX_TYPES {
        return (curves, String::new());
    }
    let cheapest = |c: &CostCurve| {
        c.points
            .iter()
            .map(|p| p.run.cost_usd)
            .fold(f64::INFINITY, f64::min)
    };
    crate::order::sort_by(&mut curves, |a, b| {
        cheapest(a)
            .total_cmp(&cheapest(b))
            .then_with(|| a.instance.cmp(&b.instance))
    });
    curves.truncate(CHART_MAX_TYPES);
    let note = format!(
        " — the {CHART_MAX_TYPES} cheapest of {} types",
        crate::report::fmt_count(e.curves.len() as f64)
    );
    (curves, note)
}

/// One line per type of `metric` vs workers, points that miss a goal
/// hollow, and the cheapest plan highlighted.
fn per_type_chart(
    e: &CynthiaEvaluation,
    key: &str,
    title: &str,
    y: Axis,
    metric: fn(&Run) -> f64,
    marker: Option<Marker>,
    with_hover: bool,
) -> Chart {
    let (curves, note) = charted(e);
    let mut series: Vec<Series> = curves
        .into_iter()
        .map(|c| {
            let x = c.points.iter().map(|p| f64::from(p.run.n_wk)).collect();
            let yv = c.points.iter().map(|p| metric(&p.run)).collect();
            let hover = c
                .points
                .iter()
                .filter(|_| with_hover)
                .map(|p| {
                    let mut h = format!(
                        "{}\n{} workers, {} PS\ntime {}, cost {}\nu = {}",
                        c.instance,
                        p.run.n_wk,
                        p.run.n_ps,
                        Unit::Hours.display(p.run.train_time_s),
                        Unit::Usd.display(p.run.cost_usd),
                        Unit::Percent.display(p.run.u)
                    );
                    if !p.meets_time {
                        h.push_str("\nmisses T_g");
                    }
                    if !p.within_budget {
                        h.push_str("\nover budget");
                    }
                    h
                })
                .collect();
            let hollow = c
                .points
                .iter()
                .map(|p| !(p.meets_time && p.within_budget))
                .collect();
            Series::xy(c.instance.clone(), Style::LinePoints, x, yv)
                .hover(hover)
                .hollow(hollow)
        })
        .collect();
    if let Some(p) = e.exact.as_ref().and_then(|x| x.plan.as_ref()) {
        series.push(
            Series::xy(
                plan_short(p),
                Style::Highlight,
                vec![f64::from(p.run.n_wk)],
                vec![metric(&p.run)],
            )
            .color(PLAN_COLOR),
        );
    }
    Chart {
        key: key.into(),
        title: format!("{title}{note}"),
        x: Axis::new(CURVE_X, Unit::Count),
        y,
        y2: None,
        series,
        markers: marker.into_iter().collect(),
    }
}

fn cost_chart(e: &CynthiaEvaluation, with_hover: bool) -> Chart {
    let budget = e.goals.as_ref().and_then(|g| g.budget_usd);
    per_type_chart(
        e,
        "cost",
        "Cost to the loss goal vs workers",
        Axis::new("cost", Unit::Usd),
        |r| r.cost_usd,
        budget.map(|b| Marker::Below {
            y: b,
            label: format!("budget {}", Unit::Usd.display(b)),
        }),
        with_hover,
    )
}

fn time_chart(e: &CynthiaEvaluation, with_hover: bool) -> Chart {
    let goal = e.goals.as_ref().map(|g| g.time_s);
    per_type_chart(
        e,
        "time",
        "Training time to the loss goal vs workers (shaded: meets T_g)",
        Axis::new("training time", Unit::Hours),
        |r| r.train_time_s,
        goal.map(|g| Marker::Below {
            y: g,
            label: format!("T_g = {}", Unit::Hours.display(g)),
        }),
        with_hover,
    )
}

fn utilisation_chart(e: &CynthiaEvaluation) -> Chart {
    let (curves, note) = charted(e);
    Chart {
        key: "utilisation".into(),
        title: format!("Worker utilisation u with one PS: where the PS saturates{note}"),
        x: Axis::new("workers", Unit::Count),
        y: Axis::new("utilisation u", Unit::Percent).from_zero(),
        y2: None,
        series: curves
            .into_iter()
            .map(|c| {
                let x = (1..=c.u_one_ps.len()).map(|n| n as f64).collect();
                Series::xy(c.instance.clone(), Style::Line, x, c.u_one_ps.clone())
            })
            .collect(),
        markers: Vec::new(),
    }
}

/// The fitted loss curve against the measured points, with residuals;
/// `None` when the curve cannot be fitted (the Loss panel says why).
fn loss_fit_chart(curve: &LossCurve) -> Option<Chart> {
    let fit = fit_loss(curve).ok()?;
    let s: Vec<f64> = curve.points.iter().map(|p| p.0).collect();
    let measured: Vec<f64> = curve.points.iter().map(|p| p.1).collect();
    let fitted: Vec<f64> = s
        .iter()
        .map(|&x| loss_at(curve.sync, &fit.params, x, curve.workers))
        .collect();
    let (rx, ry): (Vec<f64>, Vec<f64>) = fit.residuals.iter().copied().unzip();
    Some(Chart {
        key: "loss-fit".into(),
        title: format!(
            "Loss fit: β0 = {:.4e}, β1 = {:.4e}, R² = {:.4}",
            fit.params.beta0, fit.params.beta1, fit.r_squared
        ),
        x: Axis::new("iteration (global step)", Unit::Count),
        y: Axis::new("loss", Unit::None),
        y2: Some(Axis::new("residual (measured − fitted)", Unit::None)),
        series: vec![
            Series::xy("measured loss", Style::Points, s.clone(), measured),
            Series::xy("fitted Eq. 1", Style::Line, s, fitted),
            Series::xy("residual (measured − fitted)", Style::Bars, rx, ry)
                .color("rgba(214,39,40,0.5)")
                .on_y2(),
        ],
        markers: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::models::cynthia::evaluate_cynthia;
    use crate::report::SeriesData;

    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const CIFAR: &str = include_str!("../../../public/examples/cifar10-bsp-m4.json");

    fn scenario() -> Scenario {
        crate::models::from_json(CIFAR).unwrap_or_else(|e| panic!("{e}"))
    }

    fn report_of(s: &Scenario) -> (CynthiaEvaluation, Report) {
        let e = evaluate_cynthia(s).unwrap_or_else(|e| panic!("{e:?}"));
        let r = build(s, &e);
        (e, r)
    }

    fn unit_of(r: &Report, key: &str) -> Option<Unit> {
        match r.figure(key).map(|f| &f.value) {
            Some(Value::Number { unit, .. }) => Some(*unit),
            _ => None,
        }
    }

    #[test]
    fn headline_has_its_keys_and_units() {
        let (e, r) = report_of(&scenario());
        assert_eq!(r.model, "cynthia");
        assert!(
            r.subject.contains("BSP") && !r.subject.contains("Bsp"),
            "{}",
            r.subject
        );
        assert!(r.subject.contains("8 × m4.xlarge docker"), "{}", r.subject);
        let keys: Vec<&str> = r.headline.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "iteration-time",
                "train-time",
                "cost",
                "u",
                "binding",
                "exact-plan",
                "paper-plan"
            ]
        );
        assert_eq!(unit_of(&r, "iteration-time"), Some(Unit::Seconds));
        assert_eq!(unit_of(&r, "train-time"), Some(Unit::Hours));
        assert_eq!(unit_of(&r, "cost"), Some(Unit::Usd));
        assert_eq!(unit_of(&r, "u"), Some(Unit::Percent));
        let c = e.cluster.as_ref().unwrap_or_else(|| panic!("no cluster"));
        let run = c.run.as_ref().unwrap_or_else(|| panic!("no run"));
        // Stored in seconds, shown in hours.
        assert_eq!(
            r.figure("train-time").and_then(|f| f.value.number()),
            Some(run.train_time_s)
        );
        assert_eq!(
            r.figure("u").and_then(|f| f.value.number()),
            Some(c.iteration.utilisation.u)
        );
    }

    #[test]
    fn exact_plan_text_starts_with_the_plan() {
        let (e, r) = report_of(&scenario());
        let p = e
            .exact
            .as_ref()
            .and_then(|x| x.plan.as_ref())
            .unwrap_or_else(|| panic!("no exact plan"));
        let text = r
            .figure("exact-plan")
            .map(|f| f.value.display())
            .unwrap_or_default();
        let want = format!(
            "{} workers + {} PS of {}",
            p.run.n_wk, p.run.n_ps, p.instance
        );
        assert!(text.starts_with(&want), "{text} vs {want}");
        assert!(
            text.starts_with("6 workers + 1 PS of c3.xlarge docker"),
            "{text}"
        );
        assert_eq!(
            r.figure("exact-workers").and_then(|f| f.value.number()),
            Some(f64::from(p.run.n_wk))
        );
    }

    #[test]
    fn cost_chart_has_a_series_per_type_and_the_cheapest_plan() {
        let (e, r) = report_of(&scenario());
        let ch = r.chart("cost").unwrap_or_else(|| panic!("no cost chart"));
        assert_eq!(ch.series.len(), e.types.len() + 1);
        let hl: Vec<_> = ch
            .series
            .iter()
            .filter(|s| s.style == Style::Highlight)
            .collect();
        assert_eq!(hl.len(), 1);
        assert_eq!(hl[0].name, "cheapest plan: 6 × c3.xlarge docker + 1 PS");
        for s in ch.series.iter().filter(|s| s.style == Style::LinePoints) {
            let SeriesData::Xy { x, y } = &s.data else {
                panic!("{} is not x/y", s.name)
            };
            assert_eq!(x.len(), y.len());
            assert_eq!(s.hover.len(), x.len());
            assert_eq!(s.hollow.len(), x.len());
            assert!(s.hover.iter().all(|h| !h.contains('<')), "HTML in hover");
        }
        assert!(matches!(ch.markers.as_slice(), [Marker::Below { y, .. }] if *y == 5.0));
        let t = r.chart("time").unwrap_or_else(|| panic!("no time chart"));
        assert!(matches!(t.markers.as_slice(), [Marker::Below { y, .. }] if *y == 10800.0));
        assert!(r.chart("utilisation").is_some_and(|u| u.y.from_zero));
    }

    #[test]
    fn bsp_iteration_overlaps_compute_and_communication() {
        let (_, r) = report_of(&scenario());
        let ch = r
            .chart("iteration")
            .unwrap_or_else(|| panic!("no iteration chart"));
        let starts: Vec<f64> = ch
            .series
            .iter()
            .filter_map(|s| match &s.data {
                SeriesData::Segments { start, .. } => start.first().copied(),
                _ => None,
            })
            .collect();
        assert_eq!(starts, [0.0, 0.0]);
    }

    #[test]
    fn tables_are_rectangular() {
        let (e, r) = report_of(&scenario());
        let plans = r.table("plans").unwrap_or_else(|| panic!("no plans table"));
        assert_eq!(plans.rows.len(), 2);
        for t in &r.tables {
            for row in &t.rows {
                assert_eq!(row.len(), t.columns.len(), "table {}", t.key);
            }
        }
        let a1 = r
            .table("algorithm1")
            .unwrap_or_else(|| panic!("no algorithm1"));
        assert_eq!(a1.rows.len(), e.types.len());
        // Eq. 17's updated ratio is shown for every type, and never above r.
        let num = |v: &Value| v.number().unwrap_or(f64::NAN);
        let paper = e.paper.as_ref().unwrap_or_else(|| panic!("no paper plan"));
        for (row, t) in a1.rows.iter().zip(&paper.per_type) {
            if let Some(b) = &t.bounds {
                assert_eq!(num(&row[2]), b.ratio, "{}", t.instance);
                assert!(num(&row[2]) <= num(&row[1]), "{}", t.instance);
            }
        }
        let curves = r
            .table("cost-curves")
            .unwrap_or_else(|| panic!("no cost-curves"));
        assert_eq!(curves.rows.len(), e.types.len() * 64);
        assert!(r.table("asp-types").is_none());
    }

    #[test]
    fn keys_are_unique() {
        let (_, r) = report_of(&scenario());
        let mut seen = HashSet::new();
        for k in r.headline.iter().chain(&r.figures).map(|f| &f.key) {
            assert!(seen.insert(k.clone()), "figure {k} twice");
        }
        let mut seen = HashSet::new();
        for k in r.tables.iter().map(|t| &t.key) {
            assert!(seen.insert(k.clone()), "table {k} twice");
        }
        let mut seen = HashSet::new();
        for k in r.charts.iter().map(|c| &c.key) {
            assert!(seen.insert(k.clone()), "chart {k} twice");
        }
    }

    #[test]
    fn notes_explain_the_zeng_difference_and_what_planning_needs() {
        let (_, r) = report_of(&scenario());
        assert!(r.notes.iter().any(|n| n.text.contains("Zeng")));
        let mut s = scenario();
        s.goals.time_s = None;
        let (_, r) = report_of(&s);
        assert!(r.figure("exact-plan").is_none());
        assert!(r.table("plans").is_none());
        assert!(r
            .notes
            .iter()
            .any(|n| n.text.starts_with("planning needs")
                && n.field.as_deref() == Some("goals.time")));
    }

    #[test]
    fn heterogeneous_asp_names_each_type_and_the_cluster_rate() {
        let mut s = scenario();
        let p = s
            .workload
            .profile
            .as_mut()
            .unwrap_or_else(|| panic!("no profile"));
        p.sync = SyncMode::Asp;
        s.hardware
            .cluster
            .workers
            .push(crate::hardware::WorkerGroup {
                instance: "c3.xlarge docker".into(),
                ..s.hardware.cluster.workers[0].clone()
            });
        let (e, r) = report_of(&s);
        let it = &e
            .cluster
            .as_ref()
            .unwrap_or_else(|| panic!("no cluster"))
            .iteration;
        let t = r
            .table("asp-types")
            .unwrap_or_else(|| panic!("no asp-types"));
        assert_eq!(t.rows.len(), 2);
        let rate = r.figure("cluster-rate").and_then(|f| f.value.number());
        let want: f64 = it
            .per_type
            .iter()
            .map(|t| f64::from(t.workers) / t.t_iter_s)
            .sum();
        assert!(
            rate.is_some_and(|x| (x - want).abs() <= want * 1e-12),
            "{rate:?} vs {want}"
        );
        let per = r
            .figure("cluster-iteration-time")
            .and_then(|f| f.value.number());
        assert!(per.is_some_and(|x| (x * want - 1.0).abs() < 1e-12));
        assert!(r
            .notes
            .iter()
            .any(|n| n.text.starts_with("heterogeneous ASP")));
        assert!(r.subject.contains("ASP"));
    }

    #[test]
    fn a_loss_curve_gets_a_fit_chart_with_residuals() {
        let mut s = scenario();
        assert!(report_of(&s).1.chart("loss-fit").is_none());
        let points = (0..10)
            .map(|k| {
                let step = 1000.0 * f64::from(k);
                // Eq. 1 with a small wobble, so the residuals are not zero.
                let wobble = if k % 2 == 0 { 1.01 } else { 0.99 };
                (step, wobble * 7360.0 / (step + 3200.0))
            })
            .collect();
        s.workload.loss_curve = Some(LossCurve {
            points,
            workers: 1,
            sync: SyncMode::Bsp,
        });
        let (_, r) = report_of(&s);
        let ch = r
            .chart("loss-fit")
            .unwrap_or_else(|| panic!("no loss-fit chart"));
        assert!(ch.title.starts_with("Loss fit: β0 = "), "{}", ch.title);
        assert!(ch.title.contains("R² = 0.9"), "{}", ch.title);
        let styles: Vec<(Style, bool)> = ch.series.iter().map(|s| (s.style, s.y2)).collect();
        assert_eq!(
            styles,
            [
                (Style::Points, false),
                (Style::Line, false),
                (Style::Bars, true)
            ]
        );
        assert!(ch.y2.is_some());
    }
}
