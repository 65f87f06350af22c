//! The shipped example: VGG-16's layer table on the Quadro RTX 4000 of
//! Zeng's testbed, one PS at 10 Gb/s, a profile generated from the layers
//! (the paper profiles a real run; this example has none to ship), W = 1
//! to 8 at the paper's 1000 steps and 50 warm-up, three seeds.

use super::section::{Generate, LiSettings, ID};
use crate::scenario::Scenario;

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
