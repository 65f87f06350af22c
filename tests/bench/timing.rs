//! The timing loop both benchmarks share: 15 batches, median per call.
//!
//! Besides the human-readable line, each figure is appended as one JSON
//! line to the file named by `BENCH_OUT`, when set, for
//! `tests/bench/table.mjs` (`make bench` prints the README's table from it).

use std::io::Write;
use std::time::Instant;

/// Runs `f` `per_batch` times per batch over 15 batches, prints the
/// minimum, median and maximum time per call, and records them under `key`.
#[allow(dead_code)] // li.rs times whole sweeps itself
pub fn time<F: FnMut()>(key: &str, label: &str, per_batch: u32, mut f: F) {
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
    let (min, median, max) = (
        us(samples[0]),
        us(samples[samples.len() / 2]),
        us(samples[samples.len() - 1]),
    );
    println!("{label:<64} min {min:>9.1} µs  median {median:>9.1} µs  max {max:>9.1} µs");
    record(
        key,
        &format!(r#""min_us":{min:.3},"median_us":{median:.3},"max_us":{max:.3}"#),
    );
}

/// Records a figure that is not a timing (e.g. a size) under `key`.
#[allow(dead_code)] // each bench compiles this module; only one records values
pub fn record_value(key: &str, value: f64) {
    record(key, &format!(r#""value":{value}"#));
}

/// Appends `{"key": key, <fields>}` to `$BENCH_OUT`, if set.
pub fn record(key: &str, fields: &str) {
    let Some(path) = std::env::var_os("BENCH_OUT") else {
        return;
    };
    let line = format!("{{\"key\":{key:?},{fields}}}\n");
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        eprintln!("BENCH_OUT {}: {e}", path.to_string_lossy());
    }
}
