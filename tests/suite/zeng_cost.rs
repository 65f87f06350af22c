//! Zeng's cost: every worker's and the PS nodes' price × the iteration
//! time, against a scenario small enough to work by hand.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::collections::BTreeMap;

use ddnn_planner::hardware::{Cluster, Instance, ParameterServer, Pricing, WorkerGroup};
use ddnn_planner::models::zeng::section::ZengSettings;
use ddnn_planner::models::zeng::{evaluate_zeng, Zeng};
use ddnn_planner::models::{evaluate, Model};
use ddnn_planner::report::{Level, Marker, Report, SeriesData, Unit, Value};
use ddnn_planner::scenario::{Goals, Hardware, Scenario, Workload, SCENARIO_VERSION};
use ddnn_planner::workload::{GivenFigures, Network};

/// Two CPU workers known by their rate (10 GFLOP/s, $2/h on demand,
/// $0.5/h spot), batch 10, one PS node ($1/h, $0.25/h spot) on a 1 Gb/s
/// link; forward 1 GFLOP per sample, 10^6 weights (backward 85 × 10^6
/// FLOP, 4 × 10^6 bytes per push and per pull).
///
/// By hand:
/// - compute (Eq. 27/28): (10 · 1e9 + 85e6) / 1e10 = 1.0085 s on each worker;
/// - T_push = T_pull = 4e6 B / 1.25e8 B/s = 0.032 s;
/// - queue: 1.0085 + 2 · 0.032 pushes + 2 · 0.032 pulls = 1.1365 s;
/// - one worker alone (the sweep's n = 1): 1.0085 + 0.032 + 0.032 = 1.0725 s.
fn small() -> Scenario {
    let cpu = Instance {
        name: "cpu-a".into(),
        flops_per_s: Some(1e10),
        network_bytes_per_s: Some(1.25e8),
        price_per_hour: Some(2.0),
        spot_price_per_hour: Some(0.5),
        ..Instance::default()
    };
    let ps = Instance {
        name: "ps-node".into(),
        flops_per_s: Some(1e9),
        network_bytes_per_s: Some(1.25e8),
        price_per_hour: Some(1.0),
        spot_price_per_hour: Some(0.25),
        ..Instance::default()
    };
    Scenario {
        version: SCENARIO_VERSION,
        title: "cost by hand".into(),
        workload: Workload {
            network: Network {
                name: "toy".into(),
                layers: Vec::new(),
                given: Some(GivenFigures {
                    forward_flop: 1e9,
                    weights: 1e6,
                    source: "by hand".into(),
                }),
                pushes: None,
                extra_forward_flop_per_sample: 0.0,
                transfer_values: None,
                pull_values: None,
                ignored: Vec::new(),
            },
            profile: None,
            loss: None,
            loss_curve: None,
        },
        hardware: Hardware {
            catalog: vec![cpu, ps],
            cluster: Cluster {
                workers: vec![WorkerGroup {
                    instance: "cpu-a".into(),
                    count: 2,
                    batch_size: 10,
                }],
                ps: ParameterServer {
                    count: 1,
                    instance: Some("ps-node".into()),
                    link_bytes_per_s: Some(1.25e8),
                    latency_s: 0.0,
                },
            },
            pricing: Pricing::OnDemand,
            precision: Default::default(),
        },
        goals: Goals::default(),
        runs: Vec::new(),
        calibration: Default::default(),
        models: BTreeMap::new(),
        uncertainty: None,
    }
}

const T_ITER: f64 = 1.1365;
const T_ALONE: f64 = 1.0725;

#[track_caller]
fn close(got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-12 * want.abs().max(1e-300),
        "got {got}, want {want}"
    );
}

fn report(s: &Scenario) -> Report {
    evaluate(&Zeng, s).unwrap_or_else(|e| panic!("{e:?}"))
}

fn number(r: &Report, key: &str) -> f64 {
    r.figure(key)
        .and_then(|f| f.value.number())
        .unwrap_or_else(|| panic!("no figure {key}"))
}

