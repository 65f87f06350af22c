//! The exact optimiser and Algorithm 1 timed in headless Chromium (wasm32),
//! for the README's performance table: `make bench` runs these ignored
//! tests in release with `--include-ignored --nocapture` and reads the
//! `BENCH {json}` lines they print (tests/bench/table.mjs). They time, they
//! do not assert: `make test` skips them.
#![cfg(target_arch = "wasm32")]

use std::hint::black_box;

use wasm_bindgen_test::{console_log, wasm_bindgen_test, Instant};

use ddnn_planner::models::spotdnn::eval::{prepare, problem};
use ddnn_planner::models::spotdnn::plan::{algorithm1, exact};
use ddnn_planner::models::spotdnn::presets::quota25_example;

/// Median milliseconds per call over 15 batches of `per_batch` calls.
fn median_ms(per_batch: u32, mut f: impl FnMut()) -> f64 {
    let mut samples: Vec<f64> = (0..15)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..per_batch {
                f();
            }
            t.elapsed().as_secs_f64() * 1e3 / f64::from(per_batch)
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

#[wasm_bindgen_test]
#[ignore = "a benchmark: make bench runs it"]
fn bench_spotdnn_optimiser_in_the_browser() {
    for (id, loss, time) in [
        ("infeasible-900s", 0.8, 900.0),
        ("table1-goals", 0.8, 2600.0),
        ("loose", 0.7, 7200.0),
    ] {
        let s = quota25_example(loss, time);
        let Ok(e) = prepare(&s) else {
            panic!("the example reads");
        };
        let p = problem(&e, loss, time);
        let exact_ms = median_ms(10, || {
            black_box(exact(black_box(&p), |_| {}));
        });
        let alg1_ms = median_ms(20, || {
            black_box(algorithm1(black_box(&p)));
        });
        console_log!("BENCH {{\"key\":\"spotdnn.wasm.exact.{id}\",\"median_ms\":{exact_ms:.3}}}");
        console_log!(
            "BENCH {{\"key\":\"spotdnn.wasm.algorithm1.{id}\",\"median_ms\":{alg1_ms:.3}}}"
        );
    }
}

/// The whole evaluation (both plans, the fastest cluster, the frontier,
/// the replan) at scale, as the page's worker runs it: the shipped current
/// catalog with a quota of 32 on each of its 31 types.
#[wasm_bindgen_test]
#[ignore = "a benchmark: make bench runs it"]
fn bench_spotdnn_scale_in_the_browser() {
    use ddnn_planner::models::evaluate;
    use ddnn_planner::models::spotdnn::presets::current_catalog_example;
    use ddnn_planner::models::spotdnn::SpotDnn;
    let s = current_catalog_example(32);
    let ms = median_ms(1, || {
        black_box(evaluate(&SpotDnn, black_box(&s)).ok());
    });
    console_log!(
        "BENCH {{\"key\":\"spotdnn.wasm.scale.evaluation.current31-q32\",\"median_ms\":{ms:.3}}}"
    );
}
