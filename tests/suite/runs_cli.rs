//! `ddnn-planner eval` with measured runs: the comparison after the
//! models' reports (table and JSON), `--import runs=FILE`, and a bad or
//! empty runs file said in one sentence.
#![cfg(not(target_arch = "wasm32"))]

use super::cli::{run, EX};

/// A file under the target directory, unique to this test.
fn temp(name: &str, text: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("runs-cli-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path.to_string_lossy().into_owned()
}

#[test]
fn eval_shows_the_runs_comparison_in_table_and_json() {
    let s = format!("{EX}zeng-tables6-7-vgg16-runs.json");
    let (code, out, err) = run(&["eval", &s]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Measured runs — VGG-16 · 4 runs measured against 5 models"),
        "{out}"
    );
    assert!(out.contains("Zeng et al.: median |error|"), "{out}");
    assert!(out.contains("T6 1 GbE bs 32"), "{out}");
    assert!(out.contains("chart parity-iteration-time"), "{out}");

    let (code, json, _) = run(&["eval", &s, "--format", "json", "--model", "zeng"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
    let r = &v["runs"]["report"];
    assert_eq!(r["model"], "runs");
    assert!(r["tables"].as_array().is_some_and(|t| t.len() == 2), "{r}");
    let keys: Vec<&str> = r["headline"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["key"].as_str())
        .collect();
    assert_eq!(
        keys,
        ["runs", "zeng-median-error"],
        "--model filters the comparison too"
    );

    // Without runs there is no comparison.
    let (_, json, _) = run(&[
        "eval",
        &format!("{EX}vgg16-hetero-1gbe.json"),
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
    assert!(v.get("runs").is_none());
}

#[test]
fn import_runs_from_csv() {
    let csv = temp(
        "ok.csv",
        "label,instance,count,batch_size,throughput\nmix,Quadro RTX 4000,2,32,3.1\nmix,GeForce GTX 1060 6GB,1,32\n",
    );
    let (code, out, err) = run(&[
        "eval",
        "--import",
        &format!("runs={csv}"),
        "--model",
        "zeng",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 measured run (2 worker groups)"), "{out}");
    assert!(out.contains("throughput [samples/s]"), "{out}");
    assert!(out.contains("chart parity-throughput"), "{out}");
}

#[test]
fn a_bad_runs_file_says_why() {
    let empty = temp("empty.csv", "");
    let (code, _, err) = run(&["eval", "--import", &format!("runs={empty}")]);
    assert_eq!(code, 2);
    assert!(err.contains("the runs file is empty"), "{err}");
    assert!(err.contains(&empty), "names the file: {err}");

    let typo = temp(
        "typo.csv",
        "label,instance,count,batch_size,iteration_s\na,Quadro RTX 400,2,32,27\n",
    );
    let (code, out, err) = run(&[
        "eval",
        "--import",
        &format!("runs={typo}"),
        "--model",
        "zeng",
    ]);
    assert_eq!(code, 1, "the models ran; the runs are invalid: {err}");
    assert!(out.contains("Measured runs: not evaluated"), "{out}");
    assert!(
        err.contains(
            "runs[0].workers[0].instance: run 'a': 'Quadro RTX 400' is not in the instance catalog"
        ),
        "{err}"
    );
    let (code, _, err) = run(&["eval", "--import", "run=x.csv"]);
    assert_eq!(code, 2);
    assert!(err.contains("runs=FILE"), "{err}");
}