fn unit(r: &Report, key: &str) -> Option<Unit> {
    match r.figure(key).map(|f| &f.value) {
        Some(Value::Number { unit, .. }) => Some(*unit),
        _ => None,
    }
}

/// The cost chart's line `name`, as (workers, USD per 1,000 iterations).
fn line(r: &Report, name: &str) -> Vec<(f64, f64)> {
    let chart = r.chart("cost").unwrap_or_else(|| panic!("no cost chart"));
    let s = chart
        .series
        .iter()
        .find(|s| s.name.starts_with(name))
        .unwrap_or_else(|| panic!("no line {name}"));
    match &s.data {
        SeriesData::Xy { x, y } => x.iter().copied().zip(y.iter().copied()).collect(),
        SeriesData::Segments { .. } => panic!("segments in the cost chart"),
    }
}

#[test]
fn the_queue_is_the_hand_computed_one() {
    let e = evaluate_zeng(&small()).unwrap_or_else(|e| panic!("{e:?}"));
    close(e.queue.iteration_s, T_ITER);
    close(e.worker_sweeps[0].points[0].iteration_s, T_ALONE);
}

#[test]
fn on_demand_cost_by_hand() {
    let r = report(&small());
    // Workers 2 × $2/h + PS 1 × $1/h = $5/h.
    close(number(&r, "cluster-price"), 5.0);
    // Per iteration: 5 × 1.1365 / 3600 = $0.001578472…
    close(number(&r, "cost-per-iteration"), 5.0 * T_ITER / 3600.0);
    // Per 1,000 iterations: 5 × 1.1365 × 1000 / 3600 = $1.578472…
    close(
        number(&r, "cost-per-1000-iterations"),
        5.0 * T_ITER * 1000.0 / 3600.0,
    );
    assert_eq!(unit(&r, "cost-per-iteration"), Some(Unit::Usd));
    assert_eq!(unit(&r, "cost-per-1000-iterations"), Some(Unit::Usd));
    assert_eq!(unit(&r, "cluster-price"), Some(Unit::UsdPerHour));
    let headline: Vec<&str> = r.headline.iter().map(|f| f.key.as_str()).collect();
    assert!(headline.contains(&"cost-per-iteration"), "{headline:?}");
    assert!(
        headline.contains(&"cost-per-1000-iterations"),
        "{headline:?}"
    );
    assert_eq!(
        r.figure("cost-per-1000-iterations")
            .map(|f| f.value.display()),
        Some("$1.58".to_string())
    );
    // No epoch without `epoch_samples`.
    assert!(r.figure("cost-per-epoch").is_none());
    assert!(r.figure("iterations-per-epoch").is_none());
}

#[test]
fn spot_cost_by_hand() {
    let mut s = small();
    s.hardware.pricing = Pricing::Spot;
    let r = report(&s);
    // Workers 2 × $0.5/h + PS 1 × $0.25/h = $1.25/h.
    close(number(&r, "cluster-price"), 1.25);
    // 1.25 × 1.1365 / 3600 = $0.0003946…; × 1000 = $0.3946…
    close(number(&r, "cost-per-iteration"), 1.25 * T_ITER / 3600.0);
    close(number(&r, "cost-per-1000-iterations"), 1.25 * T_ITER / 3.6);
    assert!(r
        .figure("cost-per-iteration")
        .is_some_and(|f| f.label.contains("spot")));
    // Sweep at n = 1: (1 × $0.5 + $0.25) × 1.0725 s × 1000 / 3600.
    close(line(&r, "cpu-a only")[0].1, 0.75 * T_ALONE / 3.6);
}

