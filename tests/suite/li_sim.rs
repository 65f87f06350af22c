//! Li et al.'s simulator (Algorithm 3.1 as `shared/models.md` §5 rebuilds
//! it) on cases small enough to compute by hand; each comment works the
//! case out. Tolerance: 1e-9 relative (the event times are sums of a few
//! exact quotients).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::li::profile::{Op, Profile, Resource};
use ddnn_planner::models::li::sim::{
    draw, max_min, place, simulate, Flow, Lane, Order, Ordered, Outcome, Parse, Setup,
};

fn op(name: &str, resource: Resource, deps: &[u32]) -> Op {
    Op {
        name: name.into(),
        resource,
        deps: deps.to_vec(),
        tensor: None,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1e-12)
}

const NO_PARSE: Parse = Parse {
    alpha: 0.0,
    beta: 0.0,
    occupies: true,
};

fn setup(workers: u32, bytes_per_s: f64, steps: u32) -> Setup {
    Setup {
        workers,
        servers: 1,
        bytes_per_s,
        parse: NO_PARSE,
        flow: Flow::Window(28e6),
        steps,
        warmup: 0,
        seed: 1,
        trace_steps: 1,
    }
}

/// down 1 MB → compute 0.1 s → up 1 MB → PS update 0.01 s, batch 32.
fn chain() -> Profile {
    Profile {
        name: "chain".into(),
        batch: 32,
        ops: vec![
            op("recv w", Resource::Downlink, &[]),
            op("fwd+bwd", Resource::Worker, &[0]),
            op("send g", Resource::Uplink, &[1]),
            op("apply", Resource::Ps, &[2]),
        ],
        steps: vec![vec![1e6, 0.1, 1e6, 0.01]],
    }
}

#[test]
fn one_worker_runs_its_step_alone() {
    // At 10 MB/s: 0.1 + 0.1 + 0.1 + 0.01 = 0.31 s a step.
    let o = simulate(&chain(), &setup(1, 1e7, 10));
    assert!(close(o.end_s, 3.1), "{}", o.end_s);
    assert!(close(o.throughput, 32.0 / 0.31));
    // The downlink is busy 0.1 s of every 0.31 s.
    assert!(close(o.down_busy[0], 0.1 / 0.31));
}

#[test]
fn workers_that_start_together_share_the_link_in_step() {
    // Two workers: both downlinks at 5 MB/s end at 0.2, compute to 0.3,
    // both uplinks at 5 MB/s to 0.5, the updates to 0.51 — and again.
    let o = simulate(&chain(), &setup(2, 1e7, 10));
    assert!(close(o.end_s, 5.1));
    assert!(close(o.throughput, 2.0 * 32.0 / 0.51));
    // Three: 0.3 + 0.1 + 0.3 + 0.01 = 0.71 s a step each.
    let o = simulate(&chain(), &setup(3, 1e7, 10));
    assert!(close(o.throughput, 3.0 * 32.0 / 0.71));
}

#[test]
fn warm_up_steps_are_left_out() {
    let mut s = setup(1, 1e7, 10);
    s.warmup = 4;
    let o = simulate(&chain(), &s);
    // Six steps over the last 6 × 0.31 s.
    assert!(close(o.per_worker[0], 6.0 * 32.0 / (6.0 * 0.31)));
}

/// A downlink, then a compute that needs it; profiled steps of the given
/// bytes and seconds, batch `batch`.
fn recv_then_compute(rows: &[[f64; 2]], batch: u32) -> Profile {
    Profile {
        name: "recv, compute".into(),
        batch,
        ops: vec![
            Op {
                tensor: Some("w".into()),
                ..op("recv w", Resource::Downlink, &[])
            },
            op("compute", Resource::Worker, &[0]),
        ],
        steps: rows.iter().map(|r| r.to_vec()).collect(),
    }
}

