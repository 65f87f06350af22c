//! A band of 10,000 samples of Zeng et al. and of Cynthia, timed in
//! headless Chromium (wasm32), as the page's worker computes it (issue
//! 35: under 1 s): `make bench` reads the `BENCH {json}` lines. It times,
//! it does not assert: `make test` skips it.
#![cfg(target_arch = "wasm32")]

use std::hint::black_box;

use wasm_bindgen_test::{console_log, wasm_bindgen_test, Instant};

use ddnn_planner::models::{by_id, evaluate, from_json};
use ddnn_planner::scenario::Scenario;
use ddnn_planner::uncertainty::{Range, Uncertainty};

fn with_range(mut s: Scenario, path: &str, min: f64, max: f64) -> Scenario {
    s.uncertainty = Some(Uncertainty {
        ranges: [(path.to_string(), Range { min, max })].into(),
        ..Uncertainty::default()
    });
    s
}

#[wasm_bindgen_test]
#[ignore = "a benchmark: make bench runs it"]
fn bench_bands_in_the_browser() {
    let Ok(cifar) = from_json(include_str!("../../public/examples/cifar10-bsp-m4.json")) else {
        panic!("the shipped example reads");
    };
    let cases = [
        (
            "zeng",
            with_range(
                Scenario::example(),
                "hardware.cluster.ps.link",
                1.0e8,
                1.5e8,
            ),
        ),
        (
            "cynthia",
            with_range(cifar, "hardware.catalog[0].flops_per_s", 3.0e9, 4.0e9),
        ),
    ];
    for (id, s) in cases {
        let Some(m) = by_id(id) else {
            panic!("{id} is registered");
        };
        let mut samples: Vec<f64> = (0..5)
            .map(|_| {
                let t = Instant::now();
                black_box(evaluate(m, black_box(&s)).ok());
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        samples.sort_by(f64::total_cmp);
        let median = samples[samples.len() / 2];
        console_log!("BENCH {{\"key\":\"uncertainty.wasm.{id}.10000\",\"median_ms\":{median:.3}}}");
    }
}
