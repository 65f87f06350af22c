//! Version-1 documents and links keep their results, bit for bit.
//!
//! `tests/fixtures/v1/` holds scenario documents and share fragments written
//! by the version-1 build (commit 2cb2604), and `digests.txt` the numbers
//! every model reported for them then: per report section (headline,
//! figures, each table, each chart) a count and a hash of the bits of every
//! number in it. Any newer build must read those documents and links into
//! the same numbers. Runs natively and in headless Chromium. The digests
//! were written once, by that build; they are never regenerated.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::collections::BTreeMap;

use ddnn_planner::models::decode_fragment;
use ddnn_planner::models::evaluate_all;
use ddnn_planner::scenario::Scenario;
use serde_json::Value;

const FIXTURES: [(&str, &str, &str); 7] = [
    (
        "alexnet-cpu-2workers",
        include_str!("../fixtures/v1/alexnet-cpu-2workers.scenario.json"),
        include_str!("../fixtures/v1/alexnet-cpu-2workers.fragment.txt"),
    ),
    (
        "cifar10-bsp-m4",
        include_str!("../fixtures/v1/cifar10-bsp-m4.scenario.json"),
        include_str!("../fixtures/v1/cifar10-bsp-m4.fragment.txt"),
    ),
    (
        "cifar10-spot-2ps",
        include_str!("../fixtures/v1/cifar10-spot-2ps.scenario.json"),
        include_str!("../fixtures/v1/cifar10-spot-2ps.fragment.txt"),
    ),
    (
        "landing",
        include_str!("../fixtures/v1/landing.scenario.json"),
        include_str!("../fixtures/v1/landing.fragment.txt"),
    ),
    (
        "resnet50-10gbe",
        include_str!("../fixtures/v1/resnet50-10gbe.scenario.json"),
        include_str!("../fixtures/v1/resnet50-10gbe.fragment.txt"),
    ),
    (
        "vgg16-hetero-1gbe",
        include_str!("../fixtures/v1/vgg16-hetero-1gbe.scenario.json"),
        include_str!("../fixtures/v1/vgg16-hetero-1gbe.fragment.txt"),
    ),
    (
        "vgg16-latency-settings",
        include_str!("../fixtures/v1/vgg16-latency-settings.scenario.json"),
        include_str!("../fixtures/v1/vgg16-latency-settings.fragment.txt"),
    ),
];

const DIGESTS: &str = include_str!("../fixtures/v1/digests.txt");

/// The one kind of version-1 document whose numbers change: its PS nodes
/// (Cynthia's) supplied another bandwidth than its PS link (Zeng's). The
/// upgrade keeps the nodes, so Zeng's figures change, and says so.
const CHANGED_BY_UPGRADE: [(&str, &str); 1] = [("cifar10-spot-2ps", "zeng")];

/// Figures and charts added since version 1, left out of the digests: the
/// numbers version 1 reported must stay; new ones are not in its results.
/// (model, figure or chart key.)
const ADDED_SINCE_V1: [(&str, &str); 9] = [
    ("zeng", "cost-per-iteration"),
    ("zeng", "cost-per-1000-iterations"),
    ("zeng", "cluster-price"),
    ("zeng", "iterations-per-epoch"),
    ("zeng", "epoch-time"),
    ("zeng", "cost-per-epoch"),
    ("zeng", "cost"),
    ("zeng", "pull-values"),
    ("zeng", "pull-bytes"),
];

/// Charts whose numbers mean something else since version 1, left out
/// likewise: (model, chart key, why).
const REDEFINED_SINCE_V1: [(&str, &str, &str); 1] = [(
    "zeng",
    "workers-speedup",
    // Issue 33: each line was over its own device alone, so a slower
    // cluster could plot above a faster one; every line is now over one
    // worker of the cluster's fastest device.
    "one baseline for every line",
)];

/// Table columns added since version 1, left out likewise: (model, table
/// key, column index in today's table).
const COLUMNS_ADDED_SINCE_V1: [(&str, &str, usize); 1] = [
    // Eq. 17's updated ratio u, next to r.
    ("cynthia", "algorithm1", 2),
];

/// `item` (a table) without the columns added since version 1.
fn as_in_v1(model: &str, item: &Value) -> Value {
    let key = item["key"].as_str().unwrap_or("");
    let mut item = item.clone();
    for &(_, _, at) in COLUMNS_ADDED_SINCE_V1
        .iter()
        .filter(|&&(m, k, _)| m == model && k == key)
    {
        if let Some(cols) = item["columns"].as_array_mut() {
            if at < cols.len() {
                cols.remove(at);
            }
        }
        for row in item["rows"].as_array_mut().into_iter().flatten() {
            if let Some(cells) = row.as_array_mut() {
                if at < cells.len() {
                    cells.remove(at);
                }
            }
        }
    }
    item
}

fn added_since_v1(model: &str, item: &Value) -> bool {
    let key = item["key"].as_str().unwrap_or("");
    ADDED_SINCE_V1.iter().any(|&(m, k)| m == model && k == key)
        || REDEFINED_SINCE_V1
            .iter()
            .any(|&(m, k, _)| m == model && k == key)
}