#[test]
fn the_links_are_busy_over_the_throughputs_window_not_the_warm_up() {
    // Profiled steps A: 3 MB, 0.1 s and B: 1 MB, 0.3 s at 10 MB/s, each
    // 0.4 s, the downlink busy 0.3 s in A and 0.1 s in B. One worker runs
    // A then B; B alone is measured: 4 samples / 0.4 s = 10 samples/s,
    // the downlink busy 0.1 / 0.4 = 25% (over the whole run: 50%).
    let p = recv_then_compute(&[[3e6, 0.1], [1e6, 0.3]], 4);
    let mut s = setup(1, 1e7, 2);
    s.warmup = 1;
    s.seed = (0..1000u64)
        .find(|&k| draw(k, 0, 1).is_multiple_of(2) && !draw(k, 0, 2).is_multiple_of(2))
        .unwrap();
    let o = simulate(&p, &s);
    assert!(close(o.end_s, 0.8), "{}", o.end_s);
    assert!(close(o.throughput, 10.0), "{}", o.throughput);
    assert!(close(o.down_busy[0], 0.25), "{}", o.down_busy[0]);
    assert_eq!(o.up_busy[0], 0.0);
}

#[test]
fn the_links_are_busy_over_the_throughputs_window_not_the_tail() {
    // Profiled steps of 1 MB and 3 MB, each then 1 s of compute, at
    // 1 MB/s; worker 0 draws the first, worker 1 the second. Shared at
    // 0.5 MB/s, worker 0's transfer ends at 2 s, its step at 3 s: the
    // window is 0 to 3 s, 3 samples / 3 s = 1 sample/s. Worker 1's last
    // 2 MB go alone 2 to 4 s, then it computes to 5 s. The downlink is
    // busy all of the window (100%), 4 s of the run's 5 (80%). With two
    // PS the one variable and its link are on PS 0; PS 1 is idle.
    let p = recv_then_compute(&[[1e6, 1.0], [3e6, 1.0]], 3);
    let seed = (0..1000u64)
        .find(|&k| draw(k, 0, 1).is_multiple_of(2) && !draw(k, 1, 1).is_multiple_of(2))
        .unwrap();
    for servers in [1, 2] {
        let mut s = setup(2, 1e6, 1);
        s.servers = servers;
        s.seed = seed;
        let o = simulate(&p, &s);
        assert!(close(o.end_s, 5.0), "{servers} PS: {}", o.end_s);
        assert!(close(o.throughput, 1.0), "{servers} PS: {}", o.throughput);
        assert!(
            close(o.down_busy[0], 1.0),
            "{servers} PS: {:?}",
            o.down_busy
        );
        assert!(o.down_busy[1..].iter().all(|&b| b == 0.0));
    }
}

/// Flow control off: downlinks of w0 and w1 and a 10 s compute on w1;
/// pushes 'a' and 'b' ready at once and a 10 s update after 'b'; 1 MB
/// each at 1 MB/s.
fn two_each_way() -> Profile {
    Profile {
        name: "two each way".into(),
        batch: 1,
        ops: vec![
            op("recv w0", Resource::Downlink, &[]),
            op("recv w1", Resource::Downlink, &[]),
            op("fwd 1", Resource::Worker, &[1]),
            op("send a", Resource::Uplink, &[]),
            op("send b", Resource::Uplink, &[]),
            op("apply b", Resource::Ps, &[4]),
        ],
        steps: vec![vec![1e6, 1e6, 10.0, 1e6, 1e6, 10.0]],
    }
}

/// When each op of one worker's first step ends.
fn op_ends(o: &Outcome, ops: u32) -> Vec<f64> {
    (0..ops)
        .map(|i| {
            o.segments
                .iter()
                .filter(|g| g.op == i && g.worker == 0 && g.step == 1)
                .map(|g| g.end)
                .fold(0.0, f64::max)
        })
        .collect()
}

#[test]
fn the_order_ranks_the_downlinks_and_the_rest_go_first_come() {
    // Reverse order, the downlinks ordered: recv w1 0-1, recv w0 1-2, fwd
    // 1 1-11; the pushes first come, first served (ready together: in op
    // order): a 0-1, b 1-2, apply b 2-12. Every stream ordered: the
    // pushes reverse too, b 0-1 (apply b 1-11), a 1-2.
    let p = two_each_way();
    let run = |ordered| {
        let mut s = setup(1, 1e6, 1);
        s.flow = Flow::Off(Order::Reverse, ordered);
        op_ends(&simulate(&p, &s), 6)
    };
    assert_eq!(run(Ordered::Downlinks), [2.0, 1.0, 11.0, 1.0, 2.0, 12.0]);
    assert_eq!(run(Ordered::All), [2.0, 1.0, 11.0, 2.0, 1.0, 11.0]);
}

