#![cfg(not(target_arch = "wasm32"))]
//! Property test: least squares on 1/loss recovers β0, β1 of Cynthia Eq. 1
//! from noiseless curves, for random coefficients and iteration grids.

use ddnn_planner::workload::loss_fit::{fit_loss, iterations_to_loss, loss_at};
use ddnn_planner::workload::profile::{LossCurve, LossParams, SyncMode};
use ddnn_planner::workload::profile_io::{parse_loss_curve, parse_profile_json};
use proptest::prelude::*;

fn sync() -> impl Strategy<Value = SyncMode> {
    prop_oneof![Just(SyncMode::Bsp), Just(SyncMode::Asp)]
}

/// Whole-number iterations (as logged), in any order, repeats allowed.
fn grid() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(0u32..=1_000_000, 3..60)
        .prop_map(|v| v.into_iter().map(f64::from).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..Default::default() })]

    #[test]
    fn fit_recovers_beta(
        sync in sync(),
        beta0 in 1e-2..1e6f64,
        beta1 in prop_oneof![Just(0.0), 0.0..1e5f64],
        workers in 1u32..256,
        grid in grid(),
    ) {
        let first = grid[0];
        prop_assume!(grid.iter().any(|&s| s != first));
        // Eq. 1 has a pole at s = −β1: keep it out of the grid.
        prop_assume!(grid.iter().all(|&s| s + beta1 > 0.0));
        let p = LossParams { beta0, beta1 };
        let points = grid.iter().map(|&s| (s, loss_at(sync, &p, s, workers))).collect();
        let curve = LossCurve { points, workers, sync };
        let fit = fit_loss(&curve).map_err(|e| TestCaseError::fail(e.to_string()))?;

        let rel0 = (fit.params.beta0 / beta0 - 1.0).abs();
        prop_assert!(rel0 < 1e-9, "β0 {} vs {} (rel {:e})", fit.params.beta0, beta0, rel0);
        // β1 is an offset on the iteration axis: its precision is bounded
        // by the iterations' own magnitude, not by β1's (which may be 0).
        let max_s = grid.iter().fold(0.0f64, |m, &s| m.max(s));
        let err1 = (fit.params.beta1 - beta1).abs();
        prop_assert!(
            err1 <= 1e-9 * (beta1 + max_s),
            "β1 {} vs {} (error {:e}, max s {})", fit.params.beta1, beta1, err1, max_s
        );
        prop_assert!((fit.r_squared - 1.0).abs() < 1e-9, "R² = {}", fit.r_squared);
        prop_assert_eq!(fit.points_used, grid.len());
    }

    /// The importers and the fit return errors, never panic, on any text
    /// built from the characters these formats use.
    #[test]
    fn importers_never_panic(
        text in "[\\[\\]{}\",:;\t\n #0-9.eE+-a-z_]{0,200}",
        sync in sync(),
        workers in 0u32..4,
        goal in -1.0..5.0f64,
    ) {
        let _ = parse_profile_json(&text);
        if let Ok(curve) = parse_loss_curve(&text, sync, workers) {
            if let Ok(fit) = fit_loss(&curve) {
                let _ = iterations_to_loss(sync, &fit.params, goal, workers);
            }
        }
    }

    /// Any points at all, including NaN, infinities and subnormals: an
    /// error or a finite fit, never a panic.
    #[test]
    fn fit_never_panics(
        points in prop::collection::vec((prop::num::f64::ANY, prop::num::f64::ANY), 0..8),
        sync in sync(),
        workers in 0u32..4,
    ) {
        if let Ok(fit) = fit_loss(&LossCurve { points, workers, sync }) {
            prop_assert!(fit.params.beta0.is_finite() && fit.params.beta0 > 0.0);
            prop_assert!(fit.params.beta1.is_finite());
            prop_assert!(fit.r_squared.is_finite());
        }
    }
}
