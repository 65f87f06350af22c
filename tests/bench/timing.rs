//! The timing loop both benchmarks share: 15 batches, median per call.

use std::time::Instant;

/// Runs `f` `per_batch` times per batch over 15 batches and prints the
/// minimum, median and maximum time per call.
pub fn time<F: FnMut()>(label: &str, per_batch: u32, mut f: F) {
    let mut samples = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        for _ in 0..per_batch {
            f();
        }
        samples.push(t.elapsed().as_secs_f64() / f64::from(per_batch));
    }
    samples.sort_by(f64::total_cmp);
    let us = |s: f64| s * 1e6;
    println!(
        "{label:<64} min {:>9.1} µs  median {:>9.1} µs  max {:>9.1} µs",
        us(samples[0]),
        us(samples[samples.len() / 2]),
        us(samples[samples.len() - 1])
    );
}
