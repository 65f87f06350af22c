//! Measured runs against the models: Zeng's push queue worked by hand on
//! a tiny network and cluster, the signed errors and the median and worst
//! absolute error worked by hand, and a model that lacks an input saying
//! which, at the run's own path.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::collections::BTreeMap;

use ddnn_planner::hardware::{Cluster, Instance, ParameterServer, Pricing, WorkerGroup};
use ddnn_planner::models::{by_id, Model, MODELS};
use ddnn_planner::report::Unit;
use ddnn_planner::runs::compare::{median, stats, Outcome};
use ddnn_planner::runs::{compare, evaluate, run_scenario, Measure, Run};
use ddnn_planner::scenario::{Goals, Hardware, Scenario, Workload, SCENARIO_VERSION};
use ddnn_planner::workload::{GivenFigures, Network};

fn cpu(name: &str, flops: f64) -> Instance {
    Instance {
        name: name.into(),
        source: "by hand".into(),
        flops_per_s: Some(flops),
        ..Instance::default()
    }
}

fn group(instance: &str, count: u32, batch_size: u32) -> WorkerGroup {
    WorkerGroup {
        instance: instance.into(),
        count,
        batch_size,
    }
}

fn run(
    label: &str,
    workers: Vec<WorkerGroup>,
    iteration_s: Option<f64>,
    throughput: Option<f64>,
) -> Run {
    Run {
        label: label.into(),
        workers,
        ps: None,
        iteration_s,
        throughput,
        source: String::new(),
        published: None,
        lacks: None,
    }
}

/// A network of 10⁹ FLOP forward per sample and 10⁶ weights (backward
/// 85 × 10⁶ FLOP, Table 1's rule; pushes and pulls of 4·10⁶ B), CPUs of
/// 10¹¹ and 5·10¹⁰ FLOP/s (Eq. 28 with the rate as given), one PS link of
/// 10⁸ B/s: T_push = T_pull = 4·10⁶ / 10⁸ = 0.04 s.
fn tiny() -> Scenario {
    Scenario {
        version: SCENARIO_VERSION,
        title: "runs by hand".into(),
        workload: Workload {
            network: Network {
                name: "tiny".into(),
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
            catalog: vec![
                cpu("fast", 1e11),
                cpu("slow", 5e10),
                Instance {
                    name: "mystery".into(),
                    source: "no rate given".into(),
                    ..Instance::default()
                },
            ],
            cluster: Cluster {
                workers: vec![group("fast", 1, 10)],
                ps: ParameterServer {
                    count: 1,
                    instance: None,
                    link_bytes_per_s: Some(1e8),
                    latency_s: 0.0,
                },
            },
            pricing: Pricing::OnDemand,
            precision: Default::default(),
        },
        goals: Goals::default(),
        runs: vec![
            run(
                "fast + slow",
                vec![group("fast", 1, 10), group("slow", 1, 10)],
                Some(0.35),
                None,
            ),
            run("fast alone", vec![group("fast", 1, 10)], Some(0.2), None),
            run("two fast", vec![group("fast", 2, 10)], None, Some(80.0)),
            run("no rate", vec![group("mystery", 1, 10)], Some(1.0), None),
        ],
        calibration: Default::default(),
        models: BTreeMap::new(),
        uncertainty: None,
    }
}

fn zeng() -> Vec<&'static dyn Model> {
    vec![by_id("zeng").unwrap_or_else(|| panic!("zeng"))]
}

#[track_caller]
fn close(got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-12 * want.abs().max(1.0),
        "{got} vs {want}"
    );
}

