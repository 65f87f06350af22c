#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Paleo network JSON import: the two shipped examples, shape inference
// through blocks, the ignored list, and every error case.

use ddnn_planner::workload::layer::MAX_DIM;
use ddnn_planner::workload::network::MAX_LAYERS;
use ddnn_planner::workload::paleo::{import_paleo, PaleoError, PaleoImport, MAX_INPUT_BYTES};
use ddnn_planner::workload::{Layer, LayerKind};

const ALEXNET: &str = include_str!("../../public/examples/alexnet.paleo.json");
const TINY: &str = include_str!("../../public/examples/tiny-inception.paleo.json");

fn ok(json: &str) -> PaleoImport {
    match import_paleo(json) {
        Ok(i) => i,
        Err(e) => panic!("import failed: {e}"),
    }
}

fn err(json: &str) -> PaleoError {
    match import_paleo(json) {
        Ok(i) => panic!("expected an error, got {:?}", i.layers),
        Err(e) => e,
    }
}

/// A network `data [1, 8, 8, 4]` → the given layers (JSON object members).
fn net(members: &str) -> String {
    format!(
        r#"{{"name": "t", "layers": {{
            "data": {{"type": "Input", "parents": [], "tensor": [1, 8, 8, 4]}}
            {members}
        }}}}"#
    )
}

fn shape_of(imp: &PaleoImport, name: &str) -> [u64; 4] {
    match imp.layers.iter().find(|l| l.name == name) {
        Some(l) => l.output_shape,
        None => panic!("no layer {name}"),
    }
}

// --- AlexNet example ------------------------------------------------------

#[test]
fn alexnet_matches_zeng_table1() {
    let imp = ok(ALEXNET);
    let s = imp.network.summary();
    assert_eq!(s.forward_flop_eq4, 1_677_577_600.0);
    assert_eq!(s.weights, 61_827_776.0);
    assert_eq!(imp.batch_size, Some(128));
    assert_eq!(imp.network.layers.len(), 8);
    assert!(
        imp.network.validate().is_empty(),
        "{:?}",
        imp.network.validate()
    );
}

#[test]
fn alexnet_layers_and_shapes() {
    let imp = ok(ALEXNET);
    let l = &imp.network.layers;
    assert_eq!(l[0], Layer::conv("conv1", 3, 11, 64, 55));
    assert_eq!(l[1], Layer::conv("conv2", 64, 5, 192, 27));
    assert_eq!(l[2], Layer::conv("conv3", 192, 3, 384, 13));
    assert_eq!(l[3], Layer::conv("conv4", 384, 3, 384, 13));
    assert_eq!(l[4], Layer::conv("conv5", 384, 3, 256, 13));
    // fc6 written as a 6x6 VALID convolution stays a convolution.
    assert_eq!(l[5], Layer::conv("fc6", 256, 6, 4096, 1));
    assert_eq!(l[6], Layer::fc("fc7", 4096, 4096));
    assert_eq!(l[7].kind, LayerKind::Fc);
    assert_eq!(l[7], Layer::fc("fc8", 4096, 1000));
    assert_eq!(shape_of(&imp, "pool1"), [128, 27, 27, 64]);
    assert_eq!(shape_of(&imp, "pool2"), [128, 13, 13, 192]);
    assert_eq!(shape_of(&imp, "pool5"), [128, 6, 6, 256]);
    assert_eq!(shape_of(&imp, "prob"), [128, 1, 1, 1000]);
}

#[test]
fn alexnet_ignored_list() {
    let imp = ok(ALEXNET);
    let ignored: Vec<(&str, &str)> = imp
        .network
        .ignored
        .iter()
        .map(|i| (i.name.as_str(), i.kind.as_str()))
        .collect();
    assert_eq!(
        ignored,
        vec![
            ("data", "Input"),
            ("pool1", "Pooling"),
            ("pool2", "Pooling"),
            ("pool5", "Pooling"),
            ("drop6", "Dropout"),
            ("drop7", "Dropout"),
            ("prob", "Softmax"),
        ]
    );
    assert!(imp.network.ignored.iter().all(|i| !i.reason.is_empty()));
    assert!(imp.network.ignored[1].reason.contains("pooling"));
    // Every layer appears exactly once: counted or ignored.
    assert_eq!(
        imp.layers.len(),
        imp.network.layers.len() + imp.network.ignored.len()
    );
}

