//! Calibrating spotDNN on measured runs (issue 35): its factors recovered
//! from runs the model itself generated with seeded noise; at their
//! published values the identity; the PS bandwidth left as published
//! where no run contends for it; a stored factor out of bounds refused at
//! it; a calibrated scenario slowing the cluster; the prepared predictor
//! equal to `predict_run` to the bit.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::collections::BTreeMap;

use super::calibrate_zeng::{factor, noise, recovered};
use ddnn_planner::calibration::calibrate_model;
use ddnn_planner::calibration::fit::Status;
use ddnn_planner::calibration::FitOptions;
use ddnn_planner::hardware::WorkerGroup;
use ddnn_planner::models::{by_id, evaluate, from_json, validate_for, Model};
use ddnn_planner::report::{Report, Value};
use ddnn_planner::runs::{run_scenario, Run};
use ddnn_planner::scenario::Scenario;

const TABLE1: &str = include_str!("../../public/examples/spotdnn-table1.json");
const G38: &str = "g3.8xlarge";
const G316: &str = "g3.16xlarge";
const P32: &str = "p3.2xlarge";

fn spotdnn() -> &'static dyn Model {
    by_id("spotdnn").unwrap_or_else(|| panic!("spotdnn"))
}

fn scenario() -> Scenario {
    from_json(TABLE1).unwrap_or_else(|e| panic!("{e}"))
}

