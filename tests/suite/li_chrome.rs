//! Li et al.'s profile from a Chrome trace (`models::li::chrome`): small
//! traces written here in TensorFlow's and PyTorch's shapes, plain and
//! gzipped. Amounts are checked to 1e-12 relative, counts and dependency
//! lists exactly.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::io::Write;

use ddnn_planner::errors::ReadError;
use ddnn_planner::models::li::chrome::{
    import, import_file_within, read_bytes, read_bytes_within, read_owned, Imported, Mapping,
    Merged, Rule, Target,
};
use ddnn_planner::models::li::profile::Resource;
use ddnn_planner::workload::{Layer, Network};
use flate2::write::GzEncoder;
use flate2::Compression;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

fn assert_row(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(close(*g, *w), "amount {i}: {g} vs {w} ({got:?})");
    }
}

fn names(i: &Imported) -> Vec<&str> {
    i.profile.ops.iter().map(|o| o.name.as_str()).collect()
}

fn resources(i: &Imported) -> Vec<Resource> {
    i.profile.ops.iter().map(|o| o.resource).collect()
}

fn deps(i: &Imported) -> Vec<Vec<u32>> {
    i.profile.ops.iter().map(|o| o.deps.clone()).collect()
}

fn has_line(i: &Imported, text: &str) {
    let lines = i.summary.lines();
    assert!(
        lines.iter().any(|l| l.contains(text)),
        "no line has {text:?}:\n{}",
        lines.join("\n")
    );
}

/// The default rules with no step marker: a trace without markers or
/// step ids is one step.
fn whole() -> Mapping {
    Mapping {
        step_marker: String::new(),
        ..Mapping::default()
    }
}

fn gzip(text: &str) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(text.as_bytes()).expect("gzip in memory");
    e.finish().expect("gzip in memory")
}

/// A TensorFlow timeline: one lane per device (pid) with process names,
/// the GPU's kernels twice (stream:all and stream:7), recvs and sends on
/// the CPU, a counter and a dataflow arrow (`s` then `t`).
const TF: &str = r#"{"traceEvents": [
{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "/job:worker/replica:0/task:0/device:GPU:0 Compute"}},
{"name": "process_name", "ph": "M", "pid": 2, "args": {"name": "/device:GPU:0/stream:all Compute"}},
{"name": "process_name", "ph": "M", "pid": 3, "args": {"name": "/device:GPU:0/stream:7 Compute"}},
{"name": "process_name", "ph": "M", "pid": 4, "args": {"name": "/job:worker/replica:0/task:0/device:CPU:0 Compute"}},
{"ph": "X", "cat": "Op", "name": "_Recv", "pid": 4, "tid": 0, "ts": 1000, "dur": 400, "args": {"name": "w0/read/_1", "op": "_Recv"}},
{"ph": "X", "cat": "Op", "name": "RecvTensor", "pid": 4, "tid": 1, "ts": 1400, "dur": 200, "args": {"tensor": "w1", "bytes": 250000}},
{"ph": "X", "cat": "Op", "name": "MatMul", "pid": 1, "tid": 0, "ts": 1450, "dur": 100, "args": {"name": "fc0/MatMul", "op": "MatMul"}},
{"ph": "X", "cat": "Op", "name": "MatMul", "pid": 2, "tid": 0, "ts": 1500, "dur": 300},
{"ph": "X", "cat": "Op", "name": "Relu", "pid": 2, "tid": 0, "ts": 1800, "dur": 100},
{"ph": "X", "cat": "Op", "name": "MatMul", "pid": 3, "tid": 0, "ts": 1500, "dur": 300},
{"ph": "X", "cat": "Op", "name": "Relu", "pid": 3, "tid": 0, "ts": 1800, "dur": 100},
{"ph": "X", "cat": "Op", "name": "MatMul", "pid": 3, "tid": 0, "ts": 2000, "dur": 500},
{"ph": "X", "cat": "Op", "name": "_Send", "pid": 4, "tid": 0, "ts": 2600, "dur": 160, "args": {"name": "gradients/w1/_5"}},
{"ph": "X", "cat": "Op", "name": "_Send", "pid": 4, "tid": 0, "ts": 2800, "dur": 320, "args": {"name": "gradients/w0/_7"}},
{"ph": "C", "name": "Allocator", "pid": 5, "ts": 1000, "args": {"GPU_0_bfc": 1024}},
{"ph": "s", "cat": "DataFlow", "name": "RecvTensor", "id": 3, "pid": 4, "tid": 1, "ts": 1500},
{"ph": "t", "cat": "DataFlow", "name": "RecvTensor", "id": 3, "pid": 3, "tid": 0, "ts": 1600}
]}"#;

