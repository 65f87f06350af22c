//! Property tests of the model's invariants (native only: proptest).
#![cfg(not(target_arch = "wasm32"))]

use ddnn_planner::hardware::{Processor, WorkerGroup};
use ddnn_planner::models::zeng::{push_queue, simulate, Link, NetworkFigures, WorkerInput};
use ddnn_planner::scenario::codec::{decode_fragment, encode_fragment};
use ddnn_planner::scenario::Scenario;
use ddnn_planner::workload::presets::network_presets;
use proptest::prelude::*;

fn processor() -> impl Strategy<Value = Processor> {
    prop_oneof![
        (0.5e9..4.0e9f64, 1.0..16.0f64).prop_map(|(hz, simd)| Processor::Cpu { hz, simd }),
        (0.5e9..2.5e9f64, 1u32..20_000, any::<bool>()).prop_map(|(hz, sp, fma)| Processor::Gpu {
            hz,
            stream_processors: sp,
            fma
        }),
    ]
}

fn workers() -> impl Strategy<Value = Vec<WorkerInput>> {
    prop::collection::vec((processor(), 1u32..512), 1..12).prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (p, bs))| WorkerInput {
                name: format!("w{i}"),
                processor: p,
                batch_size: bs,
            })
            .collect()
    })
}

fn net() -> impl Strategy<Value = NetworkFigures> {
    (
        1e6..1e11f64,
        1e6..1e11f64,
        prop::option::of(1u32..1000),
        1e3..1e10f64,
    )
        .prop_map(|(f, b, p, t)| NetworkFigures {
            forward_flop: f,
            backward_flop: b,
            pushes: p,
            transfer_bytes: t,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    /// More bandwidth never slows an iteration.
    #[test]
    fn more_bandwidth_never_slower(n in net(), w in workers(), b in 1e6..1e11f64, k in 1.0..100.0f64, lat in 0.0..1.0f64) {
        let slow = simulate(&n, &w, &Link { bandwidth_bytes_per_s: b, latency_s: lat });
        let fast = simulate(&n, &w, &Link { bandwidth_bytes_per_s: b * k, latency_s: lat });
        prop_assert!(fast.iteration_s <= slow.iteration_s * (1.0 + 1e-12));
    }

    /// A faster worker never slows the BSP iteration.
    #[test]
    fn faster_worker_never_slower(n in net(), w in workers(), pick in any::<prop::sample::Index>(), k in 1.0..10.0f64, b in 1e6..1e11f64) {
        let link = Link { bandwidth_bytes_per_s: b, latency_s: 0.0 };
        let before = simulate(&n, &w, &link).iteration_s;
        let mut faster = w.clone();
        let i = pick.index(faster.len());
        faster[i].processor = match faster[i].processor {
            Processor::Cpu { hz, simd } => Processor::Cpu { hz: hz * k, simd },
            Processor::Gpu { hz, stream_processors, fma } => Processor::Gpu { hz: hz * k, stream_processors, fma },
        };
        let after = simulate(&n, &faster, &link).iteration_s;
        prop_assert!(after <= before * (1.0 + 1e-12));
    }

    /// The queue's iteration is at least Eq. 32 and at most the fully
    /// serial schedule, and every push starts after its worker is ready.
    #[test]
    fn queue_bounds(t in prop::collection::vec(0.0..100.0f64, 1..20), push in 0.0..10.0f64, pull in 0.0..10.0f64) {
        let (order, pushes, total) = push_queue(&t, push, pull);
        let n = t.len() as f64;
        let t_min = t.iter().cloned().fold(f64::INFINITY, f64::min);
        let t_max = t.iter().cloned().fold(0.0, f64::max);
        prop_assert!(total + 1e-9 >= t_min + n * (push + pull));
        prop_assert!(total <= t_max + n * (push + pull) + 1e-9);
        for (&i, &(s, e)) in order.iter().zip(&pushes) {
            prop_assert!(s >= t[i]);
            prop_assert!((e - s - push).abs() < 1e-9);
        }
    }

    /// The URL codec round-trips any valid scenario.
    #[test]
    fn codec_round_trips(
        preset in any::<prop::sample::Index>(),
        groups in prop::collection::vec((0usize..4, 1u32..64, 1u32..1024), 1..5),
        gbps in 0.001..400.0f64,
        latency in 0.0..2.0f64,
        title in "\\PC{0,40}",
        flops_w in 0.0..200.0f64,
    ) {
        let mut s = Scenario::example();
        let presets = network_presets();
        s.workload.network = presets[preset.index(presets.len())].network.clone();
        s.title = title;
        s.hardware.cluster.workers = groups
            .into_iter()
            .map(|(i, count, batch_size)| WorkerGroup {
                instance: s.hardware.catalog[i % s.hardware.catalog.len()].name.clone(),
                count,
                batch_size,
            })
            .collect();
        s.hardware.cluster.ps.bandwidth_bytes_per_s = gbps * 1e9 / 8.0;
        s.hardware.cluster.ps.latency_s = latency;
        s.settings.zeng.flops_per_weight = flops_w;
        let back = decode_fragment(&encode_fragment(&s)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back, s);
    }

    /// Decoding arbitrary text never panics.
    #[test]
    fn decode_never_panics(junk in "\\PC{0,200}") {
        let _ = decode_fragment(&junk);
        let _ = decode_fragment(&format!("s1.{junk}"));
    }
}
