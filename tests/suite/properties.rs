//! Property tests of the model's invariants (native only: proptest).
#![cfg(not(target_arch = "wasm32"))]

use ddnn_planner::hardware::{Processor, WorkerGroup};
use ddnn_planner::models::decode_fragment;
use ddnn_planner::models::zeng::section::ZengSettings;
use ddnn_planner::models::zeng::{push_queue, simulate, Link, NetworkFigures, WorkerInput};
use ddnn_planner::scenario::codec::encode_fragment;
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
            pull_bytes: t,
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
        s.hardware.cluster.ps.link_bytes_per_s = Some(gbps * 1e9 / 8.0);
        s.hardware.cluster.ps.latency_s = latency;
        s.set_section("zeng", &ZengSettings { flops_per_weight: flops_w, ..ZengSettings::default() });
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

mod cynthia {
    use ddnn_planner::models::cynthia::{
        algorithm1, exact, exact_exhaustive, homogeneous_run, iteration, ClusterSpec, Goals, Group,
        InstanceType,
    };
    use ddnn_planner::workload::profile::{LossParams, Profile, SyncMode};
    use proptest::prelude::*;

    fn profile() -> impl Strategy<Value = Profile> {
        (
            any::<bool>(),
            1e8..1e11f64,
            1e5..1e9f64,
            1e7..1e10f64,
            1e4..1e8f64,
            1e9..1e10f64,
        )
            .prop_map(|(asp, w, g, cp, bp, cb)| Profile {
                name: "p".into(),
                sync: if asp { SyncMode::Asp } else { SyncMode::Bsp },
                w_iter_flop: w,
                g_param_bytes: g,
                c_prof_flops: cp,
                b_prof_bytes_per_s: bp,
                c_base_flops: cb,
                source: String::new(),
            })
    }

    fn kind() -> impl Strategy<Value = InstanceType> {
        (1e9..1e10f64, 1e7..1e9f64, 0.01..5.0f64).prop_map(|(c, b, p)| InstanceType {
            name: format!("t{c:.0}"),
            c_flops: c,
            b_bytes_per_s: b,
            price_per_hour: p,
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

        /// More PS bandwidth or CPU never lengthens an iteration.
        #[test]
        fn more_ps_resources_never_slower(p in profile(), wk in kind(), ps in kind(), n in 1u32..64, k in 1.0..10.0f64, cpu in any::<bool>()) {
            let base = ClusterSpec { workers: vec![Group { kind: wk.clone(), count: n }], ps: vec![Group { kind: ps.clone(), count: 1 }] };
            let mut bigger = ps.clone();
            if cpu { bigger.c_flops *= k } else { bigger.b_bytes_per_s *= k }
            let more = ClusterSpec { workers: vec![Group { kind: wk, count: n }], ps: vec![Group { kind: bigger, count: 1 }] };
            prop_assert!(iteration(&p, &more).t_iter_s <= iteration(&p, &base).t_iter_s * (1.0 + 1e-12));
        }

        /// Every exact plan satisfies its own constraints.
        #[test]
        fn exact_plans_meet_constraints(p in profile(), types in prop::collection::vec(kind(), 1..4), hours in 0.1..100.0f64, budget in prop::option::of(1.0..1e4f64)) {
            let loss = LossParams { beta0: 100.0, beta1: 10.0 };
            let goals = Goals { time_s: hours * 3600.0, loss: 0.5, budget_usd: budget };
            let r = exact(&p, &loss, &goals, &types, 24).map_err(|e| TestCaseError::fail(e.to_string()))?;
            if let Some(plan) = r.plan {
                prop_assert!(plan.run.train_time_s <= goals.time_s);
                prop_assert!(budget.is_none_or(|b| plan.run.cost_usd <= b));
                prop_assert!(1 <= plan.run.n_ps && plan.run.n_ps <= plan.run.n_wk && plan.run.n_wk <= 24);
            } else {
                prop_assert_eq!(r.shortfalls.len(), types.len());
            }
        }

        /// The exact search never costs more than Algorithm 1's plan when
        /// that plan lies in its search space (n_ps ≤ n_wk ≤ the limit).
        #[test]
        fn exact_never_dearer_than_algorithm1(p in profile(), types in prop::collection::vec(kind(), 1..4), hours in 0.1..100.0f64) {
            let loss = LossParams { beta0: 100.0, beta1: 10.0 };
            let goals = Goals { time_s: hours * 3600.0, loss: 0.5, budget_usd: None };
            let paper = algorithm1(&p, &loss, &goals, &types).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let best = exact(&p, &loss, &goals, &types, 32).map_err(|e| TestCaseError::fail(e.to_string()))?;
            if let Some(a) = paper.plan {
                prop_assert!(a.run.train_time_s < goals.time_s);
                if a.run.n_ps <= a.run.n_wk && a.run.n_wk <= 32 {
                    let e = best.plan.ok_or_else(|| TestCaseError::fail("exact found nothing"))?;
                    prop_assert!(e.run.cost_usd <= a.run.cost_usd * (1.0 + 1e-12));
                }
            }
        }

        /// The pruned search finds exactly what the exhaustive one finds.
        #[test]
        fn pruned_exact_equals_exhaustive(p in profile(), types in prop::collection::vec(kind(), 1..4), hours in 0.05..100.0f64, budget in prop::option::of(0.5..1e3f64), b1 in 0.0..50.0f64) {
            let loss = LossParams { beta0: 100.0, beta1: b1 };
            let goals = Goals { time_s: hours * 3600.0, loss: 0.5, budget_usd: budget };
            let fast = exact(&p, &loss, &goals, &types, 32).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let slow = exact_exhaustive(&p, &loss, &goals, &types, 32).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(fast.plan.is_some(), slow.plan.is_some());
            if let (Some(a), Some(b)) = (&fast.plan, &slow.plan) {
                prop_assert!((a.run.cost_usd - b.run.cost_usd).abs() <= 1e-12 * b.run.cost_usd, "{:?} vs {:?}", a, b);
            }
            prop_assert_eq!(fast.shortfalls.len(), slow.shortfalls.len());
        }

        /// The allocation-free inner loop agrees with the general model.
        #[test]
        fn homogeneous_run_matches_iteration(p in profile(), t in kind(), n in 1u32..64, m in 1u32..8) {
            let r = homogeneous_run(&p, &t, n, m, 1000);
            let it = iteration(&p, &ClusterSpec::homogeneous(&t, n, m));
            prop_assert!((r.t_iter_s - it.t_iter_s).abs() <= 1e-12 * it.t_iter_s);
            prop_assert_eq!(r.u, it.utilisation.u);
        }
    }
}
