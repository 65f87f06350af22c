//! spotDNN at scale: the shipped current catalog (31 types) with a quota
//! of 32 on each, and 25 renamed copies of Table I's types with a quota of
//! 5, evaluated through `models::evaluate` (the work statement admits
//! them, the searches finish: every result proven), the plans equal to a
//! slower exact reference where one is feasible. No timings here: those
//! are `cargo bench --bench spotdnn` (`spotdnn.scale.*`).
#![cfg(not(target_arch = "wasm32"))]

use ddnn_planner::models::evaluate;
use ddnn_planner::models::spotdnn::eval::{self, problem, SpotEvaluation};
use ddnn_planner::models::spotdnn::plan::{brute_force, fastest, Problem};
use ddnn_planner::models::spotdnn::presets::{current_catalog_example, table1_copies_example};
use ddnn_planner::models::spotdnn::section::SpotDnnSettings;
use ddnn_planner::models::spotdnn::SpotDnn;
use ddnn_planner::models::Model;
use ddnn_planner::scenario::Scenario;

fn same(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
        (None, None) => true,
        _ => false,
    }
}

/// The evaluation behind the report, after `models::evaluate` has
/// admitted the scenario and built a report from it.
fn admitted(s: &Scenario) -> SpotEvaluation {
    let work = SpotDnn.work(s);
    assert!(work.iter().all(|w| w.fits()), "{work:?}");
    let report = evaluate(&SpotDnn, s).unwrap_or_else(|e| panic!("refused: {e:?}"));
    assert!(report.figure("exact-plan").is_some(), "no exact plan shown");
    eval::evaluate(s).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Every search of the evaluation went to the end, and every plan keeps
/// to the quotas and meets the goals.
fn proven(e: &SpotEvaluation) {
    let p = e.plans.as_ref().unwrap_or_else(|| panic!("no plans"));
    assert!(p.exact.complete, "exact stopped at its budget");
    assert!(p.fastest_complete, "fastest stopped at its budget");
    assert!(p.frontier_complete, "frontier stopped at its budget");
    assert!(!p.frontier.is_empty());
    let plan = p.exact.best.as_ref().unwrap_or_else(|| panic!("no plan"));
    assert!(plan.time_s <= p.time_goal_s);
    let paper = p.paper.best.as_ref().map_or(f64::INFINITY, |c| c.run.cost);
    assert!(plan.run.cost <= paper * (1.0 + 1e-12));
    for (k, t) in e.types.iter().enumerate() {
        assert!(plan.counts[k] <= t.quota.unwrap_or(u32::MAX), "{}", t.name);
    }
    if let Some(r) = &e.replan {
        assert!(r.exact.complete, "the replan stopped at its budget");
    }
}

#[test]
fn the_current_catalog_at_quota_32_is_planned_and_proven() {
    let s = current_catalog_example(32);
    let e = admitted(&s);
    assert_eq!(e.types.len(), 31, "{:?}", e.skipped);
    proven(&e);
    let p = e.plans.as_ref().unwrap_or_else(|| panic!("no plans"));
    // The quotas bind: 63 workers may run, 32 of a type.
    assert_eq!(p.exact.workers_to, 63);
    let r = e.replan.as_ref().unwrap_or_else(|| panic!("no replan"));
    let revoked = e
        .types
        .iter()
        .position(|t| t.name == r.revoked)
        .unwrap_or_else(|| panic!("revoked type"));
    if let Some(b) = &r.exact.best {
        assert_eq!(b.counts[revoked], 0);
        assert!(b.counts.iter().zip(&r.survivors).all(|(c, s)| c >= s));
    }
}

/// The same catalog with few workers (4) and quotas (2), where brute force
/// is feasible: the evaluation's exact plan, fastest cluster and frontier
/// equal brute force's, for a tight, a middle and a loose time goal.
#[test]
fn the_current_catalog_with_few_workers_equals_brute_force() {
    for time in [60.0, 120.0, 400.0, 5000.0] {
        let mut s = current_catalog_example(2);
        let mut set: SpotDnnSettings = s.section("spotdnn").unwrap_or_default();
        set.max_workers = 4;
        set.alpha1 = 0.0;
        set.beta1 = 0.0;
        set.revocation = None;
        s.set_section("spotdnn", &set);
        s.hardware.cluster.workers.clear();
        s.goals.loss = Some(1.5);
        s.goals.time_s = Some(time);
        let e = admitted(&s);
        let p = e.plans.as_ref().unwrap_or_else(|| panic!("no plans"));
        let q = problem(&e, 1.5, time);
        let b = brute_force(&q);
        assert!(p.exact.complete);
        assert!(
            same(
                p.exact.best.as_ref().map(|c| c.run.cost),
                b.best.as_ref().map(|c| c.run.cost)
            ),
            "goal {time}: exact {:?} brute {:?}",
            p.exact.best.as_ref().map(|c| (&c.counts, c.run.cost)),
            b.best.as_ref().map(|c| (&c.counts, c.run.cost))
        );
        for (goal, plan) in &p.frontier {
            let (goal, cost) = (*goal, plan.as_ref().map(|c| c.run.cost));
            let at = brute_force(&Problem {
                time_goal_s: goal,
                ..q.clone()
            });
            assert!(
                same(cost, at.best.map(|c| c.run.cost)),
                "frontier at {goal}: {cost:?}"
            );
        }
    }
}

/// 25 copies of Table I's 4 types (quota 5 each): interchangeable, so the
/// problem is the 4 types with the copies' quotas summed (30 or 35), where
/// brute force is feasible. The evaluation's exact plan, fastest cluster,
/// frontier and replan equal brute force's on that problem.
#[test]
fn twenty_five_copies_equal_brute_force_on_the_merged_types() {
    let s = table1_copies_example(25, 5);
    let e = admitted(&s);
    proven(&e);
    let p = e.plans.as_ref().unwrap_or_else(|| panic!("no plans"));
    let merged = merge_copies(&e);
    let (loss, time) = (p.loss_goal, p.time_goal_s);
    let full = problem(&e, loss, time);
    let small = merged.problem(&full);
    let b = brute_force(&small);
    assert!(
        same(
            p.exact.best.as_ref().map(|c| c.run.cost),
            b.best.as_ref().map(|c| c.run.cost)
        ),
        "exact {:?} brute {:?}",
        p.exact.best.as_ref().map(|c| (&c.counts, c.run.cost)),
        b.best.as_ref().map(|c| (&c.counts, c.run.cost))
    );
    for (goal, plan) in &p.frontier {
        let (goal, cost) = (*goal, plan.as_ref().map(|c| c.run.cost));
        let at = brute_force(&Problem {
            time_goal_s: goal,
            ..small.clone()
        });
        assert!(
            same(cost, at.best.map(|c| c.run.cost)),
            "frontier at {goal}"
        );
    }
    // The fastest cluster: no merged composition is faster.
    let quick = fastest(&full);
    let best = quick
        .best
        .as_ref()
        .map(|c| c.time_s)
        .unwrap_or(f64::INFINITY);
    let faster = brute_force(&Problem {
        time_goal_s: best * (1.0 - 1e-9),
        ..small.clone()
    });
    assert!(faster.best.is_none(), "{:?}", faster.best.map(|c| c.time_s));
    // The replan (g3.8xlarge revoked): its copies may take over.
    let r = e.replan.as_ref().unwrap_or_else(|| panic!("no replan"));
    let replan = merged.replan(&e, r);
    let rb = brute_force(&replan);
    assert!(same(
        r.exact.best.as_ref().map(|c| c.run.cost),
        rb.best.as_ref().map(|c| c.run.cost)
    ));
}

/// Table I's types with their copies' quotas summed.
struct Merged {
    /// For each type of the evaluation, its original's index.
    of: Vec<usize>,
    types: Vec<ddnn_planner::models::spotdnn::InstanceType>,
}

fn merge_copies(e: &SpotEvaluation) -> Merged {
    let base = |name: &str| name.split(" #").next().unwrap_or(name).to_string();
    let mut types: Vec<ddnn_planner::models::spotdnn::InstanceType> = Vec::new();
    let mut of = Vec::new();
    for t in &e.types {
        match types.iter().position(|u| u.name == base(&t.name)) {
            Some(k) => of.push(k),
            None => {
                let mut u = t.clone();
                u.name = base(&t.name);
                u.quota = Some(0);
                types.push(u);
                of.push(types.len() - 1);
            }
        }
    }
    Merged { of, types }
}

impl Merged {
    fn sum(&self, per_type: &[u32]) -> Vec<u32> {
        let mut out = vec![0u32; self.types.len()];
        for (k, &x) in per_type.iter().enumerate() {
            out[self.of[k]] += x;
        }
        out
    }

    fn problem<'a>(&'a self, full: &Problem<'a>) -> Problem<'a> {
        Problem {
            types: &self.types,
            existing: self.sum(&full.existing),
            available: self.sum(&full.available),
            ..full.clone()
        }
    }

    /// The replan of `r` on the merged types (only the revoked name is
    /// out; its copies stay).
    fn replan<'a>(&'a self, e: &'a SpotEvaluation, r: &eval::Replan) -> Problem<'a> {
        let full = prepare_replan(e, r);
        Problem {
            types: &self.types,
            existing: self.sum(&full.existing),
            available: self.sum(&full.available),
            ..full
        }
    }
}

/// The replan's problem as `eval` poses it.
fn prepare_replan<'a>(e: &'a SpotEvaluation, r: &eval::Replan) -> Problem<'a> {
    let base = problem(e, 0.8, 2600.0);
    let revoked = e.types.iter().position(|t| t.name == r.revoked);
    let available: Vec<u32> = e
        .types
        .iter()
        .enumerate()
        .map(|(k, t)| {
            if Some(k) == revoked {
                0
            } else {
                t.quota
                    .map_or(e.settings.max_workers, |q| q.saturating_sub(r.survivors[k]))
            }
        })
        .collect();
    Problem {
        loss_from: e.settings.revocation.as_ref().map(|v| v.loss_now),
        time_goal_s: r.time_left_s,
        overhead_s: e.settings.overhead_s,
        existing: r.survivors.clone(),
        available,
        ..base
    }
}
