//! `ddnn-planner eval --import li.trace=FILE`: a Chrome trace read as the
//! page reads an upload (gzipped here), its steps found and its warm-up
//! left out; a trace without steps asks for one, and the scenario gives
//! it. The one-worker throughput is worked by hand from the traces of
//! `li_trace_steps`.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Write;

use ddnn_planner::models::li::chrome::SINGLE_STEP;
use flate2::write::GzEncoder;
use flate2::Compression;
use serde_json::Value;

use super::cli::{run, EX};
use super::li_trace_steps::{startup, torch};

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ddnn-li-trace-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

fn write(path: &std::path::Path, bytes: &[u8]) -> String {
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{e}"));
    path.to_string_lossy().into_owned()
}

fn gzip(text: &str) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    e.finish().unwrap_or_else(|e| panic!("{e}"))
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// A figure's number from Li et al.'s report.
fn figure(v: &Value, list: &str, key: &str) -> f64 {
    let figures = v["models"]["li"]["report"][list]
        .as_array()
        .cloned()
        .unwrap_or_default();
    figures
        .iter()
        .find(|f| f["key"] == key)
        .and_then(|f| f["value"]["value"].as_f64())
        .unwrap_or_else(|| panic!("no {key}: {v}"))
}

fn single_step_noted(v: &Value) -> bool {
    let notes = v["models"]["li"]["report"]["notes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    notes.iter().any(|n| {
        n["text"] == SINGLE_STEP && n["level"] == "warning" && n["field"] == "models.li.profile"
    })
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

#[test]
fn a_pytorch_trace_is_read_with_its_warm_up_left_out() {
    let dir = temp_dir("torch");
    // Step 0: 45 ms of start-up; steps 1 and 2 alike.
    let text = torch(&[
        (0, 0.0, 40_000.0, 5_000.0),
        (1, 50_000.0, 100.0, 300.0),
        (2, 51_000.0, 100.0, 300.0),
    ]);
    let file = write(&dir.join("step.pt.trace.json.gz"), &gzip(&text));
    let s = format!("{EX}li-vgg16-10gbe.json");
    let spec = format!("li.trace={file}");
    let args = [
        "eval", &s, "--model", "li", "--import", &spec, "--format", "json",
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let imported = v["imports"][0].as_str().unwrap_or_default();
    assert!(
        imported.contains("Read 16 events from 'step.pt.trace.json.gz'"),
        "{imported}"
    );
    assert!(
        imported.contains("3 steps found at 'ProfilerStep#' markers"),
        "{imported}"
    );
    assert!(
        imported.contains("The first step was left out as warm-up (4 events)."),
        "{imported}"
    );
    assert_eq!(figure(&v, "figures", "profiled-steps"), 2.0);
    // One worker on the 10 Gb/s PS link: the 1000 B recv (0.8 µs), the
    // CPU op (100 µs), its kernel (300 µs), the 2000 B send (1.6 µs) one
    // after the other: 32 samples per 402.4 µs.
    let one = figure(&v, "headline", "one-worker");
    assert!(close(one, 32.0 / 402.4e-6), "{one}");
    assert!(!single_step_noted(&v));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_trace_without_steps_asks_for_one_and_the_scenario_gives_it() {
    let dir = temp_dir("given");
    let file = write(&dir.join("startup.json"), startup().as_bytes());
    let spec = format!("li.trace={file}");
    let s = format!("{EX}li-vgg16-10gbe.json");
    let (code, out, err) = run(&["eval", &s, "--model", "li", "--import", &spec]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("startup.json: 'startup.json' has no 'ProfilerStep#' step markers"),
        "{err}"
    );
    assert!(
        err.contains("(42.42 ms, start-up and warm-up included)"),
        "{err}"
    );

    // The step given in the scenario's rules: 41 to 42 ms.
    let mut scenario = json(&std::fs::read_to_string(&s).unwrap_or_default());
    scenario["models"]["li"]["trace_mapping"] =
        serde_json::json!({"step_start_s": 0.041, "step_end_s": 0.042});
    let given = write(&dir.join("given.json"), scenario.to_string().as_bytes());
    let args = [
        "eval", &given, "--model", "li", "--import", &spec, "--format", "json",
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let imported = v["imports"][0].as_str().unwrap_or_default();
    assert!(
        imported.contains("The step given: 41 to 42 ms of the trace"),
        "{imported}"
    );
    // The second iteration: recv 0.8 µs, kernel 350 µs, send 1.6 µs.
    let one = figure(&v, "headline", "one-worker");
    assert!(close(one, 32.0 / 352.4e-6), "{one}");
    assert_eq!(figure(&v, "figures", "profiled-steps"), 1.0);
    assert!(
        single_step_noted(&v),
        "{}",
        v["models"]["li"]["report"]["notes"]
    );

    // The table says it too.
    let (code, out, err) = run(&["eval", &given, "--model", "li", "--import", &spec]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("warning: The profile holds a single step"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_trace_import_is_listed_with_the_models() {
    let (code, out, _) = run(&["models"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("--import li.trace=FILE: a one-worker Chrome trace"),
        "{out}"
    );
    let (code, _, err) = run(&["eval", "--import", "li.nope=x.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("li.profile, li.trace"), "{err}");
}
