//! Calibrating Li et al.'s simulation on measured runs (issue 35): the
//! scaling that makes a run's prediction one function of `network /
//! compute`, exact; the tabulated surrogate against exact simulations;
//! the factors recovered from runs the model itself generated with seeded
//! noise; at their published values the identity; a factor the runs
//! cannot show left as published; a stored factor out of bounds refused
//! at it; the headline moving the expected way; a calibration over its
//! budget refused before it runs.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::collections::BTreeMap;

use super::calibrate_zeng::{factor, noise, recovered};
use ddnn_planner::calibration::fit::Status;
use ddnn_planner::calibration::{calibrate_model, CalibrationError, FitOptions};
use ddnn_planner::hardware::{ParameterServer, WorkerGroup};
use ddnn_planner::models::li::factors::{Table, POINTS};
use ddnn_planner::models::li::presets;
use ddnn_planner::models::li::section::{settings, LiSettings};
use ddnn_planner::models::{by_id, evaluate, validate_for, Model};
use ddnn_planner::report::{Report, Value};
use ddnn_planner::runs::{run_scenario, Run};
use ddnn_planner::scenario::Scenario;

fn li() -> &'static dyn Model {
    by_id("li").unwrap_or_else(|| panic!("li"))
}

fn values(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// The small profile the calibration benchmark's Li runs use.
use super::calibration_runs50::LI_PROFILE as PROFILE;

/// The profile's transfers overlap 1 s of compute (no op waits for one),
/// so the link never shows in a step's time.
const HIDDEN_LINK: &str = r#"{
  "name": "compute-bound", "batch": 8,
  "ops": [
    {"name": "pull w", "resource": "downlink", "tensor": "w"},
    {"name": "fwd", "resource": "worker"},
    {"name": "bwd", "resource": "worker", "deps": [1]},
    {"name": "push g", "resource": "uplink", "tensor": "w"}
  ],
  "steps": [[1e4, 0.4, 0.6, 1e4], [1e4, 0.41, 0.58, 1e4]]
}"#;

/// A scenario simulating `profile` over 60 steps (6 warm-up), one seed,
/// W = 1 to 4, with a parse overhead (α = 1 ns/B, β = 0.2 ms).
fn scenario(profile: &str) -> Scenario {
    let mut s = presets::example();
    s.set_section(
        "li",
        &LiSettings {
            profile: Some(serde_json::from_str(profile).unwrap_or_else(|e| panic!("{e}"))),
            generate: None,
            steps: 60,
            warmup: 6,
            seeds: 1,
            max_workers: 4,
            alpha_s_per_byte: 1e-9,
            beta_s: 2e-4,
            ..LiSettings::default()
        },
    );
    s.hardware.cluster.ps.link_bytes_per_s = Some(1.25e8);
    s
}

/// `workers` workers like the profiled one over a PS link of `gbit` Gb/s.
fn run(label: &str, workers: u32, gbit: f64, throughput: f64) -> Run {
    Run {
        published: None,
        lacks: None,
        label: label.into(),
        workers: vec![WorkerGroup {
            instance: "Quadro RTX 4000".into(),
            count: workers,
            batch_size: 32,
        }],
        ps: Some(ParameterServer {
            count: 1,
            instance: None,
            link_bytes_per_s: Some(gbit * 1.25e8),
            latency_s: 0.0,
        }),
        iteration_s: None,
        throughput: Some(throughput),
        source: String::new(),
    }
}

/// Li's throughput of `run` in `s` (with `s`'s calibration) [samples/s].
fn predicted(s: &Scenario, run: &Run) -> f64 {
    match li().predict_run(&run_scenario(s, run)) {
        Some(Ok(p)) => p.throughput.unwrap_or(f64::NAN),
        other => panic!("{other:?}"),
    }
}

fn with(s: &Scenario, factors: &BTreeMap<String, f64>) -> Scenario {
    let mut out = s.clone();
    out.calibration.set("li", factors.clone());
    out
}

/// `s` with runs of `clusters` (workers, Gb/s), measured as the model
/// predicts them with `truth` and `noise_pct` % noise.
fn generated(
    s: &Scenario,
    truth: &BTreeMap<String, f64>,
    clusters: &[(u32, f64)],
    noise_pct: f64,
) -> Scenario {
    let generator = with(s, truth);
    let mut seed = 7_u64;
    let mut out = s.clone();
    out.runs = clusters
        .iter()
        .map(|&(w, gbit)| {
            let label = format!("{w} workers at {gbit} Gb/s");
            let x = predicted(&generator, &run(&label, w, gbit, 1.0))
                * (1.0 + noise_pct / 100.0 * noise(&mut seed));
            run(&label, w, gbit, x)
        })
        .collect();
    out
}

