#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Cynthia's loss model: Eq. 1, the fit of β0, β1 on 1/loss, the iteration
// counts of Eq. 15 and 20, and the profile and loss-curve importers.

use ddnn_planner::workload::loss_fit::{
    fit_loss, iterations_to_loss, loss_at, FitError, MAX_ITERATIONS,
};
use ddnn_planner::workload::profile::{LossCurve, LossParams, Profile, SyncMode};
use ddnn_planner::workload::profile_io::{
    parse_loss_curve, parse_profile_json, validate_profile, MAX_INPUT_BYTES, MAX_LOSS_POINTS,
};
use ddnn_planner::workload::profile_presets::{profile_preset, profile_presets};

const MNIST_PROFILE: &str = include_str!("../../public/examples/mnist-profile.json");
const RESNET_CURVE: &str = include_str!("../../public/examples/resnet32-asp-loss.csv");

fn params(beta0: f64, beta1: f64) -> LossParams {
    LossParams { beta0, beta1 }
}

fn curve(sync: SyncMode, workers: u32, points: Vec<(f64, f64)>) -> LossCurve {
    LossCurve {
        points,
        workers,
        sync,
    }
}

fn synthetic(sync: SyncMode, p: &LossParams, n: u32, grid: &[f64]) -> LossCurve {
    let points = grid.iter().map(|&s| (s, loss_at(sync, p, s, n))).collect();
    curve(sync, n, points)
}

#[track_caller]
fn assert_rel(got: f64, want: f64, tol: f64) {
    let rel = ((got - want) / want).abs();
    assert!(
        rel <= tol,
        "got {got}, want {want} (relative error {rel:e} > {tol:e})"
    );
}

/// Deterministic multiplicative noise in [−amp, +amp].
fn noisy(mut c: LossCurve, amp: f64) -> LossCurve {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for p in &mut c.points {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let u = (state >> 11) as f64 / (1u64 << 53) as f64;
        p.1 *= 1.0 + amp * (2.0 * u - 1.0);
    }
    c
}

fn fit_err(c: &LossCurve) -> FitError {
    match fit_loss(c) {
        Ok(f) => panic!("expected an error, got {f:?}"),
        Err(e) => e,
    }
}

fn three(points: [(f64, f64); 3]) -> LossCurve {
    curve(SyncMode::Bsp, 1, points.to_vec())
}

// ---- Eq. 1 ----

#[test]
fn loss_at_follows_eq1() {
    let p = params(100.0, 10.0);
    assert_eq!(loss_at(SyncMode::Bsp, &p, 0.0, 7), 10.0);
    assert_eq!(loss_at(SyncMode::Bsp, &p, 190.0, 7), 0.5);
    // ASP: β0·√n/(s + β1) with n = 4 → 200/(s + 10).
    assert_eq!(loss_at(SyncMode::Asp, &p, 390.0, 4), 0.5);
    assert_eq!(loss_at(SyncMode::Asp, &p, 0.0, 1), 10.0);
}

// ---- Fit ----

#[test]
fn fit_recovers_bsp_noiseless() {
    let p = params(500.0, 40.0);
    let grid: Vec<f64> = (0..=50).map(|i| f64::from(i) * 100.0).collect();
    let fit = fit_loss(&synthetic(SyncMode::Bsp, &p, 1, &grid)).unwrap();
    assert_rel(fit.params.beta0, 500.0, 1e-9);
    assert_rel(fit.params.beta1, 40.0, 1e-9);
    assert!(
        (fit.r_squared - 1.0).abs() < 1e-12,
        "R² = {}",
        fit.r_squared
    );
    assert_eq!(fit.points_used, 51);
    assert_eq!(fit.residuals.len(), 51);
    assert_eq!(fit.residuals[3].0, 300.0);
    assert!(fit.residuals.iter().all(|r| r.1.abs() < 1e-12));
}