/// Each worker's compute is `(bs·forward + backward)/rate` (Eq. 27-28):
/// `(10·10⁹ + 8.5·10⁷) / 10¹¹ = 0.10085 s` on "fast", `0.2017 s` on
/// "slow". The push queue (models.md's listing of Algorithm 1):
/// - fast + slow: fast pushes 0.10085 → 0.14085; slow is ready at 0.2017,
///   after the link frees, so pushes 0.2017 → 0.2417; two pulls of 0.04:
///   T = 0.3217 s.
/// - fast alone: 0.10085 + 0.04 + 0.04 = 0.18085 s.
/// - two fast: pushes 0.10085 → 0.14085 → 0.18085, two pulls: 0.26085 s;
///   throughput 20 samples / 0.26085 s.
#[test]
fn zeng_predicts_runs_worked_by_hand() {
    let s = tiny();
    let c = compare(&s, &zeng()).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(c.models.len(), 1);
    let z = &c.models[0];
    let value = |i: usize| match &z.outcomes[i] {
        Outcome::Predicted { value, error, .. } => (*value, *error),
        o => panic!("run {i}: {o:?}"),
    };
    let (t, e) = value(0);
    close(t, 0.3217);
    close(e, (0.3217 - 0.35) / 0.35);
    let (t, e) = value(1);
    close(t, 0.18085);
    close(e, (0.18085 - 0.2) / 0.2);
    // A throughput run is compared in samples/s: 20 / 0.26085.
    assert_eq!(c.runs[2].measure, Measure::Throughput);
    assert_eq!(c.runs[2].global_batch, 20.0);
    let (x, e) = value(2);
    close(x, 20.0 / 0.26085);
    close(e, (20.0 / 0.26085 - 80.0) / 80.0);
}

/// Errors of −8.0857%, −9.575% and −4.1595% (above): median |error| is
/// the middle one, 8.0857% ("fast + slow"), the worst 9.575% ("fast
/// alone"); the run on an instance without a rate is not predicted.
#[test]
fn median_and_worst_error_worked_by_hand() {
    let c = compare(&tiny(), &zeng()).unwrap_or_else(|e| panic!("{e:?}"));
    let st = &c.models[0].stats;
    assert_eq!(st.predicted, 3);
    close(st.median_abs.unwrap_or(f64::NAN), (0.35 - 0.3217) / 0.35);
    close(st.worst_abs.unwrap_or(f64::NAN), (0.2 - 0.18085) / 0.2);
    assert_eq!(st.worst_run, Some(1));

    // An even count takes the mean of the middle two: |errors| 0.1, 0.3,
    // 0.2, 0.05 → (0.1 + 0.2) / 2; worst 0.3, the second.
    let outcomes: Vec<Outcome> = [0.1, -0.3, 0.2, -0.05]
        .iter()
        .map(|&error| Outcome::Predicted {
            value: 1.0 + error,
            error,
            note: None,
        })
        .collect();
    let st = stats(&outcomes);
    assert_eq!(st.predicted, 4);
    close(st.median_abs.unwrap_or(f64::NAN), 0.15);
    assert_eq!((st.worst_abs, st.worst_run), (Some(0.3), Some(1)));
    assert_eq!(median(&[]), None);
}