/// Compute-bound runs (one or two workers on a fast link) and link-bound
/// ones (four to six on a slow one), and between.
const CLUSTERS: [(u32, f64); 9] = [
    (1, 10.0),
    (2, 10.0),
    (1, 2.5),
    (2, 2.5),
    (4, 2.5),
    (2, 1.0),
    (3, 1.0),
    (4, 1.0),
    (6, 1.0),
];

fn headline(r: &Report, key: &str) -> f64 {
    match r.headline.iter().find(|f| f.key == key).map(|f| &f.value) {
        Some(Value::Number { value, .. }) => *value,
        other => panic!("{key}: {other:?}"),
    }
}

#[test]
fn scaling_every_duration_is_exact() {
    // Throughput(compute c, network n) = c · Throughput(1, n / c): the
    // simulation with op times ÷ c, α and β ÷ c and B × n against the
    // one at the profile's times and B × n / c.
    let s = scenario(PROFILE);
    for w in [1, 3] {
        let r = run("r", w, 1.0, 1.0);
        // Powers of two scale every sum and quotient exactly: to the bit,
        // and the run predictor's tabulated ratio 1/2 is that simulation.
        let v = values(&[("compute", 0.5), ("network", 0.25)]);
        let exact = predicted(&with(&s, &v), &r);
        let ratio_only = 0.5 * predicted(&with(&s, &values(&[("network", 0.5)])), &r);
        assert_eq!(exact.to_bits(), ratio_only.to_bits(), "W = {w}");
        let predict = li()
            .run_predictor(&run_scenario(&s, &r))
            .unwrap_or_else(|| panic!("no predictor"));
        let tabulated = predict(&v).and_then(|p| p.throughput);
        assert_eq!(tabulated, Some(exact), "W = {w}");
        // Any factors: to 1e-10 relative, the rounding of the scaled
        // durations carried through a run's events and the links'
        // byte clocks (2.3e-11 at W = 3, compute 1.9, network 1.3).
        for (c, n) in [
            (0.7, 0.3),
            (0.3, 0.11),
            (1.9, 1.3),
            (0.45, 0.9),
            (1.2, 0.15),
        ] {
            let exact = predicted(&with(&s, &values(&[("compute", c), ("network", n)])), &r);
            let ratio_only = c * predicted(&with(&s, &values(&[("network", n / c)])), &r);
            assert!(
                (exact / ratio_only - 1.0).abs() <= 1e-10,
                "W = {w}, compute {c}, network {n}: {exact} against {ratio_only}"
            );
        }
    }
}

#[test]
fn the_table_is_the_simulation_at_its_ratios_and_close_between() {
    let s = scenario(PROFILE);
    let ratios = Table::ratios();
    assert_eq!(ratios.len(), POINTS);
    assert_eq!(ratios.iter().filter(|&&r| r == 1.0).count(), 1);
    // Within the bounds' ratios, 0.05 to 6, with a half-octave each side.
    assert!(ratios[0] <= 0.1 / 2.0 && ratios[POINTS - 1] >= 1.5 / 0.25);
    // Worst |surrogate / exact − 1| at W = 1-2 and at W = 3-4.
    let mut worst = [0.0_f64; 2];
    for w in 1..=4 {
        let r = run("r", w, 1.0, 1.0);
        let predict = li()
            .run_predictor(&run_scenario(&s, &r))
            .unwrap_or_else(|| panic!("no predictor"));
        let at = |c: f64, n: f64| {
            let v = values(&[("compute", c), ("network", n)]);
            let surrogate = predict(&v).and_then(|p| p.throughput).unwrap_or(f64::NAN);
            (surrogate, predicted(&with(&s, &v), &r))
        };
        // At a tabulated ratio, the simulation to the bit.
        let (a, b) = at(1.0, 1.0);
        assert_eq!(a.to_bits(), b.to_bits());
        // Half-way (in ln ρ) between tabulated ratios: each ratio as
        // network / compute with compute 1 (or network 1.5 past it).
        for pair in ratios.windows(2) {
            let rho = (pair[0] * pair[1]).sqrt();
            if !(0.05..=6.0).contains(&rho) {
                continue;
            }
            let (c, n) = if rho <= 1.5 {
                (1.0, rho)
            } else {
                (1.5 / rho, 1.5)
            };
            let (surrogate, exact) = at(c, n);
            let k = usize::from(w > 2);
            worst[k] = worst[k].max((surrogate / exact - 1.0).abs());
        }
    }
    // One or two workers: the throughput is a smooth function of the
    // ratio here, and the half-octave table is within 0.5% of it (0.37%
    // measured).
    assert!(worst[0] <= 0.005, "W = 1-2: {}", worst[0]);
    // Three or four: the simulation itself moves between patterns of the
    // workers' transfers as the ratio changes (jumps of several per cent
    // between neighbouring ratios), which no table of 16 ratios follows:
    // within 10% (6.1% measured). The calibration reports exact
    // simulations, so this shows in its errors, never hidden.
    assert!(worst[1] <= 0.10, "W = 3-4: {}", worst[1]);
}