#[test]
fn first_come_is_by_arrival_not_by_op_index() {
    // Pushes b and c ready at 0 (b first, in op order), a after a 0.5 s
    // compute x; 1 MB each at 1 MB/s, a feeds a 10 s update. b goes 0-1;
    // at 1 s c (queued at 0) and a (queued at 0.5) wait. First come: c
    // 1-2, a 2-3, apply a 3-13. Every stream in profile order: a (op 1)
    // before c (op 3), a 1-2, apply a 2-12, c 2-3.
    let p = Profile {
        name: "arrivals".into(),
        batch: 1,
        ops: vec![
            op("x", Resource::Worker, &[]),
            op("send a", Resource::Uplink, &[0]),
            op("send b", Resource::Uplink, &[]),
            op("send c", Resource::Uplink, &[]),
            op("apply a", Resource::Ps, &[1]),
        ],
        steps: vec![vec![0.5, 1e6, 1e6, 1e6, 10.0]],
    };
    let run = |ordered| {
        let mut s = setup(1, 1e6, 1);
        s.flow = Flow::Off(Order::Profiled, ordered);
        op_ends(&simulate(&p, &s), 5)
    };
    assert_eq!(run(Ordered::Downlinks), [0.5, 3.0, 1.0, 2.0, 13.0]);
    assert_eq!(run(Ordered::All), [0.5, 2.0, 1.0, 3.0, 12.0]);
}

/// A downlink of 1 MB, an unrelated compute X of 0.3 s, and a compute Y
/// that needs the downlink.
fn parse_case() -> Profile {
    Profile {
        name: "parse".into(),
        batch: 1,
        ops: vec![
            op("recv A", Resource::Downlink, &[]),
            op("X", Resource::Worker, &[]),
            op("Y", Resource::Worker, &[0]),
        ],
        steps: vec![vec![1e6, 0.3, 0.1]],
    }
}

#[test]
fn the_parse_overhead_occupies_the_receiver_or_is_a_pure_delay() {
    // A arrives at 0.1; its parse (β = 0.05 s) waits for X on the worker
    // (0.3 to 0.35), then Y runs 0.35 to 0.45.
    let mut s = setup(1, 1e7, 1);
    s.parse = Parse {
        alpha: 0.0,
        beta: 0.05,
        occupies: true,
    };
    assert!(close(simulate(&parse_case(), &s).end_s, 0.45));
    // As a delay the parse runs 0.1 to 0.15 beside X; Y waits for X and
    // runs 0.3 to 0.4.
    s.parse.occupies = false;
    let o = simulate(&parse_case(), &s);
    assert!(close(o.end_s, 0.4));
    let parse = o.segments.iter().find(|g| g.parse).unwrap();
    assert_eq!(parse.lane, Lane::Delay);
    assert!(close(parse.start, 0.1) && close(parse.end, 0.15));
    // α scales with the bytes: 2e-8 s/B × 1 MB = 0.02 s.
    s.parse = Parse {
        alpha: 2e-8,
        beta: 0.0,
        occupies: true,
    };
    assert!(close(simulate(&parse_case(), &s).end_s, 0.42));
}

/// Fig. 12's shape: streams A-E of 5, 2, 4, 1 and 6 B, ready together on
/// one downlink of 1 B/s.
fn streams() -> Profile {
    Profile {
        name: "streams".into(),
        batch: 1,
        ops: ["A", "B", "C", "D", "E"]
            .iter()
            .map(|n| op(n, Resource::Downlink, &[]))
            .collect(),
        steps: vec![vec![5.0, 2.0, 4.0, 1.0, 6.0]],
    }
}

/// When each stream's last byte arrives.
fn ends(o: &Outcome) -> Vec<f64> {
    (0..5)
        .map(|i| {
            o.segments
                .iter()
                .filter(|g| g.op == i)
                .map(|g| g.end)
                .fold(0.0, f64::max)
        })
        .collect()
}

