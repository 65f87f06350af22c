//! `cargo bench --bench trace`: reading a ~100 MB Chrome trace natively
//! (issue 15's "a 100 MB Chrome trace … at ≥ 50 MB/s natively"), the import
//! the page runs in its import worker: 50 PyTorch-shaped steps of 2,000
//! kernels and CPU ops each, inside allocator counter samples, written here.

mod timing;

use std::fmt::Write;
use std::time::Instant;

use ddnn_planner::models::li::chrome::{import, read_bytes, Mapping};
use ddnn_planner::models::li::presets::example;
use timing::record_value;

fn trace() -> String {
    let mut t = String::from("{\"traceEvents\": [\n");
    t.push_str(r#"{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"python"}}"#);
    let mut ts = 0u64;
    for step in 1..=50 {
        let _ = write!(
            t,
            ",\n{{\"ph\":\"X\",\"name\":\"ProfilerStep#{step}\",\"cat\":\"user_annotation\",\"pid\":1,\"tid\":1,\"ts\":{ts},\"dur\":20000}}"
        );
        for k in 0..1000 {
            let _ = write!(
                t,
                ",\n{{\"ph\":\"X\",\"name\":\"aten::op_{k}\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":{},\"dur\":8,\"args\":{{\"External id\":{k}}}}}",
                ts + 20 * k
            );
            let _ = write!(
                t,
                ",\n{{\"ph\":\"X\",\"name\":\"kernel_{k}\",\"cat\":\"kernel\",\"pid\":2,\"tid\":7,\"ts\":{},\"dur\":9,\"args\":{{\"stream\":7}}}}",
                ts + 20 * k + 10
            );
        }
        ts += 20_000;
    }
    // Allocator samples (a phase the import counts and skips) up to ~100 MB.
    let mut n = 0u64;
    while t.len() < 100_000_000 {
        let _ = write!(
            t,
            ",\n{{\"ph\":\"C\",\"name\":\"GPU_0_bfc\",\"pid\":9,\"tid\":0,\"ts\":{n},\"args\":{{\"allocated_bytes\":{}}}}}",
            n * 64
        );
        n += 1;
    }
    t.push_str("\n]}");
    t
}

fn main() {
    let text = trace();
    let bytes = text.into_bytes();
    let net = example().workload.network;
    let mut best = f64::INFINITY;
    let mut ops = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let text = read_bytes(&bytes).expect("the trace is text");
        let imported =
            import("bench.json", &text, &Mapping::default(), Some(&net)).expect("the trace reads");
        best = best.min(t.elapsed().as_secs_f64());
        ops = imported.profile.ops.len();
    }
    let mb = bytes.len() as f64 / 1e6;
    println!(
        "Chrome trace import, {mb:.0} MB ({ops} ops per step): best of 3 {best:.2} s, {:.0} MB/s",
        mb / best
    );
    record_value("trace.import100.seconds", best);
    record_value("trace.import100.mb", mb);
}
