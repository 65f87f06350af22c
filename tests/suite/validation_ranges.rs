//! Every number the scenario carries has a range that makes sense; a value
//! outside it (a subnormal clock, a negative goal) is refused at its field,
//! in words, in the unit people type it, naming the device or group.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::errors::FieldError;
use ddnn_planner::hardware::{Instance, Processor};
use ddnn_planner::models::cynthia::Cynthia;
use ddnn_planner::models::zeng::Zeng;
use ddnn_planner::models::{evaluate, evaluate_all};
use ddnn_planner::scenario::Scenario;
use ddnn_planner::workload::profile::{LossParams, Profile, SyncMode};

/// Subnormal: passes `> 0` and `is_finite`, yet a time divided by it is ∞.
const TINY: f64 = 1e-320;

/// The landing example with a rate-only instance (index 4, used by no
/// group), a job profile and a loss model, so that every field is there.
fn full() -> Scenario {
    let mut s = Scenario::example();
    s.hardware.catalog.push(Instance {
        name: "rated box".into(),
        flops_per_s: Some(1e12),
        network_bytes_per_s: Some(1.25e9),
        price_per_hour: Some(1.0),
        spot_price_per_hour: Some(0.3),
        memory_bytes: Some(64e9),
        gpu_memory_bytes: Some(16e9),
        gpus: Some(1),
        interconnect_bytes_per_s: Some(16e9),
        quota: Some(8),
        ..Instance::default()
    });
    s.workload.profile = Some(Profile {
        name: "cifar10 DNN".into(),
        sync: SyncMode::Bsp,
        w_iter_flop: 2.686e10,
        g_param_bytes: 4.94e6,
        c_prof_flops: 6e7,
        b_prof_bytes_per_s: 1.56e6,
        c_base_flops: 3.466e9,
        source: String::new(),
    });
    s.workload.loss = Some(LossParams {
        beta0: 7360.0,
        beta1: 3200.0,
    });
    s.goals.time_s = Some(3600.0);
    s.goals.loss = Some(0.5);
    s.goals.budget_usd = Some(100.0);
    s
}

fn cpu_hz(s: &mut Scenario) -> &mut f64 {
    match &mut s.hardware.catalog[0].processor {
        Some(Processor::Cpu { hz, .. }) => hz,
        _ => panic!("catalog[0] is a CPU"),
    }
}

fn cpu_simd(s: &mut Scenario) -> &mut f64 {
    match &mut s.hardware.catalog[0].processor {
        Some(Processor::Cpu { simd, .. }) => simd,
        _ => panic!("catalog[0] is a CPU"),
    }
}

fn gpu_hz(s: &mut Scenario) -> &mut f64 {
    match &mut s.hardware.catalog[2].processor {
        Some(Processor::Gpu { hz, .. }) => hz,
        _ => panic!("catalog[2] is a GPU"),
    }
}

fn profile(s: &mut Scenario) -> &mut Profile {
    s.workload
        .profile
        .as_mut()
        .unwrap_or_else(|| panic!("no profile"))
}

/// (what, where it is, set it).
type Setter = fn(&mut Scenario, f64);

fn rates() -> Vec<(&'static str, &'static str, Setter)> {
    vec![
        ("CPU clock", "hardware.catalog[0].processor.hz", |s, v| {
            *cpu_hz(s) = v
        }),
        (
            "SIMD factor",
            "hardware.catalog[0].processor.simd",
            |s, v| *cpu_simd(s) = v,
        ),
        ("GPU clock", "hardware.catalog[2].processor.hz", |s, v| {
            *gpu_hz(s) = v
        }),
        (
            "instance rate",
            "hardware.catalog[4].flops_per_s",
            |s, v| s.hardware.catalog[4].flops_per_s = Some(v),
        ),
        (
            "network bandwidth",
            "hardware.catalog[2].network_bytes_per_s",
            |s, v| s.hardware.catalog[2].network_bytes_per_s = Some(v),
        ),
        (
            "interconnect bandwidth",
            "hardware.catalog[4].interconnect_bytes_per_s",
            |s, v| s.hardware.catalog[4].interconnect_bytes_per_s = Some(v),
        ),
        ("PS link", "hardware.cluster.ps.link", |s, v| {
            s.hardware.cluster.ps.link_bytes_per_s = Some(v)
        }),
        ("profile c_prof", "workload.profile.c_prof", |s, v| {
            profile(s).c_prof_flops = v
        }),
        ("profile b_prof", "workload.profile.b_prof", |s, v| {
            profile(s).b_prof_bytes_per_s = v
        }),
        ("profile c_base", "workload.profile.c_base", |s, v| {
            profile(s).c_base_flops = v
        }),
    ]
}

