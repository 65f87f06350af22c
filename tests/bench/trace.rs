//! `cargo bench --bench trace`: the imports the page runs in its import
//! worker, natively (target: ≥ 50 MB/s natively for a 10⁶-row layer table
//! or a 100 MB Chrome trace): a ~100 MB Chrome trace (50
//! PyTorch-shaped steps of 2,000 kernels and CPU ops each, inside allocator
//! counter samples), the largest layer table accepted (10,000 layers), a
//! 10⁶-row one (refused by its size before a row is read), and a 5 MB loss
//! curve read, thinned and fitted — all written here.

mod timing;

use std::fmt::Write;
use std::time::Instant;

use ddnn_planner::models::li::chrome::{import, read_bytes, Mapping};
use ddnn_planner::models::li::presets::example;
use ddnn_planner::scenario::files::fit_loss_curve;
use ddnn_planner::workload::profile::SyncMode;
use ddnn_planner::workload::table::parse_layer_table;
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
    tables();
}

/// Best of `n` runs of `f` [s].
fn best_of(n: usize, mut f: impl FnMut()) -> f64 {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn layer_rows(rows: usize) -> String {
    let mut t = String::from("name,kind,inch,kh,kw,outn,outh,outw\n");
    for i in 0..rows {
        let _ = writeln!(t, "conv{i},conv,256,3,3,256,28,28");
    }
    t
}

fn tables() {
    let most = layer_rows(10_000);
    let secs = best_of(20, || {
        let layers = parse_layer_table(&most).expect("10,000 layers read");
        assert_eq!(layers.len(), 10_000);
    });
    let mb = most.len() as f64 / 1e6;
    println!(
        "layer table, 10,000 layers ({mb:.2} MB): best of 20 {:.1} ms, {:.0} MB/s",
        secs * 1e3,
        mb / secs
    );
    record_value("tables.layers10k.seconds", secs);
    record_value("tables.layers10k.mb", mb);

    let million = layer_rows(1_000_000);
    let refused = best_of(20, || {
        assert!(parse_layer_table(&million).is_err(), "refused by size");
    });
    let mb = million.len() as f64 / 1e6;
    println!(
        "layer table, 10^6 rows ({mb:.0} MB): refused in {:.1} µs",
        refused * 1e6
    );
    record_value("tables.layers1m.seconds", refused);
    record_value("tables.layers1m.mb", mb);

    let mut curve = String::from("iteration,loss\n");
    let mut i = 0u32;
    while curve.len() < 5_000_000 {
        let _ = writeln!(curve, "{i},{:.9}", 2000.0 / (f64::from(i) + 1000.0));
        i += 1;
    }
    let secs = best_of(5, || {
        fit_loss_curve(&curve, SyncMode::Bsp, 1).expect("the curve fits");
    });
    let mb = curve.len() as f64 / 1e6;
    println!(
        "loss curve, {i} points ({mb:.1} MB) read, thinned, fitted: best of 5 {:.0} ms, {:.0} MB/s",
        secs * 1e3,
        mb / secs
    );
    record_value("tables.loss.seconds", secs);
    record_value("tables.loss.mb", mb);
    record_value("tables.loss.points", f64::from(i));
}
