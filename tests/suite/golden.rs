//! Exact results of the shipped examples, bit for bit. The same file runs
//! natively and in headless Chromium (wasm32), so the two builds must agree
//! to the last bit, not just within a tolerance.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::zeng::evaluate_zeng;
use ddnn_planner::scenario::codec::encode_fragment;
use ddnn_planner::scenario::Scenario;

#[track_caller]
fn check(json: &str, iteration_s: f64, speedup: f64, sweep7_s: f64) {
    let s = ddnn_planner::models::from_json(json).unwrap_or_else(|e| panic!("{e}"));
    let e = evaluate_zeng(&s).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        e.queue.iteration_s.to_bits(),
        iteration_s.to_bits(),
        "{}",
        e.queue.iteration_s
    );
    assert_eq!(
        e.throughput.speedup.to_bits(),
        speedup.to_bits(),
        "{}",
        e.throughput.speedup
    );
    let p = e.bandwidth_sweep.points[7].iteration_s;
    assert_eq!(p.to_bits(), sweep7_s.to_bits(), "{p}");
}

#[test]
fn shipped_examples_bit_exact() {
    check(
        include_str!("../../public/examples/vgg16-hetero-1gbe.json"),
        26.843674729417838,
        0.03145384226029122,
        53.28325151951276,
    );
    check(
        include_str!("../../public/examples/alexnet-cpu-2workers.json"),
        19.51161906953846,
        1.1887956299479763,
        27.388080569844043,
    );
    check(
        include_str!("../../public/examples/resnet50-10gbe.json"),
        0.5231940994130098,
        0.18316701340438996,
        9.843228711846455,
    );
}

#[test]
fn fragment_is_identical_across_builds() {
    // Compression must not depend on the target either: a link made by the
    // CLI and one made by the page are the same string.
    let frag = encode_fragment(&Scenario::example());
    let h = frag.bytes().fold(0u64, |h, b| {
        h.wrapping_mul(1_099_511_628_211).wrapping_add(u64::from(b))
    });
    assert_eq!(
        (frag.len(), h),
        (GOLDEN_LEN, GOLDEN_HASH),
        "fragment changed: {frag}"
    );
}

const GOLDEN_LEN: usize = 944;
const GOLDEN_HASH: u64 = 3_260_879_521_803_318_467;
