//! Stash's method and the statements its figures allow (the paper gives
//! charts, not tables, so runs are built to reproduce each statement; no
//! constant here is fitted). Tolerances: stall arithmetic exact to 1e-12
//! relative; Table II's VGG-11 gradient count within 0.05% (the paper
//! rounds to 132.8M); the paper's "about 3.5×" P3/P2 hourly price within
//! 0.15 of 3.5.
//!
//! - Interconnect stall % of t1: ResNet-50 on P2 at 750% (Sec. V-A) is the
//!   same run whose stall is 88% of t2, the conclusion's "up to 90%".
//! - Network stall % of t2_ref, negative when several machines beat one
//!   (2× p2.8xlarge against p2.16xlarge, Sec. V-A), 500% on 2× p3.8xlarge
//!   (Fig. 13, the shipped example's runs).
//! - Sec. VI-A: with Table II's gradients, ResNet-50's all-reduce is the
//!   longer on NVLink and VGG-11's the longer on the network.
//! - Sec. V: with no stalls, cost per epoch does not depend on the GPU
//!   count within a family: Table I's P3 prices make an exact tie.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::hardware::Instance;
use ddnn_planner::models::stash::eval::evaluate as stash_eval;
use ddnn_planner::models::stash::presets::{p3_example, table1_catalog};
use ddnn_planner::models::stash::section::{Calibration, Run, StashSettings, ID};
use ddnn_planner::models::stash::stalls::{analyse, StallAnalysis, StallKind};
use ddnn_planner::models::stash::{comm_time, Stash};
use ddnn_planner::models::{evaluate, Unavailable};
use ddnn_planner::report::{Level, Value};
use ddnn_planner::scenario::Scenario;
use ddnn_planner::workload::presets::network_preset;

fn run(configuration: &str, run: u8, seconds: f64, samples: f64) -> Run {
    Run {
        configuration: configuration.into(),
        run,
        seconds,
        samples,
        reference: None,
    }
}

