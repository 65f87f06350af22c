//! The steps of a Chrome trace (`models::li::chrome`, docs/li-traces.md,
//! "Steps"): PyTorch's `ProfilerStep#N` markers with the first step left
//! out as warm-up, TensorFlow's step ids (`group_id`, `step_num`), a step
//! given by hand in a trace without either, and the messages for a trace
//! that has none, a step no event falls in and steps that are all warm-up.
//! The traces are written here; every expected value is worked out from
//! them in the comments.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::li::chrome::{import, Imported, Mapping, StepSource, SINGLE_STEP};
use ddnn_planner::models::li::profile::Resource;
use serde_json::{json, Value};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

fn assert_rows(i: &Imported, want: &[&[f64]]) {
    let got = &i.profile.steps;
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.len(), w.len(), "step {k}: {g:?}");
        for (a, b) in g.iter().zip(w.iter()) {
            assert!(close(*a, *b), "step {k}: {g:?} vs {w:?}");
        }
    }
}

fn names(i: &Imported) -> Vec<&str> {
    i.profile.ops.iter().map(|o| o.name.as_str()).collect()
}

fn deps(i: &Imported) -> Vec<Vec<u32>> {
    i.profile.ops.iter().map(|o| o.deps.clone()).collect()
}

fn lines(i: &Imported) -> String {
    i.summary.lines().join("\n")
}

fn trace(events: Vec<Value>) -> String {
    json!({ "traceEvents": events }).to_string()
}

/// A complete event.
fn x(name: &str, cat: &str, pid: u32, tid: u32, ts: f64, dur: f64, args: Value) -> Value {
    json!({"ph": "X", "name": name, "cat": cat, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args})
}

/// PyTorch's shape: `ProfilerStep#k` on the CPU thread (pid 1, tid 1); in
/// each step a 1000 B "recv w" 10 µs in, the CPU op from 20 µs, its kernel
/// on the GPU right after, and a 2000 B "send g" after the kernel. Step 0
/// is CUDA's start-up: a 40 ms CPU op. `(k, start, conv, kernel)` [µs].
pub(crate) fn torch(steps: &[(u32, f64, f64, f64)]) -> String {
    let mut ev =
        vec![json!({"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python3"}})];
    for &(k, t0, conv, kernel) in steps {
        let dur = 20.0 + conv + kernel + 10.0 + 10.0;
        ev.push(x(
            &format!("ProfilerStep#{k}"),
            "user_annotation",
            1,
            1,
            t0,
            dur,
            json!({}),
        ));
        ev.push(x(
            "recv w",
            "cpu_op",
            1,
            2,
            t0 + 10.0,
            10.0,
            json!({"bytes": 1000}),
        ));
        ev.push(x(
            "aten::conv2d",
            "cpu_op",
            1,
            1,
            t0 + 20.0,
            conv,
            json!({}),
        ));
        ev.push(x(
            "conv_kernel",
            "kernel",
            0,
            7,
            t0 + 20.0 + conv,
            kernel,
            json!({}),
        ));
        let send = t0 + 20.0 + conv + kernel;
        ev.push(x(
            "send g",
            "cpu_op",
            1,
            2,
            send,
            10.0,
            json!({"bytes": 2000}),
        ));
    }
    trace(ev)
}

