//! Li et al.'s simulator at ties: a chunk started at the instant another
//! chunk ends still takes its own `bytes / B`. The smallest case is worked
//! by hand; a property checks every transfer of random small profiles
//! whose round amounts make ties common. Tolerance: 1e-9 relative.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::li::profile::{Op, Profile, Resource};
use ddnn_planner::models::li::sim::{simulate, Flow, Lane, Parse, Setup};
use ddnn_planner::models::li::trace::chrome_trace;

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

fn setup(workers: u32, steps: u32, seed: u64) -> Setup {
    Setup {
        workers,
        servers: 1,
        bytes_per_s: 1e6,
        parse: NO_PARSE,
        flow: Flow::Window(28e6),
        steps,
        warmup: 0,
        seed,
        trace_steps: 1,
    }
}

/// recv a, recv b (1 MB each), c1 (1 s, after a), send g1 (1 MB, after
/// c1), c2 (0.5 s, after b and c1); 10 samples a step.
fn tie() -> Profile {
    Profile {
        name: "tie".into(),
        batch: 10,
        ops: vec![
            op("recv a", Resource::Downlink, &[]),
            op("recv b", Resource::Downlink, &[]),
            op("c1", Resource::Worker, &[0]),
            op("send g1", Resource::Uplink, &[2]),
            op("c2", Resource::Worker, &[1, 2]),
        ],
        steps: vec![vec![1e6, 1e6, 1.0, 1e6, 0.5]],
    }
}

#[test]
fn a_chunk_started_as_another_ends_takes_its_own_time() {
    // W = 1, B = 1 MB/s. The worker's downlink sends one stream at a
    // time: recv a 0 → 1 s, recv b 1 → 2 s. c1 runs 1 → 2 s. At 2 s c1
    // and recv b end together: send g1 starts on the idle uplink, alone,
    // so 1 MB at 1 MB/s: 2 → 3 s; c2 runs 2 → 2.5 s. The next step starts
    // when all five ops are done, at 3 s; every step is the same, so
    // 10 samples / 3 s = 3.333 samples/s (not 10 / 2.5 = 4, as if send
    // g1 took no time).
    let p = tie();
    let o = simulate(&p, &setup(1, 20, 1));
    assert!(close(o.throughput, 10.0 / 3.0), "{}", o.throughput);
    assert!(close(o.end_s, 60.0), "{}", o.end_s);
    let send = o
        .segments
        .iter()
        .find(|g| g.op == 3 && g.step == 1)
        .map(|g| (g.lane, g.start, g.end));
    assert_eq!(send.map(|s| s.0), Some(Lane::Up(0)));
    assert!(
        send.is_some_and(|(_, a, b)| close(a, 2.0) && close(b, 3.0)),
        "{send:?}"
    );
    // The Perfetto slice [µs]: from 2 s, lasting 1 s.
    let text = chrome_trace(&p, &o);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let slice = v["traceEvents"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["ph"] == "X" && e["name"] == "send g1"));
    let (ts, dur) = slice
        .map(|e| (e["ts"].as_f64(), e["dur"].as_f64()))
        .unwrap_or_default();
    assert!(ts.is_some_and(|t| close(t, 2e6)), "{ts:?}");
    // Positive, and at least 1 MB / (1 MB/s) = 1 s.
    assert!(dur.is_some_and(|d| d >= 1e6 * (1.0 - 1e-9)), "{dur:?}");
}

#[test]
fn without_jitter_the_seed_moves_nothing() {
    // One profiled step: every worker's steps are the same whatever the
    // seed, so a 20-step run is too.
    for workers in 1..=4 {
        let first = simulate(&tie(), &setup(workers, 20, 0)).throughput;
        for seed in 1..16 {
            let o = simulate(&tie(), &setup(workers, 20, seed));
            assert_eq!(o.throughput, first, "{workers} workers, seed {seed}");
        }
    }
}

/// Random small profiles with round amounts, where ties are the rule.
#[cfg(not(target_arch = "wasm32"))]
mod every_transfer {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use ddnn_planner::models::li::profile::{Op, Profile, Resource};
    use ddnn_planner::models::li::sim::{simulate, Flow, Lane, Order, Ordered, Parse, Setup};

    /// B [B/s]: 1 MB/s, so a size in MB is its time alone in seconds.
    const B: f64 = 1e6;