#[test]
fn epoch_by_hand() {
    let mut s = small();
    s.set_section(
        "zeng",
        &ZengSettings {
            epoch_samples: Some(1001),
            ..ZengSettings::default()
        },
    );
    let r = report(&s);
    // Global batch 2 × 10 = 20: ceil(1001 / 20) = 51 iterations.
    assert_eq!(number(&r, "iterations-per-epoch"), 51.0);
    close(number(&r, "epoch-time"), 51.0 * T_ITER);
    assert_eq!(unit(&r, "epoch-time"), Some(Unit::Hours));
    // 51 × 5 × 1.1365 / 3600 = $0.0805…
    close(number(&r, "cost-per-epoch"), 51.0 * 5.0 * T_ITER / 3600.0);
    assert_eq!(unit(&r, "cost-per-epoch"), Some(Unit::Usd));
    // An exact multiple needs no extra iteration: 1000 / 20 = 50.
    s.set_section(
        "zeng",
        &ZengSettings {
            epoch_samples: Some(1000),
            ..ZengSettings::default()
        },
    );
    assert_eq!(number(&report(&s), "iterations-per-epoch"), 50.0);
}

#[test]
fn the_epoch_field_round_trips_and_is_checked() {
    let mut s = small();
    s.set_section(
        "zeng",
        &ZengSettings {
            epoch_samples: Some(50_000),
            ..ZengSettings::default()
        },
    );
    let back = ddnn_planner::models::from_json(&s.to_json()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, s);
    assert!(s.to_json().contains("\"epoch_samples\": 50000"));
    // Absent by default: documents without it are unchanged.
    s.set_section("zeng", &ZengSettings::default());
    assert!(!s.to_json().contains("epoch_samples"));

    for bad in [0u64, 2_000_000_000_000] {
        s.set_section(
            "zeng",
            &ZengSettings {
                epoch_samples: Some(bad),
                ..ZengSettings::default()
            },
        );
        let errs = ddnn_planner::models::validate_for(&Zeng, &s);
        assert!(
            errs.iter().any(|e| e.field == "models.zeng.epoch_samples"
                && e.message.contains("samples per epoch must be ")
                && e.message.contains("between 1 and 1,000,000,000,000")),
            "{errs:?}"
        );
    }
}

#[test]
fn the_cost_chart_sweeps_each_device_and_the_mix() {
    let mut s = small();
    // A second, slower and dearer device: 5 GFLOP/s at $3/h, batch 10.
    s.hardware.catalog.push(Instance {
        name: "cpu-b".into(),
        flops_per_s: Some(5e9),
        price_per_hour: Some(3.0),
        spot_price_per_hour: Some(1.0),
        ..Instance::default()
    });
    s.hardware.cluster.workers[0].count = 1;
    s.hardware.cluster.workers.push(WorkerGroup {
        instance: "cpu-b".into(),
        count: 1,
        batch_size: 10,
    });
    let e = evaluate_zeng(&s).unwrap_or_else(|e| panic!("{e:?}"));
    let r = report(&s);
    let chart = r.chart("cost").unwrap_or_else(|| panic!("no cost chart"));
    assert_eq!(
        chart.title,
        "Cost per 1,000 iterations vs number of workers"
    );
    assert_eq!(chart.y.unit, Unit::Usd);
    assert!(chart.y.from_zero);
    assert_eq!(chart.x.unit, Unit::Count);
    assert!(chart.markers.contains(&Marker::Vertical {
        x: 2.0,
        label: "this cluster".into()
    }));
    let iteration = r
        .chart("workers-iteration")
        .unwrap_or_else(|| panic!("no iteration chart"));
    let names = |c: &ddnn_planner::report::Chart| -> Vec<String> {
        c.series.iter().map(|s| s.name.clone()).collect()
    };
    assert_eq!(names(chart), names(iteration), "the same sweeps");
    assert_eq!(chart.series.len(), 3, "two devices and the mix");

    // cpu-a alone at n = 1: ($2 + $1 PS) × 1.0725 s × 1000 / 3600 = $0.89375.
    close(line(&r, "cpu-a only")[0].1, 3.0 * T_ALONE / 3.6);
    // Every point: (n × price + $1) × t_iter(n) × 1000 / 3600.
    for (sweep, price) in [(0usize, 2.0), (1, 3.0)] {
        for (p, (x, y)) in e.worker_sweeps[sweep].points.iter().zip(line(
            &r,
            if sweep == 0 {
                "cpu-a only"
            } else {
                "cpu-b only"
            },
        )) {
            assert_eq!(p.x, x);
            close(y, (x * price + 1.0) * p.iteration_s * 1000.0 / 3600.0);
        }
    }
    // The mix repeats the cluster's workers a, b, a, b, …: at n = 3 the
    // workers cost $2 + $3 + $2 = $7/h, plus the PS.
    let mix = &e.worker_sweeps[2];
    assert!(mix.label.contains("mix"));
    close(
        line(&r, "this cluster's mix")[2].1,
        8.0 * mix.points[2].iteration_s / 3.6,
    );
    // The cluster itself is the mix at n = 2: ($2 + $3 + $1) × T.
    close(
        number(&r, "cost-per-1000-iterations"),
        6.0 * e.queue.iteration_s / 3.6,
    );
    close(mix.points[1].iteration_s, e.queue.iteration_s);
}

