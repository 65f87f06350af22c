#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Cynthia presets: the EC2 docker catalog, Table 4's profiles and the
// illustrative loss coefficients, and the shipped example files.

use ddnn_planner::hardware::aws::{
    cynthia_catalog, C3_XLARGE, M1_XLARGE, M4_XLARGE, M4_XLARGE_DOCKER_FLOPS, R3_XLARGE,
};
use ddnn_planner::hardware::Instance;
use ddnn_planner::workload::loss_fit::{iterations_to_loss, loss_at};
use ddnn_planner::workload::profile::SyncMode;
use ddnn_planner::workload::profile_io::validate_profile;
use ddnn_planner::workload::profile_presets::{
    loss_presets, profile_preset, profile_presets, LOSS_PRESET_SOURCE,
};

const CATALOG_JSON: &str = include_str!("../../public/examples/cynthia-catalog.json");

fn instance(name: &str) -> Instance {
    cynthia_catalog()
        .into_iter()
        .find(|i| i.name == name)
        .unwrap_or_else(|| panic!("{name} missing"))
}

fn flops(name: &str) -> f64 {
    instance(name).flops().unwrap()
}

#[test]
fn catalog_entries_are_valid() {
    let catalog = cynthia_catalog();
    assert_eq!(catalog.len(), 4);
    for i in &catalog {
        // A docker is known by its measured rate, not a clock-level model.
        assert!(i.processor.is_none(), "{}", i.name);
        assert!(i.flops_per_s.is_some_and(|c| c > 0.0), "{}", i.name);
        assert!(i.validate().is_empty(), "{}", i.name);
        let net = i.network_bytes_per_s.unwrap();
        let price = i.price_per_hour.unwrap();
        let spot = i.spot_price_per_hour.unwrap();
        assert!(net.is_finite() && net > 0.0);
        assert!(price.is_finite() && price > 0.0);
        assert!((spot - 0.3 * price).abs() < 1e-15, "{}", i.name);
        assert!(i.source.contains("assum"), "{}: {}", i.name, i.source);
        assert!(i.source.contains("GHz"), "{}", i.name);
    }
    let mut names: Vec<&str> = catalog.iter().map(|i| i.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 4);
}

#[test]
fn m4_capability_from_table2() {
    // PS at 32.6% CPU with one worker while c_prof(mnist) = 1.13 GFLOP/s.
    let c = flops(M4_XLARGE);
    assert!((c / 3.47e9 - 1.0).abs() < 0.01, "{c}");
    assert!((c / M4_XLARGE_DOCKER_FLOPS - 1.0).abs() < 1e-12);
    let mnist = profile_preset("mnist-dnn-bsp").unwrap();
    assert!((mnist.c_prof_flops / c - 0.326).abs() < 1e-12);
}

#[test]
fn other_types_scale_with_clock() {
    let m4 = flops(M4_XLARGE);
    for (name, ghz) in [(M1_XLARGE, 1.8), (C3_XLARGE, 2.8), (R3_XLARGE, 2.5)] {
        let c = flops(name);
        assert!((c / m4 - ghz / 2.3).abs() < 1e-12, "{name}");
    }
}

#[test]
fn prices_and_bandwidths() {
    for (name, price, gbps) in [
        (M4_XLARGE, 0.10, 1.0),
        (M1_XLARGE, 0.175, 1.0),
        (C3_XLARGE, 0.105, 0.5),
        (R3_XLARGE, 0.1665, 0.5),
    ] {
        let i = instance(name);
        assert!((i.price_per_hour.unwrap() - price).abs() < 1e-12, "{name}");
        assert_eq!(i.network_bytes_per_s, Some(gbps * 1e9 / 8.0), "{name}");
    }
}

#[test]
fn vgg19_saturates_one_m4_ps_near_nine_workers() {
    // Sec. 5.1: the PS network saturates with 9 VGG-19 ASP workers.
    let vgg = profile_preset("vgg19-asp").unwrap();
    let b = instance(M4_XLARGE).network_bytes_per_s.unwrap();
    let workers = b / vgg.b_prof_bytes_per_s;
    assert!((8.5..=10.0).contains(&workers), "{workers}");
}

#[test]
fn catalog_json_matches_the_function() {
    let shipped: Vec<Instance> = serde_json::from_str(CATALOG_JSON).unwrap();
    assert_eq!(shipped, cynthia_catalog());
}

#[test]
fn profile_presets_follow_table4() {
    let presets = profile_presets();
    let ids: Vec<&str> = presets.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        ids,
        [
            "resnet32-asp",
            "vgg19-asp",
            "cifar10-dnn-bsp",
            "mnist-dnn-bsp"
        ]
    );
    let want = [
        (SyncMode::Asp, 39.87e9, 2.22e6, 0.12e9, 0.19e6),
        (SyncMode::Asp, 58.81e9, 135.84e6, 0.33e9, 13.49e6),
        (SyncMode::Bsp, 26.86e9, 4.94e6, 0.06e9, 1.56e6),
        (SyncMode::Bsp, 0.04e9, 0.33e6, 1.13e9, 16.69e6),
    ];
    for ((id, p), (sync, w, g, c, b)) in presets.iter().zip(want) {
        validate_profile(p).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(p.sync, sync, "{id}");
        for (got, want) in [
            (p.w_iter_flop, w),
            (p.g_param_bytes, g),
            (p.c_prof_flops, c),
            (p.b_prof_bytes_per_s, b),
            (p.c_base_flops, M4_XLARGE_DOCKER_FLOPS),
        ] {
            assert!((got / want - 1.0).abs() < 1e-12, "{id}: {got} vs {want}");
        }
        assert!(p.source.contains("Table 4"), "{id}");
    }
}

#[test]
fn loss_presets_are_illustrative_and_plausible() {
    assert!(LOSS_PRESET_SOURCE.contains("not the paper's"));
    let profiles = profile_presets();
    let losses = loss_presets();
    assert_eq!(losses.len(), profiles.len());
    for ((id, lp), (pid, profile)) in losses.iter().zip(&profiles) {
        assert_eq!(id, pid);
        assert!(lp.beta0 > lp.beta1 && lp.beta1 > 0.0, "{id}");
        // Starts near ln 10 on one worker.
        let start = loss_at(profile.sync, lp, 0.0, 1);
        assert!((1.9..=2.6).contains(&start), "{id}: {start}");
        // The paper's goal losses are reachable in a plausible count.
        let s = iterations_to_loss(profile.sync, lp, 0.8, 1).unwrap();
        assert!((100..=20_000).contains(&s), "{id}: {s}");
    }
}