#[test]
fn alexnet_paleo_flops_and_params() {
    let imp = ok(ALEXNET);
    let n = 128.0;
    let pools = 2.0 * 9.0 * (64.0 * 27.0 * 27.0 + 192.0 * 13.0 * 13.0 + 256.0 * 6.0 * 6.0) * n;
    let dropouts = 2.0 * 4096.0 * n;
    assert_eq!(
        imp.paleo_forward_flop_per_batch,
        1_677_577_600.0 * n + pools + dropouts
    );
    assert_eq!(imp.paleo_forward_flop_per_batch, 214_934_470_656.0);
    // Paleo's parameters include one bias per output channel.
    let biases = 64 + 192 + 384 + 384 + 256 + 4096 + 4096 + 1000;
    assert_eq!(imp.paleo_params(), 61_827_776 + biases);
    let fc6 = imp.layers.iter().find(|l| l.name == "fc6").unwrap();
    assert!(fc6.counted);
    assert_eq!(fc6.eq4_flop_per_sample, 75_497_472.0);
    assert_eq!(fc6.paleo_flop_per_batch, 75_497_472.0 * n);
    assert_eq!(fc6.params, 37_748_736 + 4096);
    let pool1 = imp.layers.iter().find(|l| l.name == "pool1").unwrap();
    assert!(!pool1.counted);
    assert_eq!(pool1.eq4_flop_per_sample, 0.0);
    assert_eq!(pool1.params, 0);
}

#[test]
fn key_order_does_not_matter() {
    // Reverse the members of "layers": order comes from `parents`.
    let v: serde_json::Value = serde_json::from_str(ALEXNET).unwrap();
    let layers = v["layers"].as_object().unwrap();
    let reversed: serde_json::Map<String, serde_json::Value> = layers
        .iter()
        .rev()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let text = serde_json::json!({ "name": v["name"], "layers": reversed }).to_string();
    let a = ok(ALEXNET);
    let b = ok(&text);
    assert_eq!(a.network.layers, b.network.layers);
    assert_eq!(
        a.paleo_forward_flop_per_batch,
        b.paleo_forward_flop_per_batch
    );
}

// --- Tiny Inception example: blocks, nested concat, SAME, explicit pads ---

#[test]
fn tiny_inception_shapes_by_hand() {
    let imp = ok(TINY);
    let got: Vec<(&str, [u64; 4])> = imp
        .layers
        .iter()
        .map(|l| (l.name.as_str(), l.output_shape))
        .collect();
    assert_eq!(
        got,
        vec![
            ("data", [8, 32, 32, 3]),
            // 3x3 stride 2 SAME: ceil(32 / 2) = 16.
            ("stem", [8, 16, 16, 16]),
            // 3x3 stride 2 VALID: ceil((16 - 3 + 1) / 2) = 7.
            ("stem_pool", [8, 7, 7, 16]),
            // Empty parents inherit the block's: stem_pool.
            ("mixed/b0/1x1", [8, 7, 7, 8]),
            ("mixed/b1/1x1", [8, 7, 7, 4]),
            ("mixed/b1/1x3", [8, 7, 7, 6]),
            ("mixed/b1/3x1", [8, 7, 7, 6]),
            // Concat nested in the block: 6 + 6.
            ("mixed/b1/concat", [8, 7, 7, 12]),
            ("mixed/b2/pool", [8, 7, 7, 16]),
            ("mixed/b2/1x1", [8, 7, 7, 4]),
            // 8 + 12 + 4.
            ("mixed/concat", [8, 7, 7, 24]),
            // Parent "mixed" is the block's endpoint; explicit pads [1, 1],
            // 3x3 stride 2: (7 + 2 - 3) / 2 + 1 = 4.
            ("head", [8, 4, 4, 32]),
            ("global_pool", [8, 1, 1, 32]),
            ("logits", [8, 1, 1, 10]),
            ("prob", [8, 1, 1, 10]),
        ]
    );
}

