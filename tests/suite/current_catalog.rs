//! Today's GPU catalog (`src/hardware/current_gpus.json`): it reads, every
//! figure it has is cited with a source and a date, its units are right
//! (each peak within its GPU generation's published range, dense), every
//! entry passes the catalog's own checks, and the models can use it.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::hardware::current::{cited_fields, current_catalog};
use ddnn_planner::hardware::Precision;
use ddnn_planner::models::evaluate;
use ddnn_planner::models::stash::presets::p3_example;
use ddnn_planner::models::stash::Stash;

#[test]
fn it_reads_with_unique_names_and_every_entry_passes_the_catalog_checks() {
    let c = current_catalog();
    assert!(c.len() >= 20, "{}", c.len());
    let mut names: Vec<&str> = c.iter().map(|i| i.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), c.len());
    for i in &c {
        assert!(i.validate().is_empty(), "{}: {:?}", i.name, i.validate());
        assert!(i.gpus.is_some_and(|g| g > 0), "{}", i.name);
    }
}

#[test]
fn every_figure_has_a_source_and_a_date() {
    for i in current_catalog() {
        for c in &i.cites {
            assert!(!c.source.trim().is_empty(), "{}", i.name);
            let d: Vec<&str> = c.date.split('-').collect();
            assert!(
                d.len() == 3
                    && d[0].len() == 4
                    && d[1].len() == 2
                    && d[2].len() == 2
                    && d.iter().all(|p| p.parse::<u32>().is_ok()),
                "{}: date {:?}",
                i.name,
                c.date
            );
        }
        for (field, present) in cited_fields(&i) {
            if present {
                assert!(
                    i.cites.iter().any(|c| c.fields.iter().any(|f| f == field)),
                    "{}: {field} has no source",
                    i.name
                );
            }
        }
    }
}

/// (GPU model prefix, dense FP32 range, largest dense FP16/BF16) [FLOP/s].
const GENERATIONS: [(&str, (f64, f64), f64); 8] = [
    ("V100", (14e12, 16.4e12), 130e12),
    ("T4", (8.0e12, 8.2e12), 66e12),
    // Longer names first: "A100" also starts with "A10".
    ("A100", (19.4e12, 19.6e12), 313e12),
    ("A10", (30e12, 32e12), 126e12),
    ("L40S", (91e12, 92e12), 367e12),
    ("L4", (30e12, 31e12), 122e12),
    ("H100", (51e12, 68e12), 990e12),
    ("H200", (66e12, 68e12), 990e12),
];

#[test]
fn every_peak_is_dense_and_within_its_generations_range() {
    for i in current_catalog() {
        let Some(p) = i.gpu_peak else { continue };
        let model = i.gpu_model.clone().unwrap_or_default();
        let (_, fp32, tensor) = GENERATIONS
            .iter()
            .find(|(g, _, _)| model.starts_with(g))
            .unwrap_or_else(|| panic!("{}: unknown GPU {model}", i.name));
        if let Some(v) = p.fp32 {
            assert!(v >= fp32.0 && v <= fp32.1, "{}: FP32 {v}", i.name);
        }
        for v in [p.tf32, p.fp16, p.bf16].into_iter().flatten() {
            // Dense: never above the generation's dense tensor peak (a 2:4
            // sparse figure is twice it), never below FP32.
            assert!(v <= *tensor, "{}: {v} looks sparse", i.name);
            assert!(p.fp32.is_none_or(|f| v >= f), "{}: {v} below FP32", i.name);
        }
        if let (Some(tf), Some(h)) = (p.tf32, p.fp16) {
            assert!(tf <= h, "{}", i.name);
        }
    }
}

#[test]
fn the_models_can_rank_it_at_any_precision_that_has_peaks() {
    let mut s = p3_example();
    s.hardware.catalog = current_catalog();
    for p in [Precision::Fp32, Precision::Bf16] {
        s.hardware.precision = p;
        let r = evaluate(&Stash, &s).unwrap_or_else(|e| panic!("{e:?}"));
        let t = r.table("configurations").unwrap();
        assert!(t.rows.len() >= 8, "{p:?}: {}", t.rows.len());
    }
}
