//! Reports stay drawable whatever the scenario's size: charts draw at most
//! a readable number of lines and rows, say so in their title, and the
//! tables keep everything.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::hardware::{Instance, WorkerGroup};
use ddnn_planner::models::cynthia::report::CHART_MAX_TYPES;
use ddnn_planner::models::zeng::report::TIMELINE_MAX_ROWS;
use ddnn_planner::models::{by_id, evaluate};
use ddnn_planner::report::{Report, SeriesData};
use ddnn_planner::scenario::Scenario;

fn report(id: &str, s: &Scenario) -> Report {
    let m = by_id(id).unwrap_or_else(|| panic!("{id}"));
    evaluate(m, s).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn cynthia_charts_draw_the_cheapest_types_of_a_big_catalog() {
    let mut s =
        ddnn_planner::models::from_json(include_str!("../../public/examples/cifar10-bsp-m4.json"))
            .unwrap_or_else(|e| panic!("{e}"));
    let base = s.hardware.catalog[0].clone();
    for i in 0..40 {
        s.hardware.catalog.push(Instance {
            name: format!("t{i:02}"),
            flops_per_s: base.flops().map(|f| f * (1.0 + f64::from(i) / 40.0)),
            processor: None,
            price_per_hour: base
                .price_per_hour
                .map(|p| p * (1.0 + f64::from(i % 7) / 3.0)),
            ..base.clone()
        });
    }
    let r = report("cynthia", &s);
    for key in ["cost", "time", "utilisation"] {
        let c = r.chart(key).unwrap_or_else(|| panic!("{key}"));
        let lines = c
            .series
            .iter()
            .filter(|s| !s.name.contains("workers"))
            .count();
        assert!(lines <= CHART_MAX_TYPES + 1, "{key}: {lines} series");
        assert!(
            c.title.contains("cheapest 12 of 44") || c.title.contains("the 6 cheapest of 44 types"),
            "{}",
            c.title
        );
    }
    // The tables keep every type.
    let curves = r.tables.iter().map(|t| t.rows.len()).max().unwrap_or(0);
    assert!(curves >= 44, "{curves}");
}

#[test]
fn zeng_timeline_draws_the_first_workers_of_a_big_cluster() {
    let mut s = Scenario::example();
    let name = s.hardware.catalog[2].name.clone();
    s.hardware.cluster.workers = (0..50)
        .map(|i| WorkerGroup {
            instance: name.clone(),
            count: 2,
            batch_size: 16 + (i % 4) * 8,
        })
        .collect();
    let r = report("zeng", &s);
    let c = r.chart("timeline").unwrap_or_else(|| panic!("timeline"));
    let mut rows: Vec<&String> = Vec::new();
    for ser in &c.series {
        if let SeriesData::Segments { rows: r, .. } = &ser.data {
            for x in r {
                if !rows.contains(&x) {
                    rows.push(x);
                }
            }
        }
    }
    assert_eq!(rows.len(), TIMELINE_MAX_ROWS);
    assert!(
        c.title.contains("the first 32 of 100 workers"),
        "{}",
        c.title
    );
}