#[test]
fn tiny_inception_counts() {
    let imp = ok(TINY);
    let l = &imp.network.layers;
    let names: Vec<&str> = l.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "stem",
            "mixed/b0/1x1",
            "mixed/b1/1x1",
            "mixed/b1/1x3",
            "mixed/b1/3x1",
            "mixed/b2/1x1",
            "head",
            "logits"
        ]
    );
    assert_eq!((l[3].kh, l[3].kw), (1, 3));
    assert_eq!((l[4].kh, l[4].kw), (3, 1));
    assert_eq!(l[6], Layer::conv("head", 24, 3, 32, 4));
    assert_eq!(l[7], Layer::fc("logits", 32, 10));
    let eq4 = [
        221_184.0, 12_544.0, 6_272.0, 7_056.0, 7_056.0, 6_272.0, 221_184.0, 640.0,
    ];
    for (layer, want) in l.iter().zip(eq4) {
        assert_eq!(layer.forward_flop(), want, "{}", layer.name);
    }
    let s = imp.network.summary();
    assert_eq!(s.forward_flop_eq4, 482_208.0);
    assert_eq!(s.weights, 8_064.0);
    assert_eq!(imp.batch_size, Some(8));
    // Batch norm adds no parameters; biases do.
    assert_eq!(imp.paleo_params(), 8_064 + 16 + 8 + 4 + 6 + 6 + 4 + 32 + 10);
    // Paleo adds the two 3x3 pools and the 4x4 global pool, per batch of 8.
    let pools = 2.0 * 9.0 * 16.0 * 49.0 * 8.0 * 2.0 + 2.0 * 16.0 * 32.0 * 8.0;
    assert_eq!(imp.paleo_forward_flop_per_batch, 482_208.0 * 8.0 + pools);
    let ignored: Vec<&str> = imp
        .network
        .ignored
        .iter()
        .map(|i| i.name.as_str())
        .collect();
    assert_eq!(
        ignored,
        vec![
            "data",
            "stem_pool",
            "mixed/b1/concat",
            "mixed/b2/pool",
            "mixed/concat",
            "global_pool",
            "prob"
        ]
    );
}

// --- Format features ---------------------------------------------------------