#[test]
fn a_model_that_lacks_an_input_says_which_at_the_run() {
    let c = compare(&tiny(), &zeng()).unwrap_or_else(|e| panic!("{e:?}"));
    let Outcome::Unavailable { why } = &c.models[0].outcomes[3] else {
        panic!("{:?}", c.models[0].outcomes[3]);
    };
    let e = &why.errors()[0];
    assert_eq!(e.field, "runs[3].workers[0]");
    assert!(e.message.contains("rate of 'mystery'"), "{}", e.message);

    // Cynthia without a job profile names it, for every run.
    let cynthia = vec![by_id("cynthia").unwrap_or_else(|| panic!("cynthia"))];
    let c = compare(&tiny(), &cynthia).unwrap_or_else(|e| panic!("{e:?}"));
    for o in &c.models[0].outcomes {
        let Outcome::Unavailable { why } = o else {
            panic!("{o:?}")
        };
        assert!(why.is_missing());
        assert_eq!(why.errors()[0].field, "workload.profile");
    }

    // With a profile, a run with its own PS side but no PS instance: the
    // path is the run's own.
    let mut s = tiny();
    s.workload.profile = ddnn_planner::workload::profile_presets::profile_preset("cifar10-dnn-bsp");
    assert!(s.workload.profile.is_some());
    s.runs[1].ps = Some(ParameterServer {
        count: 1,
        instance: None,
        link_bytes_per_s: Some(1e8),
        latency_s: 0.0,
    });
    let c = compare(&s, &cynthia).unwrap_or_else(|e| panic!("{e:?}"));
    let Outcome::Unavailable { why } = &c.models[0].outcomes[1] else {
        panic!("{:?}", c.models[0].outcomes[1]);
    };
    assert_eq!(why.errors()[0].field, "runs[1].ps.instance");
    assert!(why.errors()[0].message.contains("PS instance"));

    // Stash predicts machines of one instance type: a mix says so.
    let stash = vec![by_id("stash").unwrap_or_else(|| panic!("stash"))];
    let c = compare(&tiny(), &stash).unwrap_or_else(|e| panic!("{e:?}"));
    let Outcome::Unavailable { why } = &c.models[0].outcomes[0] else {
        panic!("{:?}", c.models[0].outcomes[0]);
    };
    assert!(
        why.errors().iter().any(|e| e.field.starts_with("models.stash")
            || e.message.contains("one instance type")),
        "{why:?}"
    );
}

#[test]
fn every_registry_model_answers_every_run_and_the_report_reads() {
    let s = tiny();
    let c = compare(&s, MODELS).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(c.models.len(), MODELS.len(), "every model predicts runs");
    for m in &c.models {
        assert_eq!(m.outcomes.len(), s.runs.len(), "{}", m.id);
    }
    let r = evaluate(&s, MODELS).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(r.model, "runs");
    assert!(r.non_finite().is_none());
    let runs = r.table("runs").unwrap_or_else(|| panic!("runs table"));
    assert_eq!(runs.rows.len(), 4);
    assert!(runs.rows.iter().all(|row| row.len() == runs.columns.len()));
    assert_eq!(runs.rows[0][2].display(), "0.3500 s");
    let acc = r
        .table("accuracy")
        .unwrap_or_else(|| panic!("accuracy table"));
    assert_eq!(acc.rows.len(), MODELS.len());
    let median = r
        .figure("zeng-median-error")
        .unwrap_or_else(|| panic!("figure"));
    assert!(matches!(
        median.value,
        ddnn_planner::report::Value::Number {
            unit: Unit::Percent,
            ..
        }
    ));
    // A parity chart per measure, each with the line y = x.
    for key in ["parity-iteration-time", "parity-throughput"] {
        let ch = r.chart(key).unwrap_or_else(|| panic!("{key}"));
        assert!(
            ch.series.iter().any(|s| s.name.starts_with("y = x")),
            "{key}"
        );
        assert!(!ch.as_table().rows.is_empty());
    }
    let it = r
        .chart("parity-iteration-time")
        .unwrap_or_else(|| panic!("chart"));
    assert_eq!(it.x.unit, Unit::Seconds);
    assert_eq!(
        r.chart("parity-throughput").map(|c| c.y.unit),
        Some(Unit::SamplesPerS)
    );
}

#[test]
fn the_run_scenario_is_the_scenario_with_the_runs_cluster() {
    let mut s = tiny();
    s.runs[2].ps = Some(ParameterServer {
        count: 2,
        instance: None,
        link_bytes_per_s: Some(5e7),
        latency_s: 0.1,
    });
    let r = run_scenario(&s, &s.runs[0]);
    assert_eq!(r.hardware.cluster.workers, s.runs[0].workers);
    assert_eq!(r.hardware.cluster.ps, s.hardware.cluster.ps);
    assert!(r.runs.is_empty());
    assert_eq!(r.hardware.catalog, s.hardware.catalog);
    let r = run_scenario(&s, &s.runs[2]);
    assert_eq!(Some(&r.hardware.cluster.ps), s.runs[2].ps.as_ref());
}