#[test]
fn pytorch_step_markers_leave_out_the_warm_up_step() {
    let text = torch(&[
        (0, 0.0, 40_000.0, 5_000.0),
        (1, 50_000.0, 100.0, 300.0),
        (2, 51_000.0, 120.0, 350.0),
    ]);
    let i = import("torch.json", &text, &Mapping::default(), None).expect("imports");
    assert_eq!(
        names(&i),
        ["recv w", "aten::conv2d", "conv_kernel", "send g"]
    );
    use Resource::*;
    let resources: Vec<Resource> = i.profile.ops.iter().map(|o| o.resource).collect();
    assert_eq!(resources, [Downlink, Worker, Worker, Uplink]);
    // The recv ends at 20 µs, where the CPU op starts; the kernel follows
    // the CPU op; the send follows the kernel (and the recv).
    assert_eq!(deps(&i), [vec![], vec![0], vec![0, 1], vec![0, 2]]);
    // Steps 1 and 2, not the 40 ms of step 0.
    assert_rows(
        &i,
        &[
            &[1000.0, 100e-6, 300e-6, 2000.0],
            &[1000.0, 120e-6, 350e-6, 2000.0],
        ],
    );
    let s = &i.summary;
    assert_eq!(s.step_source, StepSource::Markers);
    assert_eq!((s.steps, s.warmup_steps, s.warmup_events), (3, 1, 4));
    assert_eq!((s.profiled_steps, s.outside_steps), (2, 0));
    let l = lines(&i);
    assert!(
        l.contains("3 steps found at 'ProfilerStep#' markers"),
        "{l}"
    );
    assert!(
        l.contains("The first step was left out as warm-up (4 events)."),
        "{l}"
    );
    assert!(!l.contains(SINGLE_STEP), "{l}");

    // Without the warm-up, step 0's 40 ms CPU op is the first step's.
    let none = Mapping {
        warmup_steps: 0,
        ..Mapping::default()
    };
    let i = import("torch.json", &text, &none, None).expect("imports");
    assert_eq!(i.profile.steps.len(), 3);
    assert!(close(i.profile.steps[0][1], 0.04));
    assert!(!lines(&i).contains("warm-up ("), "{}", lines(&i));
}