#[test]
fn a_device_without_a_price_means_no_cost_and_says_which() {
    let mut s = small();
    s.hardware.pricing = Pricing::Spot;
    s.hardware.catalog[0].spot_price_per_hour = None;
    let r = report(&s);
    for key in [
        "cost-per-iteration",
        "cost-per-1000-iterations",
        "cost-per-epoch",
        "cluster-price",
    ] {
        assert!(r.figure(key).is_none(), "{key}");
    }
    assert!(r.chart("cost").is_none());
    let note = r
        .notes
        .iter()
        .find(|n| n.text.contains("no cost"))
        .unwrap_or_else(|| panic!("no missing-price note: {:?}", r.notes));
    assert_eq!(
        note.field.as_deref(),
        Some("hardware.catalog[0].spot_price_per_hour")
    );
    assert_eq!(note.level, Level::Warning);
    assert!(note.text.contains("cpu-a"), "{}", note.text);
    assert!(note.text.contains("spot price"), "{}", note.text);
    // The on-demand price is there: with on-demand pricing the cost is back.
    s.hardware.pricing = Pricing::OnDemand;
    assert!(report(&s).chart("cost").is_some());

    // The PS nodes' instance without a price: named too, at its field.
    let mut s = small();
    s.hardware.catalog[1].price_per_hour = None;
    let r = report(&s);
    assert!(r.chart("cost").is_none());
    assert!(r.figure("cost-per-iteration").is_none());
    assert!(r.notes.iter().any(|n| n.field.as_deref()
        == Some("hardware.catalog[1].price_per_hour")
        && n.text.contains("ps-node")));

    // Nothing reads "$NaN" or "$inf" anywhere.
    let text = ddnn_planner::report::text::table(&r);
    assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
}

#[test]
fn a_ps_without_an_instance_costs_nothing_and_says_so() {
    let mut s = small();
    s.hardware.cluster.ps.instance = None;
    let r = report(&s);
    // Workers only: 2 × $2/h.
    close(number(&r, "cluster-price"), 4.0);
    close(number(&r, "cost-per-1000-iterations"), 4.0 * T_ITER / 3.6);
    assert!(r.notes.iter().any(
        |n| n.field.as_deref() == Some("hardware.cluster.ps.instance")
            && n.text.contains("workers only")
    ));
}

#[test]
fn the_landing_example_has_no_prices_and_no_cost() {
    let r = report(&Scenario::example());
    assert!(r.chart("cost").is_none());
    let missing: Vec<_> = r
        .notes
        .iter()
        .filter(|n| n.text.contains("no cost"))
        .filter_map(|n| n.field.clone())
        .collect();
    assert_eq!(
        missing,
        [
            "hardware.catalog[2].price_per_hour",
            "hardware.catalog[3].price_per_hour"
        ]
    );
    assert_eq!(Zeng.id(), r.model);
}
