//! `ddnn-planner eval` lists the network it used (`workload::listing`):
//! per layer its shape, weights and forward FLOP (Eq. 4, and Paleo's
//! count for a Paleo import), the totals, and the layers Eq. 4 does not
//! count with the reason, in the table and in the JSON. The files are
//! written here; the figures are worked in the comments.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;

use super::cli::run;

/// Input [8, 8, 8, 3]; a 3×3 SAME convolution to 4 channels; 2×2 max
/// pooling, stride 2 (VALID: ceil((8 − 2 + 1) / 2) = 4); a fully connected
/// layer to 10; dropout.
const TINY: &str = r#"{"name": "tiny", "layers": {
  "data": {"type": "Input", "parents": [], "tensor": [8, 8, 8, 3]},
  "conv1": {"type": "Convolution", "parents": ["data"], "filter": [3, 3, 3, 4],
            "strides": [1, 1, 1, 1], "padding": "SAME"},
  "pool1": {"type": "Pooling", "parents": ["conv1"], "ksize": [1, 2, 2, 1],
            "strides": [1, 2, 2, 1], "padding": "VALID"},
  "fc1": {"type": "InnerProduct", "parents": ["pool1"], "num_outputs": 10},
  "drop": {"type": "Dropout", "parents": ["fc1"]}
}}"#;

fn temp_file(name: &str, text: &str) -> (std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("ddnn-listing-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    (dir, path.to_string_lossy().into_owned())
}

/// The words of the line that starts with `first`.
fn row<'a>(out: &'a str, first: &str) -> Vec<&'a str> {
    out.lines()
        .map(str::split_whitespace)
        .map(Iterator::collect::<Vec<&str>>)
        .find(|w| w.first() == Some(&first))
        .unwrap_or_else(|| panic!("no row {first}:\n{out}"))
}

#[test]
fn a_paleo_network_is_listed_with_both_counts_and_its_ignored_layers() {
    let (dir, file) = temp_file("tiny.paleo.json", TINY);
    let (code, out, err) = run(&["eval", "--network", &file, "--model", "zeng"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("2 conv/fc layers counted, 3 ignored (listed below)"),
        "{out}"
    );
    assert!(
        out.contains("Network 'tiny': 2 layers counted by Eq. 4"),
        "{out}"
    );
    // conv1: Eq. 4 2·3·3·3·4·8·8 = 13,824 FLOP per sample, 3·3·3·4 = 108
    // weights; Paleo: × the batch of 8 = 110,592.
    assert_eq!(
        row(&out, "conv1"),
        ["conv1", "conv", "3", "3×3", "4×8×8", "108", "13,824", "110,592"]
    );
    // fc1: 4·4·4 = 64 inputs: 2·64·10 = 1,280; 640 weights; × 8 = 10,240.
    assert_eq!(
        row(&out, "fc1"),
        ["fc1", "fc", "64", "1×1", "10×1×1", "640", "1,280", "10,240"]
    );
    assert_eq!(
        row(&out, "total"),
        ["total", "(2", "layers)", "748", "15,104", "120,832"]
    );
    assert!(out.contains("3 layers not counted by Eq. 4"), "{out}");
    // Pooling, as Paleo counts it: 2·2·2·4 per output pixel, 4·4 pixels,
    // × 8 = 4,096; dropout 1 per element: 8·10 = 80.
    let pool = row(&out, "pool1");
    assert_eq!(
        pool[..4],
        ["pool1", "Pooling", "8×4×4×4", "4,096"],
        "{pool:?}"
    );
    assert_eq!(pool[4], "pooling:");
    assert_eq!(
        row(&out, "drop")[..4],
        ["drop", "Dropout", "8×1×1×10", "80"]
    );
    assert_eq!(row(&out, "data")[..4], ["data", "Input", "8×8×8×3", "0"]);
    // Paleo's total: 110,592 + 4,096 + 10,240 + 80.
    assert!(
        out.contains("Paleo counts 125,008 FLOP per batch of 8 over every layer"),
        "{out}"
    );

    let (code, out, err) = run(&[
        "eval",
        "--network",
        &file,
        "--model",
        "zeng",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}"));
    let n = &v["network"];
    assert_eq!(n["name"], "tiny");
    assert_eq!(n["paleo"]["batch"], 8);
    let conv = &n["layers"][0];
    assert_eq!(
        (conv["name"].as_str(), conv["kind"].as_str()),
        (Some("conv1"), Some("conv"))
    );
    assert_eq!(conv["weights"], 108);
    assert_eq!(conv["biases"], 4);
    assert_eq!(conv["forward_flop"], 13_824.0);
    assert_eq!(conv["paleo_flop"], 110_592.0);
    let t = &n["totals"];
    assert_eq!(t["layers"], 2);
    assert_eq!(t["weights"], 748.0);
    assert_eq!(t["biases"], 14.0);
    assert_eq!(t["forward_flop"], 15_104.0);
    assert_eq!(t["paleo_flop"], 125_008.0);
    let ignored: Vec<(&str, &str)> = n["ignored"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| {
                    (
                        i["name"].as_str().unwrap_or(""),
                        i["kind"].as_str().unwrap_or(""),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        ignored,
        [("data", "Input"), ("pool1", "Pooling"), ("drop", "Dropout")]
    );
    assert_eq!(
        n["ignored"][1]["paleo_output"],
        serde_json::json!([8, 4, 4, 4])
    );
    assert_eq!(n["ignored"][1]["paleo_flop"], 4_096.0);
    assert_eq!(
        n["ignored"][1]["reason"],
        "pooling: Eq. 4 counts convolution and fully connected layers only (Paleo counts it)"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_layer_table_is_listed_with_its_totals() {
    let csv = "name,kind,inch,kh,kw,outn,outh,outw\nc1,conv,3,3,3,8,32,32\nfc,fc,8192,1,1,10,1,1\n";
    let (dir, file) = temp_file("small.csv", csv);
    let (code, out, err) = run(&["eval", "--network", &file, "--model", "zeng"]);
    assert_eq!(code, 0, "{err}");
    // c1: 2·3·3·3·8·32·32 = 442,368, 216 weights; fc: 2·8192·10 =
    // 163,840, 81,920 weights; 8 + 10 biases.
    assert_eq!(
        row(&out, "c1"),
        ["c1", "conv", "3", "3×3", "8×32×32", "216", "442,368"]
    );
    assert_eq!(
        row(&out, "total"),
        ["total", "(2", "layers)", "82,136", "606,208"]
    );
    assert!(out.contains("weights exclude the 18 biases"), "{out}");
    assert!(!out.contains("not counted by Eq. 4"), "{out}");
    let (code, out, err) = run(&[
        "eval",
        "--network",
        &file,
        "--model",
        "zeng",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["network"]["totals"]["forward_flop"], 606_208.0);
    assert!(v["network"].get("paleo").is_none(), "{}", v["network"]);
    assert_eq!(v["network"]["ignored"], serde_json::json!([]));
    let _ = std::fs::remove_dir_all(&dir);
}
