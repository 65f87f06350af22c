//! spotDNN's own tables, from the model with the authors' ResNet-110
//! profile (presets.rs names its sources; α2, β2 are this product's only
//! choice, and they only reproduce the profile's batches). Nothing here was
//! fitted to a row it checks.
//!
//! - Table I (loss 0.8, 2,600 s, quota 5 of four types, Table III's spot
//!   prices): Algorithm 1's plan 5 g3.8xl + 3 g3.16xl at 2,549.02 s, the
//!   exact optimiser's (Srifty+'s) 2 g4dn.4xl + 5 g3.8xl + 2 g3.16xl at
//!   2,597.34 s: times within 0.01%; costs within 0.5% (the paper's
//!   $5.33, $4.97 and $17.75 round differently priced runs: Table I's
//!   prices disagree with Table III's by up to 14%, models.md).
//! - Table V, ResNet-110 (quotas of the authors' code: 2, 5, 5, 8, 5):
//!   the plans of the two columns the seed kept, (0.9, 1,900 s) and
//!   (0.7, 3,700 s) — where Algorithm 1 and Srifty+ differ — and the
//!   middle one, exactly.
//! - Table VI's convergence coefficients: equal workers, and the mixes
//!   whose speed ratio one row gives and another row checks (0.01).

use std::collections::BTreeMap;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::spotdnn::presets::table1_example;
use ddnn_planner::models::spotdnn::report::{EXACT_ROW, PAPER_ROW, PLAN_COUNTS, REPLAN_EXACT_ROW};
use ddnn_planner::models::spotdnn::section::{Revocation, SpotDnnSettings, ID};
use ddnn_planner::models::spotdnn::{convergence_of, SpotDnn};
use ddnn_planner::models::{evaluate, Unavailable};
use ddnn_planner::report::{Report, Value};
use ddnn_planner::scenario::Scenario;

fn report(s: &Scenario) -> Report {
    evaluate(&SpotDnn, s).unwrap_or_else(|e| panic!("{e:?}"))
}

fn number(r: &Report, key: &str) -> f64 {
    r.headline
        .iter()
        .chain(&r.figures)
        .find(|f| f.key == key)
        .and_then(|f| f.value.number())
        .unwrap_or_else(|| panic!("no figure {key}"))
}

/// A plan row as {instance: count}, zero counts left out.
fn plan(r: &Report, row: &str) -> BTreeMap<String, u32> {
    let t = r
        .tables
        .iter()
        .find(|t| t.key == PLAN_COUNTS)
        .expect("plan table");
    let cells = t
        .rows
        .iter()
        .find(|c| c[0] == Value::text(row))
        .unwrap_or_else(|| panic!("no row {row}"));
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

fn counts(pairs: &[(&str, u32)]) -> BTreeMap<String, u32> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn within(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got / want - 1.0).abs() <= tol,
        "{what}: got {got}, want {want} ± {}%",
        tol * 100.0
    );
}

#[test]
fn table_1_plans_times_and_costs() {
    let r = report(&table1_example());
    assert_eq!(
        plan(&r, PAPER_ROW),
        counts(&[("g3.8xlarge", 5), ("g3.16xlarge", 3)])
    );
    assert_eq!(
        plan(&r, EXACT_ROW),
        counts(&[("g4dn.4xlarge", 2), ("g3.8xlarge", 5), ("g3.16xlarge", 2)])
    );
    within(number(&r, "paper-time"), 2549.02, 1e-4, "spotDNN time");
    within(number(&r, "exact-time"), 2597.34, 1e-4, "Srifty+ time");
    within(number(&r, "paper-cost"), 5.33, 5e-3, "spotDNN cost");
    within(number(&r, "exact-cost"), 4.97, 5e-3, "Srifty+ cost");
    // The cluster is spotDNN's plan: its on-demand cost is Table I's first row.
    within(number(&r, "other-cost"), 17.75, 1e-3, "on-demand cost");
    // models.md: the exact plan is 7.4% cheaper at Table III's prices.
    assert!((number(&r, "gap") - 0.074).abs() < 0.002);
}

