//! Every fuzz seed and every past finding, replayed through its fuzz
//! target's checks (tests/fuzz/checks.rs, the same code libFuzzer runs):
//! a finding fixed once stays fixed, and the seeds themselves pass the
//! oracles (native only: the files are read from disk).
#![cfg(not(target_arch = "wasm32"))]

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

#[path = "../fuzz/checks.rs"]
mod checks;

/// The files of `dir`, sorted; none where it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

#[test]
fn every_seed_and_past_finding_passes_its_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut replayed = 0;
    let mut failed = Vec::new();
    for (name, check) in checks::TARGETS {
        let mut inputs = files(&root.join("tests/fuzz/seeds").join(name));
        inputs.extend(files(&root.join("tests/fuzz/findings").join(name)));
        // The examples seed every target that reads text.
        if *name != "evaluate" && *name != "structure" {
            inputs.extend(files(&root.join("public/examples")));
        }
        for path in inputs {
            let bytes = fs::read(&path).expect("a seed or finding file reads");
            if catch_unwind(AssertUnwindSafe(|| check(&bytes))).is_err() {
                failed.push(format!("{name}: {}", path.display()));
            }
            replayed += 1;
        }
    }
    assert!(failed.is_empty(), "failed: {failed:#?}");
    // 12 text targets × 16 examples, plus the hand-written seeds.
    assert!(replayed > 12 * 16, "{replayed} inputs replayed");
}
