//! Li et al.'s simulator on random small profiles: throughput never
//! exceeds W times the fastest profiled step alone nor the link bound
//! `batch · B / bytes per step` (up to one step per worker at the window's
//! edges); busy shares lie in [0, 1]; many workers sit at the bound; the
//! shipped example saturates there while Cynthia's estimate stays below;
//! Lin et al.'s estimate keeps to its own bounds, is the one-worker step
//! at W = 1, and saturates early where the links overlap the compute.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;

use ddnn_planner::models::li::lin::Lin;
use ddnn_planner::models::li::profile::{Op, Profile, Resource};
use ddnn_planner::models::li::sim::{simulate, Flow, Order, Ordered, Parse, Setup};

/// A layer-wise step: L downlinks, forward computes chained on them,
/// backward computes each followed by its uplink and PS update.
fn layered(down: &[f64], fwd: &[f64], steps: usize, jitter: &[f64]) -> Profile {
    let l = down.len();
    let mut ops = Vec::new();
    for i in 0..l {
        ops.push(Op {
            name: format!("recv {i}"),
            resource: Resource::Downlink,
            deps: vec![],
            tensor: Some(format!("w{i}")),
        });
    }
    for i in 0..l {
        let mut deps = vec![i as u32];
        if i > 0 {
            deps.push((l + i - 1) as u32);
        }
        ops.push(Op {
            name: format!("fwd {i}"),
            resource: Resource::Worker,
            deps,
            tensor: None,
        });
    }
    for i in (0..l).rev() {
        let prev = if i == l - 1 {
            (2 * l - 1) as u32
        } else {
            ops.len() as u32 - 3
        };
        let b = ops.len() as u32;
        ops.push(Op {
            name: format!("bwd {i}"),
            resource: Resource::Worker,
            deps: vec![prev],
            tensor: None,
        });
        ops.push(Op {
            name: format!("send {i}"),
            resource: Resource::Uplink,
            deps: vec![b],
            tensor: Some(format!("w{i}")),
        });
        ops.push(Op {
            name: format!("apply {i}"),
            resource: Resource::Ps,
            deps: vec![b + 1],
            tensor: Some(format!("w{i}")),
        });
    }
    let rows = (0..steps)
        .map(|k| {
            let j = jitter[k % jitter.len()];
            let mut row: Vec<f64> = down.to_vec();
            row.extend(fwd.iter().map(|f| f * j));
            for i in (0..l).rev() {
                row.extend([2.0 * fwd[i] * j, down[i], 1e-3]);
            }
            row
        })
        .collect();
    let p = Profile {
        name: "layered".into(),
        batch: 16,
        ops,
        steps: rows,
    };
    assert!(p.validate().is_empty(), "{:?}", p.validate());
    p
}

fn setup(workers: u32, servers: u32, flow: Flow, steps: u32) -> Setup {
    Setup {
        workers,
        servers,
        bytes_per_s: 1e8,
        parse: Parse {
            alpha: 1e-10,
            beta: 1e-4,
            occupies: true,
        },
        flow,
        steps,
        warmup: steps / 10,
        seed: 3,
        trace_steps: 0,
    }
}