#[test]
fn a_tensorflow_timeline_becomes_a_profile() {
    let i = import("tf.json", TF, &whole(), None).expect("imports");
    let p = &i.profile;
    assert_eq!(p.name, "tf.json");
    assert_eq!(p.batch, 32);
    assert_eq!(
        names(&i),
        [
            "_Recv",
            "RecvTensor",
            "MatMul",
            "Relu",
            "MatMul",
            "_Send",
            "_Send"
        ]
    );
    use Resource::*;
    assert_eq!(
        resources(&i),
        [Downlink, Downlink, Worker, Worker, Worker, Uplink, Uplink]
    );
    let tensors: Vec<Option<&str>> = p.ops.iter().map(|o| o.tensor.as_deref()).collect();
    assert_eq!(
        tensors,
        [
            Some("w0/read/_1"),
            Some("w1"),
            None,
            None,
            None,
            Some("gradients/w1/_5"),
            Some("gradients/w0/_7")
        ]
    );
    // MatMul waits for _Recv (ended by its start) and, by the dataflow
    // arrow, for RecvTensor.
    assert_eq!(
        deps(&i),
        [
            vec![],
            vec![0],
            vec![0, 1],
            vec![1, 2],
            vec![1, 3],
            vec![1, 4],
            vec![1, 4, 5]
        ]
    );
    // The launch (1450-1550 µs) and its kernel (1500-1800 µs) are one op;
    // sizes without args are duration × 1.25 GB/s.
    assert_eq!(p.steps.len(), 1);
    assert_row(
        &p.steps[0],
        &[
            500_000.0, 250_000.0, 0.00035, 0.0001, 0.0005, 200_000.0, 400_000.0,
        ],
    );
    let s = &i.summary;
    assert_eq!(s.events, 17);
    assert_eq!(s.ignored_phases.get("C"), Some(&1));
    assert_eq!(s.ignored_phases.len(), 1);
    assert_eq!(s.steps, 0);
    assert_eq!(s.ops, 7);
    assert_eq!(
        s.merged,
        [Merged {
            resource: Worker,
            folded: 1
        }]
    );
    assert_eq!(s.sizes_estimated, 3);
    assert_eq!((s.flows, s.flows_used), (1, 1));
    assert_eq!((s.unmatched_end, s.unclosed_begin), (0, 0));
    let lanes: Vec<(&str, &str, usize)> = s
        .lanes
        .iter()
        .map(|l| (l.pid.as_str(), l.tid.as_str(), l.events))
        .collect();
    assert_eq!(
        lanes,
        [
            ("4", "0", 3),
            ("4", "1", 1),
            ("1", "0", 1),
            ("2", "0", 2),
            ("3", "0", 3)
        ]
    );
    assert_eq!(s.lanes[0].targets, [Target::Downlink, Target::Uplink]);
    assert_eq!(s.lanes[4].targets, [Target::Worker]);
    assert!(s.lanes[3].skipped.is_some());
    assert!(s.lanes[3].targets.is_empty());
    assert!(s.layer_table.is_none());
    has_line(&i, "Lane '/device:GPU:0/stream:all Compute' (pid 2, tid 0): 2 events, skipped: TensorFlow's copy of its per-stream lanes (stream:all).");
    // From the counter sample at 1000 µs to the end of the last _Send,
    // 2800 + 320 µs.
    assert!(close(s.span_s, 0.00212), "{}", s.span_s);
    has_line(
        &i,
        "No step marker: the whole trace (2.12 ms) is one step, start-up and warm-up included.",
    );
    has_line(&i, "The profile holds a single step");
    has_line(&i, "3 transfers had no size in their args");
    has_line(&i, "worker: 1 overlapping events were folded");
    has_line(&i, "Events not read: 1 of phase 'C'.");
}