fn table_v(loss: f64, time: f64) -> Report {
    let mut s = table1_example();
    let quotas = [
        ("p3.2xlarge", 2),
        ("g4dn.4xlarge", 5),
        ("g3.8xlarge", 5),
        ("g3.16xlarge", 8),
        ("p2.8xlarge", 5),
    ];
    for i in &mut s.hardware.catalog {
        if let Some(q) = quotas.iter().find(|q| q.0 == i.name) {
            i.quota = Some(q.1);
        } else if i.quota.is_some() && i.gpus.is_some() {
            i.quota = Some(0);
        }
    }
    s.goals.loss = Some(loss);
    s.goals.time_s = Some(time);
    report(&s)
}

#[test]
fn table_5_resnet110_plans() {
    // [p3.2xl, g4dn.4xl, g3.8xl, g3.16xl, p2.8xl] = [2, 0, 2, 0, 0] both.
    let r = table_v(0.9, 1900.0);
    let both = counts(&[("p3.2xlarge", 2), ("g3.8xlarge", 2)]);
    assert_eq!(plan(&r, PAPER_ROW), both);
    assert_eq!(plan(&r, EXACT_ROW), both);
    // [2, 0, 4, 0, 0] both.
    let r = table_v(0.8, 2400.0);
    let both = counts(&[("p3.2xlarge", 2), ("g3.8xlarge", 4)]);
    assert_eq!(plan(&r, PAPER_ROW), both);
    assert_eq!(plan(&r, EXACT_ROW), both);
    // spotDNN [2, 0, 4, 0, 0], Srifty+ [2, 1, 3, 0, 0].
    let r = table_v(0.7, 3700.0);
    assert_eq!(
        plan(&r, PAPER_ROW),
        counts(&[("p3.2xlarge", 2), ("g3.8xlarge", 4)])
    );
    assert_eq!(
        plan(&r, EXACT_ROW),
        counts(&[("p3.2xlarge", 2), ("g4dn.4xlarge", 1), ("g3.8xlarge", 3)])
    );
}

#[test]
fn table_6_equal_workers() {
    for (n, r) in [(2, 0.71), (3, 0.82), (4, 0.87)] {
        let got = convergence_of(&vec![1.0 / n as f64; n]);
        assert!((got - r).abs() < 0.005, "{n} workers: {got}");
    }
}

/// R of `a` workers of speed `fast` and `b` of speed 1.
fn mix(a: usize, fast: f64, b: usize) -> f64 {
    let v = a as f64 * fast + b as f64;
    let mut shares = vec![fast / v; a];
    shares.extend(vec![1.0 / v; b]);
    convergence_of(&shares)
}

