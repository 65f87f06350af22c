//! `cargo bench --bench li`: Li et al.'s event core on the shipped
//! example's profile (VGG-16 from its layer table: 80 ops per step) — one
//! W = 2..10 sweep at the paper's 1000 steps on one core (worker-steps per
//! second and the wall time), against the targets (40,000
//! worker-steps/s natively on an Inception-v3-sized step of ~1,700 ops;
//! the paper's own W = 2..10 took ~2 minutes).

mod timing;

use std::time::Instant;

use ddnn_planner::models::li::eval::prepare;
use ddnn_planner::models::li::presets::example;
use ddnn_planner::models::li::sim::{simulate, Setup};
use timing::record_value;

fn main() {
    let s = example();
    let (_, profile, _, base) = prepare(&s).expect("the example reads");
    let mut worker_steps = 0u64;
    let mut events = 0u64;
    let t = Instant::now();
    for w in 2..=10 {
        let o = simulate(
            &profile,
            &Setup {
                workers: w,
                ..base.clone()
            },
        );
        worker_steps += u64::from(w) * u64::from(base.steps);
        events += o.events;
    }
    let secs = t.elapsed().as_secs_f64();
    let rate = worker_steps as f64 / secs;
    println!(
        "Li et al. W = 2..10 × {} steps, {} ops per step, one core: {secs:.3} s, {rate:.0} worker-steps/s, {:.1} M events/s",
        base.steps,
        profile.ops.len(),
        events as f64 / secs / 1e6
    );
    record_value("li.sweep2_10.seconds", secs);
    record_value("li.sweep2_10.worker_steps_per_s", rate);
    record_value("li.ops_per_step", profile.ops.len() as f64);
}
