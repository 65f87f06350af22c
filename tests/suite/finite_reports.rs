//! Property test: any scenario that passes validation, however extreme
//! within the ranges, gives reports whose every number is finite — no
//! "inf s", "$NaN" or empty timeline reaches the page (native only:
//! proptest).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use ddnn_planner::hardware::{Cluster, Instance, ParameterServer, Pricing, Processor, WorkerGroup};
use ddnn_planner::models::cynthia::section::CynthiaSettings;
use ddnn_planner::models::evaluate_all;
use ddnn_planner::models::zeng::section::ZengSettings;
use ddnn_planner::report::Report;
use ddnn_planner::scenario::{Goals, Hardware, Scenario, Workload, SCENARIO_VERSION};
use ddnn_planner::workload::presets::network_presets;
use ddnn_planner::workload::profile::{LossParams, Profile, SyncMode};
use ddnn_planner::workload::{GivenFigures, Network};
use proptest::prelude::*;

/// Subnormal: in range wherever 0 is (prices, latency, extra FLOP).
const TINY: f64 = 1e-320;

/// Log-uniform in `lo..=hi` (`lo > 0`), the ends themselves often.
fn log_in(lo: f64, hi: f64) -> BoxedStrategy<f64> {
    prop_oneof![
        1 => Just(lo),
        1 => Just(hi),
        6 => (lo.ln()..=hi.ln()).prop_map(move |x| x.exp().clamp(lo, hi)),
    ]
    .boxed()
}

/// `0..=hi`: zero, a subnormal, the top, or log-uniform between.
fn zero_to(hi: f64) -> BoxedStrategy<f64> {
    prop_oneof![
        1 => Just(0.0),
        1 => Just(TINY),
        1 => Just(hi),
        5 => log_in(1e-9, hi),
    ]
    .boxed()
}

/// A price: free, or $0.000001/h to $10,000/h.
fn price() -> BoxedStrategy<f64> {
    prop_oneof![1 => Just(0.0), 4 => log_in(1e-6, 1e4)].boxed()
}

fn count(lo: u32, hi: u32) -> BoxedStrategy<u32> {
    prop_oneof![1 => Just(lo), 1 => Just(hi), 4 => lo..=hi].boxed()
}

fn rate_description() -> impl Strategy<Value = (Option<Processor>, Option<f64>, Option<u32>)> {
    prop_oneof![
        (log_in(1e6, 1e11), log_in(0.01, 1e4)).prop_map(|(hz, simd)| (
            Some(Processor::Cpu { hz, simd }),
            None,
            None
        )),
        (log_in(1e6, 1e11), count(1, 1_000_000), any::<bool>()).prop_map(|(hz, sp, fma)| (
            Some(Processor::Gpu {
                hz,
                stream_processors: sp,
                fma
            }),
            None,
            Some(1)
        )),
        (log_in(1e6, 1e18), prop::option::of(count(0, 1024))).prop_map(|(rate, gpus)| (
            None,
            Some(rate),
            gpus
        )),
    ]
}

fn instance(i: usize) -> impl Strategy<Value = Instance> {
    (
        rate_description(),
        prop::option::weighted(0.8, log_in(125.0, 1.25e12)),
        prop::option::weighted(0.8, price()),
        prop::option::weighted(0.8, price()),
    )
        .prop_map(
            move |((processor, flops_per_s, gpus), net, price, spot)| Instance {
                name: format!("device {i}"),
                processor,
                flops_per_s,
                gpus,
                network_bytes_per_s: net,
                price_per_hour: price,
                spot_price_per_hour: spot,
                ..Instance::default()
            },
        )
}

fn catalog() -> impl Strategy<Value = Vec<Instance>> {
    (1usize..=4).prop_flat_map(|n| (0..n).map(instance).collect::<Vec<_>>())
}

fn network() -> impl Strategy<Value = Network> {
    let presets = network_presets();
    let base = prop_oneof![
        (0..presets.len()).prop_map(move |i| presets[i].network.clone()),
        (log_in(1.0, 1e18), log_in(1.0, 1e13)).prop_map(|(f, w)| Network {
            name: "given".into(),
            layers: Vec::new(),
            given: Some(GivenFigures {
                forward_flop: f,
                weights: w,
                source: String::new(),
            }),
            pushes: None,
            extra_forward_flop_per_sample: 0.0,
            transfer_values: None,
            pull_values: None,
            ignored: Vec::new(),
        }),
    ];
    (
        base,
        zero_to(1e18),
        prop::option::of(log_in(1.0, 1e13)),
        prop::option::of(count(1, 1_000_000)),
        prop::option::of(log_in(1.0, 1e13)),
    )
        .prop_map(|(mut n, extra, values, pushes, pulls)| {
            n.extra_forward_flop_per_sample = extra;
            n.transfer_values = values.or(n.transfer_values);
            n.pull_values = pulls;
            n.pushes = pushes.or(n.pushes);
            n
        })
}

