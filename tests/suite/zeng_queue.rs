//! Algorithms 1 and 2 against cases small enough to work by hand.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::hardware::Processor;
use ddnn_planner::models::zeng::{
    push_queue, queue_compute_s, regime, simulate, Link, NetworkFigures, SegmentKind, WorkerInput,
};

#[test]
fn queue_all_waiting() {
    // t = 1, 1.5, 2; push 1: pushes 1-2, 2-3, 3-4; then 3 pulls of 0.5 → 5.5.
    let (order, pushes, t) = push_queue(&[2.0, 1.0, 1.5], 1.0, 0.5);
    assert_eq!(order, vec![1, 2, 0]);
    assert_eq!(pushes, vec![(1.0, 2.0), (2.0, 3.0), (3.0, 4.0)]);
    assert_eq!(t, 5.5);
}

#[test]
fn queue_link_idles_for_slow_worker() {
    // t = 1, 5; push 1: first push 1-2, link idle until 5, second 5-6; 2 pulls of 1 → 8.
    let (_, pushes, t) = push_queue(&[5.0, 1.0], 1.0, 1.0);
    assert_eq!(pushes, vec![(1.0, 2.0), (5.0, 6.0)]);
    assert_eq!(t, 8.0);
}

#[test]
fn queue_tie_exactly_at_free_link() {
    // t2 equals the end of the first push: `T >= t_i` queues it, same result.
    let (_, pushes, t) = push_queue(&[1.0, 2.0], 1.0, 0.0);
    assert_eq!(pushes, vec![(1.0, 2.0), (2.0, 3.0)]);
    assert_eq!(t, 3.0);
}

#[test]
fn queue_empty_and_single() {
    assert_eq!(push_queue(&[], 1.0, 1.0).2, 0.0);
    // One worker: compute + push + pull (Eq. 29 with n = 1).
    assert_eq!(push_queue(&[3.0], 2.0, 0.5).2, 5.5);
}

fn gpu(hz: f64, sp: u32) -> Processor {
    Processor::Gpu {
        hz,
        stream_processors: sp,
        fma: false,
    }
}

#[test]
fn algorithm2_first_backward_segment() {
    // forward 10 FLOP/sample, backward 40 FLOP, 4 pushes; bs 2; 10 FLOP/s:
    // (10·2 + 40/4) / 10 = 3 s; a CPU worker takes the whole (20 + 40)/10 = 6 s.
    let net = NetworkFigures {
        forward_flop: 10.0,
        backward_flop: 40.0,
        pushes: Some(4),
        transfer_bytes: 8.0,
        pull_bytes: 8.0,
    };
    assert_eq!(queue_compute_s(&net, &gpu(10.0, 1), 2), 3.0);
    assert_eq!(
        queue_compute_s(&net, &Processor::Cpu { hz: 5.0, simd: 2.0 }, 2),
        6.0
    );
}

#[test]
fn timeline_segments_and_regime() {
    // Two GPUs: compute 3 s and 6 s; 8 bytes at 4 B/s = 2 s per transfer.
    let net = NetworkFigures {
        forward_flop: 10.0,
        backward_flop: 40.0,
        pushes: Some(4),
        transfer_bytes: 8.0,
        pull_bytes: 8.0,
    };
    let workers = vec![
        WorkerInput {
            name: "slow".into(),
            processor: gpu(5.0, 1),
            batch_size: 2,
        },
        WorkerInput {
            name: "fast".into(),
            processor: gpu(10.0, 1),
            batch_size: 2,
        },
    ];
    let link = Link {
        bandwidth_bytes_per_s: 4.0,
        latency_s: 0.0,
    };
    let q = simulate(&net, &workers, &link);
    // fast: compute 0-3, push 3-5; slow: compute 0-6 (link idles 5-6), push 6-8; pulls 8-10, 10-12.
    assert_eq!(q.iteration_s, 12.0);
    assert_eq!(q.workers[0].name, "fast");
    assert_eq!(q.link_idle_s, 1.0);
    let kinds: Vec<_> = q
        .segments
        .iter()
        .map(|s| (s.worker, s.kind, s.start_s, s.end_s))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (0, SegmentKind::Compute, 0.0, 3.0),
            (0, SegmentKind::Push, 3.0, 5.0),
            (1, SegmentKind::Compute, 0.0, 6.0),
            (1, SegmentKind::Push, 6.0, 8.0),
            (0, SegmentKind::Pull, 8.0, 10.0),
            (1, SegmentKind::Pull, 10.0, 12.0),
        ]
    );
    let r = regime(&q, &workers);
    assert!(!r.communication_bound);
    // Eq. 32 would say 2·2 + 3 + 2·2 = 11 s, one second short.
    assert_eq!(r.eq32_s, 11.0);
    assert_eq!(r.eq29_s, None);
}

