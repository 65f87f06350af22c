//! What each fuzz target does with its input: the parsers and decoders a
//! user's file or link reaches, and the evaluation of a decoded scenario.
//! Shared by the libFuzzer binary (tests/fuzz/targets.rs) and the test
//! suite, which replays every seed and every past finding through them
//! (tests/suite/fuzz_replay.rs).
//!
//! A target fails by panicking: on a parser's panic, and on the oracles
//! below — a document that does not read back as itself after being
//! written, a report with a number that is not finite.

use std::sync::OnceLock;

use ddnn_planner::hardware::cluster_text::parse_cluster;
use ddnn_planner::hardware::parse_catalog;
use ddnn_planner::models::li::chrome::{self, Mapping};
use ddnn_planner::models::li::profile::Profile as LiProfile;
use ddnn_planner::models::read_fragment;
use ddnn_planner::models::spotdnn::fit_text::{parse_loss, parse_memory, parse_speeds};
use ddnn_planner::models::stash::runs_text::parse_runs;
use ddnn_planner::models::stash::section::parse_configuration;
use ddnn_planner::models::{evaluate_all, for_link};
use ddnn_planner::scenario::codec::encode_fragment;
use ddnn_planner::scenario::files::{fit_loss_curve, import_network};
use ddnn_planner::scenario::Scenario;
use ddnn_planner::workload::paleo::import_paleo;
use ddnn_planner::workload::presets::network_presets;
use ddnn_planner::workload::profile::SyncMode;
use ddnn_planner::workload::profile_io::{parse_loss_curve, parse_profile_json};
use ddnn_planner::workload::table::parse_layer_table;
use ddnn_planner::workload::Network;
use serde_json::Value;

pub type Target = fn(&[u8]);

/// Every target by name, as `FUZZ_TARGET` gives it.
pub const TARGETS: &[(&str, Target)] = &[
    ("layer_table", layer_table),
    ("paleo", paleo),
    ("profile", profile),
    ("li_profile", li_profile),
    ("chrome_trace", chrome_trace),
    ("loss_curve", loss_curve),
    ("runs", runs),
    ("fit_points", fit_points),
    ("cluster_text", cluster_text),
    ("catalog", catalog),
    ("scenario", scenario),
    ("fragment", fragment),
    ("evaluate", evaluate),
];

/// The bytes as the page hands them to a parser: text, or nothing.
fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

fn layer_table(data: &[u8]) {
    if let Some(t) = text(data) {
        let _ = parse_layer_table(t);
        let _ = import_network("fuzz.csv", t);
    }
}

fn paleo(data: &[u8]) {
    if let Some(t) = text(data) {
        let _ = import_paleo(t);
    }
}

fn profile(data: &[u8]) {
    if let Some(t) = text(data) {
        let _ = parse_profile_json(t);
    }
}

fn li_profile(data: &[u8]) {
    if let Some(t) = text(data) {
        let _ = LiProfile::from_json(t);
    }
}

/// Bytes as a dropped trace file: gzip or text, then the import with the
/// default mapping (a layer table supplies PS sizes when the trace has none).
fn chrome_trace(data: &[u8]) {
    // A small inflate limit: the amplification check is that the limit
    // holds, not that 256 MiB fits in the fuzzer's memory.
    let Ok(t) = chrome::read_bytes_within(data, 16 << 20) else {
        return;
    };
    static LAYERS: OnceLock<Option<Network>> = OnceLock::new();
    let net = LAYERS.get_or_init(|| network_presets().into_iter().next().map(|p| p.network));
    let _ = chrome::import("fuzz.json", &t, &Mapping::default(), net.as_ref());
}

/// Read as each synchronisation and two cluster sizes would read it, and
/// thinned and fitted as the page's import does.
fn loss_curve(data: &[u8]) {
    if let Some(t) = text(data) {
        for sync in [SyncMode::Bsp, SyncMode::Asp] {
            for workers in [1, 4] {
                let _ = parse_loss_curve(t, sync, workers);
            }
        }
        let _ = fit_loss_curve(t, SyncMode::Asp, 4);
    }
}