#[test]
fn fit_bsp_ignores_workers() {
    let p = params(230.0, 100.0);
    let grid = [0.0, 500.0, 1000.0, 4000.0, 10_000.0];
    let mut c = synthetic(SyncMode::Bsp, &p, 1, &grid);
    c.workers = 16;
    let fit = fit_loss(&c).unwrap();
    assert_rel(fit.params.beta0, 230.0, 1e-9);
    assert_rel(fit.params.beta1, 100.0, 1e-9);
}

#[test]
fn fit_recovers_asp_noiseless() {
    let p = params(2000.0, 1000.0);
    // An uneven grid, in no particular order, with a repeated iteration.
    let grid = [
        3000.0, 100.0, 250.0, 250.0, 800.0, 1200.0, 40.0, 2200.0, 5000.0,
    ];
    for n in [1, 2, 4, 9, 16] {
        let fit = fit_loss(&synthetic(SyncMode::Asp, &p, n, &grid)).unwrap();
        assert_rel(fit.params.beta0, 2000.0, 1e-9);
        assert_rel(fit.params.beta1, 1000.0, 1e-9);
        assert!((fit.r_squared - 1.0).abs() < 1e-12);
        assert_eq!(fit.points_used, grid.len());
    }
}

#[test]
fn fit_asp_needs_the_right_n() {
    // Fitted as if from one worker, a 4-worker curve gives β0·√4.
    let p = params(2000.0, 1000.0);
    let grid = [0.0, 1000.0, 2000.0, 3000.0];
    let mut c = synthetic(SyncMode::Asp, &p, 4, &grid);
    c.workers = 1;
    let fit = fit_loss(&c).unwrap();
    assert_rel(fit.params.beta0, 4000.0, 1e-9);
    assert_rel(fit.params.beta1, 1000.0, 1e-9);
}

#[test]
fn fit_recovers_negative_beta1_when_no_pole() {
    let p = params(300.0, -50.0);
    let grid = [100.0, 200.0, 400.0, 800.0];
    let fit = fit_loss(&synthetic(SyncMode::Bsp, &p, 1, &grid)).unwrap();
    assert_rel(fit.params.beta0, 300.0, 1e-9);
    assert_rel(fit.params.beta1, -50.0, 1e-9);
}

#[test]
fn fit_noisy_curves_give_r2_below_one() {
    let grid: Vec<f64> = (1..=80).map(|i| f64::from(i) * 50.0).collect();
    for (sync, n) in [(SyncMode::Bsp, 1), (SyncMode::Asp, 4)] {
        let p = params(7360.0, 3200.0);
        let c = noisy(synthetic(sync, &p, n, &grid), 0.05);
        let fit = fit_loss(&c).unwrap();
        assert!(fit.r_squared < 1.0, "{sync:?}: R² = {}", fit.r_squared);
        assert!(fit.r_squared > 0.5, "{sync:?}: R² = {}", fit.r_squared);
        assert_rel(fit.params.beta0, 7360.0, 0.15);
        assert_rel(fit.params.beta1, 3200.0, 0.15);
        // Residuals are measured − predicted on the loss scale.
        for ((s, r), (s2, l)) in fit.residuals.iter().zip(&c.points) {
            assert_eq!(s, s2);
            let predicted = loss_at(sync, &fit.params, *s, n);
            assert!((r - (l - predicted)).abs() < 1e-15);
        }
        // R² from those residuals.
        let mean = c.points.iter().map(|p| p.1).sum::<f64>() / c.points.len() as f64;
        let ss_tot: f64 = c.points.iter().map(|p| (p.1 - mean).powi(2)).sum();
        let ss_res: f64 = fit.residuals.iter().map(|r| r.1 * r.1).sum();
        assert!((fit.r_squared - (1.0 - ss_res / ss_tot)).abs() < 1e-12);
    }
}

#[test]
fn fit_shipped_synthetic_curve() {
    let c = parse_loss_curve(RESNET_CURVE, SyncMode::Asp, 2).unwrap();
    assert_eq!(c.points.len(), 79);
    assert_eq!(c.points[0], (100.0, 2.5283));
    let fit = fit_loss(&c).unwrap();
    // Generated from β0 = 2000, β1 = 1000, n = 2 with ±3% noise.
    assert_rel(fit.params.beta0, 2000.0, 0.05);
    assert_rel(fit.params.beta1, 1000.0, 0.1);
    assert!(
        fit.r_squared > 0.98 && fit.r_squared < 1.0,
        "R² = {}",
        fit.r_squared
    );
}

