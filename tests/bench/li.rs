//! `cargo bench --bench li`: Li et al.'s event core on one core, against
//! the target of 40,000 worker-steps/s natively on an
//! Inception-v3-sized step (~1,700 ops): the shipped Inception v3 profile
//! per op (1,512 ops), W = 2..10 at the paper's 1000 steps (the paper's
//! own W = 2..10 took ~2 minutes); and the shipped VGG-16 example (80 ops);
//! then the whole W = 1..64 sweep of the Inception profile on two threads
//! (target: under a minute on 2 cores).

mod timing;

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use ddnn_planner::models::li::eval::prepare;
use ddnn_planner::models::li::presets::{example, inception_v3_profile};
use ddnn_planner::models::li::profile::Profile;
use ddnn_planner::models::li::sim::{simulate, Setup};
use timing::record_value;

/// W = 2..10 of `base`: (seconds, worker-steps/s, events/s).
fn sweep(profile: &Profile, base: &Setup) -> (f64, f64, f64) {
    let mut worker_steps = 0u64;
    let mut events = 0u64;
    let t = Instant::now();
    for w in 2..=10 {
        let o = simulate(
            profile,
            &Setup {
                workers: w,
                ..base.clone()
            },
        );
        worker_steps += u64::from(w) * u64::from(base.steps);
        events += o.events;
    }
    let secs = t.elapsed().as_secs_f64();
    (secs, worker_steps as f64 / secs, events as f64 / secs)
}

/// W = 1..=64 of `base`, one seed, shared out to `threads` threads as
/// `ddnn-planner simulate` shares them (the next W to whichever is free):
/// (seconds, worker-steps/s).
fn full_sweep(profile: &Profile, base: &Setup, threads: usize) -> (f64, f64) {
    let next = AtomicU32::new(1);
    let t = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let w = next.fetch_add(1, Ordering::Relaxed);
                if w > 64 {
                    break;
                }
                simulate(
                    profile,
                    &Setup {
                        workers: w,
                        ..base.clone()
                    },
                );
            });
        }
    });
    let secs = t.elapsed().as_secs_f64();
    let worker_steps = (1..=64u64).sum::<u64>() * u64::from(base.steps);
    (secs, worker_steps as f64 / secs)
}

fn main() {
    let s = example();
    let (_, vgg, _, base) = prepare(&s).expect("the example reads");
    let inception = inception_v3_profile().expect("the Inception profile generates");
    for (key, name, profile) in [
        ("li", "VGG-16", &vgg),
        ("li.inception", "Inception v3", &inception),
    ] {
        let (secs, rate, events) = sweep(profile, &base);
        println!(
            "Li et al. {name}, W = 2..10 × {} steps, {} ops per step, one core: {secs:.3} s, {rate:.0} worker-steps/s, {:.1} M events/s",
            base.steps,
            profile.ops.len(),
            events / 1e6
        );
        record_value(&format!("{key}.sweep2_10.seconds"), secs);
        record_value(&format!("{key}.sweep2_10.worker_steps_per_s"), rate);
        record_value(&format!("{key}.ops_per_step"), profile.ops.len() as f64);
    }
    // The whole sweep on two threads (target: under a minute).
    let (secs, rate) = full_sweep(&inception, &base, 2);
    println!(
        "Li et al. Inception v3, W = 1..64 × {} steps, one seed, 2 threads: {secs:.1} s, {rate:.0} worker-steps/s",
        base.steps
    );
    record_value("li.inception.sweep1_64.seconds", secs);
    record_value("li.inception.sweep1_64.worker_steps_per_s", rate);
}