/// A PyTorch profiler trace: two ProfilerStep# markers on the CPU thread
/// (and one on the GPU stream), nested cpu_ops, kernels and copies on the
/// GPU, `ac2g` flows from the launches to the kernels, B/E pairs, Kineto's
/// whole-trace span, an instant event and an op after the last step.
const TORCH: &str = r#"{"schemaVersion": 1, "deviceProperties": [], "traceEvents": [
{"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python3"}},
{"ph": "M", "name": "thread_name", "pid": 100, "tid": 7, "args": {"name": "thread 7 (python3)"}},
{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
{"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 0, "dur": 2200},
{"ph": "i", "cat": "Trace", "name": "Iteration Start: PyTorch Profiler", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 0, "s": "g"},
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100, "tid": 7, "ts": 0, "dur": 1000},
{"ph": "X", "cat": "python_function", "name": "train.py(12): step", "pid": 100, "tid": 7, "ts": 5, "dur": 895},
{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 100, "tid": 7, "ts": 10, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 100, "tid": 7, "ts": 20, "dur": 80},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 7, "ts": 30, "dur": 10, "args": {"correlation": 1}},
{"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 100, "tid": 7, "ts": 30},
{"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#1", "pid": 0, "tid": 7, "ts": 150, "dur": 600},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 150, "dur": 40, "args": {"bytes": 65536}},
{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 200, "dur": 300, "args": {"correlation": 1}},
{"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 0, "tid": 7, "ts": 200, "bp": "e"},
{"ph": "B", "cat": "cpu_op", "name": "aten::relu", "pid": 100, "tid": 7, "ts": 510},
{"ph": "E", "pid": 100, "tid": 7, "ts": 600},
{"ph": "X", "cat": "kernel", "name": "relu_kernel", "pid": 0, "tid": 7, "ts": 600, "dur": 100},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7, "ts": 800, "dur": 20, "args": {"bytes": 4}},
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 100, "tid": 7, "ts": 1000, "dur": 1000},
{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 100, "tid": 7, "ts": 1010, "dur": 120},
{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 100, "tid": 7, "ts": 1020, "dur": 100},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 7, "ts": 1030, "dur": 10},
{"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 2, "pid": 100, "tid": 7, "ts": 1030},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 1150, "dur": 40, "args": {"bytes": 65536}},
{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 1200, "dur": 350},
{"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 2, "pid": 0, "tid": 7, "ts": 1200, "bp": "e"},
{"ph": "B", "cat": "cpu_op", "name": "aten::relu", "pid": 100, "tid": 7, "ts": 1560},
{"ph": "E", "pid": 100, "tid": 7, "ts": 1640},
{"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 1700, "dur": 10},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7, "ts": 1800, "dur": 30, "args": {"bytes": 4}},
{"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 100, "tid": 7, "ts": 2100, "dur": 5}
]}"#;

/// The default rules, with the copies to and from the GPU standing in
/// for the PS transfers.
fn torch_mapping() -> Mapping {
    let mut m = Mapping::default();
    m.rules.splice(
        0..0,
        [
            Rule {
                pattern: "memcpy htod".into(),
                target: Target::Downlink,
            },
            Rule {
                pattern: "Memcpy DtoH".into(),
                target: Target::Uplink,
            },
        ],
    );
    m.batch = 64;
    // Both steps profiled (the warm-up is tested on its own below).
    m.warmup_steps = 0;
    m
}

#[test]
fn a_pytorch_trace_splits_at_its_step_markers() {
    let i = import("torch.json", TORCH, &torch_mapping(), None).expect("imports");
    let p = &i.profile;
    assert_eq!(p.batch, 64);
    assert_eq!(
        names(&i),
        [
            "aten::linear",
            "Memcpy HtoD (Pageable -> Device)",
            "gemm_kernel",
            "aten::relu",
            "relu_kernel",
            "Memcpy DtoH (Device -> Pageable)"
        ]
    );
    use Resource::*;
    assert_eq!(
        resources(&i),
        [Worker, Downlink, Worker, Worker, Worker, Uplink]
    );
    assert_eq!(
        deps(&i),
        [
            vec![],
            vec![0],
            vec![0, 1],
            vec![1, 2],
            vec![1, 3],
            vec![1, 4]
        ]
    );
    // Step 1; step 2 has no relu_kernel (it keeps step 1's 100 µs) and a
    // memset step 1 has not (left out).
    assert_eq!(p.steps.len(), 2);
    assert_row(
        &p.steps[0],
        &[0.0001, 65536.0, 0.0003, 0.00009, 0.0001, 4.0],
    );
    assert_row(
        &p.steps[1],
        &[0.00012, 65536.0, 0.00035, 0.00008, 0.0001, 4.0],
    );
    let s = &i.summary;
    assert_eq!(s.events, 33);
    assert_eq!(s.steps, 2);
    assert_eq!(s.markers_elsewhere, 1);
    assert_eq!(s.empty_steps, 0);
    assert_eq!(s.outside_steps, 1);
    assert_eq!(s.skipped_events, 4);
    assert_eq!(
        s.merged,
        [Merged {
            resource: Worker,
            folded: 2
        }]
    );
    assert_eq!(s.sizes_estimated, 0);
    assert_eq!(s.missing_in_later_steps, 1);
    assert_eq!(s.extra_in_later_steps, 1);
    assert_eq!((s.flows, s.flows_used), (2, 1));
    assert_eq!((s.unmatched_end, s.unclosed_begin), (0, 0));
    assert_eq!(s.ignored_phases.get("i"), Some(&1));
    let lanes: Vec<(&str, &str, &str, usize)> = s
        .lanes
        .iter()
        .map(|l| (l.pid.as_str(), l.tid.as_str(), l.name.as_str(), l.events))
        .collect();
    assert_eq!(
        lanes,
        [
            ("Spans", "PyTorch Profiler", "", 1),
            ("100", "7", "python3 / thread 7 (python3)", 12),
            ("0", "7", "GPU 0 / stream 7", 9)
        ]
    );
    assert_eq!(s.lanes[0].targets, [Target::Skip]);
    assert_eq!(s.lanes[1].targets, [Target::Skip, Target::Worker]);
    assert_eq!(
        s.lanes[2].targets,
        [
            Target::Skip,
            Target::Downlink,
            Target::Worker,
            Target::Uplink
        ]
    );
    has_line(&i, "2 steps found at 'ProfilerStep#' markers");
    has_line(&i, "1 step markers on other lanes were not used.");
    has_line(&i, "1 events started outside every step and were dropped.");
    has_line(&i, "1 ops of the first step were missing in a later step");
    has_line(&i, "1 of 2 flow arrows became dependencies");
    has_line(
        &i,
        "Lane 'GPU 0 / stream 7' (pid 0, tid 7): 9 events → skip, downlink, worker, uplink.",
    );
}

#[test]
fn a_gzipped_trace_reads_as_the_plain_one() {
    let gz = gzip(TF);
    assert_eq!(&gz[..2], &[0x1f, 0x8b]);
    let text = read_bytes(&gz).expect("inflates");
    assert_eq!(text, TF);
    let plain = import("tf.json", TF, &whole(), None).expect("imports");
    let unzipped = import("tf.json.gz", &text, &whole(), None).expect("imports");
    assert_eq!(unzipped.profile.ops, plain.profile.ops);
    assert_eq!(unzipped.profile.steps, plain.profile.steps);
    // Plain bytes pass through.
    assert_eq!(read_bytes(TF.as_bytes()).expect("text"), TF);
    // The worker's copy-free reading says the same of every kind of file.
    for bytes in [
        TF.as_bytes().to_vec(),
        gz.clone(),
        vec![b'[', 0xff],
        vec![0x1f, 0x8b, 0],
    ] {
        assert_eq!(
            read_owned(bytes.clone()),
            read_bytes(&bytes).map_err(ReadError::from)
        );
    }
}

#[test]
fn overlapping_events_on_one_resource_are_merged() {
    // Worker: A 0-100 µs holds B 10-50, C 80-150 overlaps it (another
    // lane), D 150-200 only touches it; F 350-360 lies in E 300-400.
    // Downlink: 1000 B and 3000 B overlapping; uplink: 100 B and a
    // transfer without a size overlapping, so 200 µs at 1.25 GB/s.
    let text = r#"{"traceEvents": [
{"ph": "X", "name": "A", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "name": "B", "pid": 1, "tid": 1, "ts": 10, "dur": 40},
{"ph": "X", "name": "C", "pid": 1, "tid": 2, "ts": 80, "dur": 70},
{"ph": "X", "name": "D", "pid": 1, "tid": 1, "ts": 150, "dur": 50},
{"ph": "X", "name": "E", "pid": 1, "tid": 2, "ts": 300, "dur": 100},
{"ph": "X", "name": "F", "pid": 1, "tid": 1, "ts": 350, "dur": 10},
{"ph": "X", "name": "recv a", "pid": 1, "tid": 3, "ts": 0, "dur": 40, "args": {"bytes": 1000}},
{"ph": "X", "name": "recv b", "pid": 1, "tid": 3, "ts": 20, "dur": 40, "args": {"num_bytes": 3000}},
{"ph": "X", "name": "send x", "pid": 1, "tid": 3, "ts": 500, "dur": 100, "args": {"Bytes": 100}},
{"ph": "X", "name": "send y", "pid": 1, "tid": 4, "ts": 550, "dur": 150}
]}"#;
    let i = import("overlap.json", text, &whole(), None).expect("imports");
    assert_eq!(names(&i), ["recv a", "A", "D", "E", "send x"]);
    assert_eq!(
        deps(&i),
        [vec![], vec![], vec![0, 1], vec![0, 2], vec![0, 3]]
    );
    assert_row(
        &i.profile.steps[0],
        &[4000.0, 0.00015, 0.00005, 0.0001, 250_000.0],
    );
    use Resource::*;
    assert_eq!(
        i.summary.merged,
        [
            Merged {
                resource: Downlink,
                folded: 1
            },
            Merged {
                resource: Worker,
                folded: 3
            },
            Merged {
                resource: Uplink,
                folded: 1
            }
        ]
    );
    assert_eq!(i.summary.sizes_estimated, 1);
    has_line(&i, "worker: 3 overlapping events were folded into the op they overlap (the resource is serial).");
}

