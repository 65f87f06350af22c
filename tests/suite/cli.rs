//! `ddnn-planner` as a user runs it: every model from the registry, the
//! page's imports combined on the command line, clear messages, quiet
//! exits on a closed pipe.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Read;
use std::process::{Command, Stdio};

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_ddnn-planner");
pub(crate) const EX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/public/examples/");

/// Runs the binary: (exit code, standard output, standard error).
pub(crate) fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{BIN}: {e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ex(name: &str) -> String {
    format!("{EX}{name}")
}

#[test]
fn eval_prints_every_model_in_every_format() {
    let s = ex("cifar10-bsp-m4.json");
    let (code, table, err) = run(&["eval", &s]);
    assert_eq!(code, 0, "{err}");
    assert!(table.contains("Zeng et al. push queue"), "{table}");
    assert!(table.contains("Cynthia"), "{table}");
    assert!(table.contains("1.937 s"), "Zeng's iteration: {table}");
    assert!(table.contains("0.9686 s"), "Cynthia's iteration: {table}");

    let (code, json, _) = run(&["eval", &s, "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
    for id in ["zeng", "cynthia"] {
        assert!(v["models"][id]["report"]["headline"].is_array(), "{id}");
    }
    let (code, csv, _) = run(&["eval", &s, "--format", "csv", "--model", "cynthia"]);
    assert_eq!(code, 0);
    assert!(csv.lines().any(|l| l.starts_with("cynthia,")), "{csv}");
    assert!(
        !csv.lines().any(|l| l.starts_with("zeng,")),
        "--model filters"
    );
}

#[test]
fn a_model_without_inputs_says_what_it_needs_and_the_others_run() {
    let (code, out, _) = run(&["eval", &ex("vgg16-hetero-1gbe.json")]);
    assert_eq!(code, 0, "a missing profile is not an error");
    assert!(out.contains("26.84 s"), "{out}");
    assert!(out.contains("job profile"), "Cynthia names its need: {out}");
}

#[test]
fn imports_combine_like_the_page() {
    let (code, out, err) = run(&[
        "eval",
        &ex("cifar10-bsp-m4.json"),
        "--network",
        &ex("alexnet.paleo.json"),
        "--loss-curve",
        &ex("resnet32-asp-loss.csv"),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}"));
    let imports = v["imports"].to_string();
    assert!(imports.contains("Paleo network"), "{imports}");
    assert!(imports.contains("fitted β0"), "{imports}");
    let subject = v["models"]["zeng"]["report"]["subject"].to_string();
    assert!(subject.contains("AlexNet"), "{subject}");

    // No scenario: the landing example with the imports applied.
    let (code, out, err) = run(&["eval", "--network", &ex("vgg16-layers.csv")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("16 layers imported"), "{out}");
}

#[test]
fn a_file_that_is_not_a_scenario_says_what_it_is() {
    let (code, _, err) = run(&["eval", &ex("alexnet.paleo.json")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("Paleo network JSON") && err.contains("--network"),
        "{err}"
    );
    let (code, _, err) = run(&["eval", &ex("resnet32-asp-loss.csv")]);
    assert_eq!(code, 2);
    assert!(err.contains("--loss-curve"), "{err}");
}

#[test]
fn invalid_inputs_exit_non_zero_with_the_field() {
    let dir = std::env::temp_dir().join(format!("ddnn-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let bad = dir.join("bad.csv");
    std::fs::write(
        &bad,
        "name,kind,inch,kh,kw,outn,outh,outw\nx,lstm,1,1,1,1,1,1\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let bad = bad.to_string_lossy().into_owned();
    let (code, _, err) = run(&["eval", "--network", &bad]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.csv") && err.contains("line 2"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn models_lists_every_model_with_its_inputs() {
    let (code, out, _) = run(&["models"]);
    assert_eq!(code, 0);
    assert!(out.contains("zeng — Zeng et al."), "{out}");
    assert!(out.contains("cynthia — Cynthia"), "{out}");
    assert!(out.contains("workload.profile"), "{out}");
}

#[test]
fn a_closed_pipe_is_a_quiet_exit() {
    let mut child = Command::new(BIN)
        .args(["eval", &ex("cifar10-bsp-m4.json")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    // Read nothing and close the pipe, as `| head -0` would.
    drop(child.stdout.take());
    let status = child.wait().unwrap_or_else(|e| panic!("{e}"));
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(status.code(), Some(0), "{err}");
}

#[test]
fn a_models_own_file_is_imported_by_its_registry_entry() {
    let dir = std::env::temp_dir().join(format!("ddnn-cli-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let runs = dir.join("runs.csv");
    std::fs::write(
        &runs,
        "configuration, run, seconds, samples\np2.8xlarge, 1, 100, 1000\np2.8xlarge, 2, 850, 8000\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let spec = format!("stash.runs={}", runs.display());
    let s = ex("stash-p3.json");
    let (code, out, err) = run(&["eval", &s, "--model", "stash", "--import", &spec]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 Stash runs"), "{out}");
    assert!(
        out.contains("750.0%"),
        "ResNet-50 on P2's interconnect stall: {out}"
    );
    let (code, _, err) = run(&["eval", &s, "--import", "stash.nope=x.csv"]);
    assert_ne!(code, 0);
    assert!(err.contains("stash.runs"), "{err}");
    std::fs::write(&runs, "p2.8xlarge, 7, 1, 1\n").unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = run(&["eval", &s, "--import", &spec]);
    assert_ne!(code, 0);
    assert!(err.contains("line 1"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn simulate_streams_each_worker_count_on_every_core() {
    let s = ex("li-vgg16-10gbe.json");
    let (code, out, err) = run(&[
        "simulate",
        &s,
        "--workers",
        "1-3",
        "--threads",
        "2",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let mut w: Vec<u64> = out
        .lines()
        .map(|l| {
            let v: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            assert!(v["mean"].as_f64().is_some_and(|m| m > 0.0));
            // The coarse estimates beside it, as the page draws them: on
            // the example both stay below the simulation from W = 2.
            let mean = v["mean"].as_f64().unwrap_or(0.0);
            for k in ["cynthia", "lin"] {
                let c = v[k].as_f64().unwrap_or_else(|| panic!("{k}: {l}"));
                assert!(c > 0.0 && (v["workers"] == 1 || c < mean), "{k}: {l}");
            }
            v["workers"].as_u64().unwrap_or(0)
        })
        .collect();
    w.sort_unstable();
    assert_eq!(w, [1, 2, 3]);
    // W = 1 runs first even when out of the range (Cynthia reads it).
    let (code, out, err) = run(&["simulate", &s, "--workers", "4"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[1].contains("Cynthia") && lines[1].contains("Lin et al."),
        "{out}"
    );
    assert!(lines[2].trim_start().starts_with("4 "), "{out}");
    let (code, _, err) = run(&["simulate", &s, "--workers", "0-99"]);
    assert_ne!(code, 0);
    assert!(err.contains("FROM-TO"), "{err}");
    let (code, _, err) = run(&["simulate", &ex("stash-p3.json")]);
    assert_ne!(code, 0);
    assert!(err.contains("models.li.profile"), "{err}");
}

/// A profile whose step takes no time: the coarse estimates have no value
/// and are printed as "—" (JSON: null), never "inf" or "NaN".
#[test]
fn simulate_prints_no_estimate_for_a_step_of_zero_time() {
    let dir = std::env::temp_dir().join(format!("ddnn-cli-zero-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let p = dir.join("zero.json");
    let profile =
        r#"{"name":"zero","batch":8,"ops":[{"name":"c","resource":"worker"}],"steps":[[0.0]]}"#;
    std::fs::write(&p, profile).unwrap_or_else(|e| panic!("{e}"));
    let s = ex("li-vgg16-10gbe.json");
    let p = p.to_string_lossy().into_owned();
    let args = [
        "simulate",
        &s,
        "--profile",
        &p,
        "--workers",
        "1-2",
        "--threads",
        "1",
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out.lines().skip(2).collect();
    assert_eq!(rows.len(), 2, "{out}");
    for row in rows {
        assert!(!row.contains("inf") && !row.contains("NaN"), "{out}");
        assert!(row.contains('—'), "{out}");
    }
    let (code, out, err) = run(&[&args[..], &["--json"]].concat());
    assert_eq!(code, 0, "{err}");
    for l in out.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
        assert!(v["cynthia"].is_null(), "{l}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An ASP loss curve is fitted for the workers of its run, which the
/// CLI asks for (`--loss-workers`) as the page does: the planned
/// cluster's count is not that run's.
#[test]
fn an_asp_curve_needs_the_workers_of_its_run() {
    let text = std::fs::read_to_string(ex("cifar10-bsp-m4.json")).unwrap_or_default();
    let mut s: ddnn_planner::scenario::Scenario =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let Some(p) = s.workload.profile.as_mut() else {
        panic!("the example has a job profile");
    };
    p.sync = ddnn_planner::workload::profile::SyncMode::Asp;
    let n = s.hardware.cluster.total_workers();
    assert!(n > 1, "{n} workers");
    let dir = std::env::temp_dir().join(format!("ddnn-cli-asp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_default();
    let file = dir.join("asp.json");
    std::fs::write(&file, serde_json::to_string(&s).unwrap_or_default()).unwrap_or_default();
    let file = file.to_string_lossy().to_string();
    let curve = ex("resnet32-asp-loss.csv");
    let fitted = |extra: &[&str]| {
        let mut args = vec!["eval", file.as_str(), "--loss-curve", curve.as_str()];
        args.extend_from_slice(extra);
        // A fit may leave β1 ≥ β0 (the model then says so and exits 1):
        // the fit line is printed either way.
        let (_, out, err) = run(&args);
        out.lines()
            .chain(err.lines())
            .find(|l| l.contains("fitted β0"))
            .map(str::to_string)
            .unwrap_or_else(|| panic!("no fit line:\n{out}\n{err}"))
    };
    let (code, _, err) = run(&["eval", file.as_str(), "--loss-curve", curve.as_str()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--loss-workers"), "{err}");
    let count = n.to_string();
    assert_ne!(
        fitted(&["--loss-workers", &count]),
        fitted(&["--loss-workers", "1"])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `decode` takes a whole page link (with `&view=`), a file holding it,
/// or standard input; every reader stops at the size limit, even on a
/// file that never ends, and drops a byte-order mark as the page does.
#[test]
fn the_readers_take_what_the_page_takes_and_stop_at_the_limit() {
    let (code, frag, err) = run(&["url", &ex("cifar10-bsp-m4.json")]);
    assert_eq!(code, 0, "{err}");
    let frag = frag.trim().to_string();
    let (code, by_arg, err) = run(&["decode", &format!("https://x.org/p/#{frag}&view=zeng")]);
    assert_eq!(code, 0, "{err}");

    let dir = std::env::temp_dir().join(format!("ddnn-cli-readers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let link = dir.join("link.txt");
    std::fs::write(&link, format!("{frag}\n")).unwrap_or_else(|e| panic!("{e}"));
    let (code, by_file, err) = run(&["decode", &link.to_string_lossy()]);
    assert_eq!((code, &by_file), (0, &by_arg), "{err}");

    let mut child = Command::new(BIN)
        .args(["decode", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        let _ = stdin.write_all(frag.as_bytes());
    }
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(String::from_utf8_lossy(&out.stdout), by_arg);

    // A scenario saved with a byte-order mark reads as without.
    let text = std::fs::read_to_string(ex("cifar10-bsp-m4.json")).unwrap_or_default();
    let bom = dir.join("bom.json");
    std::fs::write(&bom, format!("\u{feff}{text}")).unwrap_or_else(|e| panic!("{e}"));
    let (code, out, err) = run(&["eval", &bom.to_string_lossy()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1.937 s"), "{out}");

    // A file that never ends is read no further than the limit.
    if std::path::Path::new("/dev/zero").exists() {
        let (code, _, err) = run(&["eval", "/dev/zero"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("more than the 8388608 bytes"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