fn flow() -> impl Strategy<Value = Flow> {
    prop_oneof![
        Just(Flow::Window(28e6)),
        Just(Flow::Window(1e6)),
        Just(Flow::Off(Order::Profiled, Ordered::Downlinks)),
        Just(Flow::Off(Order::Reverse, Ordered::Downlinks)),
        Just(Flow::Off(Order::Random, Ordered::Downlinks)),
        Just(Flow::Off(Order::Reverse, Ordered::All)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn throughput_keeps_to_both_bounds(
        down in prop::collection::vec(1e5f64..2e7, 1..5),
        compute in 1e-3f64..0.05,
        jitter in prop::collection::vec(0.8f64..1.2, 1..4),
        workers in 1u32..8,
        servers in 1u32..3,
        f in flow(),
    ) {
        let fwd: Vec<f64> = down.iter().map(|_| compute).collect();
        let p = layered(&down, &fwd, jitter.len(), &jitter);
        let s = setup(workers, servers, f, 60);
        let o = simulate(&p, &s);
        prop_assert_eq!(o.per_worker.len(), workers as usize);
        // The fastest profiled step alone bounds each worker.
        let fastest = (0..p.steps.len())
            .map(|k| {
                let one = Profile { steps: vec![p.steps[k].clone()], ..p.clone() };
                simulate(&one, &setup(1, servers, s.flow.clone(), 1)).end_s
            })
            .fold(f64::INFINITY, f64::min);
        prop_assert!(o.throughput <= f64::from(workers) * 16.0 / fastest * (1.0 + 1e-9));
        // Each PS link carries at most B: with one PS all bytes pass it.
        let bytes: f64 = down.iter().sum();
        if servers == 1 {
            // Steps count whole at the window's edges: at most one per
            // worker over its ~54 measured steps.
            let edge = 1.0 + 1.0 / 40.0;
            prop_assert!(o.throughput <= 16.0 * 1e8 / bytes * edge, "{} > bound", o.throughput);
        }
        for b in o.down_busy.iter().chain(&o.up_busy) {
            prop_assert!((0.0..=1.0 + 1e-12).contains(b));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn lin_keeps_to_its_bounds(
        down in prop::collection::vec(1e5f64..2e7, 1..5),
        compute in 1e-3f64..0.05,
        jitter in prop::collection::vec(0.8f64..1.2, 1..4),
        servers in 1u32..4,
        f in flow(),
    ) {
        let fwd: Vec<f64> = down.iter().map(|_| compute).collect();
        let p = layered(&down, &fwd, jitter.len(), &jitter);
        let mut s = setup(1, servers, f, 12);
        s.trace_steps = 12;
        let one = simulate(&p, &s);
        let lin = Lin::of(&p, &one, servers);
        prop_assert!(lin.is_some());
        let Some(lin) = lin else { return Ok(()) };
        let ph = lin.phases;
        prop_assert_eq!(ph.steps, 12);
        for v in [ph.downlink, ph.compute, ph.uplink, ph.rest] {
            prop_assert!(v.is_finite() && v >= 0.0);
        }
        // The phases never fall short of the measured steps.
        prop_assert!(ph.step() * 12.0 >= one.end_s * (1.0 - 1e-9));
        let (batch, first) = (16.0, lin.throughput(1, 16.0));
        prop_assert!((first - batch / ph.step()).abs() <= 1e-9 * first);
        let mut before = 0.0;
        for w in 1..=48 {
            let x = lin.throughput(w, batch);
            prop_assert!(x >= before * (1.0 - 1e-12), "W = {w}: {x} < {before}");
            prop_assert!(x <= f64::from(w) * first * (1.0 + 1e-12));
            prop_assert!(x <= lin.bound(batch) * (1.0 + 1e-12));
            before = x;
        }
    }
}

#[test]
fn lin_is_close_at_a_small_batch_and_saturates_early_at_a_large_one() {
    // Sec. 4.4: Lin et al.'s model "predicts throughput accurately ... with
    // small batch sizes, while predicted throughput saturates much earlier
    // than real measurements for larger batch sizes, where the overlap
    // between communication and computation is large". The example's
    // VGG-16 at 10 Gb/s: at batch 4 the uplink waits for a short backward
    // pass, at batch 32 it is spread over a long one.
    let eval = |batch: u32, workers: u32| {
        let mut s = ddnn_planner::models::li::presets::example();
        for g in &mut s.hardware.cluster.workers {
            g.batch_size = batch;
        }
        let mut li = ddnn_planner::models::li::section::settings(&s);
        li.max_workers = workers;
        s.set_section("li", &li);
        ddnn_planner::models::li::eval::evaluate(&s).unwrap_or_else(|e| panic!("{e:?}"))
    };
    for (batch, workers) in [(4, 8), (32, 12)] {
        let e = eval(batch, workers);
        let lin = |p: &ddnn_planner::models::li::eval::Point| p.lin.unwrap_or(f64::NAN);
        // One worker: the measured step, within the 20 steps' jitter.
        let one = &e.points[0];
        assert!(
            (lin(one) / one.sim.mean - 1.0).abs() < 0.01,
            "batch {batch}"
        );
        let last = &e.points[e.points.len() - 1];
        let ratio = lin(last) / last.sim.mean;
        if batch == 4 {
            assert!((ratio - 1.0).abs() < 0.1, "batch 4, W = {workers}: {ratio}");
        } else {
            assert!(ratio < 0.5, "batch 32, W = {workers}: {ratio}");
            assert!(e.points.iter().all(|p| lin(p) <= p.sim.mean * 1.01));
        }
    }
}

#[test]
fn many_workers_sit_at_the_link_bound() {
    // 4 layers of 5 MB at 100 MB/s: 0.2 s of downlink per step; compute
    // 10 ms per layer and direction. Bound: 16 × 1e8 / 2e7 = 80 samples/s;
    // steps differ by ±10%, so the workers fall out of step (Fig. 15) and
    // both directions stay busy.
    let down = [5e6; 4];
    let p = layered(&down, &[0.01; 4], 3, &[0.9, 1.0, 1.1]);
    let bound = 16.0 * 1e8 / 2e7;
    for seed in [1, 2, 3] {
        let mut s = setup(32, 1, Flow::Window(28e6), 300);
        s.seed = seed;
        let o = simulate(&p, &s);
        assert!(o.throughput <= bound * (1.0 + 1e-9));
        assert!(
            o.throughput > 0.93 * bound,
            "seed {seed}: {} of {bound}",
            o.throughput
        );
        // The steps counted moved their bytes in the window but for at
        // most one step per worker begun before it (of ~270 each): the
        // downlink is busy at least that share of the window.
        assert!(
            o.throughput / bound <= o.down_busy[0] * (1.0 + 1.0 / 40.0),
            "seed {seed}: {} of the bound, the downlink busy {}",
            o.throughput / bound,
            o.down_busy[0]
        );
    }
}

#[test]
fn the_example_saturates_at_the_link_bound_and_cynthia_predicts_lower() {
    // VGG-16 at 10 Gb/s: the PS link saturates within W = 8 (Sec. 4:
    // "at large W"), and Cynthia's coarse estimate stays below the
    // simulation (Sec. 4.4: "Throughput predicted by Cynthia is lower
    // than measured").
    let s = ddnn_planner::models::li::presets::example();
    let e = ddnn_planner::models::li::eval::evaluate(&s).unwrap_or_else(|e| panic!("{e:?}"));
    let best = e.points.iter().map(|p| p.sim.mean).fold(0.0, f64::max);
    let bound = e.link_bound.unwrap_or(f64::NAN);
    // Steps are counted whole at the window's edges: within 0.5%.
    assert!(best <= bound * 1.005, "{best} of {bound}");
    assert!(best > 0.99 * bound, "{best} of {bound}");
    assert!(e.saturation < 8);
    for p in &e.points {
        let sim = &p.sim;
        assert!(
            p.cynthia < sim.mean,
            "W = {}: {} ≥ {}",
            sim.workers,
            p.cynthia,
            sim.mean
        );
        assert!(sim.min <= sim.mean && sim.mean <= sim.max);
    }
    // One worker: exactly the profile's step, the same in every seed.
    let one = &e.points[0].sim;
    assert!((one.max - one.min) / one.mean < 0.01);
}

/// Log-uniform in `lo..=hi` (`lo > 0`), the ends themselves often.
fn log_in(lo: f64, hi: f64) -> BoxedStrategy<f64> {
    prop_oneof![
        1 => Just(lo),
        1 => Just(hi),
        4 => (lo.ln()..=hi.ln()).prop_map(move |x| x.exp().clamp(lo, hi)),
    ]
    .boxed()
}

/// An amount within `b`'s range: 0, its least other value, its top, or
/// log-uniform between.
fn amount_in(b: ddnn_planner::bounds::Bounds) -> BoxedStrategy<f64> {
    prop_oneof![1 => Just(0.0), 4 => log_in(b.floor, b.hi)].boxed()
}

/// A random acyclic step of 1-9 ops on any resources (each waiting on up
/// to two earlier ones, some sharing a tensor), 1-3 profiled steps of
/// amounts anywhere in their ranges, a batch from 1 to u32::MAX.
fn edge_profile() -> impl Strategy<Value = Profile> {
    use ddnn_planner::models::li::profile::amount_bounds;
    let resource = prop_oneof![
        Just(Resource::Downlink),
        Just(Resource::Worker),
        Just(Resource::Uplink),
        Just(Resource::Ps),
    ];
    let op = (resource, any::<(u32, u32, u8)>());
    (
        prop::collection::vec(op, 1..10),
        1usize..4,
        prop_oneof![Just(1u32), Just(u32::MAX), 1u32..1000],
    )
        .prop_flat_map(|(ops, steps, batch)| {
            let ops: Vec<Op> = ops
                .into_iter()
                .enumerate()
                .map(|(i, (resource, (a, b, t)))| {
                    let mut deps: Vec<u32> = if i == 0 {
                        vec![]
                    } else {
                        [a, b]
                            .iter()
                            .filter(|&&x| x % 3 != 0)
                            .map(|x| x % i as u32)
                            .collect()
                    };
                    deps.sort_unstable();
                    deps.dedup();
                    Op {
                        name: format!("op {i}"),
                        resource,
                        deps,
                        tensor: (t % 4 != 0).then(|| format!("t{}", t % 3)),
                    }
                })
                .collect();
            let row: Vec<BoxedStrategy<f64>> = ops
                .iter()
                .map(|o| amount_in(amount_bounds(o.resource)))
                .collect();
            let rows = prop::collection::vec(row, steps);
            (Just(ops), rows, Just(batch))
        })
        .prop_map(|(ops, steps, batch)| Profile {
            name: "edges".into(),
            batch,
            ops,
            steps,
        })
}

/// Every place in `v` a number should be and is not (JSON writes a
/// non-finite number as null), by its path.
fn nulls(v: &serde_json::Value, at: &str, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Null => out.push(at.to_string()),
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                nulls(x, &format!("{at}[{i}]"), out);
            }
        }
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                nulls(x, &format!("{at}.{k}"), out);
            }
        }
        serde_json::Value::Number(n) if !n.as_f64().is_some_and(f64::is_finite) => {
            out.push(at.to_string());
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Any profile and settings within their ranges, however extreme, give
    /// a report whose every number is finite, in the report, its JSON,
    /// CSV and text, and in the Perfetto download.
    #[test]
    fn every_number_out_is_finite_at_the_edges_of_the_ranges(
        p in edge_profile(),
        (steps, warmup) in (1u32..7).prop_flat_map(|s| (Just(s), 0..s)),
        max_workers in 1u32..4,
        seeds in 1u32..3,
        timeline in 1u32..4,
        alpha in prop_oneof![Just(0.0), log_in(1e-18, 1e-6)],
        beta in prop_oneof![Just(0.0), log_in(1e-15, 10.0)],
        occupies in any::<bool>(),
        flow_control in any::<bool>(),
        window in log_in(1e3, 1e10),
        // The order, and (from 4 up) every stream ordered.
        order in 0usize..8,
        servers in 1u32..4,
        link in log_in(125.0, 1.25e12),
    ) {
        use ddnn_planner::models::li::section::{
            settings, LiSettings, OrderedStreams, StreamOrder, ID,
        };
        let mut s = ddnn_planner::models::li::presets::example();
        s.hardware.cluster.ps.count = servers;
        s.hardware.cluster.ps.link_bytes_per_s = Some(link);
        let c = LiSettings {
            profile: Some(p.clone()),
            generate: None,
            alpha_s_per_byte: alpha,
            beta_s: beta,
            parse_occupies: occupies,
            flow_control,
            window_bytes: window,
            order: [
                StreamOrder::Profiled,
                StreamOrder::Reverse,
                StreamOrder::Random,
                StreamOrder::CriticalPath,
            ][order % 4],
            ordered_streams: if order < 4 {
                OrderedStreams::Downlinks
            } else {
                OrderedStreams::All
            },
            steps,
            warmup,
            seeds,
            max_workers,
            timeline_workers: timeline,
            ..settings(&s)
        };
        s.set_section(ID, &c);
        let li = ddnn_planner::models::by_id(ID).unwrap_or_else(|| panic!("registered"));
        let errs = ddnn_planner::models::validate_for(li, &s);
        prop_assert!(errs.is_empty(), "{errs:?}");
        let r = ddnn_planner::models::evaluate(li, &s);
        prop_assert!(r.is_ok(), "{r:?}");
        let Ok(r) = r else { return Ok(()) };
        prop_assert!(r.non_finite().is_none(), "{:?}", r.non_finite());
        let mut bad = Vec::new();
        nulls(&serde_json::to_value(&r).unwrap_or_default(), "report", &mut bad);
        prop_assert!(bad.is_empty(), "{bad:?}");
        let text = ddnn_planner::report::text::table(&r);
        let csv = ddnn_planner::report::csv::csv(std::slice::from_ref(&r));
        for shown in [&text, &csv] {
            let words: Vec<&str> = shown.split(|c: char| !c.is_ascii_alphanumeric()).collect();
            prop_assert!(
                !words.iter().any(|w| ["NaN", "inf", "infinity", "null"].contains(w)),
                "{shown}"
            );
        }
        let trace = r.downloads.iter().find(|d| d.key == "perfetto");
        prop_assert!(trace.is_some());
        let trace: serde_json::Value = serde_json::from_str(trace.map_or("", |d| d.text.as_str()))
            .unwrap_or_default();
        let events = trace["traceEvents"].as_array().cloned().unwrap_or_default();
        prop_assert!(!events.is_empty());
        for e in events.iter().filter(|e| e["ph"] == "X") {
            let (ts, dur) = (e["ts"].as_f64(), e["dur"].as_f64());
            prop_assert!(ts.is_some_and(|t| t.is_finite() && t >= 0.0), "{e}");
            prop_assert!(dur.is_some_and(|d| d.is_finite() && d >= 0.0), "{e}");
        }
        bad.clear();
        nulls(&trace, "trace", &mut bad);
        prop_assert!(bad.is_empty(), "{bad:?}");
    }
}