/// A single-GPU trace: compute only, in a bare array.
const COMPUTE_ONLY: &str = r#"[
{"ph": "X", "cat": "kernel", "name": "conv", "pid": 0, "tid": 7, "ts": 0, "dur": 100},
{"ph": "X", "cat": "kernel", "name": "fc", "pid": 0, "tid": 7, "ts": 100, "dur": 50},
{"ph": "X", "cat": "kernel", "name": "bwd", "pid": 0, "tid": 7, "ts": 200, "dur": 200}
]"#;

#[test]
fn a_trace_without_transfers_takes_them_from_the_layer_table() {
    // conv1: 3·3·3·16 = 432 weights + 16 biases = 1792 B; fc1: 1024·10 +
    // 10 = 41,000 B.
    let net = Network::from_layers(
        "tiny",
        vec![
            Layer::conv("conv1", 3, 3, 16, 32),
            Layer::fc("fc1", 1024, 10),
        ],
    );
    let i = import("gpu.json", COMPUTE_ONLY, &whole(), Some(&net)).expect("imports");
    assert_eq!(
        names(&i),
        [
            "recv conv1",
            "recv fc1",
            "conv",
            "fc",
            "bwd",
            "send fc1",
            "apply fc1",
            "send conv1",
            "apply conv1"
        ]
    );
    use Resource::*;
    assert_eq!(
        resources(&i),
        [Downlink, Downlink, Worker, Worker, Worker, Uplink, Ps, Uplink, Ps]
    );
    assert_eq!(
        deps(&i),
        [
            vec![],
            vec![],
            vec![0, 1],
            vec![2],
            vec![3],
            vec![4],
            vec![5],
            vec![4],
            vec![7]
        ]
    );
    let tensors: Vec<Option<&str>> = i.profile.ops.iter().map(|o| o.tensor.as_deref()).collect();
    assert_eq!(
        tensors,
        [
            Some("conv1"),
            Some("fc1"),
            None,
            None,
            None,
            Some("fc1"),
            Some("fc1"),
            Some("conv1"),
            Some("conv1")
        ]
    );
    // PS updates at 10 GB/s.
    assert_row(
        &i.profile.steps[0],
        &[
            1792.0, 41000.0, 0.0001, 0.00005, 0.0002, 41000.0, 4.1e-6, 1792.0, 1.792e-7,
        ],
    );
    let t = i
        .summary
        .layer_table
        .as_ref()
        .expect("from the layer table");
    assert_eq!((t.network.as_str(), t.layers), ("tiny", 2));
    assert!(close(t.bytes_per_step, 42792.0));
    assert_eq!(i.summary.ops, 9);
    has_line(&i, "This trace has no PS transfers; the 2 downlinks and uplinks come from the layer table 'tiny' (0.0428 MB per step each way).");

    for missing in [None, Some(&Network::from_layers("empty", vec![]))] {
        let e = import("gpu.json", COMPUTE_ONLY, &whole(), missing)
            .expect_err("needs a layer table")
            .to_string();
        assert!(e.contains("'gpu.json' has no PS transfers"), "{e}");
        assert!(e.contains("choose a layer table"), "{e}");
    }
}