/// Sizes, counts and amounts that must not vanish either.
fn sizes() -> Vec<(&'static str, &'static str, Setter)> {
    vec![
        ("memory", "hardware.catalog[4].memory_bytes", |s, v| {
            s.hardware.catalog[4].memory_bytes = Some(v)
        }),
        (
            "GPU memory",
            "hardware.catalog[4].gpu_memory_bytes",
            |s, v| s.hardware.catalog[4].gpu_memory_bytes = Some(v),
        ),
        ("profile w_iter", "workload.profile.w_iter", |s, v| {
            profile(s).w_iter_flop = v
        }),
        ("profile g_param", "workload.profile.g_param", |s, v| {
            profile(s).g_param_bytes = v
        }),
        ("β0", "workload.loss.beta0", |s, v| {
            if let Some(l) = &mut s.workload.loss {
                l.beta0 = v;
            }
        }),
        (
            "given forward FLOP",
            "workload.network.given.forward_flop",
            |s, v| {
                s.workload.network = ddnn_planner::workload::presets::network_preset("resnet50")
                    .unwrap_or_else(|| panic!("no resnet50 preset"));
                if let Some(g) = &mut s.workload.network.given {
                    g.forward_flop = v;
                }
            },
        ),
        ("given weights", "workload.network.given.weights", |s, v| {
            s.workload.network = ddnn_planner::workload::presets::network_preset("resnet50")
                .unwrap_or_else(|| panic!("no resnet50 preset"));
            if let Some(g) = &mut s.workload.network.given {
                g.weights = v;
            }
        }),
        (
            "values per push/pull",
            "workload.network.transfer_values",
            |s, v| s.workload.network.transfer_values = Some(v),
        ),
    ]
}

#[track_caller]
fn refused_at(s: &Scenario, field: &str) -> FieldError {
    let errs = ddnn_planner::models::validate(s);
    let e = errs
        .iter()
        .find(|e| e.field == field)
        .unwrap_or_else(|| panic!("nothing at {field}: {errs:?}"))
        .clone();
    assert!(
        !e.message.contains("hardware.") && !e.message.contains("workload."),
        "a message says what it is about in words: {}",
        e.message
    );
    e
}

#[test]
fn the_full_scenario_is_valid() {
    assert_eq!(ddnn_planner::models::validate(&full()), Vec::new());
}

#[test]
fn a_subnormal_rate_is_refused_at_its_field() {
    for (what, field, set) in rates().into_iter().chain(sizes()) {
        let mut s = full();
        set(&mut s, TINY);
        let e = refused_at(&s, field);
        assert!(
            e.message.contains("must be between"),
            "{what}: {}",
            e.message
        );
        // The value as typed, not "got 0".
        assert!(
            e.message.contains("(got 1e-3") || e.message.contains("(got 8e-3"),
            "{what}: {}",
            e.message
        );
        // No model reports on it.
        for (m, outcome) in evaluate_all(&s) {
            if m.reads().iter().any(|p| field.starts_with(p)) {
                assert!(outcome.is_err(), "{what}: {} still reports", m.id());
            }
        }
    }
}

