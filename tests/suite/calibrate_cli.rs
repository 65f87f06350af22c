//! `ddnn-planner calibrate`: the factors and the three errors printed,
//! the calibrated scenario written (and read back by `eval`), and bad
//! runs said in one sentence with nothing calibrated.
#![cfg(not(target_arch = "wasm32"))]

use super::cli::{run, EX};

fn temp(name: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    dir.join(format!("calibrate-cli-{}-{name}", std::process::id()))
        .to_string_lossy()
        .into_owned()
}

#[test]
fn calibrate_prints_the_factors_and_writes_the_scenario() {
    let s = format!("{EX}zeng-tables6-7-vgg16-runs.json");
    let out_path = temp("vgg16.json");
    let (code, out, err) = run(&["calibrate", &s, "-o", &out_path]);
    assert_eq!(code, 0, "{err}");
    for want in [
        "Zeng et al.: calibration factors",
        "median |error| as published",
        "calibrated, leave-one-out",
        "cannot be fitted from these runs",
        "effective fraction of the PS link's bandwidth [×]",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
    assert!(err.contains("wrote the calibrated scenario"), "{err}");
    let written = std::fs::read_to_string(&out_path).unwrap_or_else(|e| panic!("{e}"));
    let v: serde_json::Value = serde_json::from_str(&written).unwrap_or_else(|e| panic!("{e}"));
    assert!(v["calibration"]["zeng"]["link"].is_number(), "{v}");
    // `eval` reads it, and Zeng says it is calibrated.
    let (code, out, err) = run(&["eval", &out_path, "--model", "zeng"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Calibrated on measured runs"), "{out}");
}

#[test]
fn one_run_is_refused_and_nothing_is_calibrated() {
    let csv = temp("one.csv");
    std::fs::write(
        &csv,
        "label,instance,count,batch_size,iteration_s\na,Quadro RTX 4000,2,32,28\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let s = format!("{EX}vgg16-hetero-1gbe.json");
    let (code, out, err) = run(&["calibrate", &s, "--runs", &csv, "-o", "-"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("needs at least 2 runs it predicts; it predicts 1"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert!(v.get("calibration").is_none(), "{v}");
}