#[test]
fn http2_serves_at_most_win_first_then_to_the_end() {
    // WIN = 3: A 0-3 (2 left, to the tail), B 3-5, C 5-8 (1 left), D 8-9,
    // E 9-12 (3 left), A 12-14, C 14-15, E 15-18.
    let mut s = setup(1, 1.0, 1);
    s.flow = Flow::Window(3.0);
    assert_eq!(
        ends(&simulate(&streams(), &s)),
        [14.0, 5.0, 15.0, 9.0, 18.0]
    );
    // A window larger than every stream: first in, first out.
    s.flow = Flow::Window(28e6);
    assert_eq!(
        ends(&simulate(&streams(), &s)),
        [5.0, 7.0, 11.0, 12.0, 18.0]
    );
}

#[test]
fn flow_control_off_sends_whole_streams_in_the_chosen_order() {
    // Downlinks only: either reading of the order ranks them.
    let mut s = setup(1, 1.0, 1);
    s.flow = Flow::Off(Order::Profiled, Ordered::Downlinks);
    assert_eq!(
        ends(&simulate(&streams(), &s)),
        [5.0, 7.0, 11.0, 12.0, 18.0]
    );
    for ordered in [Ordered::Downlinks, Ordered::All] {
        s.flow = Flow::Off(Order::Reverse, ordered);
        assert_eq!(
            ends(&simulate(&streams(), &s)),
            [18.0, 13.0, 11.0, 7.0, 6.0]
        );
    }
    // Shortest first, by ranks: D, B, C, A, E.
    s.flow = Flow::Off(Order::Ranks(vec![3, 1, 2, 0, 4]), Ordered::Downlinks);
    assert_eq!(ends(&simulate(&streams(), &s)), [12.0, 3.0, 7.0, 1.0, 18.0]);
    // A random order is a permutation: the last stream ends at 18.
    s.flow = Flow::Off(Order::Random, Ordered::Downlinks);
    let e = ends(&simulate(&streams(), &s));
    assert_eq!(e.iter().copied().fold(0.0, f64::max), 18.0);
}

#[test]
fn variables_go_to_the_least_loaded_ps_in_creation_order() {
    // 4, 1 and 2 B: ps 0 takes 4, ps 1 takes 1, then 2 (load 1 < 4).
    let mut p = streams();
    p.ops.truncate(3);
    p.steps = vec![vec![4.0, 1.0, 2.0]];
    for (o, t) in p.ops.iter_mut().zip(["t1", "t2", "t3"]) {
        o.tensor = Some(t.into());
    }
    assert_eq!(place(&p, 2), [0, 1, 1]);
    assert_eq!(place(&p, 1), [0, 0, 0]);
}

#[test]
fn two_ps_share_as_the_paper_says() {
    // Worker 0 alone on PS 0 and with two others on PS 1 (n = 3): 1/3 on
    // PS 1, 1 − 1/3 on PS 0 (l.310).
    let r = max_min(&[(0, 0), (1, 0), (1, 1), (1, 2)], 2, 1.0);
    let want = [2.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0];
    assert!(r.iter().zip(want).all(|(a, b)| close(*a, b)), "{r:?}");
    // One PS: equal shares.
    assert_eq!(max_min(&[(0, 0), (0, 1)], 1, 1.0), [0.5, 0.5]);
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let mut p = chain();
    p.steps = vec![
        vec![1e6, 0.1, 1e6, 0.01],
        vec![2e6, 0.05, 1e6, 0.02],
        vec![5e5, 0.2, 5e5, 0.01],
    ];
    let mut s = setup(4, 1e7, 200);
    s.seed = 7;
    let a = simulate(&p, &s);
    let b = simulate(&p, &s);
    assert_eq!(a, b);
    // Pinned: the same figure natively and in wasm (this test runs in both).
    s.seed = 8;
    let c = simulate(&p, &s);
    assert_ne!(a.throughput, c.throughput);
}

#[test]
fn a_shorter_transfer_leaves_the_link_to_the_longer_one() {
    // Profiled steps of 1 MB and 3 MB on a 1 MB/s downlink; a seed where
    // worker 0 draws the first and worker 1 the second. Shared at 0.5 MB/s
    // each, worker 0 is done at 2 s; worker 1's last 2 MB then go at
    // 1 MB/s and end at 4 s.
    let p = Profile {
        name: "two sizes".into(),
        batch: 1,
        ops: vec![op("recv", Resource::Downlink, &[])],
        steps: vec![vec![1e6], vec![3e6]],
    };
    let seed = (0..1000u64)
        .find(|&s| draw(s, 0, 1).is_multiple_of(2) && !draw(s, 1, 1).is_multiple_of(2))
        .unwrap();
    let mut s = setup(2, 1e6, 1);
    s.seed = seed;
    let o = simulate(&p, &s);
    let mut ends: Vec<f64> = o.segments.iter().map(|g| g.end).collect();
    ends.sort_by(f64::total_cmp);
    assert!(close(ends[0], 2.0) && close(ends[1], 4.0), "{ends:?}");
}