    /// Per op: a resource (0 down, 1 worker, 2 up, 3 PS), up to two
    /// earlier ops it waits on, and an amount in halves (of a second or
    /// a MB), 0 to 2.
    fn ops() -> impl Strategy<Value = Vec<(u8, Vec<prop::sample::Index>, u8)>> {
        prop::collection::vec(
            (
                0u8..4,
                prop::collection::vec(any::<prop::sample::Index>(), 0..3),
                0u8..5,
            ),
            1..8,
        )
    }

    fn profile(spec: &[(u8, Vec<prop::sample::Index>, u8)], rows: usize) -> Profile {
        let mut ops = Vec::new();
        let mut row = Vec::new();
        for (i, (r, deps, halves)) in spec.iter().enumerate() {
            let resource = [
                Resource::Downlink,
                Resource::Worker,
                Resource::Uplink,
                Resource::Ps,
            ][usize::from(*r)];
            let mut deps: Vec<u32> = if i == 0 {
                vec![]
            } else {
                deps.iter().map(|d| d.index(i) as u32).collect()
            };
            deps.sort_unstable();
            deps.dedup();
            let amount = f64::from(*halves) * 0.5;
            row.push(if resource.is_link() {
                amount * B
            } else {
                amount
            });
            ops.push(Op {
                name: format!("op {i}"),
                resource,
                deps,
                tensor: Some(format!("v{}", i % 3)),
            });
        }
        Profile {
            name: "ties".into(),
            batch: 1,
            ops,
            // No jitter: every profiled step the same.
            steps: vec![row; rows],
        }
    }

    fn flow() -> impl Strategy<Value = Flow> {
        prop_oneof![
            Just(Flow::Window(28e6)),
            // Splits 1 MB and more in chunks of 0.5 MB and the rest.
            Just(Flow::Window(0.5e6)),
            Just(Flow::Off(Order::Profiled, Ordered::Downlinks)),
            Just(Flow::Off(Order::Reverse, Ordered::Downlinks)),
            Just(Flow::Off(Order::Reverse, Ordered::All)),
        ]
    }

    fn parse() -> impl Strategy<Value = Parse> {
        prop_oneof![
            Just(Parse {
                alpha: 0.0,
                beta: 0.0,
                occupies: true,
            }),
            Just(Parse {
                alpha: 0.5e-6,
                beta: 0.5,
                occupies: true,
            }),
            Just(Parse {
                alpha: 0.0,
                beta: 0.5,
                occupies: false,
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Every chunk in service lasts at least its bytes / B: no
        /// transfer is shared above B nor ends the instant it starts.
        #[test]
        fn every_transfer_lasts_at_least_its_bytes_over_b(
            spec in ops(),
            rows in 1usize..3,
            workers in 1u32..=4,
            servers in 1u32..=2,
            flow in flow(),
            parse in parse(),
            seed in 0u64..4,
        ) {
            let p = profile(&spec, rows);
            prop_assert!(p.validate().is_empty());
            let steps = 6;
            let s = Setup {
                workers,
                servers,
                bytes_per_s: B,
                parse,
                flow: flow.clone(),
                steps,
                warmup: 0,
                seed,
                trace_steps: steps,
            };
            let o = simulate(&p, &s);
            // Each transfer's chunks, by worker, step and op, in order.
            let mut chunks: HashMap<(u32, u32, u32), Vec<(f64, f64)>> = HashMap::new();
            for g in &o.segments {
                if matches!(g.lane, Lane::Down(_) | Lane::Up(_)) {
                    chunks.entry((g.worker, g.step, g.op)).or_default().push((g.start, g.end));
                }
            }
            let links = p.ops.iter().filter(|op| op.resource.is_link()).count();
            prop_assert_eq!(chunks.len(), links * (workers * steps) as usize);
            for ((w, step, op), mut got) in chunks {
                got.sort_by(|a, b| a.0.total_cmp(&b.0));
                let bytes = p.steps[0][op as usize];
                // HTTP/2: at most WIN first, then the rest in one chunk.
                let sizes = match flow {
                    Flow::Window(win) if bytes > win => vec![win, bytes - win],
                    _ => vec![bytes],
                };
                prop_assert_eq!(got.len(), sizes.len(), "worker {} step {} op {}", w, step, op);
                for ((start, end), size) in got.into_iter().zip(sizes) {
                    prop_assert!(
                        end - start >= size / B * (1.0 - 1e-9),
                        "worker {} step {} op {}: {} B from {} to {} s",
                        w, step, op, size, start, end
                    );
                }
            }
        }
    }
}