fn runs(data: &[u8]) {
    if let Some(t) = text(data) {
        let _ = parse_runs(t);
        let _ = parse_configuration(t);
    }
}

fn fit_points(data: &[u8]) {
    if let Some(t) = text(data) {
        let _ = parse_memory(t);
        let _ = parse_speeds(t);
        let _ = parse_loss(t);
    }
}

fn cluster_text(data: &[u8]) {
    if let Some(t) = text(data) {
        let _ = parse_cluster(t);
    }
}

fn catalog(data: &[u8]) {
    if let Some(t) = text(data) {
        let _ = parse_catalog(t);
    }
}

/// A scenario document; one that reads must read back as itself once
/// written, and as its link.
fn scenario(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let Ok(loaded) = ddnn_planner::models::read_json(t) else {
        return;
    };
    round_trips(&loaded.scenario);
}

/// A link's fragment; one that decodes must encode back to the same
/// scenario.
fn fragment(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let Ok(loaded) = read_fragment(t) else {
        return;
    };
    round_trips(&loaded.scenario);
}

fn round_trips(s: &Scenario) {
    let json = s.to_json();
    match ddnn_planner::models::from_json(&json) {
        Ok(back) => assert_eq!(&back, s, "the written document reads back differently"),
        Err(e) => panic!("a scenario that read does not read back once written: {e}"),
    }
    let (linked, _) = for_link(s);
    let frag = encode_fragment(&linked);
    match read_fragment(&frag) {
        Ok(back) => assert_eq!(&back.scenario, &*linked, "the link reads back differently"),
        Err(e) => panic!("a scenario's own link does not decode: {e}"),
    }
}

/// The examples the evaluation starts from (scenario documents).
const EXAMPLES: &[&str] = &[
    include_str!("../../public/examples/alexnet-cpu-2workers.json"),
    include_str!("../../public/examples/cifar10-bsp-m4.json"),
    include_str!("../../public/examples/li-vgg16-10gbe.json"),
    include_str!("../../public/examples/resnet50-10gbe.json"),
    include_str!("../../public/examples/spotdnn-table1.json"),
    include_str!("../../public/examples/stash-p3.json"),
    include_str!("../../public/examples/vgg16-hetero-1gbe.json"),
];

/// Values a patch may write: the edges where floating point goes wrong.
const EDGES: &[f64] = &[
    0.0,
    -0.0,
    1e-320,
    f64::MIN_POSITIVE,
    1e-12,
    0.5,
    1.0,
    -1.0,
    2.0,
    1e9,
    4294967295.0,
    4294967296.0,
    1e18,
    1e300,
    f64::MAX,
];

/// An example with some of its numbers replaced, then every model on it:
/// whatever validation lets through must report only finite numbers.
///
/// Input: one byte picks the example; then 3-byte patches, each a leaf
/// index (2 bytes) and a value (an edge, or the leaf scaled by a power of
/// two). Structure-aware, so the fuzzer spends its time in the models
/// rather than in the JSON reader.
fn evaluate(data: &[u8]) {
    let Some((&pick, patches)) = data.split_first() else {
        return;
    };
    let Ok(mut doc) = serde_json::from_str::<Value>(EXAMPLES[usize::from(pick) % EXAMPLES.len()])
    else {
        return;
    };
    let mut leaves = Vec::new();
    numbers(&mut doc, &mut leaves);
    let count = leaves.len();
    let mut values: Vec<Option<f64>> = vec![None; count];
    for p in patches.chunks_exact(3) {
        let at = usize::from(u16::from_le_bytes([p[0], p[1]])) % count.max(1);
        let v = p[2];
        values[at] = Some(if v < 128 {
            EDGES[usize::from(v) % EDGES.len()]
        } else {
            // The leaf scaled by 2^(v - 192): -64..63.
            let old = leaves_value(&doc, at).unwrap_or(1.0);
            old * 2f64.powi(i32::from(v) - 192)
        });
    }
    let mut k = 0;
    write_numbers(&mut doc, &values, &mut k);
    let Ok(mut s) = serde_json::from_value::<Scenario>(doc) else {
        return;
    };
    bound_runtime(&mut s);
    for (m, outcome) in evaluate_all(&s) {
        if let Ok(r) = outcome {
            if let Some(at) = r.non_finite() {
                panic!("{}: a number that is not finite at {at}", m.id());
            }
        }
    }
}