#[test]
fn messages_say_the_range_in_the_typed_unit_and_name_the_device() {
    let mut s = full();
    *cpu_hz(&mut s) = TINY;
    assert_eq!(
        refused_at(&s, "hardware.catalog[0].processor.hz").message,
        "Xeon E5-2620 @ 2.0 GHz: clock must be between 0.001 and 100 GHz (got 1e-329 GHz)"
    );
    *cpu_hz(&mut s) = 2.0e12;
    assert_eq!(
        refused_at(&s, "hardware.catalog[0].processor.hz").message,
        "Xeon E5-2620 @ 2.0 GHz: clock must be between 0.001 and 100 GHz (got 2000 GHz)"
    );

    let mut s = full();
    *cpu_simd(&mut s) = 20_000.0;
    assert_eq!(
        refused_at(&s, "hardware.catalog[0].processor.simd").message,
        "Xeon E5-2620 @ 2.0 GHz: SIMD factor must be between 0.01 and 10,000 (got 20000)"
    );

    let mut s = full();
    if let Some(Processor::Gpu {
        stream_processors, ..
    }) = &mut s.hardware.catalog[2].processor
    {
        *stream_processors = 2_000_000;
    }
    assert_eq!(
        refused_at(&s, "hardware.catalog[2].processor.stream_processors").message,
        "Quadro RTX 4000: stream processors must be between 1 and 1,000,000 (got 2000000)"
    );

    let mut s = full();
    s.hardware.catalog[4].flops_per_s = Some(1e19);
    assert_eq!(
        refused_at(&s, "hardware.catalog[4].flops_per_s").message,
        "rated box: rate must be between 0.001 and 1,000,000,000 GFLOP/s (got 10000000000 GFLOP/s)"
    );

    let mut s = full();
    s.hardware.catalog[2].network_bytes_per_s = Some(TINY);
    assert_eq!(
        refused_at(&s, "hardware.catalog[2].network_bytes_per_s").message,
        "Quadro RTX 4000: network bandwidth must be between 0.000001 and 10,000 Gb/s (got 8e-329 Gb/s)"
    );

    let mut s = full();
    s.hardware.cluster.ps.link_bytes_per_s = Some(0.0);
    assert_eq!(
        refused_at(&s, "hardware.cluster.ps.link").message,
        "the PS link per node must be a positive number, between 0.000001 and 10,000 Gb/s (got 0 Gb/s)"
    );
    s.hardware.cluster.ps.link_bytes_per_s = Some(2e12);
    assert_eq!(
        refused_at(&s, "hardware.cluster.ps.link").message,
        "the PS link per node must be between 0.000001 and 10,000 Gb/s (got 16000 Gb/s)"
    );

    let mut s = full();
    s.hardware.catalog[4].price_per_hour = Some(-1.0);
    s.hardware.catalog[4].spot_price_per_hour = Some(20_000.0);
    assert_eq!(
        refused_at(&s, "hardware.catalog[4].price_per_hour").message,
        "rated box: price per hour must be 0 or between 0.000001 and 10,000 USD/h (got −1 USD/h)"
    );
    assert_eq!(
        refused_at(&s, "hardware.catalog[4].spot_price_per_hour").message,
        "rated box: spot price per hour must be 0 or between 0.000001 and 10,000 USD/h (got 20000 USD/h)"
    );
    // A price that vanishes: no provider charges it, and ratios of such
    // costs overflow.
    s.hardware.catalog[4].price_per_hour = Some(TINY);
    assert_eq!(
        refused_at(&s, "hardware.catalog[4].price_per_hour").message,
        "rated box: price per hour must be 0 or between 0.000001 and 10,000 USD/h (got 1e-320 USD/h)"
    );

    let mut s = full();
    s.hardware.cluster.ps.latency_s = -0.5;
    assert_eq!(
        refused_at(&s, "hardware.cluster.ps.latency").message,
        "the start-up time per transfer must be between 0 and 3,600 s (got −0.5 s)"
    );

    let mut s = full();
    profile(&mut s).b_prof_bytes_per_s = TINY;
    assert_eq!(
        refused_at(&s, "workload.profile.b_prof").message,
        "profile 'cifar10 DNN': b_prof must be between 0.000125 and 1,250,000 MB/s (got 1e-326 MB/s)"
    );
}

#[test]
fn groups_are_named_by_their_device() {
    let mut s = full();
    s.hardware.cluster.workers[1].batch_size = 0;
    s.hardware.cluster.workers[0].batch_size = 1_000_001;
    assert_eq!(
        refused_at(&s, "hardware.cluster.workers[1].batch_size").message,
        "GeForce GTX 1060 6GB workers: batch size must be a positive number, between 1 and 1,000,000 (got 0)"
    );
    assert_eq!(
        refused_at(&s, "hardware.cluster.workers[0].batch_size").message,
        "Quadro RTX 4000 workers: batch size must be between 1 and 1,000,000 (got 1000001)"
    );

    let mut s = full();
    s.hardware.cluster.workers[0].count = 100_001;
    assert_eq!(
        refused_at(&s, "hardware.cluster.workers[0].count").message,
        "Quadro RTX 4000 workers: count must be between 1 and 100,000 (got 100001)"
    );
    // Within the group's range, past the cluster's.
    s.hardware.cluster.workers[0].count = 5000;
    assert_eq!(
        refused_at(&s, "hardware.cluster.workers").message,
        "5,001 workers is more than the 4,096 this page models"
    );

    let mut s = full();
    s.hardware.cluster.ps.count = 0;
    assert_eq!(
        refused_at(&s, "hardware.cluster.ps.count").message,
        "PS nodes must be a positive number, between 1 and 4,096 (got 0)"
    );
}