fn values(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// A run of `workers` (instance, count) on the example's PS side.
fn run(label: &str, workers: &[(&str, u32)], iteration_s: f64) -> Run {
    Run {
        published: None,
        lacks: None,
        label: label.into(),
        workers: workers
            .iter()
            .map(|&(instance, count)| WorkerGroup {
                instance: instance.into(),
                count,
                batch_size: 256,
            })
            .collect(),
        ps: None,
        iteration_s: Some(iteration_s),
        throughput: None,
        source: String::new(),
    }
}

fn predicted(s: &Scenario, run: &Run) -> f64 {
    match spotdnn().predict_run(&run_scenario(s, run)) {
        Some(Ok(p)) => p.iteration_s.unwrap_or(f64::NAN),
        other => panic!("{other:?}"),
    }
}

/// `s` with runs of `clusters`, timed by the model with `truth` and
/// `noise_pct` % seeded noise.
fn generated(
    s: &Scenario,
    truth: &BTreeMap<String, f64>,
    clusters: &[(&str, &[(&str, u32)])],
    noise_pct: f64,
) -> Scenario {
    let mut generator = s.clone();
    generator.calibration.set("spotdnn", truth.clone());
    let mut seed = 3_u64;
    let mut out = s.clone();
    out.runs = clusters
        .iter()
        .map(|&(label, workers)| {
            let t = predicted(&generator, &run(label, workers, 1.0))
                * (1.0 + noise_pct / 100.0 * noise(&mut seed));
            run(label, workers, t)
        })
        .collect();
    out
}

/// Each type alone and in small clusters (compute), and clusters of 7 to
/// 13 workers, where the PS side's share falls below B_req (Eq. 8).
const CLUSTERS: [(&str, &[(&str, u32)]); 9] = [
    ("1 g3.8", &[(G38, 1)]),
    ("1 g3.16", &[(G316, 1)]),
    ("1 p3.2", &[(P32, 1)]),
    ("3 g3.8 + 2 p3.2", &[(G38, 3), (P32, 2)]),
    ("5 g3.8 + 3 g3.16", &[(G38, 5), (G316, 3)]),
    ("10 g3.8", &[(G38, 10)]),
    ("9 g3.16", &[(G316, 9)]),
    ("6 p3.2 + 5 g3.8", &[(P32, 6), (G38, 5)]),
    ("13 mixed", &[(G38, 5), (G316, 4), (P32, 4)]),
];

fn truth() -> BTreeMap<String, f64> {
    values(&[
        ("ps_bandwidth", 0.7),
        ("rate:g3.8xlarge", 0.8),
        ("rate:g3.16xlarge", 0.9),
        ("rate:p3.2xlarge", 0.6),
    ])
}

fn headline(r: &Report, key: &str) -> f64 {
    match r.headline.iter().find(|f| f.key == key).map(|f| &f.value) {
        Some(Value::Number { value, .. }) => *value,
        other => panic!("{key}: {other:?}"),
    }
}

#[test]
fn calibration_recovers_the_factors_that_generated_the_runs() {
    let s = generated(&scenario(), &truth(), &CLUSTERS, 1.0);
    let c =
        calibrate_model(&s, spotdnn(), &FitOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    for (name, want) in &truth() {
        let f = factor(&c, name);
        assert_eq!(f.status, Status::Fitted, "{name}: {:?}", f.status);
        // 1% noise on 9 runs: each ratio within 4%.
        assert!(
            recovered(f, *want, 0.04),
            "{name}: fitted {}, generated with {want}",
            f.value
        );
    }
    let worst = c.calibrated.worst_abs.unwrap_or(f64::NAN);
    assert!(worst <= 0.02, "worst in-sample |error| {worst}");
    let loo = c.loo.median_abs.unwrap_or(f64::NAN);
    assert!(loo <= 0.03, "median leave-one-out |error| {loo}");
    assert!(c.published.median_abs > Some(0.1), "{:?}", c.published);
}

#[test]
fn the_published_values_are_the_identity() {
    let s = scenario();
    let mut at_one = s.clone();
    at_one.calibration.set(
        "spotdnn",
        values(&[("ps_bandwidth", 1.0), ("rate:g3.8xlarge", 1.0)]),
    );
    assert!(validate_for(spotdnn(), &at_one).is_empty());
    let a = evaluate(spotdnn(), &s).unwrap_or_else(|e| panic!("{e:?}"));
    let b = evaluate(spotdnn(), &at_one).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(a.headline, b.headline);
    assert_eq!(a.figures, b.figures);
    assert_eq!(a.tables, b.tables);
    assert_eq!(a.charts, b.charts);
    assert!(b
        .notes
        .iter()
        .any(|n| n.text.contains("Calibrated on measured runs")));
}

#[test]
fn the_ps_bandwidth_is_not_fitted_where_no_run_contends_for_it() {
    // At most 5 workers: the PS side's share (1.2 GB/s over 5, or 0.84
    // at the fraction 0.7) stays above B_req = 142 MB/s.
    let small: [(&str, &[(&str, u32)]); 4] = [
        ("1 g3.8", &[(G38, 1)]),
        ("2 g3.8", &[(G38, 2)]),
        ("3 g3.16", &[(G316, 3)]),
        ("2 + 3", &[(G38, 2), (G316, 3)]),
    ];
    let s = generated(
        &scenario(),
        &values(&[("ps_bandwidth", 0.7), ("rate:g3.8xlarge", 0.8)]),
        &small,
        0.5,
    );
    let c =
        calibrate_model(&s, spotdnn(), &FitOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let ps = factor(&c, "ps_bandwidth");
    let Status::NotFitted { why } = &ps.status else {
        panic!("{:?}", ps.status);
    };
    assert!(why.contains("do not contend"), "{why}");
    assert_eq!(ps.value, 1.0);
    assert!(recovered(factor(&c, "rate:g3.8xlarge"), 0.8, 0.03));
}

#[test]
fn a_stored_factor_out_of_bounds_is_refused_at_it() {
    let mut s = scenario();
    s.calibration.set(
        "spotdnn",
        values(&[
            ("ps_bandwidth", 2.0),
            ("rate:g3.8xlarge", f64::NAN),
            ("speed", 1.0),
        ]),
    );
    let errs = validate_for(spotdnn(), &s);
    for field in [
        "calibration.spotdnn.ps_bandwidth",
        "calibration.spotdnn.rate:g3.8xlarge",
        "calibration.spotdnn.speed",
    ] {
        assert!(errs.iter().any(|e| e.field == field), "{field}: {errs:?}");
    }
    assert!(evaluate(spotdnn(), &s).is_err());
}

#[test]
fn a_slower_type_lengthens_the_clusters_iteration_and_training() {
    let s = scenario();
    let mut slow = s.clone();
    slow.calibration
        .set("spotdnn", values(&[("rate:g3.8xlarge", 0.5)]));
    let a = evaluate(spotdnn(), &s).unwrap_or_else(|e| panic!("{e:?}"));
    let b = evaluate(spotdnn(), &slow).unwrap_or_else(|e| panic!("{e:?}"));
    for key in ["expected-iteration", "train-time"] {
        assert!(headline(&b, key) > headline(&a, key), "{key}");
    }
    // The report's T_exp is the calibrated prediction of its cluster.
    let as_run = Run {
        published: None,
        lacks: None,
        label: "the cluster".into(),
        workers: s.hardware.cluster.workers.clone(),
        ps: None,
        iteration_s: Some(1.0),
        throughput: None,
        source: String::new(),
    };
    let n: u32 = s.hardware.cluster.workers.iter().map(|g| g.count).sum();
    assert_eq!(
        headline(&b, "expected-iteration") * f64::from(n),
        predicted(&slow, &as_run)
    );
}

#[test]
fn the_prepared_predictor_gives_predict_runs_numbers() {
    let s = generated(&scenario(), &truth(), &CLUSTERS, 1.0);
    let sets = [BTreeMap::new(), truth()];
    for run in &s.runs {
        let rs = run_scenario(&s, run);
        let predict = spotdnn()
            .run_predictor(&rs)
            .unwrap_or_else(|| panic!("{}: no predictor", run.label));
        for v in &sets {
            let mut with = rs.clone();
            with.calibration.set("spotdnn", v.clone());
            let want = spotdnn().predict_run(&with).and_then(Result::ok);
            assert_eq!(predict(v), want, "{} {v:?}", run.label);
        }
    }
}

#[test]
fn fifty_runs_give_back_the_factors_they_were_generated_with() {
    // The calibration benchmark's runs (calibration_runs50.rs): a fixed
    // noise pattern of −3% to +3% on each time, so a factor that is a
    // small part of the times (a fast link, a PS share in a few runs)
    // moves more: each within 10% (an offset within 10 ms), out of
    // sample within the noise.
    let s = super::calibration_runs50::spotdnn();
    let c =
        calibrate_model(&s, spotdnn(), &FitOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.runs.len(), 50);
    for f in c.factors.iter().filter(|f| f.status.fitted()) {
        let want = super::calibration_runs50::truth("spotdnn", &f.spec.name);
        assert!(
            recovered(f, want, 0.10),
            "{}: fitted {} ({:?}), generated with {want}",
            f.spec.name,
            f.value,
            f.status
        );
    }
    let loo = c.loo.worst_abs.unwrap_or(f64::NAN);
    assert!(loo <= 0.05, "worst leave-one-out |error| {loo}");
}
