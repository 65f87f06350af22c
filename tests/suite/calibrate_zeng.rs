//! Calibrating Zeng et al. on measured runs (issue 35): factors recovered
//! from runs the model itself generated with seeded noise; leave-one-out
//! worked by hand (one factor, three runs, closed form); a factor the
//! runs cannot determine, and one at its bound, each said; bad input
//! leaving the factors as published; the factors applied by the report
//! and carried by JSON and links; and the showcase on the paper's own
//! Tables 6-7 runs.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::collections::BTreeMap;

use ddnn_planner::calibration::fit::{with_factors, Status};
use ddnn_planner::calibration::{calibrate, calibrate_model, CalibrationError, FitOptions};
use ddnn_planner::hardware::{Instance, ParameterServer, Processor, WorkerGroup};
use ddnn_planner::models::zeng::eval::network_figures;
use ddnn_planner::models::zeng::{calibrate_simd, factors};
use ddnn_planner::models::{by_id, decode_fragment, encode_share, evaluate, from_json, Model};
use ddnn_planner::report::Value;
use ddnn_planner::runs::{run_scenario, Run};
use ddnn_planner::scenario::Scenario;
use ddnn_planner::workload::{GivenFigures, Network};

const VGG16: &str = include_str!("../../public/examples/zeng-tables6-7-vgg16-runs.json");
const SETS: [(&str, &str); 5] = [
    (
        "AlexNet",
        include_str!("../../public/examples/zeng-tables6-7-alexnet-runs.json"),
    ),
    (
        "VGG-11",
        include_str!("../../public/examples/zeng-tables6-7-vgg11-runs.json"),
    ),
    ("VGG-16", VGG16),
    (
        "VGG-19",
        include_str!("../../public/examples/zeng-tables6-7-vgg19-runs.json"),
    ),
    (
        "ResNet-50",
        include_str!("../../public/examples/zeng-tables6-7-resnet50-runs.json"),
    ),
];
const QUADRO: &str = "Quadro RTX 4000";
const GTX: &str = "GeForce GTX 1060 6GB";

fn zeng() -> &'static dyn Model {
    by_id("zeng").unwrap_or_else(|| panic!("zeng"))
}

fn scenario(text: &str) -> Scenario {
    from_json(text).unwrap_or_else(|e| panic!("{e}"))
}

fn group(instance: &str, count: u32, batch_size: u32) -> WorkerGroup {
    WorkerGroup {
        instance: instance.into(),
        count,
        batch_size,
    }
}

/// A run on `workers` over its own PS link of `gbit` Gb/s.
fn run(label: &str, workers: Vec<WorkerGroup>, gbit: f64, iteration_s: f64) -> Run {
    Run {
        label: label.into(),
        workers,
        ps: Some(ParameterServer {
            count: 1,
            instance: None,
            link_bytes_per_s: Some(gbit * 1e9 / 8.0),
            latency_s: 0.0,
        }),
        iteration_s: Some(iteration_s),
        throughput: None,
        source: String::new(),
        published: None,
        lacks: None,
    }
}

/// Zeng's iteration time of `run` in `s` (with `s`'s calibration).
fn predicted(s: &Scenario, run: &Run) -> f64 {
    match zeng().predict_run(&run_scenario(s, run)) {
        Some(Ok(p)) => p.iteration_s.unwrap_or(f64::NAN),
        other => panic!("{other:?}"),
    }
}

/// SplitMix64 in [−1, 1): the noise, the same on every target.
pub(crate) fn noise(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    2.0 * ((z >> 11) as f64 / (1u64 << 53) as f64) - 1.0
}

pub(crate) fn factor<'a>(
    c: &'a ddnn_planner::calibration::ModelCalibration,
    name: &str,
) -> &'a ddnn_planner::calibration::fit::FactorFit {
    c.factors
        .iter()
        .find(|f| f.spec.name == name)
        .unwrap_or_else(|| panic!("no factor {name}: {:?}", c.factors))
}