#[test]
fn a_bare_array_may_leave_out_its_closing_bracket() {
    let open = "[\n{\"ph\": \"X\", \"name\": \"send g\", \"ts\": 0, \"dur\": 8, \"args\": {\"size\": 8}},\n";
    let i = import("open.json", open, &whole(), None).expect("imports");
    assert_eq!(names(&i), ["send g"]);
    assert_row(&i.profile.steps[0], &[8.0]);
}

#[test]
fn a_gzip_bomb_is_refused() {
    const MIB: usize = 1024 * 1024;
    let bomb = gzip(&" ".repeat(2 * MIB));
    assert!(bomb.len() < 10_000, "{} bytes", bomb.len());
    let e = read_bytes_within(&bomb, MIB as u64)
        .expect_err("too large")
        .to_string();
    assert_eq!(
        e,
        "the gzipped trace inflates to more than 1 MiB, the most a trace may be"
    );
    // Exactly at the limit is accepted.
    let full = read_bytes_within(&gzip(&" ".repeat(MIB)), MIB as u64).expect("at the limit");
    assert_eq!(full.len(), MIB);
    // A plain file over the limit, too.
    let e = read_bytes_within(&vec![b' '; MIB + 1], MIB as u64)
        .expect_err("too large")
        .to_string();
    assert_eq!(
        e,
        "the trace is 1048577 bytes, more than the 1 MiB accepted"
    );
}

#[test]
fn bad_input_is_named() {
    let e = import(
        "bad.json",
        "{\"traceEvents\": [\n{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 2},\n{\"ph\": \"X\", \"name\": }\n]}",
        &whole(),
        None,
    )
    .expect_err("malformed")
        .to_string();
    assert_eq!(e, "not a Chrome trace: expected value at line 3 column 21");

    let e = import("x.json", "{\"displayTimeUnit\": \"ns\"}", &whole(), None)
        .expect_err("no events")
        .to_string();
    assert_eq!(e, "not a Chrome trace: it has no \"traceEvents\" array");

    let e = import(
        "x.json",
        r#"[{"ph": "X", "name": "a", "ts": 0, "dur": 1}, {"ph": "X", "name": "b", "ts": 5}]"#,
        &whole(),
        None,
    )
    .expect_err("no dur")
    .to_string();
    assert_eq!(e, "traceEvents[1] 'b' (ph X) has no dur");

    // Samples the import only counts still count in the index it names.
    let e = import(
        "x.json",
        r#"[{"ph": "C", "name": "mem", "ts": 0}, {"ph": "C", "name": "mem", "ts": 1}, {"ph": "X", "name": "b", "ts": 5}]"#,
        &whole(),
        None,
    )
    .expect_err("no dur")
        .to_string();
    assert_eq!(e, "traceEvents[2] 'b' (ph X) has no dur");

    let e = import(
        "x.json",
        r#"[{"ph": "X", "name": "a", "ts": 0, "dur": -1}]"#,
        &whole(),
        None,
    )
    .expect_err("negative")
    .to_string();
    assert_eq!(e, "traceEvents[0] 'a' (ph X): dur -1 µs is negative");

    let e = import(
        "x.json",
        r#"[{"ph": "X", "name": "a", "ts": 0, "dur": 1, "cat": "python_function"}]"#,
        &whole(),
        None,
    )
    .expect_err("nothing mapped")
    .to_string();
    assert!(e.contains("no event of 'x.json' maps to a resource"), "{e}");

    let e = read_bytes(&[b'[', 0xff, 0xfe])
        .expect_err("not text")
        .to_string();
    assert_eq!(
        e,
        "the trace is neither gzip nor UTF-8 text (bad byte at offset 1)"
    );
    let e = read_bytes(&[0x1f, 0x8b, 0, 1, 2])
        .expect_err("broken gzip")
        .to_string();
    assert!(
        e.starts_with("the file looks gzipped but does not inflate"),
        "{e}"
    );

    let m = Mapping {
        assumed_bytes_per_s: 0.0,
        ..Mapping::default()
    };
    let e = import("tf.json", TF, &m, None)
        .expect_err("no link speed")
        .to_string();
    assert!(e.contains("link speed the trace was taken at"), "{e}");
}