fn profile() -> impl Strategy<Value = Profile> {
    (
        any::<bool>(),
        log_in(1e6, 1e21),
        log_in(1e3, 1e13),
        log_in(1e6, 1e18),
        log_in(125.0, 1.25e12),
        log_in(1e6, 1e18),
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

fn loss() -> impl Strategy<Value = LossParams> {
    (log_in(1e-9, 1e12), -1.0..0.999f64).prop_map(|(beta0, r)| LossParams {
        beta0,
        beta1: r * beta0,
    })
}

/// Goals are positive and finite, nothing more: from a subnormal up.
fn goal() -> BoxedStrategy<f64> {
    prop_oneof![1 => Just(TINY), 1 => Just(1e300), 4 => log_in(1e-6, 1e12)].boxed()
}

prop_compose! {
    fn scenario()(
        catalog in catalog(),
        groups in prop::collection::vec((any::<prop::sample::Index>(), count(1, 32), count(1, 1_000_000)), 1..=4),
        ps_count in prop_oneof![1 => Just(4096u32), 6 => 1u32..=8],
        ps_instance in prop::option::of(any::<prop::sample::Index>()),
        link in prop::option::weighted(0.8, log_in(125.0, 1.25e12)),
        latency in zero_to(3600.0),
        spot in any::<bool>(),
        network in network(),
        job in prop::option::weighted(0.7, (profile(), loss())),
        goals in (prop::option::of(goal()), prop::option::of(goal()), prop::option::of(goal())),
        flops_per_weight in zero_to(1e6),
        sweep in prop_oneof![1 => Just(64u32), 6 => 1u32..=12],
        epoch in prop::option::of(prop_oneof![Just(1u64), Just(1_000_000_000_000), 1u64..1_000_000_000_000]),
        max_workers in 1u32..=12,
    ) -> Scenario {
        let workers = groups
            .into_iter()
            .map(|(i, count, batch_size)| WorkerGroup {
                instance: catalog[i.index(catalog.len())].name.clone(),
                count,
                batch_size,
            })
            .collect();
        let ps_instance = ps_instance.map(|i| catalog[i.index(catalog.len())].name.clone());
        let (profile, loss) = job.map_or((None, None), |(p, l)| (Some(p), Some(l)));
        let mut s = Scenario {
            version: SCENARIO_VERSION,
            title: String::new(),
            workload: Workload { network, profile, loss, loss_curve: None },
            hardware: Hardware {
                catalog,
                cluster: Cluster {
                    workers,
                    ps: ParameterServer {
                        count: ps_count,
                        instance: ps_instance,
                        link_bytes_per_s: link,
                        latency_s: latency,
                    },
                },
                pricing: if spot { Pricing::Spot } else { Pricing::OnDemand },
                precision: Default::default(),
            },
            goals: Goals { time_s: goals.0, loss: goals.1, budget_usd: goals.2 },
            runs: Vec::new(),
            calibration: Default::default(),
            models: BTreeMap::new(),
            uncertainty: None,
        };
        s.set_section("zeng", &ZengSettings { flops_per_weight, sweep_max_workers: sweep, epoch_samples: epoch });
        s.set_section("cynthia", &CynthiaSettings { max_workers });
        s
    }
}

/// Every number of the report that is not finite, by where it is.
fn check(r: &Report) -> Result<(), TestCaseError> {
    if let Some(at) = r.non_finite() {
        return Err(TestCaseError::fail(format!(
            "{}: not finite at {at}",
            r.model
        )));
    }
    for f in r.headline.iter().chain(&r.figures) {
        let shown = f.value.display();
        let words: Vec<&str> = shown.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        prop_assert!(
            !words.iter().any(|w| ["NaN", "inf", "infinity"].contains(w)),
            "{} {}: {}",
            r.model,
            f.key,
            shown
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn in_range_scenarios_give_finite_reports(s in scenario()) {
        let errs = ddnn_planner::models::validate(&s);
        prop_assert!(errs.is_empty(), "the generator stays in range: {:?}", errs);
        for (m, outcome) in evaluate_all(&s) {
            match outcome {
                Ok(r) => check(&r)?,
                Err(u) => {
                    // Zeng runs on every valid cluster with a link.
                    if m.id() == "zeng" {
                        prop_assert!(u.is_missing(), "zeng: {:?}", u);
                    }
                    for e in u.errors() {
                        prop_assert!(!e.message.contains("too large or too small"), "{}: {}", m.id(), e.message);
                    }
                }
            }
        }
    }
}
