//! `cargo bench --bench stash`: Stash's ranking of 200 configurations
//! (100 GPU instance types × 1-2 machines: each predicted, then fastest,
//! cheapest within the goals and best cost per sample with ties; target
//! under 5 ms natively), and the whole report of the shipped example.

mod timing;

use std::hint::black_box;

use ddnn_planner::hardware::Instance;
use ddnn_planner::models::stash::presets::{p3_example, table1_catalog};
use ddnn_planner::models::stash::Stash;
use ddnn_planner::models::Model;
use timing::time;

/// 100 GPU types: Table I's eight, varied in price and peak.
fn catalog_of_100() -> Vec<Instance> {
    let base = table1_catalog();
    (0..100)
        .map(|i| {
            let mut t = base[i % base.len()].clone();
            t.name = format!("{}-{i}", t.name);
            let f = 1.0 + (i as f64) / 100.0;
            t.price_per_hour = t.price_per_hour.map(|p| p * f);
            t
        })
        .collect()
}

fn main() {
    let mut s = p3_example();
    s.hardware.catalog = catalog_of_100();
    // FP32: every type has a peak, so all 100 × 2 configurations rank.
    s.hardware.precision = ddnn_planner::hardware::Precision::Fp32;
    let e = ddnn_planner::models::stash::evaluate(&s).expect("the example reads");
    let n = e.prediction.as_ref().map_or(0, |p| p.rows.len());
    assert_eq!(n, 200, "200 configurations");
    time(
        "stash.rank.200",
        "evaluation with the ranking of 200 configurations",
        50,
        || {
            black_box(ddnn_planner::models::stash::evaluate(black_box(&s)).ok());
        },
    );
    let x = p3_example();
    time(
        "stash.report",
        "whole report, the shipped P3 example",
        50,
        || {
            black_box(Stash.report(black_box(&x)).ok());
        },
    );
}