/// Folds every number under `v` into (count, FNV-1a of the f64 bits).
fn fold(v: &Value, acc: &mut (u64, u64)) {
    match v {
        Value::Number(n) => {
            if let Some(x) = n.as_f64() {
                acc.0 += 1;
                for b in x.to_bits().to_le_bytes() {
                    acc.1 = (acc.1 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| fold(x, acc)),
        Value::Object(o) => o.values().for_each(|x| fold(x, acc)),
        _ => {}
    }
}

/// One line per report section, keyed by model and section key.
/// The models version 1 had.
const V1_MODELS: [&str; 2] = ["zeng", "cynthia"];

fn digest(name: &str, s: &Scenario) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (model, outcome) in evaluate_all(s) {
        let id = model.id();
        // Models added since version 1 have no digests to keep.
        if !V1_MODELS.contains(&id) {
            continue;
        }
        let report = match outcome {
            Ok(r) => r,
            Err(u) => {
                let what = if u.is_missing() { "missing" } else { "invalid" };
                out.insert(format!("{name} {id} unavailable"), what.to_string());
                continue;
            }
        };
        let v = serde_json::to_value(&report).unwrap_or(Value::Null);
        let mut section = |key: String, v: &Value| {
            let mut acc = (0, 0xcbf2_9ce4_8422_2325);
            fold(v, &mut acc);
            out.insert(
                format!("{name} {id} {key}"),
                format!("{} {:016x}", acc.0, acc.1),
            );
        };
        for part in ["headline", "figures"] {
            let kept: Vec<Value> = v[part]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|f| !added_since_v1(id, f))
                .cloned()
                .collect();
            section(part.to_string(), &Value::Array(kept));
        }
        for part in ["tables", "charts"] {
            for item in v[part].as_array().into_iter().flatten() {
                if added_since_v1(id, item) {
                    continue;
                }
                let key = item["key"].as_str().unwrap_or("?");
                section(format!("{part}/{key}"), &as_in_v1(id, item));
            }
        }
    }
    out
}

fn changed(key: &str) -> bool {
    CHANGED_BY_UPGRADE
        .iter()
        .any(|(doc, model)| key.starts_with(&format!("{doc} {model} ")))
}

fn expected() -> BTreeMap<String, String> {
    DIGESTS
        .lines()
        .filter_map(|l| {
            let (k, v) = l.rsplit_once(" = ")?;
            Some((k.to_string(), v.to_string()))
        })
        .filter(|(k, _)| !changed(k) && !redefined(k))
        .collect()
}

/// A digest line of a chart in `REDEFINED_SINCE_V1`.
fn redefined(key: &str) -> bool {
    REDEFINED_SINCE_V1
        .iter()
        .any(|(model, chart, _)| key.ends_with(&format!(" {model} charts/{chart}")))
}

#[track_caller]
fn compare(got: &BTreeMap<String, String>, want: &BTreeMap<String, String>, what: &str) {
    let diff: Vec<String> = want
        .iter()
        .filter(|(k, v)| got.get(*k) != Some(v))
        .map(|(k, v)| format!("{k}: want {v}, got {:?}", got.get(k)))
        .chain(
            got.keys()
                .filter(|k| !want.contains_key(*k))
                .map(|k| format!("{k}: not in the version-1 results")),
        )
        .collect();
    assert!(diff.is_empty(), "{what}:\n{}", diff.join("\n"));
}

fn all(read: impl Fn(&str, &str) -> Scenario) -> BTreeMap<String, String> {
    FIXTURES
        .iter()
        .flat_map(|(name, json, frag)| digest(name, &read(json, frag)))
        .filter(|(k, _)| !changed(k))
        .collect()
}

#[test]
fn the_one_changed_document_says_so() {
    for (name, json, _) in FIXTURES {
        let loaded = ddnn_planner::models::read_json(json).unwrap_or_else(|e| panic!("{e}"));
        let listed = CHANGED_BY_UPGRADE.iter().any(|(doc, _)| *doc == name);
        assert_eq!(
            !loaded.notes.is_empty(),
            listed,
            "{name}: {:?}",
            loaded.notes
        );
        if listed {
            // 2 nodes × 1 Gb/s instead of the old 1 Gb/s link.
            assert!(
                loaded.notes[0].contains("now use 2 Gb/s"),
                "{:?}",
                loaded.notes
            );
            let ps = &loaded.scenario.hardware.cluster.ps;
            let total = ps.total_bandwidth(&loaded.scenario.hardware.catalog);
            assert_eq!(total, Some(250e6));
        }
    }
}

#[test]
fn v1_documents_keep_their_numbers() {
    let got =
        all(|json, _| ddnn_planner::models::from_json(json).unwrap_or_else(|e| panic!("{e}")));
    let want = expected();
    assert!(want.len() > 40, "digests.txt has {} lines", want.len());
    compare(&got, &want, "version-1 documents");
}

#[test]
fn v1_links_keep_their_numbers() {
    let got = all(|_, frag| decode_fragment(frag).unwrap_or_else(|e| panic!("{e}")));
    compare(&got, &expected(), "version-1 links");
}
