//! The shipped example: VGG-16's layer table on the Quadro RTX 4000 of
//! Zeng's testbed, one PS at 10 Gb/s, a profile generated from the layers
//! (the paper profiles a real run; this example has none to ship), W = 1
//! to 8 at the paper's 1000 steps and 50 warm-up, three seeds.

use super::generate::from_layers;
use super::profile::Profile;
use super::section::{Generate, Granularity, LiSettings, ID};
use crate::scenario::Scenario;
use crate::workload::table::{parse_layer_table, TableError};
use crate::workload::Network;

pub fn example() -> Scenario {
    let mut s = Scenario::example();
    s.title = String::new();
    s.hardware.cluster.workers.truncate(1);
    if let Some(g) = s.hardware.cluster.workers.first_mut() {
        g.count = 1;
    }
    s.hardware.cluster.ps.link_bytes_per_s = Some(10.0 * 1.25e8);
    s.set_section(
        ID,
        &LiSettings {
            generate: Some(Generate::default()),
            max_workers: 8,
            ..LiSettings::default()
        },
    );
    s
}

/// Inception v3's layer table (94 convolutions, each followed by BatchNorm
/// and ReLU, and the classifier; no auxiliary head): 21,751,136
/// convolution weights and 17,216 BatchNorm channels, as Keras counts them.
pub const INCEPTION_V3_LAYERS: &str =
    include_str!("../../../public/examples/inception-v3-layers.csv");

/// The stated device of the Inception-sized example: a V100's FP32 peak
/// [FLOP/s] at half of it achieved, its HBM2 bandwidth [B/s], 32 samples
/// per step, the PS applying updates at 10 GB/s, three profiled steps.
pub const INCEPTION_RATE: f64 = 15.7e12;

pub fn inception_v3_generate() -> Generate {
    Generate {
        granularity: Granularity::Op,
        batch_norm: true,
        memory_bytes_per_s: 900e9,
        profiled_steps: 3,
        ..Generate::default()
    }
}

/// The Inception-v3-sized example profile, per op (378 tensors, 1,512 ops),
/// as shipped in `public/examples/inception-v3.profile.json`.
pub fn inception_v3_profile() -> Result<Profile, TableError> {
    let layers = parse_layer_table(INCEPTION_V3_LAYERS)?;
    let net = Network::from_layers("Inception v3", layers);
    Ok(from_layers(
        &net,
        INCEPTION_RATE,
        32,
        &inception_v3_generate(),
        1,
    ))
}