fn stalls(runs: &[Run]) -> StallAnalysis {
    analyse(runs, &table1_catalog())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn a_hand_worked_machine_of_four_gpus() {
    // p3.8xlarge, 10,000 samples per GPU: t1 100 s, t2 180 s, t4 190 s,
    // t3 250 s. Interconnect 80 s = 80% of t1; CPU 10 s = 10/190 of t4;
    // disk 60 s = 60/250 of t3.
    let a = stalls(&[
        run("p3.8xlarge", 1, 100.0, 10_000.0),
        run("p3.8xlarge", 2, 180.0, 40_000.0),
        run("p3.8xlarge", 4, 190.0, 40_000.0),
        run("p3.8xlarge", 3, 250.0, 40_000.0),
    ]);
    let c = &a.configs[0];
    assert_eq!((c.gpus, c.per_gpu_samples), (4, 10_000.0));
    let ic = c.stall(StallKind::Interconnect).unwrap();
    assert!(close(ic.seconds, 80.0) && close(ic.fraction, 0.8) && close(ic.reference_s, 100.0));
    let cpu = c.stall(StallKind::Cpu).unwrap();
    assert!(close(cpu.seconds, 10.0) && close(cpu.fraction, 10.0 / 190.0));
    let disk = c.stall(StallKind::Disk).unwrap();
    assert!(close(disk.seconds, 60.0) && close(disk.fraction, 60.0 / 250.0));
    assert!(c.stall(StallKind::Network).is_none());
    assert!(a.notes.iter().all(|n| !n.warning), "{:?}", a.notes);
}

#[test]
fn runs_over_other_sample_counts_are_scaled_and_say_so() {
    // Run (1) typed over the whole epoch's 40,000 samples on one GPU, run
    // (3) over half the epoch: both scaled to 10,000 samples per GPU.
    let a = stalls(&[
        run("p3.8xlarge", 1, 400.0, 40_000.0),
        run("p3.8xlarge", 2, 180.0, 40_000.0),
        run("p3.8xlarge", 3, 125.0, 20_000.0),
        run("p3.8xlarge", 4, 190.0, 40_000.0),
    ]);
    let c = &a.configs[0];
    assert!(close(c.time(1).unwrap(), 100.0));
    assert!(close(c.time(3).unwrap(), 250.0));
    let scaled: Vec<&str> = a
        .notes
        .iter()
        .filter(|n| n.text.contains("scaled"))
        .map(|n| n.field.as_str())
        .collect();
    assert_eq!(scaled, ["models.stash.runs[0]", "models.stash.runs[2]"]);
}

#[test]
fn repeats_are_averaged() {
    let a = stalls(&[
        run("p3.2xlarge", 1, 100.0, 1000.0),
        run("p3.2xlarge", 1, 110.0, 1000.0),
        run("p3.2xlarge", 1, 120.0, 1000.0),
    ]);
    assert!(close(a.configs[0].time(1).unwrap(), 110.0));
    assert!(a
        .notes
        .iter()
        .any(|n| n.text.contains("3 measurements of run (1)")));
}

#[test]
fn resnet50_on_p2_stalls_750_percent_of_one_gpu_which_is_88_percent_of_all() {
    let a = stalls(&[
        run("p2.8xlarge", 1, 100.0, 1000.0),
        run("p2.8xlarge", 2, 850.0, 8000.0),
    ]);
    let ic = a.configs[0].stall(StallKind::Interconnect).unwrap();
    assert!(close(ic.fraction, 7.5));
    // The same stall as a share of the run it slows: 750 / 850 = 88.2%.
    let share = ic.seconds / a.configs[0].time(2).unwrap();
    assert!((share - 0.882).abs() < 1e-3 && share < 0.9);
}

#[test]
fn two_p2_8xlarge_beating_one_p2_16xlarge_is_a_negative_network_stall_kept() {
    let a = stalls(&[
        run("p2.16xlarge", 1, 100.0, 1000.0),
        run("p2.16xlarge", 2, 400.0, 16_000.0),
        run("2× p2.8xlarge", 5, 300.0, 16_000.0),
    ]);
    let two = a
        .configs
        .iter()
        .find(|c| c.name == "2× p2.8xlarge")
        .unwrap();
    assert_eq!(two.reference.as_ref().unwrap().0, "p2.16xlarge");
    let nw = two.stall(StallKind::Network).unwrap();
    assert!(close(nw.seconds, -100.0) && close(nw.fraction, -0.25));
    let note = a
        .notes
        .iter()
        .find(|n| n.text.contains("negative"))
        .unwrap();
    assert!(
        !note.warning,
        "a negative network stall is a finding, not an error"
    );
}

#[test]
fn the_shipped_example_has_fig_13s_500_percent_network_stall() {
    let s = p3_example();
    let e = stash_eval(&s).unwrap();
    let two = e
        .stalls
        .configs
        .iter()
        .find(|c| c.name == "2× p3.8xlarge")
        .unwrap();
    assert!(close(two.stall(StallKind::Network).unwrap().fraction, 5.0));
    let r = evaluate(&Stash, &s).unwrap();
    assert_eq!(
        r.figure("worst-stall").unwrap().value,
        Value::num(5.0, ddnn_planner::report::Unit::Percent)
    );
    let shipped =
        ddnn_planner::models::from_json(include_str!("../../public/examples/stash-p3.json"))
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shipped, s);
}

#[test]
fn runs_that_contradict_the_method_are_named_never_negative_stalls() {
    let a = stalls(&[
        run("p3.8xlarge", 1, 100.0, 10_000.0),
        run("p3.8xlarge", 2, 90.0, 40_000.0),
        run("p3.8xlarge", 3, 80.0, 40_000.0),
        run("p3.8xlarge", 4, 85.0, 40_000.0),
    ]);
    let c = &a.configs[0];
    for kind in [StallKind::Interconnect, StallKind::Cpu, StallKind::Disk] {
        assert!(c.stall(kind).is_none(), "{kind:?}");
    }
    let warnings: Vec<&str> = a
        .notes
        .iter()
        .filter(|n| n.warning)
        .map(|n| n.text.as_str())
        .collect();
    assert!(warnings
        .iter()
        .any(|w| w.contains("run (2) takes 90") && w.contains("run (1)")));
    assert!(warnings
        .iter()
        .any(|w| w.contains("run (4) on real data takes 85")));
    assert!(warnings
        .iter()
        .any(|w| w.contains("run (3) with a cold cache takes 80")));
}

#[test]
fn missing_and_misplaced_runs_are_named() {
    let a = stalls(&[
        run("p3.8xlarge", 1, 100.0, 10_000.0),
        run("p3.8xlarge", 2, 110.0, 40_000.0),
        run("p3.8xlarge", 4, 111.0, 40_000.0),
        run("p3.8xlarge", 5, 200.0, 40_000.0),
        run("2× p3.8xlarge", 2, 200.0, 80_000.0),
        run("2× p3.8xlarge", 5, 300.0, 80_000.0),
        run("p9.xlarge", 1, 1.0, 1.0),
    ]);
    let text: Vec<(&str, &str)> = a
        .notes
        .iter()
        .filter(|n| n.warning)
        .map(|n| (n.field.as_str(), n.text.as_str()))
        .collect();
    let has = |field: &str, words: &str| text.iter().any(|(f, t)| *f == field && t.contains(words));
    assert!(
        has(
            "models.stash.runs",
            "missing run (3): the disk fetch stall needs runs (3) and (4)"
        ),
        "{text:?}"
    );
    assert!(has(
        "models.stash.runs[3]",
        "run (5) of p3.8xlarge is left out"
    ));
    assert!(has(
        "models.stash.runs[4]",
        "run (2) of 2× p3.8xlarge is left out"
    ));
    assert!(has(
        "models.stash.runs[6]",
        "p9.xlarge is not in the catalog"
    ));
    assert!(has(
        "models.stash.runs",
        "missing run (2) of one machine with 8 GPUs"
    ));
}