#[test]
fn fit_error_too_few_points() {
    let c = curve(SyncMode::Bsp, 1, vec![(0.0, 2.0), (10.0, 1.0)]);
    assert_eq!(fit_err(&c), FitError::TooFewPoints { found: 2 });
    assert!(fit_err(&c).to_string().contains("at least 3 points"));
    let empty = curve(SyncMode::Bsp, 1, vec![]);
    assert_eq!(fit_err(&empty), FitError::TooFewPoints { found: 0 });
}

#[test]
fn fit_error_bad_loss() {
    for bad in [0.0, -1.0, f64::INFINITY, 1e-320] {
        let e = fit_err(&three([(0.0, 2.0), (10.0, bad), (20.0, 1.0)]));
        assert_eq!(
            e,
            FitError::BadLoss {
                point: 2,
                iteration: 10.0,
                loss: bad
            }
        );
        let text = e.to_string();
        assert!(text.contains("point 2 (iteration 10)"), "{text}");
    }
    let e = fit_err(&three([(0.0, 2.0), (10.0, 1.0), (20.0, f64::NAN)]));
    assert!(matches!(e, FitError::BadLoss { point: 3, .. }), "{e:?}");
}

#[test]
fn fit_error_iterations() {
    let e = fit_err(&three([(0.0, 2.0), (-5.0, 1.5), (20.0, 1.0)]));
    assert_eq!(
        e,
        FitError::NegativeIteration {
            point: 2,
            iteration: -5.0
        }
    );
    assert!(e.to_string().contains("negative"));
    let e = fit_err(&three([(f64::INFINITY, 2.0), (5.0, 1.5), (20.0, 1.0)]));
    assert!(matches!(e, FitError::NonFiniteIteration { point: 1, .. }));
    let e = fit_err(&three([(7.0, 2.0), (7.0, 1.5), (7.0, 1.0)]));
    assert_eq!(
        e,
        FitError::SameIteration {
            count: 3,
            iteration: 7.0
        }
    );
    assert!(e.to_string().contains("two different iterations"));
}

#[test]
fn fit_error_not_decreasing() {
    let rising = fit_err(&three([(0.0, 1.0), (10.0, 1.5), (20.0, 2.0)]));
    assert!(matches!(rising, FitError::NotDecreasing { slope } if slope < 0.0));
    assert!(rising.to_string().contains("does not decrease"));
    let flat = fit_err(&three([(0.0, 0.1), (10.0, 0.1), (20.0, 0.1)]));
    assert_eq!(flat, FitError::NotDecreasing { slope: 0.0 });
}

#[test]
fn fit_error_asp_without_workers() {
    let p = params(2000.0, 1000.0);
    let mut c = synthetic(SyncMode::Asp, &p, 4, &[0.0, 10.0, 20.0]);
    c.workers = 0;
    assert_eq!(fit_err(&c), FitError::NoWorkers);
    assert!(fit_err(&c).to_string().contains("workers = 0"));
}

#[test]
fn fit_error_pole_in_range() {
    // A plateau, then a fast drop: 1/loss is convex, and the fitted line
    // crosses zero at s ≈ 40, after the first point.
    let c = curve(
        SyncMode::Bsp,
        1,
        vec![
            (0.0, 2.3),
            (100.0, 2.2),
            (200.0, 1.5),
            (300.0, 0.5),
            (400.0, 0.2),
        ],
    );
    let e = fit_err(&c);
    assert!(
        matches!(e, FitError::PoleInRange { iteration, beta1, .. } if iteration == 0.0 && beta1 <= 0.0),
        "{e:?}"
    );
    assert!(e.to_string().contains("drop the first points"));
}

