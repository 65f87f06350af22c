//! Zeng et al.'s own measured runs (Tables 6 and 7: two Quadro RTX 4000
//! and one GTX 1060, 1 and 10 GbE, bs 16 and 32), shipped one file per
//! network: the comparison's Zeng errors equal the paper's |PT − MT| / MT
//! per row, from its printed PT and MT, within 2% (the tolerance of
//! `zeng_paper_tables.rs`, where this product's PT is within 2% of the
//! paper's). Table 6's VGG-16 bs 32 PT is 26.85, printed 28.85 (models.md);
//! "accuracy" in Tables 6 and 7 is PT/MT.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::{by_id, from_json, Model};
use ddnn_planner::runs::compare;
use ddnn_planner::runs::compare::Outcome;

/// The paper's (PT, MT) for T6 bs 16, T6 bs 32, T7 bs 16, T7 bs 32 [s].
type Rows = [(f64, f64); 4];

/// (network, its runs file, its rows).
const TABLES: [(&str, &str, Rows); 5] = [
    (
        "alexnet",
        include_str!("../../public/examples/zeng-tables6-7-alexnet-runs.json"),
        [(12.17, 12.83), (12.19, 12.817), (1.23, 1.44), (1.23, 1.39)],
    ),
    (
        "vgg11",
        include_str!("../../public/examples/zeng-tables6-7-vgg11-runs.json"),
        [(25.58, 27.43), (25.65, 27.51), (2.62, 3.19), (2.69, 3.28)],
    ),
    (
        "vgg16",
        include_str!("../../public/examples/zeng-tables6-7-vgg16-runs.json"),
        [(26.71, 28.57), (26.85, 28.66), (2.80, 3.40), (2.94, 3.39)],
    ),
    (
        "vgg19",
        include_str!("../../public/examples/zeng-tables6-7-vgg19-runs.json"),
        [(27.76, 29.63), (27.94, 29.91), (2.94, 3.48), (3.11, 3.48)],
    ),
    (
        "resnet50",
        include_str!("../../public/examples/zeng-tables6-7-resnet50-runs.json"),
        [(4.95, 5.23), (4.98, 5.24), (0.52, 0.55), (0.55, 0.61)],
    ),
];

#[test]
fn zeng_errors_on_its_own_runs_are_the_papers() {
    let zeng: Vec<&'static dyn Model> = vec![by_id("zeng").unwrap_or_else(|| panic!("zeng"))];
    for (net, text, rows) in TABLES {
        let s = from_json(text).unwrap_or_else(|e| panic!("{net}: {e}"));
        assert_eq!(s.runs.len(), 4, "{net}");
        let c = compare(&s, &zeng).unwrap_or_else(|e| panic!("{net}: {e:?}"));
        let z = &c.models[0];
        for (i, (pt, mt)) in rows.into_iter().enumerate() {
            let run = &s.runs[i];
            assert_eq!(run.iteration_s, Some(mt), "{net} {}", run.label);
            // The source cites the table, the row and the column.
            let table = if i < 2 { "Table 6" } else { "Table 7" };
            assert!(
                run.source.contains(table) && run.source.contains("column MT"),
                "{net}: {}",
                run.source
            );
            let Outcome::Predicted { error, .. } = z.outcomes[i] else {
                panic!("{net} {}: {:?}", run.label, z.outcomes[i]);
            };
            let paper = (pt - mt).abs() / mt;
            assert!(
                (error.abs() - paper).abs() <= 0.02,
                "{net} {}: |error| {:.4}, the paper's |PT − MT|/MT {paper:.4}",
                run.label,
                error.abs()
            );
            // The paper's accuracy column is PT/MT: the model is below MT.
            assert!(error < 0.0, "{net} {}", run.label);
        }
        assert_eq!(z.stats.predicted, 4, "{net}");
    }
}