/// The speed ratio that gives `r` for `a` fast and `b` slow workers.
fn ratio_for(a: usize, b: usize, r: f64) -> f64 {
    let (mut lo, mut hi) = (1.0, 100.0);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        // More speed on the fast side: a more lopsided, smaller R.
        if mix(a, mid, b) > r {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

#[test]
fn table_6_mixes_agree_with_each_other() {
    // VGG-19: [1, 1] gives 0.51 (worker 1 = the largest share); its speed
    // ratio then gives [2, 1] = 0.75.
    let k = ratio_for(1, 1, 0.51);
    assert!((mix(2, k, 1) - 0.75).abs() < 0.01, "{}", mix(2, k, 1));
    // EsperBERTo: 0.59 fits 2 g3.8xl + 1 g3.16xl (the transposed plan;
    // [0, 0, 1, 2, 0] cannot go below 0.707); its ratio gives [1, 3] = 0.83.
    let k = ratio_for(1, 2, 0.59);
    assert!((mix(3, k, 1) - 0.83).abs() < 0.01, "{}", mix(3, k, 1));
    // The printed [0, 0, 1, 2, 0] / 0.59 is impossible: two equal leaders.
    for k in [1.0, 1.5, 2.0, 5.0, 50.0] {
        assert!(mix(2, k, 1) >= 0.707 - 1e-9);
    }
}

fn section(s: &Scenario) -> SpotDnnSettings {
    s.section(ID).expect("section")
}

#[test]
fn revocation_takes_over_without_the_revoked_type() {
    // Fig. 9: the Table I plan loses its 5 g3.8xlarge at minute 29.8 at
    // loss 0.9. (spotDNN launched 3 p3.2xlarge; the paper does not give
    // that run's quotas, so only the rules are checked: survivors kept,
    // the revoked type never reused, the goal met.)
    let mut s = table1_example();
    for i in &mut s.hardware.catalog {
        if i.gpus.is_some() {
            i.quota = Some(10);
        }
    }
    let mut set = section(&s);
    set.revocation = Some(Revocation {
        instance: "g3.8xlarge".into(),
        at_s: 29.8 * 60.0,
        loss_now: 0.9,
    });
    s.set_section(ID, &set);
    let r = report(&s);
    let after = plan(&r, REPLAN_EXACT_ROW);
    assert!(!after.contains_key("g3.8xlarge"), "{after:?}");
    assert_eq!(after.get("g3.16xlarge"), Some(&3), "{after:?}");
    assert!(after.values().sum::<u32>() > 3, "{after:?}");
    let finish = number(&r, "finish-after");
    assert!(finish <= 2600.0 && finish > 29.8 * 60.0 + 30.0, "{finish}");
}

fn invalid(s: &Scenario) -> Vec<(String, String)> {
    match evaluate(&SpotDnn, s) {
        Err(Unavailable::Invalid { errors }) => {
            errors.into_iter().map(|e| (e.field, e.message)).collect()
        }
        other => panic!("expected invalid, got {other:?}"),
    }
}

#[test]
fn b_req_in_megabits_is_named() {
    let mut s = table1_example();
    let mut set = section(&s);
    set.req_bytes_per_s = Some(142e6 / 8.0);
    s.set_section(ID, &set);
    let errs = invalid(&s);
    assert!(
        errs.iter()
            .any(|(f, m)| f == "models.spotdnn.req_bytes_per_s"
                && m.contains("negative")
                && m.contains("142.0 MB/s")),
        "{errs:?}"
    );
    assert_eq!(errs.len(), 1, "one message, not one per type: {errs:?}");
}

#[test]
fn a_loss_goal_at_gamma5_is_refused_at_the_goal() {
    let mut s = table1_example();
    s.goals.loss = Some(0.5);
    let errs = invalid(&s);
    assert!(
        errs.iter()
            .any(|(f, m)| f == "goals.loss" && m.contains("γ5")),
        "{errs:?}"
    );
}

#[test]
fn an_unreachable_time_goal_names_the_fastest_cluster() {
    let mut s = table1_example();
    s.goals.time_s = Some(600.0);
    let r = report(&s);
    let note = r
        .notes
        .iter()
        .find(|n| n.field.as_deref() == Some("goals.time"))
        .expect("a note at the time goal");
    assert!(note.text.contains("fastest cluster"), "{}", note.text);
    assert!(r
        .headline
        .iter()
        .any(|f| f.key == "exact-plan" && f.value == Value::text("no plan meets the goals")));
}

#[test]
fn zero_quotas_plan_nothing_and_say_so() {
    let mut s = table1_example();
    for i in &mut s.hardware.catalog {
        i.quota = Some(0);
    }
    let r = report(&s);
    assert!(r.notes.iter().any(|n| n.text.contains("quota is 0")));
}

#[test]
fn a_scenario_without_the_section_says_what_is_needed() {
    match evaluate(&SpotDnn, &Scenario::example()) {
        Err(Unavailable::Missing { needs }) => {
            assert!(needs
                .iter()
                .any(|e| e.field == "models.spotdnn.param_bytes"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_shipped_example_is_table_1() {
    let shipped =
        ddnn_planner::models::from_json(include_str!("../../public/examples/spotdnn-table1.json"))
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shipped, table1_example());
}
