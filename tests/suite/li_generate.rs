//! Li et al.'s profile generated from a layer table, per layer and per op,
//! and the shipped Inception-v3-sized example profile. Counts are exact;
//! times are checked to 1e-12 relative against the stated device rates.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::li::generate::from_layers;
use ddnn_planner::models::li::presets::{inception_v3_profile, INCEPTION_V3_LAYERS};
use ddnn_planner::models::li::profile::{Profile, Resource};
use ddnn_planner::models::li::section::{Generate, Granularity};
use ddnn_planner::workload::table::parse_layer_table;
use ddnn_planner::workload::{Layer, Network};

fn count(p: &Profile, r: Resource) -> usize {
    p.ops.iter().filter(|o| o.resource == r).count()
}

fn tensors(p: &Profile) -> usize {
    let mut t: Vec<&str> = p.ops.iter().filter_map(|o| o.tensor.as_deref()).collect();
    t.sort_unstable();
    t.dedup();
    t.len()
}

#[test]
fn inception_v3_layer_table_matches_keras_counts() {
    let layers = parse_layer_table(INCEPTION_V3_LAYERS).expect("the shipped table reads");
    let convs: Vec<&Layer> = layers.iter().filter(|l| l.outh > 1).collect();
    assert_eq!(convs.len(), 94);
    // Keras' InceptionV3: 23,817,352 trainable = conv weights + β + classifier.
    let conv_weights: u64 = convs.iter().map(|l| l.weights()).sum();
    let channels: u64 = convs.iter().map(|l| l.outn).sum();
    assert_eq!(conv_weights, 21_751_136);
    assert_eq!(channels, 17_216);
    assert_eq!(conv_weights + channels + 2048 * 1000 + 1000, 23_817_352);
}

#[test]
fn inception_v3_per_op_has_378_tensors_and_1512_ops() {
    let p = inception_v3_profile().expect("generates");
    assert!(p.validate().is_empty(), "{:?}", p.validate());
    assert_eq!(tensors(&p), 94 * 4 + 2);
    assert_eq!(p.ops.len(), 1512);
    // Reads: weights and β per convolution, weights and biases of the
    // classifier; every tensor is sent and applied.
    assert_eq!(count(&p, Resource::Downlink), 94 * 2 + 2);
    assert_eq!(count(&p, Resource::Uplink), 378);
    assert_eq!(count(&p, Resource::Ps), 378);
    assert_eq!(count(&p, Resource::Worker), 94 * 6 + 2);
    // Every variable goes up once per step: Keras' 23,851,784 parameters
    // (moving statistics included), 4 B each.
    let up: f64 = p
        .ops
        .iter()
        .zip(&p.steps[0])
        .filter(|(o, _)| o.resource == Resource::Uplink)
        .map(|(_, b)| b)
        .sum();
    assert_eq!(up, 4.0 * 23_851_784.0);
}

#[test]
fn the_shipped_inception_profile_is_the_generated_one() {
    let shipped = include_str!("../../public/examples/inception-v3.profile.json");
    let p = inception_v3_profile().expect("generates");
    let want = serde_json::to_string(&p).expect("serialises");
    if std::env::var_os("UPDATE_EXAMPLES").is_some() && cfg!(not(target_arch = "wasm32")) {
        std::fs::write("public/examples/inception-v3.profile.json", &want).expect("writes");
        return;
    }
    assert!(
        shipped.trim_end() == want,
        "public/examples/inception-v3.profile.json is stale: UPDATE_EXAMPLES=1 cargo test --test suite li_generate"
    );
    let read = Profile::from_json(shipped).expect("reads back");
    assert_eq!(read, p);
}

fn two_layers() -> Network {
    Network::from_layers(
        "two",
        vec![Layer::conv("c", 3, 3, 8, 10), Layer::fc("f", 800, 10)],
    )
}

#[test]
fn per_op_times_follow_the_stated_rates() {
    // conv: 2·3·3·3·8·10·10 = 43,200 FLOP per sample; 4 samples at
    // 1e9 FLOP/s × 0.5 → 345.6 µs. BatchNorm: 3 passes × 800 values × 4 B
    // × 4 samples / 1e9 B/s = 38.4 µs; ReLU 2 passes → 25.6 µs.
    let g = Generate {
        granularity: Granularity::Op,
        batch_norm: true,
        memory_bytes_per_s: 1e9,
        jitter: 0.0,
        profiled_steps: 1,
        ..Generate::default()
    };
    let p = from_layers(&two_layers(), 1e9, 4, &g, 7);
    let at = |name: &str| {
        let i = p.ops.iter().position(|o| o.name == name).expect(name);
        p.steps[0][i]
    };
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b;
    assert!(close(at("conv c"), 345.6e-6));
    assert!(close(at("batchnorm c"), 38.4e-6));
    assert!(close(at("relu c"), 25.6e-6));
    assert!(close(at("conv grad c"), 691.2e-6));
    assert!(close(at("batchnorm grad c"), 76.8e-6));
    assert!(close(at("relu grad c"), 51.2e-6));
    // The classifier has no BatchNorm: weights and biases, fwd and bwd.
    assert!(close(at("fwd f"), 4.0 * 16_000.0 / 0.5e9));
    assert_eq!(at("recv f/biases"), 40.0);
    assert_eq!(at("send c/moving_mean"), 32.0);
    assert!(close(at("apply c/weights"), 864.0 / 10e9));
    // The moving statistics go up once the forward BatchNorm has them, β's
    // gradient after BatchNorm's backward, the weights' after the conv's.
    let idx = |name: &str| p.ops.iter().position(|o| o.name == name).expect(name) as u32;
    let deps = |name: &str| p.ops[idx(name) as usize].deps.clone();
    assert_eq!(deps("send c/moving_mean"), vec![idx("batchnorm c")]);
    assert_eq!(deps("send c/beta"), vec![idx("batchnorm grad c")]);
    assert_eq!(deps("send c/weights"), vec![idx("conv grad c")]);
    assert_eq!(
        deps("conv c"),
        vec![idx("recv c/weights"), idx("recv c/beta")]
    );
}

#[test]
fn per_layer_is_one_tensor_and_five_ops_a_layer() {
    let p = from_layers(&two_layers(), 1e9, 4, &Generate::default(), 7);
    assert_eq!(p.ops.len(), 10);
    assert_eq!(tensors(&p), 2);
    // Without BatchNorm, per op splits weights from biases: 4 tensors.
    let g = Generate {
        granularity: Granularity::Op,
        ..Generate::default()
    };
    let q = from_layers(&two_layers(), 1e9, 4, &g, 7);
    assert_eq!(tensors(&q), 4);
    // conv, relu and their grads; fwd and bwd of the classifier.
    assert_eq!(count(&q, Resource::Worker), 6);
}
