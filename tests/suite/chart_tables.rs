//! Every chart of every shipped example reads as a table (the page's
//! equivalent under each chart): one row per point, bar and reference
//! line, every row as wide as the header, the numbers the chart's own.

use ddnn_planner::models::evaluate_all;
use ddnn_planner::models::li::section::LiSettings;
use ddnn_planner::report::{Chart, SeriesData};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const EXAMPLES: &[&str] = &[
    include_str!("../../public/examples/vgg16-hetero-1gbe.json"),
    include_str!("../../public/examples/cifar10-bsp-m4.json"),
    include_str!("../../public/examples/spotdnn-table1.json"),
    include_str!("../../public/examples/stash-p3.json"),
    include_str!("../../public/examples/li-vgg16-10gbe.json"),
];

fn points(c: &Chart) -> usize {
    let data: usize = c
        .series
        .iter()
        .map(|s| match &s.data {
            SeriesData::Xy { x, .. } => x.len(),
            SeriesData::Segments { rows, .. } => rows.len(),
        })
        .sum();
    data + c.markers.len()
}

#[test]
fn every_example_chart_reads_as_a_table() {
    let mut charts = 0;
    for json in EXAMPLES {
        let mut s = ddnn_planner::models::from_json(json).expect("a shipped example reads");
        // A short simulation: the tables' shape, not the figures, is checked.
        if let Ok(mut li) = s.section::<LiSettings>("li") {
            li.steps = li.steps.min(60);
            li.max_workers = li.max_workers.min(4);
            s.set_section("li", &li);
        }
        for (m, outcome) in evaluate_all(&s) {
            let Ok(r) = outcome else { continue };
            for c in &r.charts {
                let t = c.as_table();
                assert_eq!(t.rows.len(), points(c), "{}: {}", m.id(), c.key);
                assert!(
                    t.rows.iter().all(|row| row.len() == t.columns.len()),
                    "{}: {}",
                    m.id(),
                    c.key
                );
                // The first point of the first series, as the chart has it.
                if let Some(SeriesData::Xy { x, .. }) = c.series.first().map(|s| &s.data) {
                    if let Some(&x0) = x.first() {
                        assert_eq!(t.rows[0][1].number(), Some(x0), "{}: {}", m.id(), c.key);
                    }
                }
                charts += 1;
            }
        }
    }
    assert!(charts >= 10, "{charts} charts");
}
