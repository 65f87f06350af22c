#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Zeng et al. Table 1: forward FLOP (Eq. 4) and backward FLOP
// (85 × weights) from the presets' layer tables and given figures.

use ddnn_planner::workload::presets::{network_preset, network_presets};
use ddnn_planner::workload::table::{layers_to_csv, parse_layer_table};
use ddnn_planner::workload::Network;

/// (preset id, Table 1 forward FLOP per sample, Table 1 backward FLOP).
const LAYER_TABLE_ROWS: [(&str, f64, f64); 6] = [
    ("alexnet", 1.6776e9, 5.2554e9),
    ("vgg11", 1.5224e10, 1.1292e10),
    ("vgg13", 2.2623e10, 1.1308e10),
    ("vgg16c", 2.3548e10, 1.1358e10),
    ("vgg16", 3.0947e10, 1.1759e10),
    ("vgg19", 3.9270e10, 1.2210e10),
];

const GIVEN_ROWS: [(&str, f64, f64); 6] = [
    ("overfeat", 5.8584e9, 1.2402e10),
    ("resnet18", 3.5924e9, 9.7808e8),
    ("resnet34", 7.2898e9, 1.8366e9),
    ("resnet50", 6.9943e9, 1.8015e9),
    ("resnet101", 1.4421e10, 3.4114e9),
    ("resnet152", 2.1845e10, 4.7372e9),
];