#[test]
fn a_named_reference_is_used_or_refused_with_its_reason() {
    let mut five = run("2× p3.8xlarge", 5, 300.0, 80_000.0);
    five.reference = Some("p3dn.24xlarge".into());
    let a = stalls(&[
        run("p3.16xlarge", 2, 100.0, 80_000.0),
        run("p3dn.24xlarge", 2, 150.0, 80_000.0),
        five.clone(),
    ]);
    let two = a.configs.iter().find(|c| c.machines == 2).unwrap();
    assert_eq!(two.reference.as_ref().unwrap().0, "p3dn.24xlarge");
    five.reference = Some("p3.8xlarge".into());
    let a = stalls(&[run("p3.8xlarge", 2, 100.0, 40_000.0), five]);
    assert!(a
        .notes
        .iter()
        .any(|n| n.warning && n.text.contains("cannot be t2_ref")));
}

#[test]
fn table_i_is_in_the_catalog_with_its_figures() {
    let c = table1_catalog();
    assert_eq!(c.len(), 8);
    let get = |n: &str| c.iter().find(|i| i.name == n).unwrap();
    let p3 = get("p3.16xlarge");
    assert_eq!(
        (p3.gpus, p3.vcpus, p3.price_per_hour),
        (Some(8), Some(64), Some(24.48))
    );
    assert_eq!(p3.network_bytes_per_s, Some(25.0 * 1.25e8));
    assert_eq!(p3.interconnect.as_deref(), Some("PCIe + NVLink"));
    assert_eq!(get("p2.16xlarge").gpus, Some(16));
    assert_eq!(get("p4d.24xlarge").price_per_hour, Some(32.7726));
    // "P3 instances are about 3.5× costlier per hour than P2" (Sec. V-C).
    let ratio =
        get("p3.2xlarge").price_per_hour.unwrap() / get("p2.xlarge").price_per_hour.unwrap();
    assert!((ratio - 3.5).abs() <= 0.15, "{ratio}");
    for i in &c {
        assert!(i.validate().is_empty(), "{}: {:?}", i.name, i.validate());
        assert!(i
            .cites
            .iter()
            .all(|c| !c.source.is_empty() && c.date.len() == 10));
    }
}

#[test]
fn vgg11s_gradients_from_the_layer_table_are_table_iis() {
    let net = network_preset("vgg11").unwrap();
    let s = net.summary();
    let values = s.weights + s.biases;
    assert!((values / 132.8e6 - 1.0).abs() < 5e-4, "{values}");
}

#[test]
fn resnet_stalls_more_on_nvlink_and_vgg_more_on_the_network() {
    // Table II: VGG-11 132.8M and ResNet-50 23.59M gradients of 4 B;
    // layers with gradients: VGG-11 8 conv + 3 fc = 11, ResNet-50 53 conv
    // + 1 fc + 53 BatchNorm = 107 (l.336: BatchNorm counts).
    let (g_vgg, l_vgg) = (132.8e6 * 4.0, 11.0);
    let (g_res, l_res) = (23.59e6 * 4.0, 107.0);
    // NVLink 300 GB/s, τ 20 µs: latency-dominated for ResNet.
    let nv = |g, l| comm_time(20e-6, g, l, 300e9).total_s();
    assert!(nv(g_res, l_res) > nv(g_vgg, l_vgg));
    // 25 Gb/s network, τ 100 µs: bandwidth-dominated.
    let net = |g, l| comm_time(100e-6, g, l, 25.0 * 1.25e8).total_s();
    assert!(net(g_vgg, l_vgg) > 4.0 * net(g_res, l_res));
    // The NVLink claim needs τ above (G_vgg − G_res)/(B·(L_res − L_vgg)):
    // about 15 µs; at 10 µs VGG is the longer there too.
    let tau = (g_vgg - g_res) / (300e9 * (l_res - l_vgg));
    assert!((tau - 15.2e-6).abs() < 0.1e-6, "{tau}");
    assert!(
        comm_time(10e-6, g_vgg, l_vgg, 300e9).total_s()
            > comm_time(10e-6, g_res, l_res, 300e9).total_s()
    );
}