#[test]
fn latency_adds_per_transfer() {
    let link = Link {
        bandwidth_bytes_per_s: 4.0,
        latency_s: 0.5,
    };
    assert_eq!(link.transfer_s(8.0), 2.5);
}

#[test]
fn calibration_inverts_eq28() {
    use ddnn_planner::models::zeng::{calibrate_simd, standalone_s};
    let net = NetworkFigures {
        forward_flop: 1e9,
        backward_flop: 5e9,
        pushes: None,
        transfer_bytes: 1.0,
        pull_bytes: 1.0,
    };
    let simd = calibrate_simd(&net, 2e9, 32, 11.59).unwrap_or_default();
    let back = standalone_s(&net, &Processor::Cpu { hz: 2e9, simd }, 32);
    assert!((back - 11.59).abs() < 1e-12);
    assert_eq!(calibrate_simd(&net, 2e9, 32, 0.0), None);
    assert_eq!(calibrate_simd(&net, 2e9, 32, f64::NAN), None);
    assert_eq!(calibrate_simd(&net, 2e9, 32, -1.0), None);
}

/// Eq. 30/31: a pull moves the parameters P, a push the gradients G. With
/// gradients sent at half the size, each push takes half as long, each
/// pull as long as before, and the queue, the timeline and Eq. 32 use
/// both; without a pull size, a pull is a push (every older link keeps
/// its numbers).
#[test]
fn pulls_and_pushes_have_their_own_sizes() {
    use ddnn_planner::models::zeng::evaluate_zeng;
    use ddnn_planner::scenario::Scenario;
    let s = Scenario::example();
    let same = evaluate_zeng(&s).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(same.queue.t_push_s, same.queue.t_pull_s);

    let mut half = s.clone();
    let n = &mut half.workload.network;
    let g = n.summary().transfer_values;
    n.pull_values = Some(g);
    n.transfer_values = Some(g / 2.0);
    let e = evaluate_zeng(&half).unwrap_or_else(|e| panic!("{e:?}"));
    assert!((e.queue.t_push_s - same.queue.t_push_s / 2.0).abs() < 1e-9 * same.queue.t_push_s);
    assert_eq!(e.queue.t_pull_s, same.queue.t_pull_s);
    // Communication-bound: Eq. 32's n·T_pull + T_min + n·T_push.
    let n = e.queue.workers.len() as f64;
    let t_min = e
        .queue
        .workers
        .iter()
        .map(|w| w.compute_s)
        .fold(f64::INFINITY, f64::min);
    assert!(
        (e.regime.eq32_s - (n * e.queue.t_pull_s + t_min + n * e.queue.t_push_s)).abs()
            < 1e-9 * e.regime.eq32_s
    );
    assert!(e.queue.iteration_s < same.queue.iteration_s);
    let r = ddnn_planner::models::evaluate(&ddnn_planner::models::zeng::Zeng, &half)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let fig = |k: &str| {
        r.figures
            .iter()
            .chain(&r.headline)
            .find(|f| f.key == k)
            .and_then(|f| f.value.number())
            .unwrap_or_else(|| panic!("{k}"))
    };
    assert_eq!(fig("pull-values"), g);
    assert_eq!(fig("transfer-values"), g / 2.0);
}