/// TensorFlow's profiler: every event of a step carries its `group_id`,
/// the step's root "train" event its `step_num` too. Step g = 5, 6, 7 has
/// its root at 1000·k µs (k = g − 5) for 900 µs; a 4000 B RecvTensor at
/// +10, a MatMul at +100 for 200 + 100·k µs, a MemcpyDtoH without a
/// group_id 20 µs after the MatMul, a 4000 B _Send at +400 + 100·k. The
/// input pipeline prefetches: step g's IteratorGetNext runs 200 µs before
/// its root, inside step g − 1's.
fn tensorflow() -> String {
    let mut ev = vec![
        json!({"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "/host:CPU"}}),
        json!({"ph": "M", "name": "process_name", "pid": 2, "args": {"name": "/device:GPU:0"}}),
    ];
    for k in 0..3u32 {
        let g = 5 + k;
        let t0 = 1000.0 * f64::from(k);
        let kf = f64::from(k);
        let id = json!({"group_id": g.to_string()});
        ev.push(x(
            "train",
            "TraceMe",
            1,
            1,
            t0,
            900.0,
            json!({"step_num": 10 + k, "group_id": g}),
        ));
        ev.push(x(
            "IteratorGetNext",
            "TraceMe",
            1,
            3,
            t0 - 200.0,
            40.0,
            id.clone(),
        ));
        ev.push(x(
            "RecvTensor",
            "Op",
            1,
            2,
            t0 + 10.0,
            20.0,
            json!({"group_id": g, "bytes": 4000}),
        ));
        ev.push(x(
            "MatMul",
            "Op",
            2,
            7,
            t0 + 100.0,
            200.0 + 100.0 * kf,
            id.clone(),
        ));
        ev.push(x(
            "MemcpyDtoH",
            "Op",
            2,
            7,
            t0 + 320.0 + 100.0 * kf,
            10.0,
            json!({}),
        ));
        ev.push(x(
            "_Send",
            "Op",
            1,
            2,
            t0 + 400.0 + 100.0 * kf,
            30.0,
            json!({"group_id": g, "bytes": 4000}),
        ));
    }
    trace(ev)
}

#[test]
fn tensorflow_step_ids_split_the_steps() {
    let i = import("tf.json", &tensorflow(), &Mapping::default(), None).expect("imports");
    // Step 6 (step 5 is warm-up): its IteratorGetNext at 800 µs lies in
    // step 5's root, but its group_id puts it in step 6; the MemcpyDtoH at
    // 1420 µs has no id and lies in step 6's span (800-1900 µs).
    assert_eq!(
        names(&i),
        [
            "IteratorGetNext",
            "RecvTensor",
            "MatMul",
            "MemcpyDtoH",
            "_Send"
        ]
    );
    // Iter 800-840, Recv 1010-1030, MatMul 1100-1400, Memcpy 1420-1430,
    // Send 1500-1530: each waits for its resource's op before it and for
    // the other resources' last op ended by its start.
    assert_eq!(
        deps(&i),
        [vec![], vec![0], vec![0, 1], vec![1, 2], vec![1, 3]]
    );
    assert_rows(
        &i,
        &[
            &[40e-6, 4000.0, 300e-6, 10e-6, 4000.0],
            &[40e-6, 4000.0, 400e-6, 10e-6, 4000.0],
        ],
    );
    let s = &i.summary;
    assert_eq!(s.step_source, StepSource::Ids);
    // The roots are step markers, not skipped events; step 5's five
    // mapped events are its warm-up.
    assert_eq!((s.steps, s.warmup_steps, s.warmup_events), (3, 1, 5));
    assert_eq!((s.skipped_events, s.outside_steps), (0, 0));
    assert_eq!((s.missing_in_later_steps, s.extra_in_later_steps), (0, 0));
    let l = lines(&i);
    assert!(
        l.contains("3 steps found by their step ids (args group_id, step_num)"),
        "{l}"
    );
    assert!(
        l.contains("The first step was left out as warm-up (5 events)."),
        "{l}"
    );
}

#[test]
fn tensorflow_step_numbers_alone_split_by_time() {
    // Roots with step_num only, at 0, 1000, 2000 µs for 500 µs; a MatMul
    // of 100 + 50·k µs inside each, a _Send at +450 and one after the
    // last root (outside every step).
    let mut ev = Vec::new();
    for k in 0..3u32 {
        let t0 = 1000.0 * f64::from(k);
        ev.push(x("train", "", 1, 1, t0, 500.0, json!({"step_num": k})));
        ev.push(x(
            "MatMul",
            "",
            2,
            7,
            t0 + 10.0,
            100.0 + 50.0 * f64::from(k),
            json!({}),
        ));
        ev.push(x(
            "_Send",
            "",
            1,
            2,
            t0 + 450.0,
            40.0,
            json!({"bytes": 512}),
        ));
    }
    ev.push(x("_Send", "", 1, 2, 2600.0, 40.0, json!({"bytes": 512})));
    let m = Mapping {
        warmup_steps: 0,
        ..Mapping::default()
    };
    let i = import("tf1.json", &trace(ev), &m, None).expect("imports");
    assert_eq!(names(&i), ["MatMul", "_Send"]);
    assert_rows(&i, &[&[100e-6, 512.0], &[150e-6, 512.0], &[200e-6, 512.0]]);
    assert_eq!(i.summary.step_source, StepSource::Ids);
    assert_eq!((i.summary.steps, i.summary.outside_steps), (3, 1));
}

/// A trace without markers or ids, timestamps from an epoch (10⁹ µs): a
/// counter sample at the start, a 30 ms CPU op from 1 ms (start-up), then
/// from 40 ms an iteration every 1 ms: a 1000 B "recv w" for 10 µs, its
/// kernel from +20 µs for 300 + 50·i µs, a 2000 B "send g" at +400 µs.
/// The last event, the third kernel, ends at 42 + 0.02 + 0.4 = 42.42 ms.
pub(crate) fn startup() -> String {
    let base = 1e9;
    let mut ev = vec![
        json!({"ph": "C", "name": "GPU 0 memory", "pid": 0, "ts": base, "args": {"allocated": 0}}),
        x(
            "aten::empty",
            "cpu_op",
            1,
            1,
            base + 1000.0,
            30_000.0,
            json!({}),
        ),
    ];
    for i in 0..3 {
        let t = base + 40_000.0 + 1000.0 * f64::from(i);
        ev.push(x("recv w", "cpu_op", 1, 2, t, 10.0, json!({"bytes": 1000})));
        let kernel = 300.0 + 50.0 * f64::from(i);
        ev.push(x(
            "conv_kernel",
            "kernel",
            0,
            7,
            t + 20.0,
            kernel,
            json!({}),
        ));
        ev.push(x(
            "send g",
            "cpu_op",
            1,
            2,
            t + 400.0,
            10.0,
            json!({"bytes": 2000}),
        ));
    }
    trace(ev)
}

#[test]
fn a_trace_without_steps_asks_for_the_step() {
    let e = import("startup.json", &startup(), &Mapping::default(), None)
        .expect_err("no step")
        .to_string();
    assert_eq!(
        e,
        "'startup.json' has no 'ProfilerStep#' step markers and no step ids (args group_id, \
         step_num): give the step (the name of an event that spans one as the step marker, or \
         the step's start and end in ms), or clear the step marker to take the whole trace \
         (42.42 ms, start-up and warm-up included) as one step"
    );

    // The second iteration, 41 to 42 ms after the counter sample.
    let given = Mapping {
        step_start_s: Some(0.041),
        step_end_s: Some(0.042),
        ..Mapping::default()
    };
    let i = import("startup.json", &startup(), &given, None).expect("imports");
    assert_eq!(names(&i), ["recv w", "conv_kernel", "send g"]);
    assert_rows(&i, &[&[1000.0, 350e-6, 2000.0]]);
    let s = &i.summary;
    assert_eq!(
        s.step_source,
        StepSource::Given {
            start_s: 0.041,
            end_s: 0.042
        }
    );
    assert_eq!((s.steps, s.warmup_steps), (1, 0));
    // The start-up op, the first and the third iteration.
    assert_eq!(s.outside_steps, 1 + 3 + 3);
    let l = lines(&i);
    assert!(
        l.contains("The step given: 41 to 42 ms of the trace (42.42 ms after its first event)."),
        "{l}"
    );
    assert!(l.contains(SINGLE_STEP), "{l}");

    // No marker asked for: the whole trace, start-up included, is one step.
    let whole = Mapping {
        step_marker: String::new(),
        ..Mapping::default()
    };
    let i = import("startup.json", &startup(), &whole, None).expect("imports");
    assert_eq!(
        names(&i),
        [
            "aten::empty",
            "recv w",
            "conv_kernel",
            "send g",
            "recv w",
            "conv_kernel",
            "send g",
            "recv w",
            "conv_kernel",
            "send g"
        ]
    );
    assert!(lines(&i).contains("the whole trace (42.42 ms) is one step"));
    assert!(lines(&i).contains(SINGLE_STEP));
}

#[test]
fn a_step_no_event_falls_in_is_named() {
    let empty = Mapping {
        step_start_s: Some(0.05),
        step_end_s: Some(0.06),
        ..Mapping::default()
    };
    let e = import("startup.json", &startup(), &empty, None)
        .expect_err("empty")
        .to_string();
    assert_eq!(
        e,
        "no event of 'startup.json' starts in the step given, 50 to 60 ms: the trace runs from \
         0 to 42.42 ms (after its first event)"
    );
    let half = Mapping {
        step_start_s: Some(0.05),
        ..Mapping::default()
    };
    let e = import("startup.json", &startup(), &half, None)
        .expect_err("half")
        .to_string();
    assert_eq!(e, "give both the start and the end of the step, or neither");
    let reversed = Mapping {
        step_start_s: Some(0.042),
        step_end_s: Some(0.041),
        ..Mapping::default()
    };
    let e = import("startup.json", &startup(), &reversed, None)
        .expect_err("reversed")
        .to_string();
    assert_eq!(
        e,
        "the step must start at 0 ms or later and end after it starts, not 42 to 41 ms"
    );
}

#[test]
fn steps_that_are_all_warm_up_are_refused() {
    let one = torch(&[(1, 0.0, 100.0, 300.0)]);
    let e = import("one.json", &one, &Mapping::default(), None)
        .expect_err("all warm-up")
        .to_string();
    assert_eq!(
        e,
        "'one.json' has 1 step, and its first 1 are left out as warm-up: none is left. Lower \
         the warm-up steps, or trace more steps"
    );
    let two = torch(&[(1, 0.0, 100.0, 300.0), (2, 1000.0, 100.0, 300.0)]);
    let three = Mapping {
        warmup_steps: 3,
        ..Mapping::default()
    };
    let e = import("two.json", &two, &three, None)
        .expect_err("all warm-up")
        .to_string();
    assert!(
        e.starts_with("'two.json' has 2 steps, and its first 3 are"),
        "{e}"
    );
    // Kept, it is one step, and the summary says what that means.
    let none = Mapping {
        warmup_steps: 0,
        ..Mapping::default()
    };
    let i = import("one.json", &one, &none, None).expect("imports");
    assert_rows(&i, &[&[1000.0, 100e-6, 300e-6, 2000.0]]);
    assert!(lines(&i).contains(SINGLE_STEP));
}

#[test]
fn an_older_mapping_reads_with_the_new_fields_defaulted() {
    // A mapping as saved before the warm-up and the step given existed.
    let old: Mapping = serde_json::from_str(
        r#"{"rules": [], "step_marker": "ProfilerStep#", "default": "worker",
            "assumed_bytes_per_s": 1.25e9, "ps_bytes_per_s": 1e10, "batch": 32}"#,
    )
    .expect("reads");
    assert_eq!(old.warmup_steps, 1);
    assert_eq!((old.step_start_s, old.step_end_s), (None, None));
    let json = serde_json::to_value(&old).expect("writes");
    assert!(json.get("step_start_s").is_none(), "{json}");
}

/// `ddnn-planner eval --import li.trace=FILE` (`files::TRACE_IMPORT`) reads
/// a trace as the page's upload does (the import worker's `files::TRACE`
/// with the scenario's rules and layer table), and a trace it cannot read
/// leaves the last profile in place.
#[test]
fn the_cli_reads_a_trace_as_the_page_does_and_keeps_the_last_profile() {
    use ddnn_planner::models::li::files::{trace_options, TRACE, TRACE_IMPORT};
    use ddnn_planner::models::li::profile::Profile;
    use ddnn_planner::models::li::section::{settings, LiSettings};
    use ddnn_planner::worker::imports::{answer, read_answer, ImportRequest};
    let mut s = ddnn_planner::models::li::presets::example();
    let text = torch(&[
        (0, 0.0, 40_000.0, 5_000.0),
        (1, 50_000.0, 100.0, 300.0),
        (2, 51_000.0, 120.0, 350.0),
    ]);
    let req = ImportRequest::new(&TRACE, "torch.json", &trace_options(&s));
    let page = read_answer::<(Profile, Vec<String>)>(&answer(
        &serde_json::to_string(&req).unwrap_or_default(),
        Some(text.clone().into_bytes()),
    ));
    let Ok((profile, summary)) = page else {
        panic!("{page:?}");
    };
    let said = (TRACE_IMPORT.apply)(&mut s, "torch.json", text.into_bytes()).expect("reads");
    assert_eq!(said, summary.join("\n  "));
    let c: LiSettings = settings(&s);
    assert_eq!(c.profile.as_ref(), Some(&profile));
    assert_eq!(c.trace_mapping, Some(Mapping::default()));
    assert_eq!(profile.steps.len(), 2);

    let e = (TRACE_IMPORT.apply)(&mut s, "startup.json", startup().into_bytes())
        .expect_err("no step")
        .to_string();
    assert!(
        e.starts_with("'startup.json' has no 'ProfilerStep#' step markers"),
        "{e}"
    );
    assert_eq!(
        settings(&s).profile.as_ref(),
        Some(&profile),
        "the last profile stays"
    );
}