#[test]
fn an_unmatched_end_is_counted_not_fatal() {
    // An E with no B, a B/E pair (string tids), a B never closed.
    let text = r#"[
{"ph": "E", "pid": 1, "tid": "main", "ts": 5},
{"ph": "B", "name": "work", "pid": 1, "tid": "main", "ts": 10},
{"ph": "E", "pid": 1, "tid": "main", "ts": 20},
{"ph": "B", "name": "open", "pid": 1, "tid": "main", "ts": 30},
{"ph": "X", "name": "send g", "pid": 1, "tid": "net", "ts": 25, "dur": 4, "args": {"bytes": 8}}
]"#;
    let i = import("be.json", text, &whole(), None).expect("imports");
    assert_eq!(names(&i), ["work", "send g"]);
    assert_eq!(deps(&i), [vec![], vec![0]]);
    assert_row(&i.profile.steps[0], &[0.00001, 8.0]);
    assert_eq!((i.summary.unmatched_end, i.summary.unclosed_begin), (1, 1));
    has_line(
        &i,
        "1 E events without a B and 1 B events without an E were ignored.",
    );
}

#[test]
fn the_mapping_reads_and_writes_as_json() {
    let m = Mapping::default();
    let json = serde_json::to_value(&m).expect("serialises");
    assert_eq!(json["default"], "worker");
    assert_eq!(json["rules"][0]["target"], "skip");
    assert_eq!(json["step_marker"], "ProfilerStep#");
    let back: Mapping = serde_json::from_value(json).expect("reads back");
    assert_eq!(back, m);
    // Fields left out take their defaults.
    let partial: Mapping =
        serde_json::from_str(r#"{"rules": [{"pattern": "MatMul", "target": "ps"}]}"#)
            .expect("reads");
    assert_eq!(partial.batch, 32);
    assert_eq!(partial.target("matmul_1", ""), Target::Ps);
    assert_eq!(partial.target("Conv2D", "Op"), Target::Worker);
    assert_eq!(m.target("_HostRecv", "Op"), Target::Downlink);
    assert_eq!(m.target("ncclKernel_SendRecv", "kernel"), Target::Skip);
}

/// The import worker's job: a gzipped file read as the direct import
/// reads it; the same file sent again with another rule; a file that is
/// not a trace, or that the browser could not read again, is named.
#[test]
fn the_import_worker_reads_what_it_is_sent() {
    use ddnn_planner::models::li::files::TRACE;
    use ddnn_planner::models::li::profile::Profile;
    use ddnn_planner::worker::imports::{answer, read_answer, ImportError, ImportRequest};
    let ask = |name: &str, mapping: &Mapping, bytes: Option<&[u8]>| {
        let req = ImportRequest::new(&TRACE, name, &(mapping.clone(), None));
        let text = answer(
            &serde_json::to_string(&req).unwrap_or_default(),
            bytes.map(<[u8]>::to_vec),
        );
        read_answer::<(Profile, Vec<String>)>(&text)
    };
    let file = gzip(TF);
    let read = ask("tf.json.gz", &whole(), Some(&file));
    let direct = import("tf.json.gz", TF, &whole(), None).expect("the TF trace reads");
    let Ok((profile, lines)) = &read else {
        panic!("{read:?}");
    };
    assert_eq!(profile, &direct.profile);
    assert_eq!(lines, &direct.summary.lines());

    let bad = ask("notes.txt", &whole(), Some(b"hello"));
    assert!(
        matches!(&bad, Err(ImportError::Refused(e)) if e.starts_with("notes.txt: ")),
        "{bad:?}"
    );
    let gone = ask("tf.json.gz", &whole(), None);
    assert!(
        matches!(&gone, Err(e @ ImportError::Unreadable { file }) if file == "tf.json.gz"
            && e.to_string().starts_with("tf.json.gz: ") && e.to_string().ends_with("pick it again")),
        "{gone:?}"
    );

    let mut relu_skipped = whole();
    relu_skipped.rules.insert(
        0,
        Rule {
            pattern: "Relu".into(),
            target: Target::Skip,
        },
    );
    let again = ask("tf.json.gz", &relu_skipped, Some(&file));
    let skipped = import("tf.json.gz", TF, &relu_skipped, None).expect("reads");
    assert_ne!(
        skipped.profile, direct.profile,
        "the rule changes the profile"
    );
    assert_eq!(again.map(|(p, _)| p), Ok(skipped.profile));
}

/// What `read_bytes_within` then `import` give, and what `import_file_within`
/// (the file read as it streams, gzip inflated twice) gives, as comparable values.
fn both_ways(
    bytes: &[u8],
    limit: u64,
    mapping: &Mapping,
    layers: Option<&Network>,
) -> [Result<String, String>; 2] {
    let shown = |r: Result<Imported, ddnn_planner::models::li::chrome::TraceError>| {
        r.map(|i| format!("{:?}\n{:?}", i.profile, i.summary))
            .map_err(|e| e.to_string())
    };
    let old = read_bytes_within(bytes, limit).and_then(|t| import("t.json", &t, mapping, layers));
    let new = import_file_within("t.json", bytes.to_vec(), limit, mapping, layers);
    [shown(old), shown(new)]
}

#[test]
fn a_file_read_as_it_streams_says_what_its_text_says() {
    let x = r#"{"ph": "X", "name": "send g", "ts": 0, "dur": 8, "args": {"size": 8}}"#;
    let texts: Vec<String> = vec![
        TF.into(),
        TORCH.into(),
        COMPUTE_ONLY.into(),
        // Byte-order marks and Unicode whitespace around the document.
        format!("\u{feff}\u{feff} \u{a0}\n{TF} \u{2028}\n"),
        format!("\u{feff} \u{feff}{TF}"),
        // Bare arrays, with and without their `]`, trailing commas.
        format!("[{x}]"),
        format!("[\n{x},\n"),
        format!("[{x},,"),
        format!("[{x}, ,\n"),
        format!("[{x} \u{a0}"),
        format!("[{x}"),
        format!("[{x}, {{\"ph\": \"X\""),
        "[".into(),
        "[ , ".into(),
        // Malformed, empty, not a document.
        "{\"traceEvents\": [\n{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 2},\n{\"ph\": \"X\", \"name\": }\n]}".into(),
        "".into(),
        " \n ".into(),
        "42".into(),
        "{\"traceEvents\": null}".into(),
        "{\"traceEvents\": [], \"traceEvents\": []}".into(),
        format!("{{\"traceEvents\": [{x}]}} x"),
        // Fields as writers differ on them; odd args skipped, not built.
        r#"[{"ph": "X", "name": "na\u0041me", "ts": "0", "dur": 8, "pid": 1.5, "tid": true,
            "args": {"name": [1, {"a": 2}], "bytes": "7", "size": 9, "tensor": "w\n"}},
           {"ph": "X", "name": "recv", "ts": 10, "dur": 1, "args": [1, 2]},
           {"ph": "X", "name": "send", "ts": 20, "dur": 1, "args": {"group_id": " 7 "}},
           {"ph": "X", "name": "send", "ts": 30, "dur": 1, "args": {"group_id": 1.5, "Bytes": 3}}]"#.into(),
        r#"[{"ph": "X", "ph": "X", "name": "a", "ts": 0, "dur": 1}]"#.into(),
        r#"[{"ph": "X", "name": "a", "ts": 0, "dur": 1, "args": {"size": 1, "size": 2}}]"#.into(),
        r#"[{"ph": "X", "name": "a", "ts": 0, "dur": 1, "args": "x"}]"#.into(),
        // Nesting in a value the import reads meets the recursion limit.
        format!(
            r#"[{{"ph": "X", "name": "send b", "ts": 0, "dur": 1, "args": {{"name": {}{}}}}}]"#,
            "[".repeat(200),
            "]".repeat(200)
        ),
        r#"[{"ph": "Q"}, {"ph": "X", "name": "send b", "ts": 0}, {"ph": "X", "name": "a", "ts": 0, "dur": true}]"#.into(),
        r#"[{"ph": "X", "name": "send b", "ts": 0}, {"ph": "X", "name": }]"#.into(),
    ];
    let net = Network::from_layers(
        "tiny",
        vec![
            Layer::conv("conv1", 3, 3, 16, 32),
            Layer::fc("fc1", 1024, 10),
        ],
    );
    for text in &texts {
        for mapping in [whole(), Mapping::default()] {
            for layers in [None, Some(&net)] {
                for bytes in [text.as_bytes().to_vec(), gzip(text)] {
                    let [old, new] = both_ways(&bytes, 1 << 20, &mapping, layers);
                    assert_eq!(new, old, "{text:?}");
                }
            }
        }
    }
    // As a `serde_json::Value` in args once did, deep nesting is refused.
    let deep = texts
        .iter()
        .find(|t| t.contains("[[[["))
        .expect("the deep case");
    let e = import("t.json", deep, &whole(), None)
        .expect_err("too deep")
        .to_string();
    assert!(e.contains("recursion limit exceeded"), "{e}");
    // Bytes that are not text, a broken gzip, one past the limit.
    let mut not_text = gzip("[{}]");
    not_text.truncate(not_text.len() - 4);
    let cases = [
        vec![b'[', 0xff, 0xfe],
        gz_bytes(&[b'[', b' ', 0xff, 0xfe]),
        gz_bytes(&[b'[', 0xe2, 0x82]),
        vec![0x1f, 0x8b, 0, 1, 2],
        not_text,
        gzip(&" ".repeat((1 << 20) + 1)),
        gzip(&" ".repeat(1 << 20)),
        vec![b' '; (1 << 20) + 1],
    ];
    for bytes in &cases {
        let [old, new] = both_ways(bytes, 1 << 20, &whole(), None);
        assert_eq!(new, old);
    }
}