fn preset(id: &str) -> Network {
    network_preset(id).unwrap_or_else(|| panic!("no preset {id}"))
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

#[test]
fn layer_tables_reproduce_table1_within_one_percent() {
    for (id, fwd, bwd) in LAYER_TABLE_ROWS {
        let net = preset(id);
        assert!(net.given.is_none(), "{id} should be a layer table");
        let s = net.summary();
        let f_err = rel(s.forward_flop_eq4, fwd);
        let b_err = rel(net.backward_flop(85.0), bwd);
        println!(
            "{id}: forward {:.6e} vs {fwd:.4e} ({:+.4}%), backward {:.6e} vs {bwd:.4e} ({:+.4}%)",
            s.forward_flop_eq4,
            100.0 * (s.forward_flop_eq4 / fwd - 1.0),
            net.backward_flop(85.0),
            100.0 * (net.backward_flop(85.0) / bwd - 1.0),
        );
        assert!(f_err < 0.01, "{id} forward off by {:.3}%", 100.0 * f_err);
        assert!(b_err < 0.01, "{id} backward off by {:.3}%", 100.0 * b_err);
        // Every row agrees to 0.05%, tighter than the 1% above.
        assert!(f_err < 5e-4 && b_err < 5e-4, "{id}: {f_err} {b_err}");
    }
}

#[test]
fn alexnet_is_the_tensorflow_benchmarks_variant_exactly() {
    let net = preset("alexnet");
    let s = net.summary();
    assert_eq!(s.forward_flop_eq4, 1_677_577_600.0);
    assert_eq!(s.weights, 61_827_776.0);
    assert_eq!(s.output_elements, 515_816.0);
    assert_eq!(net.extra_forward_flop_per_sample, 83.0 * 515_816.0);
    assert_eq!(s.forward_flop, 1_677_577_600.0 + 83.0 * 515_816.0);
    assert_eq!(net.layers.first().map(|l| l.outh), Some(55));
    let channels: Vec<u64> = net.layers.iter().take(5).map(|l| l.outn).collect();
    assert_eq!(channels, [64, 192, 384, 384, 256]);
}

#[test]
fn vgg_exact_weight_counts() {
    // The usual published counts, biases excluded.
    for (id, w) in [
        ("vgg11", 132_851_392.0),
        ("vgg13", 133_035_712.0),
        ("vgg16c", 133_625_536.0),
        ("vgg16", 138_344_128.0),
        ("vgg19", 143_652_544.0),
    ] {
        assert_eq!(preset(id).summary().weights, w, "{id}");
        assert_eq!(preset(id).extra_forward_flop_per_sample, 0.0, "{id}");
    }
}

#[test]
fn given_figure_presets_reproduce_table1() {
    for (id, fwd, bwd) in GIVEN_ROWS {
        let net = preset(id);
        assert!(net.layers.is_empty(), "{id}");
        let g = net
            .given
            .as_ref()
            .unwrap_or_else(|| panic!("{id} has no given figures"));
        assert!(g.source.contains("Table 1"), "{id}: {}", g.source);
        let s = net.summary();
        assert!(s.from_given_figures);
        assert_eq!(s.forward_flop, fwd, "{id}");
        // Weights are whole numbers (backward / 85 rounded), so 85 × weights
        // lands within half a weight of Table 1's backward figure.
        assert!((net.backward_flop(85.0) - bwd).abs() <= 85.0 / 2.0, "{id}");
    }
}

#[test]
fn pushes_and_transfer_values() {
    let pushes = [
        ("alexnet", Some(19)),
        ("overfeat", Some(20)),
        ("vgg11", Some(24)),
        ("vgg13", None),
        // Table 1's "Vgg16C" row prints 34: 16 layers' weights and biases
        // plus 2 scalars, as A's 24 and E's 40 count.
        ("vgg16c", Some(34)),
        ("vgg16", Some(34)),
        ("vgg19", Some(40)),
        ("resnet18", None),
        ("resnet34", None),
        ("resnet50", Some(269)),
        ("resnet101", Some(524)),
        ("resnet152", Some(779)),
    ];
    for (id, p) in pushes {
        assert_eq!(preset(id).pushes, p, "{id}");
    }
    let transfer = [
        ("vgg11", 132_867_435.0),
        ("vgg16", 138_361_643.0),
        ("vgg19", 143_671_339.0),
        ("alexnet", 63_380_347.0),
        ("resnet50", 25_612_205.0),
    ];
    for (id, t) in transfer {
        assert_eq!(preset(id).transfer_values, Some(t), "{id}");
        assert_eq!(preset(id).summary().transfer_values, t, "{id}");
    }
}

#[test]
fn vgg_transfer_values_are_tf_1001_class_weights_plus_biases_plus_two() {
    // Checks the explanation in the notes: 1001-class fc8 adds 4096
    // weights and one bias; two scalars (e.g. global step) ride along.
    for id in ["vgg11", "vgg16", "vgg19"] {
        let net = preset(id);
        let s = net.summary();
        let tf = s.weights + 4096.0 + s.biases + 1.0 + 2.0;
        assert_eq!(Some(tf), net.transfer_values, "{id}");
    }
}

#[test]
fn presets_are_valid_and_ids_unique() {
    let all = network_presets();
    assert_eq!(all.len(), 12);
    let mut ids: Vec<&str> = all.iter().map(|p| p.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all.len());
    for p in &all {
        assert!(
            p.network.validate().is_empty(),
            "{}: {:?}",
            p.id,
            p.network.validate()
        );
        assert!(!p.label.is_empty() && !p.note.is_empty(), "{}", p.id);
        assert_eq!(network_preset(p.id).as_ref(), Some(&p.network));
    }
    assert!(network_preset("vgg17").is_none());
}

#[test]
fn shipped_vgg16_example_is_the_preset_table() {
    let csv = include_str!("../../public/examples/vgg16-layers.csv");
    let layers = preset("vgg16").layers;
    assert_eq!(csv, layers_to_csv(&layers));
    assert_eq!(parse_layer_table(csv), Ok(layers));
}

#[test]
fn shipped_small_net_example_parses() {
    let tsv = include_str!("../../public/examples/small-net.tsv");
    let layers = parse_layer_table(tsv).expect("small-net.tsv parses");
    assert_eq!(layers.len(), 5);
}