#[test]
fn goals_are_said_in_the_unit_they_are_typed_in() {
    let mut s = full();
    s.goals.time_s = Some(-3600.0);
    s.goals.budget_usd = Some(-5.0);
    s.goals.loss = Some(0.0);
    assert_eq!(
        refused_at(&s, "goals.time").message,
        "time goal must be a positive number (got −1 h)"
    );
    assert_eq!(
        refused_at(&s, "goals.budget").message,
        "budget must be a positive number (got −5 USD)"
    );
    assert_eq!(
        refused_at(&s, "goals.loss").message,
        "loss goal must be a positive number (got 0)"
    );
    s.goals.time_s = Some(-5400.0);
    assert_eq!(
        refused_at(&s, "goals.time").message,
        "time goal must be a positive number (got −1.5 h)"
    );
    // Goals stop Cynthia, never Zeng.
    assert!(evaluate(&Zeng, &s).is_ok());
    assert!(evaluate(&Cynthia, &s).is_err());
}

#[test]
fn the_ends_of_every_range_are_accepted() {
    for (field, set, lo, hi) in [
        (
            "clock",
            (|s: &mut Scenario, v: f64| *cpu_hz(s) = v) as Setter,
            1e6,
            1e11,
        ),
        ("simd", |s, v| *cpu_simd(s) = v, 0.01, 1e4),
        (
            "rate",
            |s, v| s.hardware.catalog[4].flops_per_s = Some(v),
            1e6,
            1e18,
        ),
        (
            "link",
            |s, v| s.hardware.cluster.ps.link_bytes_per_s = Some(v),
            125.0,
            1.25e12,
        ),
        (
            "price",
            |s, v| s.hardware.catalog[4].price_per_hour = Some(v),
            0.0,
            1e4,
        ),
        (
            "latency",
            |s, v| s.hardware.cluster.ps.latency_s = v,
            0.0,
            3600.0,
        ),
        (
            "batch",
            |s, v| s.hardware.cluster.workers[0].batch_size = v as u32,
            1.0,
            1e6,
        ),
    ] {
        for v in [lo, hi] {
            let mut s = full();
            set(&mut s, v);
            assert_eq!(
                ddnn_planner::models::validate(&s),
                Vec::new(),
                "{field} = {v}"
            );
        }
    }
}

#[test]
fn a_catalog_file_is_checked_the_same_way() {
    let text = r#"[{"name": "slow", "processor": {"type": "cpu", "hz": 1e-320, "simd": 2}}]"#;
    let e = ddnn_planner::hardware::parse_catalog(text)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert_eq!(
        e,
        "instance 1: slow: clock must be between 0.001 and 100 GHz (got 1e-329 GHz)"
    );
}

#[test]
fn the_network_is_checked_at_its_fields() {
    use ddnn_planner::workload::Layer;
    let mut s = full();
    s.workload.network.pushes = Some(0);
    assert_eq!(
        refused_at(&s, "workload.network.pushes").message,
        "network 'VGG-16': pushes per iteration must be a positive number, between 1 and 1,000,000 (got 0)"
    );
    // Every dimension in range, the product far past any network.
    let big = 1 << 24;
    let mut s = full();
    s.workload.network.layers = vec![Layer::conv("huge", big, 1, big, 4096)];
    assert_eq!(
        refused_at(&s, "workload.network.layers").message,
        "network 'VGG-16': forward FLOP per sample (Eq. 4, all layers) must be between 1 and 1e18 (got 9.44473296574e21)"
    );
    // A bad layer is named, at its row.
    let mut s = full();
    s.workload.network.layers[3].kw = 0;
    let e = refused_at(&s, "workload.network.layers[3]");
    assert!(e.message.contains("kw must be at least 1"), "{}", e.message);
}

