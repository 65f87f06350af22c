//! `cargo bench --bench spotdnn`: the exact optimiser and Algorithm 1 on
//! Table III's 7 types, quota 25 each, with contention coefficients that
//! allow up to 64 workers (`(1 − β1)/α1 = 8`: ≈10⁹ compositions for brute
//! force), and the whole report (both plans, the 24-point frontier) on
//! Table I's example. Targets: exact under 10 ms natively, Algorithm 1
//! under 1 ms (the paper: 0.2 s for its heuristic, 1.3 s for Srifty's search).
//!
//! At scale (`spotdnn.scale.*`): the shipped current catalog, 31 types ×
//! quota 32, ≤ 63 workers, a 500 s goal and a revocation; and 25 renamed
//! copies of Table I's types × quota 5. Target: the whole evaluation
//! (both plans, the fastest cluster, the frontier, the replan) under
//! 100 ms natively.

mod timing;

use std::hint::black_box;

use ddnn_planner::models::evaluate;
use ddnn_planner::models::spotdnn::presets::{
    current_catalog_example, quota25_example, table1_copies_example, table1_example,
};
use ddnn_planner::models::spotdnn::SpotDnn;
use ddnn_planner::models::Model;
use timing::time;

fn main() {
    use ddnn_planner::models::spotdnn::eval::{prepare, problem};
    use ddnn_planner::models::spotdnn::plan::{algorithm1, exact, fastest};
    for (id, loss, t) in [
        // 900 s: no plan exists; the search must prove it.
        ("infeasible-900s", 0.8, 900.0),
        ("table1-goals", 0.8, 2600.0),
        ("loose", 0.7, 7200.0),
    ] {
        let s = quota25_example(loss, t);
        let e = prepare(&s).expect("the example reads");
        let prob = problem(&e, loss, t);
        time(
            &format!("spotdnn.exact.{id}"),
            &format!("exact, 7 types × quota 25, ≤ 63 workers, {id}"),
            20,
            || {
                black_box(exact(black_box(&prob), |_| {}));
            },
        );
        time(
            &format!("spotdnn.fastest.{id}"),
            &format!("fastest cluster, 7 types × quota 25, {id}"),
            20,
            || {
                black_box(fastest(black_box(&prob)));
            },
        );
        time(
            &format!("spotdnn.report.{id}"),
            &format!("whole report (plans, frontier, fastest), 7 types × quota 25, {id}"),
            10,
            || {
                black_box(SpotDnn.report(black_box(&s)).ok());
            },
        );
        time(
            &format!("spotdnn.algorithm1.{id}"),
            &format!("Algorithm 1, 7 types × quota 25, {id}"),
            50,
            || {
                black_box(algorithm1(black_box(&prob)));
            },
        );
    }
    let s = table1_example();
    time(
        "spotdnn.report",
        "whole report, Table I example",
        20,
        || {
            black_box(SpotDnn.report(black_box(&s)).ok());
        },
    );
    for (id, what, s) in [
        (
            "current31-q32",
            "31 types x quota 32 (current catalog), ≤ 63 workers",
            current_catalog_example(32),
        ),
        (
            "copies25-q5",
            "25 copies of Table I types x quota 5, ≤ 13 workers",
            table1_copies_example(25, 5),
        ),
    ] {
        let e = prepare(&s).expect("the example reads");
        let (loss, t) = (
            s.goals.loss.expect("a loss goal"),
            s.goals.time_s.expect("a time goal"),
        );
        let prob = problem(&e, loss, t);
        time(
            &format!("spotdnn.scale.evaluation.{id}"),
            &format!("whole evaluation (plans, fastest, frontier, replan), {what}"),
            5,
            || {
                black_box(evaluate(&SpotDnn, black_box(&s)).ok());
            },
        );
        time(
            &format!("spotdnn.scale.exact.{id}"),
            &format!("exact, {what}"),
            10,
            || {
                black_box(exact(black_box(&prob), |_| {}));
            },
        );
        time(
            &format!("spotdnn.scale.fastest.{id}"),
            &format!("fastest cluster, {what}"),
            10,
            || {
                black_box(fastest(black_box(&prob)));
            },
        );
        time(
            &format!("spotdnn.scale.algorithm1.{id}"),
            &format!("Algorithm 1, {what}"),
            20,
            || {
                black_box(algorithm1(black_box(&prob)));
            },
        );
    }
}