#[test]
fn a_large_gzipped_file_streams_with_the_same_result() {
    // Names of random hex digits compress to over a quarter of the text,
    // so the file is read as its second inflation streams.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut hex = || {
        let mut h = String::new();
        for _ in 0..6 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            h.push_str(&format!("{x:016x}"));
        }
        h
    };
    let mut t = String::from("\u{feff} [\n");
    for k in 0..2000 {
        t.push_str(&format!(
            "{{\"ph\": \"X\", \"name\": \"op_{}\", \"ts\": {}, \"dur\": 5, \"args\": {{\"tensor\": \"{}\"}}}},\n",
            hex(),
            10 * k,
            hex()
        ));
        t.push_str(&format!(
            "{{\"ph\": \"X\", \"name\": \"send {k}\", \"ts\": {}, \"dur\": 2}},\n",
            10 * k + 6
        ));
    }
    let last = r#"{"ph": "X", "name": "send z", "ts": 1, "dur": 1}"#;
    for text in [
        t.clone(),
        format!("{t}{last}]\n"),
        format!("{t}{{\"ph\": ]"),
        format!("{{\"traceEvents\": {}{last}]}}", &t[3..]),
    ] {
        let gz = gzip(&text);
        let limit = text.len() as u64;
        assert!(gz.len() as u64 > limit / 4, "{} of {limit}", gz.len());
        let [old, new] = both_ways(&gz, limit, &whole(), None);
        assert_eq!(old.is_ok(), !text.ends_with(": ]"), "{old:?}");
        assert_eq!(new, old);
    }
}