#[test]
fn padding_rules() {
    // VALID: ceil((H - k + 1) / s); SAME: ceil(H / s); explicit: floor.
    let imp = ok(&net(r#",
        "v": {"type": "Convolution", "parents": ["data"], "filter": [3, 3, 4, 2], "strides": [1, 2, 3, 1], "padding": "VALID"},
        "s": {"type": "Convolution", "parents": ["data"], "filter": [3, 3, 4, 2], "strides": [1, 3, 3, 1], "padding": "SAME"},
        "e": {"type": "Convolution", "parents": ["data"], "filter": [3, 2, 4, 2], "strides": [1, 2, 2, 1], "padding": [2, 0]},
        "p": {"type": "AvgPool", "parents": ["data"], "ksize": [1, 2, 2, 1], "strides": [1, 3, 3, 1], "padding": "SAME"}"#));
    assert_eq!(shape_of(&imp, "v"), [1, 3, 2, 2]);
    assert_eq!(shape_of(&imp, "s"), [1, 3, 3, 2]);
    assert_eq!(shape_of(&imp, "e"), [1, 5, 4, 2]);
    assert_eq!(shape_of(&imp, "p"), [1, 3, 3, 4]);
}

#[test]
fn unknown_type_passes_shape_through() {
    let imp = ok(&net(r#",
        "norm1": {"type": "LRN", "parents": ["data"], "depth_radius": 5},
        "c": {"type": "Convolution", "parents": ["norm1"], "filter": [1, 1, -1, 2], "strides": [1, 1, 1, 1], "padding": "SAME"}"#));
    let lrn = imp
        .network
        .ignored
        .iter()
        .find(|i| i.name == "norm1")
        .unwrap();
    assert_eq!(lrn.kind, "LRN");
    assert_eq!(lrn.reason, "unknown Paleo layer type 'LRN'");
    assert_eq!(shape_of(&imp, "norm1"), [1, 8, 8, 4]);
    // filter in_channels -1 takes the input's channels.
    assert_eq!(imp.network.layers[0].inch, 4);
}

#[test]
fn unknown_type_with_mismatched_parents_is_an_error() {
    let e = err(&net(r#",
        "a": {"type": "Convolution", "parents": ["data"], "filter": [1, 1, 4, 2], "strides": [1, 1, 1, 1], "padding": "SAME"},
        "m": {"type": "Mystery", "parents": ["a", "data"]}"#));
    assert!(
        matches!(&e, PaleoError::Shape { layer, .. } if layer == "m"),
        "{e:?}"
    );
    assert!(e.to_string().contains("Mystery"));
}

#[test]
fn elementwise_reshape_and_open_batch() {
    let json = r#"{"layers": {
        "data": {"type": "Input", "parents": [], "tensor": [-1, 4, 4, 8]},
        "a": {"type": "Convolution", "parents": ["data"], "filter": [3, 3, 8, 8], "strides": [1, 1, 1, 1], "padding": "SAME"},
        "sum": {"type": "Elementwise", "parents": ["a", "data"]},
        "flat": {"type": "Reshape", "parents": ["sum"], "output_shape": [-1, 128]},
        "fc": {"type": "FullyConnected", "parents": ["flat"], "num_outputs": 3}
    }}"#;
    let imp = ok(json);
    assert_eq!(imp.batch_size, None);
    assert_eq!(imp.network.name, "Paleo network");
    assert_eq!(shape_of(&imp, "sum"), [1, 4, 4, 8]);
    assert_eq!(shape_of(&imp, "flat"), [1, 1, 1, 128]);
    assert_eq!(imp.network.layers[1], Layer::fc("fc", 128, 3));
    let nulls = json.replace("-1, 4, 4, 8", "null, 4, 4, 8");
    assert_eq!(ok(&nulls).batch_size, None);
}

#[test]
fn model_parallel_splits_sum_to_the_whole() {
    let json = r#"{"layers": {
        "data": {"type": "Input", "parents": [], "tensor": [4, 6, 6, 16]},
        "par": {"type": "ModelParallel", "splits": 2, "parents": ["data"], "layers": {
            "fc6": {"type": "Convolution", "parents": [], "filter": [6, 6, 16, 64], "strides": [1, 1, 1, 1], "padding": "VALID"},
            "drop": {"type": "Dropout", "parents": ["fc6@self"], "dropout_keep_prob": 0.5},
            "cat": {"type": "Concatenate", "parents": ["drop@all"], "dim": 3}
        }},
        "fc7": {"type": "InnerProduct", "parents": ["par/cat@0"], "num_outputs": 10}
    }}"#;
    let imp = ok(json);
    let names: Vec<&str> = imp.network.layers.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, vec!["par/fc6@0", "par/fc6@1", "fc7"]);
    assert_eq!(imp.network.layers[0].outn, 32);
    assert_eq!(shape_of(&imp, "par/cat@1"), [4, 1, 1, 64]);
    let whole = 2.0 * 16.0 * 36.0 * 64.0 + 2.0 * 64.0 * 10.0;
    assert_eq!(imp.network.summary().forward_flop_eq4, whole);
    // A split layer named without @all is ambiguous outside its block.
    let e = err(&json.replace("par/cat@0", "par/cat"));
    assert!(
        matches!(&e, PaleoError::InvalidField { layer, field, .. } if layer == "fc7" && field == "parents"),
        "{e:?}"
    );
}

#[test]
fn block_parent_may_name_a_layer_inside_another_block() {
    let imp = ok(&net(r#",
        "b1": {"type": "Block", "parents": ["data"], "endpoint": "x", "layers": {
            "x": {"type": "Convolution", "parents": [], "filter": [1, 1, 4, 6], "strides": [1, 1, 1, 1], "padding": "SAME"}
        }},
        "b2": {"type": "Block", "parents": ["b1/x"], "layers": {
            "y": {"type": "Convolution", "parents": [], "filter": [1, 1, 6, 2], "strides": [1, 1, 1, 1], "padding": "SAME"}
        }}"#));
    assert_eq!(shape_of(&imp, "b2/y"), [1, 8, 8, 2]);
}

// --- Errors ------------------------------------------------------------------

#[test]
fn malformed_json_reports_line_and_column() {
    let e = err("{\n  \"layers\": {\n    \"data\": [1,,]\n  }\n}");
    match &e {
        PaleoError::Json {
            line,
            column,
            message,
        } => {
            assert_eq!(*line, 3);
            assert!(*column > 0);
            assert!(!message.contains("at line"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("line 3"));
}

#[test]
fn deeply_nested_json_is_an_error_not_a_crash() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(matches!(err(&deep), PaleoError::Json { .. }));
}

#[test]
fn not_an_object_and_missing_layers() {
    assert!(matches!(err("[1, 2]"), PaleoError::NotAnObject { .. }));
    assert_eq!(err(r#"{"name": "x"}"#), PaleoError::MissingLayers);
    assert!(matches!(
        err(r#"{"layers": []}"#),
        PaleoError::LayersNotAnObject { .. }
    ));
    assert_eq!(err(r#"{"layers": {}}"#), PaleoError::NoInput);
}

#[test]
fn too_large_input() {
    let big = " ".repeat(MAX_INPUT_BYTES + 1);
    assert_eq!(
        err(&big),
        PaleoError::TooLarge {
            bytes: MAX_INPUT_BYTES + 1,
            max: MAX_INPUT_BYTES
        }
    );
}

#[test]
fn too_many_layers() {
    let mut members = String::new();
    for i in 0..MAX_LAYERS {
        members.push_str(&format!(
            r#", "d{i}": {{"type": "Dropout", "parents": ["data"]}}"#
        ));
    }
    let e = err(&net(&members));
    assert_eq!(
        e,
        PaleoError::TooManyLayers {
            count: MAX_LAYERS as u64 + 1,
            max: MAX_LAYERS
        }
    );
    // ModelParallel splits multiply a block's layers: checked before expansion.
    let e = err(&net(r#",
        "p": {"type": "ModelParallel", "splits": 1000000000000, "parents": ["data"], "layers": {"a": {"type": "Dropout", "parents": []}}}"#));
    assert!(matches!(e, PaleoError::TooManySplits { .. }), "{e:?}");
    // ...also when written as a float (issue 32: counted as one layer, then
    // expanded to 1.8 GB); the message names the block and "splits".
    let e = err(&net(r#",
        "p": {"type": "ModelParallel", "splits": 1.6e7, "parents": ["data"], "layers": {"a": {"type": "Dropout", "parents": []}}}"#));
    assert_eq!(
        e,
        PaleoError::TooManySplits {
            block: "p".into(),
            splits: 16_000_000,
            subs: 1,
            max: MAX_LAYERS
        }
    );
    assert!(e.to_string().contains("reduce \"splits\""), "{e}");
}

/// 30,000 `@all` parents against a 9,000-way split: refused once the
/// parents pass the link limit, not after the whole list (0.9-1.2 GB) is
/// built.
#[test]
fn a_long_list_of_all_parents_stops_at_the_link_limit() {
    let parents = vec!["\"p/a@all\""; 30_000].join(",");
    let e = err(&net(&format!(
        r#",
        "p": {{"type": "ModelParallel", "splits": 9000, "parents": ["data"], "layers": {{"a": {{"type": "Dropout", "parents": []}}}}}},
        "q": {{"type": "Concatenate", "parents": [{parents}]}}"#
    )));
    assert!(
        matches!(&e, PaleoError::InvalidField { layer, field, .. } if layer == "q" && field == "parents"),
        "{e:?}"
    );
}

#[test]
fn too_many_parent_links() {
    let e = err(&net(r#",
        "p": {"type": "ModelParallel", "splits": 4000, "parents": ["data"], "layers": {
            "a": {"type": "Dropout", "parents": []},
            "b": {"type": "Concatenate", "parents": ["a@all"]}
        }}"#));
    assert!(
        matches!(&e, PaleoError::InvalidField { field, .. } if field == "parents"),
        "{e:?}"
    );
}

#[test]
fn unknown_parent_cycle_and_duplicates() {
    let e = err(&net(r#", "c": {"type": "Dropout", "parents": ["nope"]}"#));
    assert_eq!(
        e,
        PaleoError::UnknownParent {
            layer: "c".into(),
            parent: "nope".into()
        }
    );
    let e = err(&net(r#",
        "a": {"type": "Dropout", "parents": ["b"]},
        "b": {"type": "Dropout", "parents": ["a"]},
        "c": {"type": "Dropout", "parents": ["b", "data"]}"#));
    match &e {
        PaleoError::Cycle { layers } => {
            assert_eq!(layers.len(), 3, "{layers:?}");
            assert_eq!(layers.first(), layers.last());
            assert!(layers.contains(&"a".to_string()) && layers.contains(&"b".to_string()));
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("cycle"));
    let e = err(&net(r#", "a": {"type": "Dropout", "parents": ["a"]}"#));
    assert!(matches!(e, PaleoError::Cycle { .. }));
    let e = err(&net(r#",
        "blk/a": {"type": "Dropout", "parents": ["data"]},
        "blk": {"type": "Block", "parents": ["data"], "layers": {"a": {"type": "Dropout", "parents": []}}}"#));
    assert_eq!(
        e,
        PaleoError::DuplicateLayer {
            layer: "blk/a".into()
        }
    );
}

#[test]
fn block_errors() {
    let e = err(&net(r#",
        "blk": {"type": "Block", "parents": ["data"], "layers": {"a": {"type": "Dropout", "parents": []}}},
        "after": {"type": "Dropout", "parents": ["blk"]}"#));
    assert_eq!(
        e,
        PaleoError::BlockWithoutEndpoint {
            layer: "after".into(),
            block: "blk".into()
        }
    );
    let e = err(&net(r#",
        "blk": {"type": "Block", "parents": ["data"], "endpoint": "zz", "layers": {"a": {"type": "Dropout", "parents": []}}}"#));
    assert!(
        matches!(&e, PaleoError::InvalidField { layer, field, .. } if layer == "blk" && field == "endpoint")
    );
    let e = err(&net(r#",
        "blk": {"type": "Block", "parents": ["data"], "layers": {"in": {"type": "Block", "parents": [], "layers": {}}}}"#));
    assert!(matches!(&e, PaleoError::InvalidField { layer, .. } if layer == "blk/in"));
}

#[test]
fn missing_and_ill_typed_fields() {
    let conv = |fields: &str| {
        net(&format!(
            r#", "conv1": {{"type": "Convolution", "parents": ["data"] {fields}}}"#
        ))
    };
    let full = r#", "filter": [3, 3, 4, 8], "strides": [1, 1, 1, 1], "padding": "SAME""#;
    assert!(ok(&conv(full)).network.layers.len() == 1);

    let e = err(&conv(r#", "strides": [1, 1, 1, 1], "padding": "SAME""#));
    assert_eq!(
        e,
        PaleoError::MissingField {
            layer: "conv1".into(),
            field: "filter".into()
        }
    );
    assert_eq!(e.to_string(), "layer 'conv1': missing \"filter\"");

    let e = err(&conv(r#", "filter": [3, 3, 4, 8], "padding": "SAME""#));
    assert!(matches!(&e, PaleoError::MissingField { field, .. } if field == "strides"));

    for bad in [
        r#", "filter": "3x3", "strides": [1, 1, 1, 1], "padding": "SAME""#,
        r#", "filter": [3, 3, 4], "strides": [1, 1, 1, 1], "padding": "SAME""#,
        r#", "filter": [3, 3.5, 4, 8], "strides": [1, 1, 1, 1], "padding": "SAME""#,
    ] {
        let e = err(&conv(bad));
        assert!(
            matches!(&e, PaleoError::InvalidField { layer, field, .. } if layer == "conv1" && field == "filter"),
            "{e:?}"
        );
        assert!(e.to_string().contains("conv1") && e.to_string().contains("filter"));
    }
    for bad in [
        r#", "filter": [3, 3, 4, 8], "strides": [1, 1, 1], "padding": "SAME""#,
        r#", "filter": [3, 3, 4, 8], "strides": [2, 2], "padding": "SAME""#,
        r#", "filter": [3, 3, 4, 8], "strides": [2, 1, 1, 2], "padding": "SAME""#,
        r#", "filter": [3, 3, 4, 8], "strides": {"h": 1}, "padding": "SAME""#,
    ] {
        let e = err(&conv(bad));
        assert!(
            matches!(&e, PaleoError::InvalidField { field, .. } if field == "strides"),
            "{e:?}"
        );
    }
    let e = err(&conv(
        r#", "filter": [3, 3, 4, 8], "strides": [1, 1, 1, 1], "padding": "FULL""#,
    ));
    assert!(matches!(&e, PaleoError::InvalidField { field, .. } if field == "padding"));
    let e = err(&conv(
        r#", "filter": [3, 3, 4, 8], "strides": [1, 1, 1, 1]"#,
    ));
    assert!(matches!(&e, PaleoError::MissingField { field, .. } if field == "padding"));

    let e = err(&net(r#", "x": {"parents": ["data"]}"#));
    assert!(matches!(&e, PaleoError::MissingField { field, .. } if field == "type"));
    let e = err(&net(r#", "x": {"type": "Dropout"}"#));
    assert!(matches!(&e, PaleoError::MissingField { field, .. } if field == "parents"));
    let e = err(&net(r#", "x": {"type": "Dropout", "parents": "data"}"#));
    assert!(matches!(&e, PaleoError::InvalidField { field, .. } if field == "parents"));
    let e = err(&net(r#", "x": {"type": "Dropout", "parents": []}"#));
    assert!(
        matches!(&e, PaleoError::InvalidField { layer, field, .. } if layer == "x" && field == "parents")
    );
    let e = err(&net(
        r#", "x": {"type": "InnerProduct", "parents": ["data"]}"#,
    ));
    assert!(matches!(&e, PaleoError::MissingField { field, .. } if field == "num_outputs"));
    let e = err(&net(r#", "x": 7"#));
    assert!(matches!(&e, PaleoError::InvalidField { layer, .. } if layer == "x"));
    let e = err(r#"{"layers": {"data": {"type": "Input", "parents": [], "tensor": [1, 2, 3]}}}"#);
    assert!(matches!(&e, PaleoError::InvalidField { field, .. } if field == "tensor"));
}

#[test]
fn explicit_pads_only_on_convolutions() {
    let e = err(&net(r#",
        "p": {"type": "Pooling", "parents": ["data"], "ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": [1, 1]}"#));
    assert!(
        matches!(&e, PaleoError::InvalidField { layer, field, .. } if layer == "p" && field == "padding")
    );
}

#[test]
fn non_positive_dimensions() {
    let e = err(&net(r#",
        "c": {"type": "Convolution", "parents": ["data"], "filter": [0, 3, 4, 8], "strides": [1, 1, 1, 1], "padding": "SAME"}"#));
    assert_eq!(
        e,
        PaleoError::NonPositive {
            layer: "c".into(),
            field: "filter".into(),
            value: 0
        }
    );
    let e = err(&net(r#",
        "c": {"type": "Convolution", "parents": ["data"], "filter": [3, 3, 4, 8], "strides": [1, -2, 1, 1], "padding": "SAME"}"#));
    assert!(matches!(&e, PaleoError::NonPositive { field, value: -2, .. } if field == "strides"));
    let e =
        err(r#"{"layers": {"data": {"type": "Input", "parents": [], "tensor": [1, 0, 8, 3]}}}"#);
    assert!(
        matches!(&e, PaleoError::NonPositive { layer, field, .. } if layer == "data" && field == "tensor")
    );
    // A kernel larger than its VALID input leaves no output.
    let e = err(&net(r#",
        "c": {"type": "Convolution", "parents": ["data"], "filter": [9, 3, 4, 8], "strides": [1, 1, 1, 1], "padding": "VALID"}"#));
    assert!(
        matches!(&e, PaleoError::Shape { layer, .. } if layer == "c"),
        "{e:?}"
    );
}

#[test]
fn absurd_sizes() {
    let e = err(
        r#"{"layers": {"data": {"type": "Input", "parents": [], "tensor": [1, 99999999999999999999, 8, 3]}}}"#,
    );
    assert!(
        matches!(&e, PaleoError::TooBig { field, .. } if field == "tensor"),
        "{e:?}"
    );
    let e = err(
        r#"{"layers": {"data": {"type": "Input", "parents": [], "tensor": [1, 33554432, 8, 3]}}}"#,
    );
    assert!(
        matches!(&e, PaleoError::TooBig { field, max, .. } if field == "tensor" && *max == MAX_DIM),
        "{e:?}"
    );
    // Flattening 8192 x 8192 x 3 for an inner product exceeds MAX_DIM.
    let e = err(r#"{"layers": {
        "data": {"type": "Input", "parents": [], "tensor": [1, 8192, 8192, 3]},
        "fc": {"type": "InnerProduct", "parents": ["data"], "num_outputs": 10}}}"#);
    assert!(
        matches!(&e, PaleoError::TooBig { layer, .. } if layer == "fc"),
        "{e:?}"
    );
    // Concatenation past MAX_DIM channels.
    let e = err(r#"{"layers": {
        "data": {"type": "Input", "parents": [], "tensor": [1, 1, 1, 16777216]},
        "cat": {"type": "Concatenate", "parents": ["data", "data"], "dim": 3}}}"#);
    assert!(
        matches!(&e, PaleoError::TooBig { layer, .. } if layer == "cat"),
        "{e:?}"
    );
}

#[test]
fn channel_mismatch_and_wrong_parent_count() {
    let e = err(&net(r#",
        "c": {"type": "Convolution", "parents": ["data"], "filter": [3, 3, 5, 8], "strides": [1, 1, 1, 1], "padding": "SAME"}"#));
    assert!(matches!(&e, PaleoError::Shape { layer, .. } if layer == "c"));
    assert!(e.to_string().contains("input channels"));
    let e = err(&net(r#",
        "c": {"type": "Convolution", "parents": ["data", "data"], "filter": [3, 3, 4, 8], "strides": [1, 1, 1, 1], "padding": "SAME"}"#));
    assert!(matches!(&e, PaleoError::InvalidField { field, .. } if field == "parents"));
    let e = err(&net(r#",
        "a": {"type": "Pooling", "parents": ["data"], "ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"},
        "cat": {"type": "Concatenate", "parents": ["a", "data"], "dim": 3}"#));
    assert!(matches!(&e, PaleoError::Shape { layer, .. } if layer == "cat"));
}

#[test]
fn corrupted_files_never_panic() {
    // Every prefix of both examples, and digits replaced by odd values.
    for text in [ALEXNET, TINY] {
        for cut in (0..text.len()).step_by(7) {
            if let Some(prefix) = text.get(..cut) {
                assert!(import_paleo(prefix).is_err());
            }
        }
        for bad in [
            "0",
            "-1",
            "-7",
            "1e99",
            "null",
            "\"x\"",
            "[]",
            "{}",
            "18446744073709551617",
        ] {
            for (i, _) in text.match_indices(|c: char| c.is_ascii_digit()).step_by(5) {
                let mut s = String::with_capacity(text.len() + 8);
                s.push_str(&text[..i]);
                s.push_str(bad);
                s.push_str(&text[i + 1..]);
                let _ = import_paleo(&s);
            }
        }
    }
}