#[test]
fn no_runs_is_missing_and_a_bad_run_refuses_the_comparison() {
    let mut s = tiny();
    s.runs.clear();
    let e = compare(&s, MODELS)
        .err()
        .unwrap_or_else(|| panic!("no runs"));
    assert!(e.is_missing());
    assert_eq!(e.errors()[0].field, "runs");
    let mut s = tiny();
    s.runs[1].iteration_s = Some(0.0);
    let e = compare(&s, MODELS)
        .err()
        .unwrap_or_else(|| panic!("a bad run"));
    assert!(!e.is_missing());
    assert_eq!(e.errors()[0].field, "runs[1].iteration_s");
}

/// A run on the scenario's own cluster: each model's prediction is its
/// own report's figure for that cluster, to the bit (the same evaluation,
/// without the searches and sweeps).
#[test]
fn a_run_on_the_scenarios_cluster_is_predicted_as_the_report_says() {
    let own = |text: &str| {
        let mut s = ddnn_planner::models::from_json(text).unwrap_or_else(|e| panic!("{e}"));
        s.runs = vec![run(
            "own",
            s.hardware.cluster.workers.clone(),
            Some(1.0),
            None,
        )];
        s
    };
    let predicted = |s: &Scenario, id: &str| {
        let m = vec![by_id(id).unwrap_or_else(|| panic!("{id}"))];
        let c = compare(s, &m).unwrap_or_else(|e| panic!("{id}: {e:?}"));
        match &c.models[0].outcomes[0] {
            Outcome::Predicted { value, .. } => *value,
            o => panic!("{id}: {o:?}"),
        }
    };
    let figure = |s: &Scenario, id: &str, key: &str| {
        let m = by_id(id).unwrap_or_else(|| panic!("{id}"));
        let r = ddnn_planner::models::evaluate(m, s).unwrap_or_else(|e| panic!("{id}: {e:?}"));
        r.figure(key)
            .and_then(|f| f.value.number())
            .unwrap_or_else(|| panic!("{id}: {key}"))
    };

    let s = own(include_str!("../../public/examples/cifar10-bsp-m4.json"));
    for id in ["zeng", "cynthia"] {
        assert_eq!(predicted(&s, id), figure(&s, id, "iteration-time"), "{id}");
    }
    // spotDNN: |N| · T_exp (8 workers).
    let s = own(include_str!("../../public/examples/spotdnn-table1.json"));
    let t_exp = figure(&s, "spotdnn", "expected-iteration");
    assert_eq!(predicted(&s, "spotdnn"), 8.0 * t_exp);
    // Stash: its prediction row of the configuration (the run's batch is
    // the section's, 256).
    let s = own(include_str!("../../public/examples/stash-p3.json"));
    let e = ddnn_planner::models::stash::evaluate(&s).unwrap_or_else(|e| panic!("{e:?}"));
    let row = e
        .prediction
        .as_ref()
        .and_then(|p| p.rows.iter().find(|r| r.name == "p3.16xlarge"))
        .unwrap_or_else(|| panic!("p3.16xlarge predicted"));
    assert_eq!(predicted(&s, "stash"), row.iteration_s);
    // Li et al.: one worker's simulated throughput, as an iteration of
    // its batch (a short run: the figure, not the speed, is checked).
    let mut s = own(include_str!("../../public/examples/li-vgg16-10gbe.json"));
    if let Some(li) = s.models.get_mut("li").map(std::sync::Arc::make_mut) {
        li["steps"] = 80.into();
        li["warmup"] = 10.into();
        li["max_workers"] = 1.into();
    }
    let one = figure(&s, "li", "one-worker");
    let batch = s.runs[0].global_batch();
    assert_eq!(predicted(&s, "li"), batch / one);
}
