//! spotDNN's replan after a revocation, by both methods (issue 34, item
//! 4): the paper's Fig. 9 is Algorithm 1's replan, so the report shows
//! Algorithm 1's takeover beside the exact optimiser's, with the gap in
//! cost, each labelled by what computed it, and the JSON carries both.
//!
//! The example is Fig. 9's (Sec. V-C, "Can spotDNN guarantee DDNN training
//! performance even when revocations occur?"): Table I's plan, 5
//! g3.8xlarge + 3 g3.16xlarge, ResNet-110 to loss 0.8 in 2,600 s, loses
//! its 5 g3.8xlarge at the 29.8th minute at loss 0.9. The paper states:
//! the survivors are the 3 g3.16xlarge, the remaining time is "810
//! seconds" (2,600 − 29.8·60 = 812 s), spotDNN "launches 3 p3.2xlarge
//! instances", and the run finishes "at the 41.9-th minute" (2,514 s).
//! It does not give that run's quotas (Table I's are 5 of four types, p3
//! not among them; Table III's "max quota" is 10 of every type), so the
//! count of 3 p3.2xlarge is a statement about the authors' run, not one
//! the model can be held to: see `fig_9_statement` for what is compared
//! and whether the product's Algorithm 1 replan matches.

use std::collections::BTreeMap;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::evaluate;
use ddnn_planner::models::spotdnn::eval::{evaluate as spot_evaluate, problem, SpotEvaluation};
use ddnn_planner::models::spotdnn::plan::Problem;
use ddnn_planner::models::spotdnn::presets::table1_example;
use ddnn_planner::models::spotdnn::report::{PLAN_COUNTS, REPLAN_EXACT_ROW, REPLAN_PAPER_ROW};
use ddnn_planner::models::spotdnn::section::{Revocation, SpotDnnSettings, ID};
use ddnn_planner::models::spotdnn::SpotDnn;
use ddnn_planner::report::{Report, Value};
use ddnn_planner::scenario::Scenario;

/// Fig. 9's revocation on Table I's example, every GPU type at `quota`
/// (Table III's "max quota" is 10).
fn fig9(quota: u32) -> Scenario {
    let mut s = table1_example();
    for i in &mut s.hardware.catalog {
        if i.gpus.is_some() {
            i.quota = Some(quota);
        }
    }
    let mut set: SpotDnnSettings = s.section(ID).unwrap_or_else(|e| panic!("section: {e:?}"));
    set.revocation = Some(Revocation {
        instance: "g3.8xlarge".into(),
        at_s: 29.8 * 60.0,
        loss_now: 0.9,
    });
    s.set_section(ID, &set);
    s
}

fn report(s: &Scenario) -> Report {
    evaluate(&SpotDnn, s).unwrap_or_else(|e| panic!("{e:?}"))
}

fn evaluation(s: &Scenario) -> SpotEvaluation {
    spot_evaluate(s).unwrap_or_else(|e| panic!("{e:?}"))
}

/// A plan-table row as {instance: count}, zero counts left out.
fn row(r: &Report, label: &str) -> BTreeMap<String, u32> {
    let t = r
        .tables
        .iter()
        .find(|t| t.key == PLAN_COUNTS)
        .unwrap_or_else(|| panic!("plan table"));
    let cells = t
        .rows
        .iter()
        .find(|c| c[0] == Value::text(label))
        .unwrap_or_else(|| panic!("no row {label}"));
    t.columns
        .iter()
        .zip(cells)
        .skip(1)
        .take_while(|(c, _)| c.label != "workers")
        .filter_map(|(c, v)| {
            let n = v.number()? as u32;
            (n > 0).then(|| (c.label.clone(), n))
        })
        .collect()
}

fn figure<'a>(r: &'a Report, key: &str) -> &'a ddnn_planner::report::Figure {
    r.headline
        .iter()
        .chain(&r.figures)
        .find(|f| f.key == key)
        .unwrap_or_else(|| panic!("no figure {key}"))
}

