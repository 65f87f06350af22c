//! `cargo bench --bench zeng`: native timings of what every page edit
//! recomputes, for the README's performance table. Plain timing loops
//! (median of repeated batches), no harness.

mod timing;

use std::hint::black_box;

use ddnn_planner::models::decode_fragment;
use ddnn_planner::models::zeng::evaluate_zeng;
use ddnn_planner::models::zeng::section::ZengSettings;
use ddnn_planner::scenario::codec::encode_fragment;
use ddnn_planner::scenario::Scenario;
use ddnn_planner::workload::{Layer, Network};
use timing::{record_value, time};

/// A made-up 200-layer network: conv stacks shrinking spatially, then fc.
fn network_200() -> Network {
    let mut layers = Vec::new();
    for i in 0..196u64 {
        let stage = i / 40;
        let ch = 64 << stage.min(3);
        let out = 112 >> stage;
        layers.push(Layer::conv(&format!("conv{i}"), ch, 3, ch, out));
    }
    for (i, (a, b)) in [(25088, 4096), (4096, 4096), (4096, 2048), (2048, 1000)]
        .into_iter()
        .enumerate()
    {
        layers.push(Layer::fc(&format!("fc{i}"), a, b));
    }
    Network {
        pushes: Some(50),
        ..Network::from_layers("bench-200", layers)
    }
}

fn main() {
    let mut s = Scenario::example();
    time(
        "zeng.example",
        "evaluate_zeng, example (VGG-16, 3 workers, all sweeps)",
        200,
        || {
            black_box(evaluate_zeng(black_box(&s)).ok());
        },
    );
    s.workload.network = network_200();
    assert_eq!(s.workload.network.layers.len(), 200);
    time(
        "zeng.200",
        "evaluate_zeng, 200-layer table, 3 workers, all sweeps",
        200,
        || {
            black_box(evaluate_zeng(black_box(&s)).ok());
        },
    );
    s.set_section(
        "zeng",
        &ZengSettings {
            sweep_max_workers: 256,
            ..ZengSettings::default()
        },
    );
    time(
        "zeng.200.256",
        "evaluate_zeng, 200-layer table, sweeps to 256 workers",
        20,
        || {
            black_box(evaluate_zeng(black_box(&s)).ok());
        },
    );
    s.set_section(
        "zeng",
        &ZengSettings {
            sweep_max_workers: 16,
            ..ZengSettings::default()
        },
    );
    let frag = encode_fragment(&s);
    println!(
        "share fragment of the 200-layer scenario: {} characters",
        frag.len()
    );
    record_value("fragment.200.chars", frag.len() as f64);
    time(
        "fragment.encode",
        "encode_fragment, 200-layer scenario",
        200,
        || {
            black_box(encode_fragment(black_box(&s)));
        },
    );
    time(
        "fragment.decode",
        "decode_fragment + validate, 200-layer scenario",
        200,
        || {
            black_box(decode_fragment(black_box(&frag)).ok());
        },
    );
}