/// The Chrome-trace mapping's numbers: refused at their fields, in the
/// units the mapping screen types them in.
#[test]
fn a_trace_mappings_numbers_are_refused_at_their_fields() {
    use ddnn_planner::models::li::chrome::Mapping;
    use ddnn_planner::models::li::section::LiSettings;
    let mut s = ddnn_planner::models::li::presets::example();
    let mut c: LiSettings = s.section("li").unwrap_or_default();
    c.trace_mapping = Some(Mapping::default());
    s.set_section("li", &c);
    assert_eq!(ddnn_planner::models::validate(&s), Vec::new());
    c.trace_mapping = Some(Mapping {
        assumed_bytes_per_s: 0.0,
        ps_bytes_per_s: TINY,
        batch: 0,
        ..Mapping::default()
    });
    s.set_section("li", &c);
    let at = |f: &str| refused_at(&s, f).message;
    assert!(at("models.li.trace_mapping.assumed_bytes_per_s").contains("Gb/s"));
    assert!(at("models.li.trace_mapping.ps_bytes_per_s").contains("GB/s"));
    assert!(at("models.li.trace_mapping.batch").contains("samples per step"));
    // The warm-up, and a step given by hand: in range, both ends, in order.
    c.trace_mapping = Some(Mapping {
        warmup_steps: 10_001,
        step_end_s: Some(0.042),
        ..Mapping::default()
    });
    s.set_section("li", &c);
    let at = |f: &str| refused_at(&s, f).message;
    assert!(at("models.li.trace_mapping.warmup_steps").contains("warm-up steps"));
    assert_eq!(
        at("models.li.trace_mapping.step_start_s"),
        "give both the start and the end of the step, or neither"
    );
    c.trace_mapping = Some(Mapping {
        step_start_s: Some(0.042),
        step_end_s: Some(0.041),
        ..Mapping::default()
    });
    s.set_section("li", &c);
    assert_eq!(
        refused_at(&s, "models.li.trace_mapping.step_end_s").message,
        "the step must start at 0 ms or later and end after it starts, not 42 to 41 ms"
    );
    c.trace_mapping = Some(Mapping {
        step_start_s: Some(-1.0),
        step_end_s: Some(0.041),
        ..Mapping::default()
    });
    s.set_section("li", &c);
    let e = refused_at(&s, "models.li.trace_mapping.step_start_s").message;
    assert!(e.contains("ms"), "{e}");
    let fields: Vec<String> = ddnn_planner::models::validate(&s)
        .into_iter()
        .map(|e| e.field)
        .collect();
    assert_eq!(
        fields,
        ["models.li.trace_mapping.step_start_s"],
        "one message"
    );
}

/// A catalog inside a scenario has the same limit as a catalog file, and
/// no name may be longer than a report can show: refused at the field,
/// with the size, never by running out of memory (issue 32: 4,004 types
/// aborted at 2 GB; a 4 MB name became 88 MB of output).
#[test]
fn a_scenario_catalog_and_its_names_are_bounded() {
    use ddnn_planner::hardware::{MAX_CATALOG_ENTRIES, MAX_NAME_CHARS};
    let mut s = Scenario::example();
    let base = s.hardware.catalog[0].clone();
    while s.hardware.catalog.len() <= MAX_CATALOG_ENTRIES {
        let mut i = base.clone();
        i.name = format!("copy {}", s.hardware.catalog.len());
        s.hardware.catalog.push(i);
    }
    let errs = ddnn_planner::models::validate(&s);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].field, "hardware.catalog");
    assert!(
        errs[0].message.contains("more than the 1,000 accepted"),
        "{errs:?}"
    );
    for (_, r) in evaluate_all(&s) {
        assert!(r.is_err());
    }

    let mut s = Scenario::example();
    let long = "x".repeat(MAX_NAME_CHARS + 1);
    s.hardware.catalog[2].name = long.clone();
    s.hardware.cluster.workers[0].instance = long.clone();
    s.title = long;
    let errs = ddnn_planner::models::validate(&s);
    for field in [
        "title",
        "hardware.catalog[2].name",
        "hardware.cluster.workers[0].instance",
    ] {
        let e = errs
            .iter()
            .find(|e| e.field == field)
            .unwrap_or_else(|| panic!("{field}: {errs:?}"));
        assert!(
            e.message
                .contains("201 characters long; names are limited to 200"),
            "{e:?}"
        );
    }
    assert!(errs.iter().all(|e| e.message.len() < 200), "{errs:?}");
}