#[test]
fn both_takeovers_keep_the_survivors_and_never_reuse_the_revoked_type() {
    for quota in [5, 10] {
        let s = fig9(quota);
        let e = evaluation(&s);
        let rp = e.replan.as_ref().unwrap_or_else(|| panic!("no replan"));
        let revoked = e
            .types
            .iter()
            .position(|t| t.name == "g3.8xlarge")
            .unwrap_or_else(|| panic!("g3.8xlarge"));
        let g316 = e
            .types
            .iter()
            .position(|t| t.name == "g3.16xlarge")
            .unwrap_or_else(|| panic!("g3.16xlarge"));
        assert_eq!(rp.survivors[g316], 3);
        assert_eq!(rp.survivors[revoked], 0);
        // 2,600 s goal − 1,788 s: the paper's "810 seconds" rounded.
        assert!((rp.time_left_s - 812.0).abs() < 1e-9, "{}", rp.time_left_s);
        for (what, search) in [("Algorithm 1", &rp.paper), ("exact", &rp.exact)] {
            let b = search
                .best
                .as_ref()
                .unwrap_or_else(|| panic!("quota {quota}: no {what} takeover"));
            assert_eq!(b.counts[revoked], 0, "{what} reuses g3.8xlarge");
            assert!(
                b.counts.iter().zip(&rp.survivors).all(|(c, s)| c >= s),
                "{what} drops a survivor: {:?}",
                b.counts
            );
            // In the time left, T_ohd (30 s) included.
            assert!(b.time_s <= rp.time_left_s, "{what}: {}", b.time_s);
            assert!(b.time_s >= e.settings.overhead_s, "{what}: {}", b.time_s);
        }
        // Algorithm 1's takeover is never cheaper than the exact one.
        let (a, x) = (
            rp.paper.best.as_ref().map(|c| c.run.cost),
            rp.exact.best.as_ref().map(|c| c.run.cost),
        );
        let (Some(a), Some(x)) = (a, x) else {
            panic!("quota {quota}: a takeover is missing")
        };
        assert!(
            x <= a * (1.0 + 1e-12),
            "quota {quota}: exact {x} > Algorithm 1 {a}"
        );
        let gap = rp.gap.unwrap_or_else(|| panic!("no gap"));
        assert!(gap >= -1e-12, "{gap}");
        assert!((gap - (a / x - 1.0)).abs() < 1e-12);

        // The report: both rows, neither with the revoked type, survivors kept.
        let r = report(&s);
        for label in [REPLAN_EXACT_ROW, REPLAN_PAPER_ROW] {
            let p = row(&r, label);
            assert!(!p.contains_key("g3.8xlarge"), "{label}: {p:?}");
            assert!(
                p.get("g3.16xlarge").is_some_and(|&n| n >= 3),
                "{label}: {p:?}"
            );
        }
    }
}

#[test]
fn each_takeover_is_labelled_by_what_computed_it() {
    let r = report(&fig9(10));
    assert!(REPLAN_EXACT_ROW.contains("exact optimiser"));
    assert!(REPLAN_PAPER_ROW.contains("Algorithm 1"));
    let exact = figure(&r, "takeover-plan");
    assert!(exact.label.contains("exact optimiser"), "{}", exact.label);
    assert!(!exact.label.contains("Algorithm 1"), "{}", exact.label);
    assert!(!exact.source.contains("Algorithm 1"), "{}", exact.source);
    let paper = figure(&r, "paper-takeover-plan");
    assert!(paper.label.contains("Algorithm 1"), "{}", paper.label);
    assert!(paper.source.contains("Algorithm 1"), "{}", paper.source);
    for key in ["takeover-cluster", "finish-after", "cost-after"] {
        let x = figure(&r, key);
        assert!(x.label.contains("exact optimiser"), "{key}: {}", x.label);
        let a = figure(&r, &format!("paper-{key}"));
        assert!(a.label.contains("Algorithm 1"), "paper-{key}: {}", a.label);
    }
    let gap = figure(&r, "takeover-gap");
    assert!(gap.label.contains("Algorithm 1"), "{}", gap.label);
    // Both in the JSON, by name.
    let e = evaluation(&fig9(10));
    let json = serde_json::to_value(&e).unwrap_or_else(|err| panic!("{err}"));
    let replan = &json["replan"];
    assert!(replan["paper"]["best"]["counts"].is_array(), "{replan}");
    assert!(replan["exact"]["best"]["counts"].is_array(), "{replan}");
    assert!(replan["gap"].is_number(), "{replan}");
}

/// Fig. 9's setting as far as the paper gives it: Table I's four types
/// at quota 5, plus the p3.2xlarge the paper's takeover launched (Table I
/// gives it quota 0; the run's quotas are not printed), g4dn.12xlarge and
/// g3.4xlarge left out as in Table I.
fn fig9_table1_and_p3() -> Scenario {
    let mut s = fig9(5);
    for i in &mut s.hardware.catalog {
        if ["g4dn.12xlarge", "g3.4xlarge"].contains(&i.name.as_str()) {
            i.quota = Some(0);
        }
    }
    s
}