#[test]
fn the_shipped_example_is_the_preset() {
    let shipped =
        ddnn_planner::models::from_json(include_str!("../../public/examples/li-vgg16-10gbe.json"))
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shipped, ddnn_planner::models::li::presets::example());
}

#[test]
fn the_trace_opens_in_perfetto_one_slice_per_op_in_service() {
    // Two workers of the chain: 8 ops each, as complete events in µs.
    let o = simulate(&chain(), &setup(2, 1e7, 1));
    let text = ddnn_planner::models::li::trace::chrome_trace(&chain(), &o);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    let slices: Vec<&serde_json::Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(slices.len(), 8);
    // Worker 1's downlink: 0 to 0.2 s shared with worker 2.
    let first = slices
        .iter()
        .find(|e| e["pid"] == 1 && e["name"] == "recv w")
        .unwrap();
    assert!(close(first["ts"].as_f64().unwrap(), 0.0) || first["ts"].as_f64() == Some(0.0));
    assert!(close(first["dur"].as_f64().unwrap(), 0.2e6));
    assert!(events
        .iter()
        .any(|e| e["ph"] == "M" && e["args"]["name"] == "worker 2"));
}

#[test]
fn an_edit_the_simulation_does_not_read_keeps_its_inputs_key() {
    // The model reruns only when this key changes (its last report is
    // kept under it).
    use ddnn_planner::models::li::inputs_key;
    let mut s = ddnn_planner::models::li::presets::example();
    let key = inputs_key(&s);
    // Goals and other models' sections: not read.
    s.goals.time_s = Some(3600.0);
    s.set_section(
        "stash",
        &ddnn_planner::models::stash::section::StashSettings::default(),
    );
    assert_eq!(inputs_key(&s), key);
    // The PS link, the batch, the precision: read.
    for edit in [
        |s: &mut ddnn_planner::scenario::Scenario| {
            s.hardware.cluster.ps.link_bytes_per_s = Some(1.25e8)
        },
        |s: &mut ddnn_planner::scenario::Scenario| s.hardware.cluster.workers[0].batch_size = 64,
        |s: &mut ddnn_planner::scenario::Scenario| {
            s.hardware.precision = ddnn_planner::hardware::Precision::Fp16
        },
    ] {
        let mut t = s.clone();
        edit(&mut t);
        assert_ne!(inputs_key(&t), key);
    }
}

#[test]
fn critical_path_first_serves_the_longer_path_first() {
    // Two pushes at once, flow control off, every stream ordered: 'a'
    // (1 MB) feeds nothing, 'b' (1 MB) feeds a 10 s update. Critical path
    // first sends 'b' first, so the update starts at 1 s and the step ends
    // at 11 s; profile order sends 'a' first and the step ends at 12 s.
    // With the downlinks alone ordered, the pushes go first come, first
    // served (ready together: in op order), 'a' first: 12 s.
    let p = Profile {
        name: "cp".into(),
        batch: 1,
        ops: vec![
            op("a", Resource::Uplink, &[]),
            op("b", Resource::Uplink, &[]),
            op("apply b", Resource::Ps, &[1]),
        ],
        steps: vec![vec![1e6, 1e6, 10.0]],
    };
    let ranks = ddnn_planner::models::li::eval::critical_path_ranks(&p, 1e6);
    assert_eq!(ranks, vec![2, 0, 1]);
    let run = |order: Order, ordered: Ordered| {
        let mut s = setup(1, 1e6, 1);
        s.warmup = 0;
        s.flow = Flow::Off(order, ordered);
        simulate(&p, &s).end_s
    };
    assert!(close(run(Order::Ranks(ranks.clone()), Ordered::All), 11.0));
    assert!(close(run(Order::Profiled, Ordered::All), 12.0));
    assert!(close(run(Order::Ranks(ranks), Ordered::Downlinks), 12.0));
}