/// The example on Table I's P3 family with compute only (overlap 1 hides
/// every all-reduce).
fn no_stalls() -> Scenario {
    let mut s = p3_example();
    s.hardware.catalog.retain(|i| i.name.starts_with("p3."));
    let mut set: StashSettings = s.section(ID).unwrap();
    set.overlap = 1.0;
    s.set_section(ID, &set);
    s.goals.time_s = None;
    s
}

#[test]
fn without_stalls_every_p3_size_costs_the_same_per_epoch_an_exact_tie() {
    let e = stash_eval(&no_stalls()).unwrap();
    let p = e.prediction.unwrap();
    let cheapest: Vec<&str> = p
        .ranking
        .cheapest
        .iter()
        .map(|&i| p.rows[i].name.as_str())
        .collect();
    assert_eq!(
        cheapest,
        [
            "p3.2xlarge",
            "2× p3.2xlarge",
            "p3.8xlarge",
            "2× p3.8xlarge",
            "p3.16xlarge",
            "2× p3.16xlarge"
        ]
    );
    let r = evaluate(&Stash, &no_stalls()).unwrap();
    match &r.figure("cheapest").unwrap().value {
        Value::Text { text } => assert!(text.contains("6-way tie"), "{text}"),
        v => panic!("{v:?}"),
    }
}

#[test]
fn calibrating_on_a_measured_iteration_reproduces_it() {
    let mut s = p3_example();
    let mut set: StashSettings = s.section(ID).unwrap();
    set.calibrate = Some(Calibration {
        configuration: "p3.16xlarge".into(),
        iteration_s: 0.05,
    });
    s.set_section(ID, &set);
    let p = stash_eval(&s).unwrap().prediction.unwrap();
    let row = p.rows.iter().find(|r| r.name == "p3.16xlarge").unwrap();
    assert!((row.iteration_s - 0.05).abs() < 1e-12);
    assert!(p.calibrated_from.is_some());
    // A measured iteration shorter than the all-reduce alone is refused at
    // its field, and the model keeps its last good report (Invalid).
    set.calibrate = Some(Calibration {
        configuration: "2× p3.8xlarge".into(),
        iteration_s: 0.01,
    });
    s.set_section(ID, &set);
    match evaluate(&Stash, &s) {
        Err(Unavailable::Invalid { errors }) => {
            assert_eq!(errors[0].field, "models.stash.calibrate.iteration_s");
            assert!(errors[0].message.contains("not longer"));
        }
        other => panic!("{other:?}"),
    }
    set.calibrate = Some(Calibration {
        configuration: "p9.xlarge".into(),
        iteration_s: 0.1,
    });
    s.set_section(ID, &set);
    assert!(matches!(
        evaluate(&Stash, &s),
        Err(Unavailable::Invalid { .. })
    ));
}

#[test]
fn a_scenario_with_nothing_for_stash_says_what_is_needed() {
    let mut s = Scenario::example();
    s.workload.network = ddnn_planner::workload::Network::from_layers("empty", Vec::new());
    s.hardware.catalog = vec![Instance {
        name: "cpu".into(),
        flops_per_s: Some(1e9),
        ..Instance::default()
    }];
    s.hardware.cluster.workers.clear();
    match evaluate(&Stash, &s) {
        Err(Unavailable::Missing { needs }) => {
            let fields: Vec<&str> = needs.iter().map(|e| e.field.as_str()).collect();
            assert!(fields.contains(&"models.stash.runs"), "{fields:?}");
            assert!(fields.contains(&"models.stash.layers"), "{fields:?}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_report_names_its_extension_and_its_assumed_latencies() {
    let r = evaluate(&Stash, &p3_example()).unwrap();
    assert!(r
        .table("configurations")
        .unwrap()
        .title
        .contains("extension"));
    assert!(r
        .notes
        .iter()
        .any(|n| n.level == Level::Info && n.text.contains("assumption, not the paper's")));
    for key in [
        "stalls",
        "comm-layers",
        "comm-bytes",
        "comm-networks",
        "configurations",
    ] {
        assert!(r.chart(key).is_some(), "{key}");
    }
    for t in &r.tables {
        assert!(
            t.rows.iter().all(|row| row.len() == t.columns.len()),
            "{}",
            t.key
        );
    }
    assert!(r.non_finite().is_none(), "{:?}", r.non_finite());
}