#[test]
fn fig_9_statement() {
    // What the paper states (Sec. V-C, Fig. 9): Algorithm 1 replans on the
    // 3 surviving g3.16xlarge with 810 s left at loss 0.9, "launches 3
    // p3.2xlarge instances", and the run finishes "at the 41.9-th minute"
    // (2,514 s), within the 2,600 s goal.
    //
    // Whether the product's Algorithm 1 replan matches: in the type, yes
    // (asserted below: it adds p3.2xlarge and nothing else); in the count,
    // no. Under the model a takeover of fewer p3.2xlarge already finishes
    // within the 2,600 s goal and costs less, so a cheapest-in-time search
    // without the paper's safety margin (it "overpredicts the network
    // contention in Eq. (9) by an empirical value (e.g., 1–5%)", Sec. IV-C)
    // and without the 2.1 minutes the new workers spent joining launches
    // fewer. The count is not asserted; the paper's own takeover (3
    // p3.2xlarge) is checked to meet the time left under the model, so the
    // exact takeover can cost no more than it.
    let s = fig9_table1_and_p3();
    let e = evaluation(&s);
    let rp = e.replan.as_ref().unwrap_or_else(|| panic!("no replan"));
    let p3 = e
        .types
        .iter()
        .position(|t| t.name == "p3.2xlarge")
        .unwrap_or_else(|| panic!("p3.2xlarge"));
    for (what, search) in [("Algorithm 1", &rp.paper), ("exact", &rp.exact)] {
        let b = search
            .best
            .as_ref()
            .unwrap_or_else(|| panic!("no {what} takeover"));
        // Constraint 13 on the time left, T_ohd included: by 2,600 s.
        assert!(rp.at_s + b.time_s <= 2600.0 + 1e-9, "{what}: {}", b.time_s);
    }
    let paper = rp
        .paper
        .best
        .as_ref()
        .unwrap_or_else(|| panic!("no Algorithm 1 takeover"));
    for (k, (&c, &kept)) in paper.counts.iter().zip(&rp.survivors).enumerate() {
        if k != p3 {
            assert_eq!(c, kept, "Algorithm 1 adds {}", e.types[k].name);
        }
    }
    assert!(paper.counts[p3] > 0, "Algorithm 1 adds no p3.2xlarge");
    // The paper's takeover under the model, held to the same question.
    let mut theirs_counts = rp.survivors.clone();
    theirs_counts[p3] = 3;
    let replan_problem = Problem {
        loss_from: Some(0.9),
        overhead_s: e.settings.overhead_s,
        existing: rp.survivors.clone(),
        time_goal_s: rp.time_left_s,
        ..problem(&e, 0.8, rp.time_left_s)
    };
    let theirs = replan_problem
        .candidate(&theirs_counts)
        .unwrap_or_else(|| panic!("3 g3.16xlarge + 3 p3.2xlarge reach the loss goal"));
    assert!(theirs.time_s <= rp.time_left_s, "{}", theirs.time_s);
    let x = rp.exact.best.as_ref().map_or(f64::INFINITY, |c| c.run.cost);
    assert!(
        x <= theirs.run.cost * (1.0 + 1e-12),
        "{x} > {}",
        theirs.run.cost
    );
    let a = paper.run.cost;
    assert!(x <= a * (1.0 + 1e-12), "{x} > {a}");
}

#[test]
fn algorithm_1_never_replans_cheaper_than_the_exact_optimiser() {
    // Around Fig. 9: either type revoked, other revocation times, losses
    // reached, quotas.
    let mut positive = 0;
    for (revoked, quota) in [
        ("g3.8xlarge", 3),
        ("g3.8xlarge", 5),
        ("g3.8xlarge", 10),
        ("g3.16xlarge", 3),
        ("g3.16xlarge", 10),
    ] {
        for at_min in [10.0, 20.0, 29.8, 35.0] {
            for loss_now in [0.85, 0.9, 1.0, 1.3] {
                let mut s = fig9(quota);
                let mut set: SpotDnnSettings =
                    s.section(ID).unwrap_or_else(|e| panic!("section: {e:?}"));
                set.revocation = Some(Revocation {
                    instance: revoked.into(),
                    at_s: at_min * 60.0,
                    loss_now,
                });
                s.set_section(ID, &set);
                let e = evaluation(&s);
                let rp = e.replan.as_ref().unwrap_or_else(|| panic!("no replan"));
                let case = format!("{revoked} at {at_min} min, quota {quota}, loss {loss_now}");
                let k = e
                    .types
                    .iter()
                    .position(|t| t.name == revoked)
                    .unwrap_or_else(|| panic!("{revoked}"));
                for b in [&rp.paper.best, &rp.exact.best].into_iter().flatten() {
                    assert_eq!(b.counts[k], 0, "{case}: reuses {revoked}");
                    assert!(
                        b.counts.iter().zip(&rp.survivors).all(|(c, s)| c >= s),
                        "{case}"
                    );
                }
                match (&rp.paper.best, &rp.exact.best) {
                    (Some(a), Some(x)) => {
                        assert!(x.run.cost <= a.run.cost * (1.0 + 1e-12), "{case}");
                        let gap = rp.gap.unwrap_or_else(|| panic!("{case}: no gap"));
                        assert!(gap >= -1e-12, "{case}");
                        positive += usize::from(gap > 1e-9);
                    }
                    // The exact search starts from Algorithm 1's plan.
                    (Some(_), None) => panic!("{case}: exact lost Algorithm 1's plan"),
                    (None, _) => assert!(rp.gap.is_none(), "{case}"),
                }
            }
        }
    }
    // Not vacuous: Algorithm 1's windows add at least one instance, while
    // the exact optimiser may keep the survivors alone when they finish in
    // time, so some of these cases differ.
    assert!(positive > 0, "no case where the two takeovers differ");
}