#[test]
fn fit_error_degenerate() {
    let c = three([(0.0, 3e300), (5e299, 2e300), (1e300, 1e300)]);
    assert_eq!(fit_err(&c), FitError::Degenerate);
}

// ---- Iterations to a goal loss ----

#[test]
fn iterations_bsp_hand_worked() {
    let p = params(100.0, 10.0);
    // 100/0.5 − 10 = 190 exactly.
    assert_eq!(iterations_to_loss(SyncMode::Bsp, &p, 0.5, 1), Ok(190));
    // 100/0.3 − 10 = 323.33… → 324.
    assert_eq!(iterations_to_loss(SyncMode::Bsp, &p, 0.3, 1), Ok(324));
    // BSP ignores the worker count.
    assert_eq!(iterations_to_loss(SyncMode::Bsp, &p, 0.3, 64), Ok(324));
    // 100/9.99 − 10 = 0.01… → one iteration.
    assert_eq!(iterations_to_loss(SyncMode::Bsp, &p, 9.99, 1), Ok(1));
    // Negative β1 is allowed: 100/0.5 + 5.
    assert_eq!(
        iterations_to_loss(SyncMode::Bsp, &params(100.0, -5.0), 0.5, 1),
        Ok(205)
    );
    // 0.1 is not exact in binary: 230/0.1 − 100 still gives 2200.
    assert_eq!(
        iterations_to_loss(SyncMode::Bsp, &params(230.0, 100.0), 0.1, 1),
        Ok(2200)
    );
}

#[test]
fn iterations_asp_per_worker_hand_worked() {
    let p = params(100.0, 10.0);
    // n = 4: 100/(0.5·2) − 10/4 = 97.5 → 98 per worker.
    assert_eq!(iterations_to_loss(SyncMode::Asp, &p, 0.5, 4), Ok(98));
    // n = 1: same as BSP.
    assert_eq!(iterations_to_loss(SyncMode::Asp, &p, 0.5, 1), Ok(190));
    // n = 16: 100/(0.25·4) − 10/16 = 99.375 → 100.
    assert_eq!(iterations_to_loss(SyncMode::Asp, &p, 0.25, 16), Ok(100));
    // Per worker: n·s global steps reach the goal, n·(s − 1) do not.
    for n in [2u32, 3, 5, 8, 13] {
        let s = iterations_to_loss(SyncMode::Asp, &p, 0.4, n).unwrap() as f64;
        let nf = f64::from(n);
        assert!(loss_at(SyncMode::Asp, &p, s * nf, n) <= 0.4);
        assert!(loss_at(SyncMode::Asp, &p, (s - 1.0) * nf, n) > 0.4);
    }
}

#[test]
fn iterations_errors() {
    let p = params(100.0, 10.0);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let e = iterations_to_loss(SyncMode::Bsp, &p, bad, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("goal loss l_g"), "{e}");
    }
    for bad in [0.0, -3.0, f64::NAN] {
        let e = iterations_to_loss(SyncMode::Bsp, &params(bad, 10.0), 0.5, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("β0"), "{e}");
    }
    let e = iterations_to_loss(SyncMode::Bsp, &params(100.0, f64::NAN), 0.5, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("β1"), "{e}");
    // The curve starts at β0/β1 = 10: goals at or above it are refused.
    for goal in [10.0, 20.0] {
        let e = iterations_to_loss(SyncMode::Bsp, &p, goal, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("already reached at s = 0"), "{e}");
        assert!(e.contains("β0/β1 = 10"), "{e}");
    }
    assert_eq!(
        iterations_to_loss(SyncMode::Bsp, &p, 20.0, 1)
            .unwrap_err()
            .to_string(),
        "the goal loss l_g = 20 is already reached at s = 0: the curve starts at β0/β1 = 10; \
         a goal at or above the initial loss is probably a mistake (check l_g, β0 and β1)"
    );
    // ASP with n = 4 starts at 100·2/10 = 20.
    let e = iterations_to_loss(SyncMode::Asp, &p, 25.0, 4)
        .unwrap_err()
        .to_string();
    assert!(e.contains("β0·√n/β1 = 20 for n = 4"), "{e}");
    assert!(iterations_to_loss(SyncMode::Asp, &p, 15.0, 4).is_ok());
    let e = iterations_to_loss(SyncMode::Asp, &p, 0.5, 0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("n_wk = 0"), "{e}");
    // 100/1e-14 = 1e16 iterations.
    let e = iterations_to_loss(SyncMode::Bsp, &p, 1e-14, 1)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "the goal loss l_g = 0.00000000000001 is below what the loss curve reaches in any \
         sensible time: it needs about 1.000e16 iterations (more than 1e15)"
    );
    assert_eq!(
        iterations_to_loss(SyncMode::Bsp, &params(MAX_ITERATIONS, 0.0), 1.0, 1),
        Ok(1_000_000_000_000_000)
    );
}