/// Each number leaf, depth first.
fn numbers(v: &mut Value, out: &mut Vec<f64>) {
    match v {
        Value::Number(n) => out.push(n.as_f64().unwrap_or(0.0)),
        Value::Array(a) => a.iter_mut().for_each(|x| numbers(x, out)),
        Value::Object(o) => o.values_mut().for_each(|x| numbers(x, out)),
        _ => {}
    }
}

fn leaves_value(doc: &Value, at: usize) -> Option<f64> {
    let mut all = Vec::new();
    numbers(&mut doc.clone(), &mut all);
    all.get(at).copied()
}

/// Writes `values` over the number leaves in the same order; an integer
/// leaf stays an integer where the value is one (counts are `u32`).
fn write_numbers(v: &mut Value, values: &[Option<f64>], k: &mut usize) {
    match v {
        Value::Number(n) => {
            if let Some(Some(x)) = values.get(*k) {
                let int = n.is_u64() || n.is_i64();
                *v = if int && x.fract() == 0.0 && x.abs() < 1.8e19 {
                    if *x >= 0.0 {
                        Value::from(*x as u64)
                    } else {
                        Value::from(*x as i64)
                    }
                } else {
                    serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number)
                };
            }
            *k += 1;
        }
        Value::Array(a) => a.iter_mut().for_each(|x| write_numbers(x, values, k)),
        Value::Object(o) => o.values_mut().for_each(|x| write_numbers(x, values, k)),
        _ => {}
    }
}

/// The fuzzer looks for panics and non-finite numbers, not for long valid
/// runs: the simulator's and the searches' lengths are capped (their cost
/// grows linearly with them; the page runs them in a worker with cancel).
fn bound_runtime(s: &mut Scenario) {
    use ddnn_planner::models::cynthia::section::CynthiaSettings;
    use ddnn_planner::models::li::section::LiSettings;
    use ddnn_planner::models::spotdnn::section::SpotDnnSettings;
    use ddnn_planner::models::stash::section::StashSettings;
    use ddnn_planner::models::zeng::section::ZengSettings;
    if let Ok(mut li) = s.section::<LiSettings>("li") {
        li.steps = li.steps.min(20);
        li.warmup = li.warmup.min(5);
        li.seeds = li.seeds.min(2);
        li.max_workers = li.max_workers.min(4);
        li.timeline_workers = li.timeline_workers.min(2);
        if let Some(g) = li.generate.as_mut() {
            g.profiled_steps = g.profiled_steps.min(2);
        }
        s.set_section("li", &li);
    }
    if let Ok(mut z) = s.section::<ZengSettings>("zeng") {
        z.sweep_max_workers = z.sweep_max_workers.min(64);
        s.set_section("zeng", &z);
    }
    if let Ok(mut c) = s.section::<CynthiaSettings>("cynthia") {
        c.max_workers = c.max_workers.min(64);
        s.set_section("cynthia", &c);
    }
    if let Ok(mut sp) = s.section::<SpotDnnSettings>("spotdnn") {
        sp.max_workers = sp.max_workers.min(32);
        s.set_section("spotdnn", &sp);
    }
    if let Ok(mut st) = s.section::<StashSettings>("stash") {
        st.max_machines = st.max_machines.min(16);
        s.set_section("stash", &st);
    }
}
