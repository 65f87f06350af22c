//! Calibrating each model on its 50 runs with leave-one-out, timed in
//! headless Chromium (wasm32), as the page's worker runs it: `make bench`
//! reads the `BENCH {json}` lines (tests/bench/table.mjs). It times, it does
//! not assert: `make test` skips it.
#![cfg(target_arch = "wasm32")]

use std::hint::black_box;

use wasm_bindgen_test::{console_log, wasm_bindgen_test, Instant};

use ddnn_planner::calibration::{calibrate_model, FitOptions};
use ddnn_planner::models::by_id;

#[wasm_bindgen_test]
#[ignore = "a benchmark: make bench runs it"]
fn bench_calibration_in_the_browser() {
    use super::calibration_runs50 as runs;
    type Runs = fn() -> ddnn_planner::scenario::Scenario;
    let sets: [(&str, Runs); 6] = [
        ("zeng", runs::scenario),
        ("cynthia", runs::cynthia),
        ("spotdnn", runs::spotdnn),
        ("stash", runs::stash),
        ("li", runs::li),
        ("li-distinct", runs::li_distinct),
    ];
    for (id, scenario) in sets {
        let s = scenario();
        let Some(model) = by_id(id.strip_suffix("-distinct").unwrap_or(id)) else {
            panic!("{id} is registered");
        };
        let mut samples: Vec<f64> = (0..9)
            .map(|_| {
                let t = Instant::now();
                black_box(calibrate_model(black_box(&s), model, &FitOptions::default()).ok());
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        samples.sort_by(f64::total_cmp);
        let median = samples[samples.len() / 2];
        console_log!("BENCH {{\"key\":\"calibration.wasm.{id}50\",\"median_ms\":{median:.3}}}");
    }
}