// ---- Loss curve import ----

fn parse_err(text: &str) -> String {
    match parse_loss_curve(text, SyncMode::Bsp, 1) {
        Ok(c) => panic!("expected an error, got {c:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn csv_with_header_and_comments() {
    let text = "# a comment\n\niteration,loss\n0,2.3\n100, 1.5\n\n# mid comment\n200,1.0\n";
    let c = parse_loss_curve(text, SyncMode::Asp, 4).unwrap();
    assert_eq!(c.points, vec![(0.0, 2.3), (100.0, 1.5), (200.0, 1.0)]);
    assert_eq!(c.sync, SyncMode::Asp);
    assert_eq!(c.workers, 4);
}

#[test]
fn csv_aliases_and_delimiters() {
    // TensorBoard's scalar export, quoted, with an extra column first.
    let tb = "\u{feff}\"Wall time\",\"Step\",\"Value\"\n1.5e9,10,2.0\n1.5e9,20,1.0\n";
    let c = parse_loss_curve(tb, SyncMode::Bsp, 1).unwrap();
    assert_eq!(c.points, vec![(10.0, 2.0), (20.0, 1.0)]);
    let tsv = "s\tloss\n1\t2\n2\t1\n";
    assert_eq!(
        parse_loss_curve(tsv, SyncMode::Bsp, 1).unwrap().points,
        vec![(1.0, 2.0), (2.0, 1.0)]
    );
    let semi = "STEP;Loss\n1;2\r\n2;1\r\n";
    assert_eq!(
        parse_loss_curve(semi, SyncMode::Bsp, 1).unwrap().points,
        vec![(1.0, 2.0), (2.0, 1.0)]
    );
    let spaces = "step   value\n1  2\n2\t 1\n";
    assert_eq!(
        parse_loss_curve(spaces, SyncMode::Bsp, 1).unwrap().points,
        vec![(1.0, 2.0), (2.0, 1.0)]
    );
    // Columns in any order.
    let swapped = "loss,iteration\n2,1\n1,2\n";
    assert_eq!(
        parse_loss_curve(swapped, SyncMode::Bsp, 1).unwrap().points,
        vec![(1.0, 2.0), (2.0, 1.0)]
    );
}

#[test]
fn csv_errors_name_the_line() {
    assert!(parse_err("").contains("empty"));
    assert!(parse_err("# only\n# comments\n").contains("only comments"));
    let e = parse_err("0,2.3\n1,2.0\n");
    assert!(e.contains("line 1") && e.contains("header row"), "{e}");
    let e = parse_err("wall,time\n1,2\n");
    assert!(
        e.contains("line 1") && e.contains("iteration column"),
        "{e}"
    );
    let e = parse_err("step,iteration,loss\n1,1,2\n");
    assert!(e.contains("line 1") && e.contains("keep one"), "{e}");
    let e = parse_err("# c\nstep,loss\n1,2\n2,abc\n");
    assert!(
        e.contains("line 4, column loss: 'abc' is not a number"),
        "{e}"
    );
    let e = parse_err("step,loss\n1,2\n2\n");
    assert!(e.contains("line 3, column loss: no value"), "{e}");
    let e = parse_err("step,loss\n1,2\n2,\n");
    assert!(e.contains("line 3, column loss: no value"), "{e}");
    let e = parse_err("step,loss\n1,2\n\n2,-1\n");
    assert!(
        e.contains("line 4") && e.contains("loss must be a positive"),
        "{e}"
    );
    let e = parse_err("step,loss\n1,2\n2,0\n");
    assert!(
        e.contains("line 3") && e.contains("loss must be a positive"),
        "{e}"
    );
    let e = parse_err("step,loss\n1,2\n2,NaN\n");
    assert!(
        e.contains("line 3") && e.contains("loss must be a positive"),
        "{e}"
    );
    let e = parse_err("Step,Value\n-1,2\n");
    assert!(
        e.contains("line 2") && e.contains("iteration must be"),
        "{e}"
    );
    let e = parse_err("step,loss\n");
    assert!(e.contains("no points"), "{e}");
    let e = parse_loss_curve("step,loss\n1,2\n", SyncMode::Asp, 0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("workers"), "{e}");
}

#[test]
fn csv_size_and_point_limits() {
    let big = "x".repeat(MAX_INPUT_BYTES + 1);
    assert!(parse_err(&big).contains("5 MiB"));
    let mut text = String::from("s,loss\n");
    for _ in 0..=MAX_LOSS_POINTS {
        text.push_str("1,1\n");
    }
    assert!(text.len() <= MAX_INPUT_BYTES);
    let e = parse_err(&text);
    assert!(
        e.contains(&format!("line {}", MAX_LOSS_POINTS + 2)) && e.contains("more than"),
        "{e}"
    );
}

#[test]
fn json_curves() {
    let pairs = "[[0, 2.3], [100, 1.5], [200, 1.0]]";
    let c = parse_loss_curve(pairs, SyncMode::Bsp, 1).unwrap();
    assert_eq!(c.points, vec![(0.0, 2.3), (100.0, 1.5), (200.0, 1.0)]);
    let objects = r#"[{"iteration": 0, "loss": 2.3}, {"step": 100, "value": 1.5, "wall_time": 3}]"#;
    let c = parse_loss_curve(objects, SyncMode::Bsp, 1).unwrap();
    assert_eq!(c.points, vec![(0.0, 2.3), (100.0, 1.5)]);
    // The file's own sync and workers describe the run and win.
    let doc = r#"{"name": "run 7", "points": [[0, 2.3], [50, 1.9]], "workers": 8, "sync": "ASP"}"#;
    let c = parse_loss_curve(doc, SyncMode::Bsp, 1).unwrap();
    assert_eq!(c.sync, SyncMode::Asp);
    assert_eq!(c.workers, 8);
    assert_eq!(c.points.len(), 2);
    let partial = r#"{"points": [[0, 2.3], [50, 1.9]]}"#;
    let c = parse_loss_curve(partial, SyncMode::Asp, 3).unwrap();
    assert_eq!((c.sync, c.workers), (SyncMode::Asp, 3));
    // A serialised LossCurve reads back unchanged.
    let original = curve(SyncMode::Asp, 5, vec![(0.0, 3.0), (10.0, 2.5), (30.0, 2.0)]);
    let json = serde_json::to_string(&original).unwrap();
    assert_eq!(parse_loss_curve(&json, SyncMode::Bsp, 1).unwrap(), original);
}

#[test]
fn json_curve_errors_name_the_line() {
    let e = parse_err("[[0, 2.3],\n [1, 2.0],\n [2, -1]\n]");
    assert!(e.contains("JSON, line 3") && e.contains("point 3"), "{e}");
    assert!(e.contains("loss must be a positive"), "{e}");
    let e = parse_err("[[0, 2.3],\n [1, 2.0, 5]]");
    assert!(
        e.contains("line 2") && e.contains("more than two numbers"),
        "{e}"
    );
    let e = parse_err("[[0, 2.3],\n [1]]");
    assert!(e.contains("line 2") && e.contains("two numbers"), "{e}");
    let e = parse_err("[\n{\"iteration\": 1}\n]");
    assert!(e.contains("line 2") && e.contains("loss"), "{e}");
    let e = parse_err("[{\"step\": 1, \"iteration\": 2, \"loss\": 1}]");
    assert!(e.contains("twice"), "{e}");
    let e = parse_err("[[0, 2.3],\n [1, 2.0]\n");
    assert!(e.contains("JSON, line"), "{e}");
    let e = parse_err("{\"workers\": 2}");
    assert!(e.contains("\"points\""), "{e}");
    let e = parse_err("{\"points\": [[0, 1]], \"sync\": \"ssp\"}");
    assert!(e.contains("'ssp' is not a sync mode"), "{e}");
    let e = parse_err("{\"points\": [[0, 1]], \"workers\": -2}");
    assert!(e.contains("JSON, line 1"), "{e}");
    let e = parse_err("{\"points\": [[0, 1]], \"workers\": 0, \"sync\": \"asp\"}");
    assert!(e.contains("workers"), "{e}");
    let e = parse_err("[]");
    assert!(e.contains("no points"), "{e}");
    let e = parse_err("[null]");
    assert!(e.contains("JSON, line 1"), "{e}");
}

// ---- Profile import ----

fn profile_err(text: &str) -> String {
    match parse_profile_json(text) {
        Ok(p) => panic!("expected an error, got {p:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn profile_struct_form_round_trips() {
    for (id, p) in profile_presets() {
        let json = serde_json::to_string_pretty(&p).unwrap();
        assert_eq!(parse_profile_json(&json).unwrap(), p, "{id}");
    }
}

#[test]
fn profile_units_form() {
    let p = parse_profile_json(MNIST_PROFILE).unwrap();
    let preset = profile_preset("mnist-dnn-bsp").unwrap();
    assert_eq!(p.name, preset.name);
    assert_eq!(p.sync, SyncMode::Bsp);
    assert_eq!(p.w_iter_flop, preset.w_iter_flop);
    assert_eq!(p.g_param_bytes, preset.g_param_bytes);
    assert_eq!(p.c_prof_flops, preset.c_prof_flops);
    assert_eq!(p.b_prof_bytes_per_s, preset.b_prof_bytes_per_s);
    assert_rel(p.c_base_flops, preset.c_base_flops, 1e-12);
    assert!(p.source.contains("Table 4"));
    validate_profile(&p).unwrap();

    let minimal = r#"{"sync": "asp", "w_iter_gflop": 1, "g_param_mb": 2, "c_prof_gflops": 0.5,
        "b_prof_mb_per_s": 3, "c_base_gflops": 4}"#;
    let p = parse_profile_json(minimal).unwrap();
    assert_eq!(
        p,
        Profile {
            name: "imported profile".into(),
            sync: SyncMode::Asp,
            w_iter_flop: 1e9,
            g_param_bytes: 2e6,
            c_prof_flops: 0.5e9,
            b_prof_bytes_per_s: 3e6,
            c_base_flops: 4e9,
            source: String::new(),
        }
    );
}

#[test]
fn profile_errors_name_the_field() {
    let good = r#""sync": "bsp", "w_iter_gflop": 1, "g_param_mb": 2, "c_prof_gflops": 0.5, "b_prof_mb_per_s": 3"#;
    let e = profile_err(&format!("{{{good}}}"));
    assert!(e.contains("missing field \"c_base_gflops\""), "{e}");
    let e = profile_err(&format!("{{{good}, \"c_base_gflops\": 0}}"));
    assert!(
        e.contains("\"c_base_gflops\"") && e.contains("positive"),
        "{e}"
    );
    let e = profile_err(&format!("{{{good}, \"c_base_gflops\": -4}}"));
    assert!(e.contains("\"c_base_gflops\"") && e.contains("-4"), "{e}");
    let e = profile_err(&format!("{{{good}, \"c_base_gflops\": \"4\"}}"));
    assert!(
        e.contains("\"c_base_gflops\": expected a number, got a string"),
        "{e}"
    );
    let e = profile_err(&format!("{{{good}, \"c_base_gflops\": 1e300}}"));
    assert!(
        e.contains("\"c_base_gflops\"") && e.contains("too large"),
        "{e}"
    );
    let e = profile_err(&format!("{{{good}, \"c_base_gflop\": 4}}"));
    assert!(e.contains("unknown field \"c_base_gflop\""), "{e}");
    let e = profile_err(&format!("{{{good}, \"c_base_flops\": 4e9}}"));
    assert!(e.contains("mixes"), "{e}");
    let e = profile_err(&format!(
        "{{{}, \"c_base_gflops\": 4}}",
        good.replace("bsp", "ssp")
    ));
    assert!(e.contains("field \"sync\"") && e.contains("'ssp'"), "{e}");
    let e = profile_err(&format!(
        "{{{}, \"c_base_gflops\": 4}}",
        good.replace("\"sync\": \"bsp\", ", "")
    ));
    assert!(e.contains("missing field \"sync\""), "{e}");
    let e = profile_err(r#"{"name": 3, "sync": "bsp", "w_iter_flop": 1}"#);
    assert!(e.contains("field \"name\": expected a string"), "{e}");
    let e = profile_err(
        r#"{"sync": "bsp", "w_iter_flop": 1, "g_param_bytes": 1, "c_prof_flops": 1,
            "b_prof_bytes_per_s": 0, "c_base_flops": 1}"#,
    );
    assert!(e.contains("\"b_prof_bytes_per_s\""), "{e}");
    assert!(profile_err("{\"name\": \"x\"}").contains("none of the expected fields"));
    assert!(profile_err("[1, 2]").contains("JSON object"));
    assert!(profile_err("   ").contains("empty"));
    let e = profile_err("{\n\"sync\": \"bsp\",\n\"w_iter_gflop\": 1,,\n}");
    assert!(e.contains("JSON, line 3"), "{e}");
    let big = format!("{{\"name\": \"{}\"}}", "x".repeat(MAX_INPUT_BYTES));
    assert!(profile_err(&big).contains("5 MiB"));
}

#[test]
fn validate_profile_names_the_field() {
    let mut p = profile_preset("vgg19-asp").unwrap();
    validate_profile(&p).unwrap();
    p.g_param_bytes = f64::NAN;
    let e = validate_profile(&p).unwrap_err().to_string();
    assert!(e.contains("\"g_param_bytes\""), "{e}");
}

/// A long measured curve is thinned to every k-th point (and the last)
/// before it goes into the scenario; a noiseless curve still fits exactly,
/// and the message says what was kept.
#[test]
fn a_long_curve_is_thinned_and_still_fits() {
    use ddnn_planner::scenario::files::{fit_loss_curve, MAX_KEPT_LOSS_POINTS};
    let mut csv = String::from("iteration,loss\n");
    for s in 0..25_001u32 {
        csv.push_str(&format!("{s},{}\n", 2000.0 / (f64::from(s) + 1000.0)));
    }
    let read = fit_loss_curve(&csv, SyncMode::Bsp, 1).expect("fits");
    let points = &read.curve.points;
    assert!(points.len() <= MAX_KEPT_LOSS_POINTS + 1, "{}", points.len());
    assert_eq!(points.first().map(|p| p.0), Some(0.0));
    assert_eq!(points.last().map(|p| p.0), Some(25_000.0));
    assert_eq!(points[1].0, 3.0, "every 3rd of 25,001 points");
    assert!(
        (read.params.beta0 - 2000.0).abs() < 1e-6 * 2000.0,
        "{:?}",
        read.params
    );
    assert!(
        (read.params.beta1 - 1000.0).abs() < 1e-6 * 1000.0,
        "{:?}",
        read.params
    );
    assert!(
        read.message
            .contains("(25,001 read; every 3rd kept, and the last)"),
        "{}",
        read.message
    );
    // A short curve is kept whole and says nothing of thinning.
    let short =
        fit_loss_curve("iteration,loss\n0,2\n1000,1\n3000,0.5\n", SyncMode::Bsp, 1).expect("fits");
    assert_eq!(short.curve.points.len(), 3);
    assert!(!short.message.contains("kept"), "{}", short.message);
}
