//! `cargo bench --bench uncertainty`: a band of 10,000 samples per
//! analytical model (issue 35: under 1 s in the browser, so about 300 ms
//! natively), each over one range on an input its headline reads: the
//! headline's bands and the charts' (samples × points, recorded as
//! `uncertainty.<id>.chart_points`).

mod timing;

use std::hint::black_box;

use ddnn_planner::models::{by_id, evaluate, from_json};
use ddnn_planner::report::{Marker, Report};
use ddnn_planner::scenario::Scenario;
use ddnn_planner::uncertainty::{Range, Uncertainty};
use timing::{record_value, time};

/// Samples × points of `r`'s chart bands: a line's points over its
/// samples, a timeline's total one point over the charts' samples (the
/// lines', or `samples` when the charts were not thinned).
fn chart_points(r: &Report, samples: u32) -> f64 {
    let bands = || {
        r.charts
            .iter()
            .flat_map(|c| c.series.iter().filter_map(|s| s.band.as_ref()))
    };
    let charts = bands().map(|b| b.samples).max().unwrap_or(samples);
    let lines: f64 = bands()
        .map(|b| f64::from(b.samples) * b.p10.len() as f64)
        .sum();
    let spans = r
        .charts
        .iter()
        .flat_map(|c| &c.markers)
        .filter(|m| matches!(m, Marker::Span { .. }))
        .count() as f64;
    lines + spans * f64::from(charts)
}

fn with_range(mut s: Scenario, path: &str, min: f64, max: f64) -> Scenario {
    s.uncertainty = Some(Uncertainty {
        ranges: [(path.to_string(), Range { min, max })].into(),
        ..Uncertainty::default()
    });
    s
}

fn example(json: &str) -> Scenario {
    from_json(json).expect("the shipped example reads")
}

fn main() {
    let cases = [
        (
            "zeng",
            with_range(
                Scenario::example(),
                "hardware.cluster.ps.link",
                1.0e8,
                1.5e8,
            ),
        ),
        (
            "cynthia",
            with_range(
                example(include_str!("../../public/examples/cifar10-bsp-m4.json")),
                "hardware.catalog[0].flops_per_s",
                3.0e9,
                4.0e9,
            ),
        ),
        (
            "spotdnn",
            with_range(
                example(include_str!("../../public/examples/spotdnn-table1.json")),
                "models.spotdnn.req_bytes_per_s",
                1.2e8,
                1.6e8,
            ),
        ),
        (
            "stash",
            with_range(
                example(include_str!("../../public/examples/stash-p3.json")),
                "hardware.catalog[1].price_per_hour",
                2.5,
                3.5,
            ),
        ),
    ];
    for (id, s) in cases {
        let m = by_id(id).expect("registered");
        let r = evaluate(m, &s).expect("the example evaluates");
        assert!(r.headline.iter().any(|f| f.band.is_some()), "{id}: no band");
        let points = chart_points(&r, s.uncertainty.as_ref().map_or(0, |u| u.samples));
        println!("{id}: chart bands over {points} samples × points");
        record_value(&format!("uncertainty.{id}.chart_points"), points);
        let mut plain = s.clone();
        plain.uncertainty = None;
        time(
            &format!("uncertainty.{id}.plain"),
            &format!("{id}: report without ranges"),
            5,
            || {
                black_box(evaluate(m, black_box(&plain)).ok());
            },
        );
        time(
            &format!("uncertainty.{id}.10000"),
            &format!("{id}: report with a band of 10,000 samples"),
            1,
            || {
                black_box(evaluate(m, black_box(&s)).ok());
            },
        );
    }
}
