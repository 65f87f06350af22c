//! α and β fitted from measured (bytes, seconds) pairs: exact on a line,
//! least squares on noisy pairs, and clear messages for pairs that cannot
//! give a usable α and β. Tolerance 1e-9 relative.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::li::parse_fit::fit;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1e-15)
}

#[test]
fn pairs_on_a_line_give_its_slope_and_intercept() {
    // 2 ns/B and 1 ms: 1 MB → 3 ms, 4 MB → 9 ms, 8 MB → 17 ms.
    let f = fit("bytes, seconds\n1000000, 0.003\n4000000, 0.009\n# a comment\n8000000, 0.017\n")
        .expect("fits");
    assert!(close(f.alpha, 2e-9) && close(f.beta, 1e-3), "{f:?}");
    assert_eq!(f.pairs, 3);
    assert!(close(f.r_squared, 1.0));
}

#[test]
fn noisy_pairs_give_the_least_squares_line() {
    // x = 0, 1, 2 MB; y = 1, 3.2, 4.8 ms: slope = Σdx·dy / Σdx² with
    // mean x 1 MB, mean y 3 ms → (−1e6·−2e-3 + 1e6·1.8e-3) / 2e12 = 1.9e-9;
    // intercept 3e-3 − 1.9e-9·1e6 = 1.1e-3.
    let f = fit("0, 0.001\n1000000, 0.0032\n2000000, 0.0048").expect("fits");
    assert!(close(f.alpha, 1.9e-9) && close(f.beta, 1.1e-3), "{f:?}");
    assert!(f.r_squared < 1.0 && f.r_squared > 0.98);
}

#[test]
fn pairs_that_cannot_give_alpha_and_beta_are_named() {
    let one_size = fit("1000, 0.001\n1000, 0.002")
        .expect_err("one size")
        .to_string();
    assert!(one_size.contains("two different sizes"), "{one_size}");
    let falling = fit("1000, 0.005\n2000000, 0.001")
        .expect_err("falling")
        .to_string();
    assert!(falling.contains("falls as the size grows"), "{falling}");
    let below = fit("1000000, 0.001\n2000000, 0.003")
        .expect_err("β < 0")
        .to_string();
    assert!(
        below.contains("β") && below.contains("below zero"),
        "{below}"
    );
    let bad = fit("1000, 0.001\n2000, fast")
        .expect_err("not a number")
        .to_string();
    assert!(bad.starts_with("line 2:") && bad.contains("fast"), "{bad}");
    let negative = fit("1000, 0.001\n-5, 0.002")
        .expect_err("negative")
        .to_string();
    assert!(negative.starts_with("line 2:"), "{negative}");
    let huge = fit("0, 0\n1, 1").expect_err("α out of range").to_string();
    assert!(huge.contains("fitted α"), "{huge}");
}
