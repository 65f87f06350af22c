//! Li et al.'s event core timed in headless Chromium (wasm32, the page's
//! size-optimised `web` profile), for the README's performance table: the
//! shipped Inception v3 profile per op, W = 2..10 × 200 steps. `make bench`
//! runs it (ignored otherwise) and reads the `BENCH {json}` line.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::{console_log, wasm_bindgen_test, Instant};

use ddnn_planner::models::li::eval::prepare;
use ddnn_planner::models::li::presets::{example, inception_v3_profile};
use ddnn_planner::models::li::sim::{simulate, Setup};

#[wasm_bindgen_test]
#[ignore = "a benchmark: make bench runs it"]
fn bench_li_inception_in_the_browser() {
    let Ok((_, _, _, base)) = prepare(&example()) else {
        panic!("the example reads");
    };
    let Ok(profile) = inception_v3_profile() else {
        panic!("the profile generates");
    };
    let steps = 200u32;
    let t = Instant::now();
    let mut worker_steps = 0u64;
    for w in 2..=10 {
        simulate(
            &profile,
            &Setup {
                workers: w,
                steps,
                warmup: 20,
                ..base.clone()
            },
        );
        worker_steps += u64::from(w) * u64::from(steps);
    }
    let secs = t.elapsed().as_secs_f64();
    let rate = worker_steps as f64 / secs;
    console_log!(
        "BENCH {{\"key\":\"li.wasm.inception\",\"worker_steps_per_s\":{rate:.0},\"seconds\":{secs:.3},\"ops_per_step\":{}}}",
        profile.ops.len()
    );
}