/// A fitted factor within `ratio_tol` of the value that generated the
/// runs (an offset, a latency or a stall, within 10 ms).
pub(crate) fn recovered(
    f: &ddnn_planner::calibration::fit::FactorFit,
    want: f64,
    ratio_tol: f64,
) -> bool {
    if f.spec.kind == ddnn_planner::calibration::FactorKind::Offset {
        (f.value - want).abs() <= 0.01
    } else {
        (f.value / want - 1.0).abs() <= ratio_tol
    }
}

#[test]
fn calibration_recovers_the_factors_that_generated_the_runs() {
    let truth: BTreeMap<String, f64> = [
        ("link", 0.8),
        ("latency_s", 0.03),
        ("rate:Quadro RTX 4000", 0.7),
        ("rate:GeForce GTX 1060 6GB", 0.55),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    // Clusters where every factor shows: each device alone (compute and
    // transfers), and the mix on slow and fast links; two networks.
    let clusters: Vec<(&str, Vec<WorkerGroup>, f64)> = vec![
        ("Quadro alone 10 GbE", vec![group(QUADRO, 1, 64)], 10.0),
        ("Quadro alone 100 GbE", vec![group(QUADRO, 1, 128)], 100.0),
        ("GTX alone 100 GbE", vec![group(GTX, 1, 64)], 100.0),
        ("GTX alone 25 GbE", vec![group(GTX, 1, 32)], 25.0),
        ("2 GTX 40 GbE", vec![group(GTX, 2, 64)], 40.0),
        (
            "mix 1 GbE",
            vec![group(QUADRO, 2, 32), group(GTX, 1, 32)],
            1.0,
        ),
        (
            "mix 10 GbE",
            vec![group(QUADRO, 2, 32), group(GTX, 1, 32)],
            10.0,
        ),
        (
            "mix 100 GbE",
            vec![group(QUADRO, 1, 64), group(GTX, 2, 64)],
            100.0,
        ),
    ];
    let noise_pct = 1.0;
    for (net, text) in [SETS[2], SETS[4]] {
        let mut s = scenario(text);
        let mut generator = s.clone();
        generator.calibration.set("zeng", truth.clone());
        let mut seed = 7_u64;
        s.runs = clusters
            .iter()
            .map(|(label, workers, gbit)| {
                let r = run(label, workers.clone(), *gbit, 1.0);
                let t = predicted(&generator, &r) * (1.0 + noise_pct / 100.0 * noise(&mut seed));
                run(label, workers.clone(), *gbit, t)
            })
            .collect();
        let c = calibrate_model(&s, zeng(), &FitOptions::default())
            .unwrap_or_else(|e| panic!("{net}: {e}"));
        for (name, want) in &truth {
            let f = factor(&c, name);
            assert_eq!(f.status, Status::Fitted, "{net} {name}: {:?}", f.status);
            // 1% noise on 8 runs: each factor within a few percent (the
            // latency, an offset, within 10 ms).
            assert!(
                recovered(f, *want, 0.04),
                "{net} {name}: fitted {}, generated with {want}",
                f.value
            );
        }
        // Within the noise in-sample; out of sample not far off.
        let worst = c.calibrated.worst_abs.unwrap_or(f64::NAN);
        assert!(worst <= 0.02, "{net}: worst in-sample |error| {worst}");
        let loo = c.loo.median_abs.unwrap_or(f64::NAN);
        assert!(loo <= 0.03, "{net}: median leave-one-out |error| {loo}");
        assert!(
            c.published.median_abs > Some(0.1),
            "{net}: {:?}",
            c.published
        );
    }
}

/// One CPU of 10⁹ FLOP/s (Eq. 28 with the rate as given), 10⁹ FLOP per
/// sample forward, one weight (backward 85 FLOP, transfers of 4 B over a
/// 10¹² B/s link: ≈10⁻⁷ s): a run of batch `bs` takes `bs` seconds as
/// published, `bs / f` with rate fraction `f`.
fn one_cpu(measured: &[(u32, f64)]) -> Scenario {
    let mut s = scenario(VGG16);
    s.workload.network = Network {
        name: "by hand".into(),
        layers: Vec::new(),
        given: Some(GivenFigures {
            forward_flop: 1e9,
            weights: 1.0,
            source: "by hand".into(),
        }),
        pushes: None,
        extra_forward_flop_per_sample: 0.0,
        transfer_values: None,
        pull_values: None,
        ignored: Vec::new(),
    };
    s.hardware.catalog.push(Instance {
        name: "cpu".into(),
        source: "by hand".into(),
        processor: Some(Processor::Cpu { hz: 1e9, simd: 1.0 }),
        ..Instance::default()
    });
    s.runs = measured
        .iter()
        .map(|&(bs, t)| {
            let mut r = run(&format!("bs {bs}"), vec![group("cpu", 1, bs)], 8e6, t);
            r.ps = Some(ParameterServer {
                count: 1,
                instance: None,
                link_bytes_per_s: Some(1e12),
                latency_s: 0.0,
            });
            r
        })
        .collect();
    s
}

fn only_rate() -> FitOptions {
    FitOptions {
        only: vec!["rate:cpu".into()],
        ..FitOptions::default()
    }
}

#[test]
fn leave_one_out_on_three_runs_worked_by_hand() {
    // Published a = (1, 2, 4) s; measured m = (2, 5, 8) s: a/m = (0.5,
    // 0.4, 0.5). With T = a/f the log residuals are ln(a/m) − ln f, so the
    // fit is the geometric mean f = (0.5·0.4·0.5)^(1/3) = 0.1^(1/3).
    let s = one_cpu(&[(1, 2.0), (2, 5.0), (4, 8.0)]);
    let c = calibrate_model(&s, zeng(), &only_rate()).unwrap_or_else(|e| panic!("{e}"));
    let f = factor(&c, "rate:cpu");
    let want = 0.1_f64.powf(1.0 / 3.0);
    assert!((f.value / want - 1.0).abs() < 1e-6, "{} vs {want}", f.value);
    assert_eq!(factor(&c, "link").status, Status::Held);
    // In-sample: 1/f = 2.1544 s, against 2, 5 and 8 s.
    let calibrated: Vec<f64> = c.runs.iter().filter_map(|r| r.calibrated_error()).collect();
    for (e, w) in calibrated.iter().zip([
        1.0 / want / 2.0 - 1.0,
        2.0 / want / 5.0 - 1.0,
        4.0 / want / 8.0 - 1.0,
    ]) {
        assert!((e - w).abs() < 1e-6, "{calibrated:?}");
    }
    // Left out: run 1 by f = √(0.4·0.5): 1/0.4472 = 2.236 s against 2 s,
    // +11.8%; run 2 by f = 0.5: 4 s against 5 s, −20%; run 3 by
    // √(0.5·0.4): 8.944 s against 8 s, +11.8%.
    let g = (0.2_f64).sqrt();
    let want_loo = [1.0 / g / 2.0 - 1.0, -0.2, 4.0 / g / 8.0 - 1.0];
    let loo: Vec<f64> = c.runs.iter().filter_map(|r| r.loo_error()).collect();
    assert_eq!(loo.len(), 3);
    for (e, w) in loo.iter().zip(want_loo) {
        assert!((e - w).abs() < 1e-6, "{loo:?} vs {want_loo:?}");
    }
    let m = c.loo.median_abs.unwrap_or(f64::NAN);
    assert!((m - (1.0 / g / 2.0 - 1.0)).abs() < 1e-6, "median {m}");
    assert!((c.loo.worst_abs.unwrap_or(f64::NAN) - 0.2).abs() < 1e-6);
}

#[test]
fn the_catalog_panels_one_run_simd_is_the_rate_factor_folded_in() {
    // Two stand-alone runs of one CPU measured alike (2.5× the published
    // time): the fitted rate fraction times the published SIMD is the
    // effective SIMD the catalog panel calibrates from one run.
    let s = one_cpu(&[(2, 5.0), (4, 10.0)]);
    let c = calibrate_model(&s, zeng(), &only_rate()).unwrap_or_else(|e| panic!("{e}"));
    let f = factor(&c, "rate:cpu").value;
    let mut alone = s.clone();
    alone.calibration.set("zeng", BTreeMap::new());
    let (_, net) = network_figures(&alone);
    let simd = calibrate_simd(&net, 1e9, 4, 10.0).unwrap_or(f64::NAN);
    assert!((f * 1.0 / simd - 1.0).abs() < 1e-6, "{f} vs {simd}");
}

#[test]
fn a_factor_the_runs_cannot_show_is_left_as_published() {
    // Zeng's Table 6-7 cluster: the GTX 1060's gradient is always ready
    // before the link frees up, so its rate never shows.
    let s = scenario(VGG16);
    let c = calibrate_model(&s, zeng(), &FitOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let gtx = factor(&c, &format!("rate:{GTX}"));
    let Status::NotFitted { why } = &gtx.status else {
        panic!("{:?}", gtx.status);
    };
    assert!(why.contains("ready before the PS link frees up"), "{why}");
    assert_eq!(gtx.value, 1.0);
    assert!(factor(&c, "link").status.fitted());
    let out = with_factors(&s, &[(zeng(), Ok(c.clone()))]);
    let stored = out.calibration.of("zeng").cloned().unwrap_or_default();
    assert!(!stored.contains_key(&format!("rate:{GTX}")), "{stored:?}");
    assert!(stored.contains_key("link"), "{stored:?}");
    // The report says it, at the factor.
    let r = ddnn_planner::calibration::report::build(&[(zeng(), Ok(c))], "VGG-16");
    assert!(
        r.notes
            .iter()
            .any(|n| n.text.contains("cannot be fitted from these runs")
                && n.field.as_deref() == Some("calibration.zeng.rate:GeForce GTX 1060 6GB")),
        "{:?}",
        r.notes
    );
}

#[test]
fn a_factor_at_its_bound_says_so() {
    // Measured 100× the published time: the rate fraction would be 0.01,
    // below its bound 0.05.
    let s = one_cpu(&[(1, 100.0), (2, 200.0), (4, 400.0)]);
    let c = calibrate_model(&s, zeng(), &only_rate()).unwrap_or_else(|e| panic!("{e}"));
    let f = factor(&c, "rate:cpu");
    assert_eq!(f.status, Status::AtLower);
    assert_eq!(f.value, 0.05);
    let r = ddnn_planner::calibration::report::build(&[(zeng(), Ok(c))], "by hand");
    assert!(
        r.notes
            .iter()
            .any(|n| n.text.contains("hit its lower bound")),
        "{:?}",
        r.notes
    );
}

#[test]
fn bad_input_leaves_the_factors_as_published() {
    let mut s = scenario(VGG16);
    s.runs.truncate(1);
    let results = calibrate(&s, &[zeng()], &FitOptions::default());
    let Err(e) = &results[0].1 else {
        panic!("{:?}", results[0].1);
    };
    assert!(matches!(
        e,
        CalibrationError::TooFewRuns { predicted: 1, .. }
    ));
    assert!(e.to_string().contains("needs at least 2 runs"), "{e}");
    assert!(with_factors(&s, &results).calibration.is_empty());

    // The same cluster measured 28.66 s and 14 s: contradictory.
    let mut s = scenario(VGG16);
    let mut twin = s.runs[1].clone();
    twin.label = "T6 again".into();
    twin.iteration_s = Some(14.0);
    s.runs.push(twin);
    let results = calibrate(&s, &[zeng()], &FitOptions::default());
    let Err(e) = &results[0].1 else {
        panic!("{:?}", results[0].1);
    };
    assert!(matches!(e, CalibrationError::Contradictory { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("'T6 1 GbE bs 32' and 'T6 again'") && text.contains("contradict"),
        "{text}"
    );
    assert!(with_factors(&s, &results).calibration.is_empty());

    // An earlier calibration stays when a new one fails.
    let mut kept = s.clone();
    kept.calibration
        .set("zeng", [("link".to_string(), 0.9)].into());
    assert_eq!(with_factors(&kept, &results).calibration, kept.calibration);

    // A factor that is not Zeng's, or out of bounds, is refused at it.
    let mut bad = scenario(VGG16);
    bad.calibration.set(
        "zeng",
        [("link".to_string(), 3.0), ("speed".to_string(), 1.0)].into(),
    );
    let errs = ddnn_planner::models::validate_for(zeng(), &bad);
    assert!(
        errs.iter().any(|e| e.field == "calibration.zeng.link"),
        "{errs:?}"
    );
    assert!(
        errs.iter().any(|e| e.field == "calibration.zeng.speed"),
        "{errs:?}"
    );
}

#[test]
fn the_factors_apply_to_the_report_and_travel_by_json_and_link() {
    let s = scenario(VGG16);
    let c = calibrate_model(&s, zeng(), &FitOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let cal = with_factors(&s, &[(zeng(), Ok(c.clone()))]);
    // The report's iteration time is the calibrated prediction of its cluster.
    let iteration = |s: &Scenario| {
        let r = evaluate(zeng(), s).unwrap_or_else(|e| panic!("{e:?}"));
        match r
            .headline
            .iter()
            .find(|f| f.key == "iteration-time")
            .map(|f| &f.value)
        {
            Some(Value::Number { value, .. }) => *value,
            other => panic!("{other:?}"),
        }
    };
    let as_run = Run {
        label: "the cluster".into(),
        workers: cal.hardware.cluster.workers.clone(),
        ps: None,
        iteration_s: Some(1.0),
        throughput: None,
        source: String::new(),
        published: None,
        lacks: None,
    };
    assert_eq!(iteration(&cal), predicted(&cal, &as_run));
    assert!(
        iteration(&cal) > iteration(&s),
        "calibrated: slower than published"
    );
    let r = evaluate(zeng(), &cal).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(r
        .notes
        .iter()
        .any(|n| n.text.contains("Calibrated on measured runs")));
    // Applied factors: the link fraction is read back as stored.
    assert_eq!(factors::applied(&cal).link, factor(&c, "link").value);
    // Each calibrated figure carries the published one beside it; as
    // published, none does.
    let time = r
        .headline
        .iter()
        .find(|f| f.key == "iteration-time")
        .unwrap_or_else(|| panic!("no iteration time"));
    assert_eq!(
        time.published.as_ref().and_then(Value::number),
        Some(iteration(&s)),
        "as published beside the calibrated {:?}",
        time.value
    );
    let plain = evaluate(zeng(), &s).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(plain.headline.iter().all(|f| f.published.is_none()));

    let json = cal.to_json();
    assert!(json.contains("\"calibration\""), "{json}");
    let back = from_json(&json).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, cal);
    assert_eq!(back.to_json(), json);
    let link = encode_share(&cal).unwrap_or_else(|e| panic!("{e}"));
    let opened = decode_fragment(&link).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(opened.calibration, cal.calibration);
    assert_eq!(iteration(&opened), iteration(&cal));
}

#[test]
fn scenarios_without_factors_keep_their_bytes() {
    for (net, text) in SETS {
        let s = scenario(text);
        assert!(s.calibration.is_empty(), "{net}");
        let json = s.to_json();
        assert!(!json.contains("calibration"), "{net}");
        // A model with no factors left is absent too.
        let mut empty = s.clone();
        empty.calibration.set("zeng", BTreeMap::new());
        assert_eq!(empty.to_json(), json, "{net}");
        assert_eq!(
            encode_share(&empty).ok(),
            encode_share(&s).ok(),
            "{net}: the link"
        );
    }
}

#[test]
fn showcase_leave_one_out_on_the_papers_tables_6_and_7() {
    // Each set: 4 runs (1 and 10 GbE, bs 16 and 32). Calibrated on three,
    // the fourth predicted: the median |error| falls below the paper's
    // (as published) on every set. Figures in docs/scenario.md.
    for (net, text) in SETS {
        let s = scenario(text);
        let c = calibrate_model(&s, zeng(), &FitOptions::default())
            .unwrap_or_else(|e| panic!("{net}: {e}"));
        let (p, l) = (
            c.published.median_abs.unwrap_or(f64::NAN),
            c.loo.median_abs.unwrap_or(f64::NAN),
        );
        println!(
            "{net}: median |error| as published {:.1}%, calibrated {:.2}%, leave-one-out {:.1}% (worst {:.1}%)",
            p * 100.0,
            c.calibrated.median_abs.unwrap_or(f64::NAN) * 100.0,
            l * 100.0,
            c.loo.worst_abs.unwrap_or(f64::NAN) * 100.0
        );
        assert_eq!(c.loo.runs, 4, "{net}");
        assert!(l < p, "{net}: leave-one-out {l} not below as published {p}");
        assert!(l < 0.10, "{net}: leave-one-out median {l}");
    }
}

#[test]
fn the_prepared_predictor_gives_predict_runs_numbers() {
    // Every run of every shipped set, at the published values and at
    // factors away from them: the calibration's fast path and the model's
    // own prediction agree to the bit.
    let factor_sets: Vec<BTreeMap<String, f64>> = vec![
        BTreeMap::new(),
        [
            ("link", 0.61),
            ("latency_s", 0.2),
            ("rate:Quadro RTX 4000", 1.7),
            ("rate:GeForce GTX 1060 6GB", 0.3),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect(),
    ];
    for (net, text) in SETS {
        let s = scenario(text);
        for run in &s.runs {
            let rs = run_scenario(&s, run);
            let predict = zeng()
                .run_predictor(&rs)
                .unwrap_or_else(|| panic!("{net} {}: no predictor", run.label));
            for values in &factor_sets {
                let mut with = rs.clone();
                with.calibration.set("zeng", values.clone());
                let want = predicted(&with, run);
                let got = predict(values).and_then(|p| p.iteration_s);
                assert_eq!(got, Some(want), "{net} {} {values:?}", run.label);
            }
        }
    }
}

#[test]
fn fifty_runs_give_back_the_factors_they_were_generated_with() {
    use super::calibration_runs50::{scenario, TRUTH};
    let c = calibrate_model(&scenario(), zeng(), &FitOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    // The noise is a fixed pattern of −3% to +3% on each time: each
    // ratio within 5%, the latency within 10 ms.
    for (name, want) in TRUTH {
        let f = factor(&c, name);
        assert!(
            recovered(f, want, 0.05),
            "{name}: fitted {} ({:?}), generated with {want}",
            f.value,
            f.status
        );
    }
    // Out of sample within the noise.
    let loo = c.loo.worst_abs.unwrap_or(f64::NAN);
    assert!(loo <= 0.05, "worst leave-one-out |error| {loo}");
}

#[test]
fn more_runs_than_the_budget_are_refused_before_any_fit() {
    // 501 runs: 251,001 run-refits against the 250,000 a calibration
    // takes on; 500 are within it.
    let base = scenario(VGG16);
    let many = |n: usize| {
        let mut s = base.clone();
        s.runs = (0..n)
            .map(|i| Run {
                label: format!("run {i}"),
                ..base.runs[i % base.runs.len()].clone()
            })
            .collect();
        s
    };
    let Err(CalibrationError::OverBudget { message }) =
        calibrate_model(&many(501), zeng(), &FitOptions::default())
    else {
        panic!("501 runs were not refused");
    };
    assert!(
        message.contains("251,001 run-refits") && message.contains("reduce the number of runs"),
        "{message}"
    );
    assert!(ddnn_planner::calibration::fit::work(&many(500)).fits());
}