#[test]
fn calibration_recovers_the_factors_that_generated_the_runs() {
    let truth = values(&[("compute", 0.6), ("network", 0.7)]);
    let s = generated(&scenario(PROFILE), &truth, &CLUSTERS, 0.5);
    let c = calibrate_model(&s, li(), &FitOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    for (name, want) in &truth {
        let f = factor(&c, name);
        assert_eq!(f.status, Status::Fitted, "{name}: {:?}", f.status);
        // 0.5% noise on 9 runs, fitted on the table: each within 2%.
        assert!(
            recovered(f, *want, 0.02),
            "{name}: fitted {}, generated with {want}",
            f.value
        );
    }
    // Reported from exact simulations at the fitted factors.
    let fitted = with(&s, &c.values());
    for (r, fit) in s.runs.iter().zip(&c.runs) {
        assert_eq!(fit.calibrated, Some(predicted(&fitted, r)), "{}", r.label);
    }
    // Median within the noise; the worst run sits where the simulation
    // jumps between patterns (`the_table_is_…`): 5.7% measured.
    let median = c.calibrated.median_abs.unwrap_or(f64::NAN);
    assert!(median <= 0.01, "median in-sample |error| {median}");
    let worst = c.calibrated.worst_abs.unwrap_or(f64::NAN);
    assert!(worst <= 0.08, "worst in-sample |error| {worst}");
    let loo = c.loo.median_abs.unwrap_or(f64::NAN);
    assert!(loo <= 0.01, "median leave-one-out |error| {loo}");
    assert!(c.published.median_abs > Some(0.2), "{:?}", c.published);
}

#[test]
fn the_published_values_are_the_identity() {
    let s = scenario(PROFILE);
    let at_one = with(&s, &values(&[("compute", 1.0), ("network", 1.0)]));
    assert!(validate_for(li(), &at_one).is_empty());
    let a = evaluate(li(), &s).unwrap_or_else(|e| panic!("{e:?}"));
    let b = evaluate(li(), &at_one).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(a.headline, b.headline);
    assert_eq!(a.figures, b.figures);
    assert_eq!(a.tables, b.tables);
    assert_eq!(a.charts, b.charts);
    assert_eq!(a.downloads, b.downloads);
    assert!(b
        .notes
        .iter()
        .any(|n| n.text.contains("Calibrated on measured runs")));
    let r = run("r", 3, 1.0, 1.0);
    assert_eq!(
        predicted(&s, &r).to_bits(),
        predicted(&at_one, &r).to_bits()
    );
}

#[test]
fn a_link_the_runs_cannot_show_is_left_as_published() {
    let s = generated(
        &scenario(HIDDEN_LINK),
        &values(&[("compute", 0.8)]),
        &[(1, 1.0), (2, 1.0), (3, 2.5), (4, 10.0)],
        0.5,
    );
    let c = calibrate_model(&s, li(), &FitOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let f = factor(&c, "network");
    let Status::NotFitted { why } = &f.status else {
        panic!("network: {:?}", f.status);
    };
    assert!(why.contains("overlap compute"), "{why}");
    assert_eq!(f.value, 1.0);
    assert!(recovered(factor(&c, "compute"), 0.8, 0.02));
}

#[test]
fn a_stored_factor_out_of_bounds_is_refused_at_it() {
    let s = with(
        &scenario(PROFILE),
        &values(&[("compute", 0.1), ("network", 2.0), ("speed", 1.0)]),
    );
    let errs = validate_for(li(), &s);
    for field in [
        "calibration.li.compute",
        "calibration.li.network",
        "calibration.li.speed",
    ] {
        assert!(errs.iter().any(|e| e.field == field), "{field}: {errs:?}");
    }
    assert!(evaluate(li(), &s).is_err());
}

#[test]
fn slower_compute_and_links_lower_the_headline() {
    let s = scenario(PROFILE);
    let a = evaluate(li(), &s).unwrap_or_else(|e| panic!("{e:?}"));
    // Half the link: the link bound halves exactly; the best throughput,
    // link-bound at W = 4, falls.
    let half_link = with(&s, &values(&[("network", 0.5)]));
    let b = evaluate(li(), &half_link).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(headline(&b, "link-bound"), 0.5 * headline(&a, "link-bound"));
    assert!(headline(&b, "throughput-max") < headline(&a, "throughput-max"));
    // Half the op rates: one worker is slower, the link bound stays.
    let half_compute = with(&s, &values(&[("compute", 0.5)]));
    let c = evaluate(li(), &half_compute).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(headline(&c, "one-worker") < headline(&a, "one-worker"));
    assert_eq!(headline(&c, "link-bound"), headline(&a, "link-bound"));
    // The figures as published beside the calibrated ones.
    let f = c
        .headline
        .iter()
        .find(|f| f.key == "one-worker")
        .unwrap_or_else(|| panic!("one-worker"));
    assert_eq!(
        f.published.as_ref().map(|v| match v {
            Value::Number { value, .. } => *value,
            _ => f64::NAN,
        }),
        Some(headline(&a, "one-worker"))
    );
    // The timeline (and its Perfetto file) are of the calibrated run.
    assert_ne!(a.downloads, c.downloads);
}

#[test]
fn a_calibration_over_its_budget_is_refused_before_it_runs() {
    // 1000 steps and 3 seeds over 40 runs of 8 workers: 5 ops × 3,000
    // worker-steps × 8 × 40 runs × 20 simulations = 9.6·10⁷ ops fit;
    // 60 runs (1.44·10⁸) do not.
    let mut s = scenario(PROFILE);
    let mut set = settings(&s);
    set.steps = 1000;
    set.warmup = 50;
    set.seeds = 3;
    set.alpha_s_per_byte = 0.0;
    set.beta_s = 0.0;
    s.set_section("li", &set);
    s.runs = (0..40)
        .map(|i| run(&format!("{i}"), 8, 1.0, 100.0))
        .collect();
    let w = li().calibration_work(&s);
    let want = 5.0 * 3000.0 * 8.0 * 40.0 * (POINTS + 4) as f64;
    assert_eq!(w.first().map(|w| w.units), Some(want));
    assert!(w.iter().all(|w| w.fits()));
    s.runs = (0..60)
        .map(|i| run(&format!("{i}"), 8, 1.0, 100.0))
        .collect();
    match calibrate_model(&s, li(), &FitOptions::default()) {
        Err(CalibrationError::OverBudget { message }) => {
            assert!(
                message.contains("reduce the steps or the seeds"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn fifty_runs_give_back_the_factors_they_were_generated_with() {
    // The calibration benchmark's runs (calibration_runs50.rs): −3% to
    // +3% on each throughput, so each factor within 3% (1.7% and 1.0%
    // measured); out of sample within the noise at the median (2.6%),
    // the worst (16%) where the simulation jumps between transfer
    // patterns.
    let s = super::calibration_runs50::li();
    let c = calibrate_model(&s, li(), &FitOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.runs.len(), 50);
    for f in &c.factors {
        let want = super::calibration_runs50::truth("li", &f.spec.name);
        assert_eq!(f.status, Status::Fitted, "{}", f.spec.name);
        assert!(
            recovered(f, want, 0.03),
            "{}: fitted {}, generated with {want}",
            f.spec.name,
            f.value
        );
    }
    let loo = c.loo.median_abs.unwrap_or(f64::NAN);
    assert!(loo <= 0.03, "median leave-one-out |error| {loo}");
}

#[test]
fn runs_of_one_cluster_share_a_prediction_and_distinct_ones_fit_alike() {
    // Runs i and i + 24 of the benchmark's set are of one cluster (1 +
    // i mod 8 workers, the link i mod 3): one prediction, as published
    // and calibrated, and one surrogate behind both.
    let shared = calibrate_model(
        &super::calibration_runs50::li(),
        li(),
        &FitOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for i in 0..26 {
        let (a, b) = (&shared.runs[i], &shared.runs[i + 24]);
        assert_eq!(
            (a.published, a.calibrated),
            (b.published, b.calibrated),
            "runs {i} and {}",
            i + 24
        );
    }
    // The same runs each on its own link (the calibration's worst case):
    // the factors come back as well.
    let s = super::calibration_runs50::li_distinct();
    let distinct =
        calibrate_model(&s, li(), &FitOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    for f in &distinct.factors {
        let want = super::calibration_runs50::truth("li", &f.spec.name);
        assert!(
            recovered(f, want, 0.03),
            "{}: fitted {}, generated with {want}",
            f.spec.name,
            f.value
        );
    }
}