fn gz_bytes(b: &[u8]) -> Vec<u8> {
    let mut z = GzEncoder::new(Vec::new(), Compression::default());
    z.write_all(b).expect("gzip in memory");
    z.finish().expect("gzip in memory")
}

#[test]
fn what_a_trace_would_make_is_bounded_before_it_is_made() {
    let x = |name: &str, ts: f64, tid: usize| {
        format!(
            r#"{{"ph": "X", "name": "{name}", "ts": {ts}, "dur": 0.01, "pid": 1, "tid": {tid}}}"#
        )
    };
    // The message of the trace of events `ev`, which must be refused.
    let refused = |ev: &[String], m: &Mapping, why: &str| {
        import("t.json", &format!("[{}]", ev.join(",")), m, None)
            .expect_err(why)
            .to_string()
    };
    let marker = |k: usize| {
        format!(
            r#"{{"ph": "X", "name": "ProfilerStep#{k}", "ts": {}, "dur": 100, "pid": 1, "tid": 1}}"#,
            100 * k
        )
    };
    // Step 1 (after step 0's warm-up) has 2,002 ops; 1,999 more steps of
    // one op each: 2,000 rows of 2,002 amounts, over 4·10⁶.
    let mut ev: Vec<String> = Vec::new();
    for k in 0..=2000 {
        ev.push(marker(k));
    }
    ev.push(x("send g", 100.0, 2));
    for i in 0..2001 {
        ev.push(x(&format!("op{i}"), 100.0 + 0.04 * i as f64, 2));
    }
    for k in 2..=2000 {
        ev.push(x("send g", 100.0 * k as f64, 2));
    }
    let e = refused(&ev, &Mapping::default(), "too many amounts");
    assert_eq!(
        e,
        "'t.json' gives 2000 profiled steps of 2002 amounts, 4004000 amounts in all, more than \
         the 4000000 accepted: trace fewer steps, or add rules that skip events"
    );

    // 10,001 steps after the warm-up: refused as the profile's check
    // would, before its rows are made.
    let mut ev: Vec<String> = Vec::new();
    for k in 0..=10_001 {
        ev.push(marker(k));
        ev.push(x("send g", 100.0 * k as f64, 2));
    }
    let e = refused(&ev, &Mapping::default(), "too many steps");
    assert_eq!(
        e,
        "the profile made from 't.json' is not valid: 10001 profiled steps is more than the \
         10000 accepted"
    );

    // A lane per event, one past the limit.
    let ev: Vec<String> = (0..=10_000).map(|t| x("send g", 1.0, t)).collect();
    let e = refused(&ev, &whole(), "too many lanes");
    assert_eq!(
        e,
        "the trace has more than 10000 lanes (pid, tid pairs with events or names), the most a \
         trace may have"
    );
}
