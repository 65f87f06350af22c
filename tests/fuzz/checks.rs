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
use ddnn_planner::models::{evaluate_all, for_link, validate_for, MODELS};
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
    ("structure", structure),
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
    static LAYERS: OnceLock<Option<Network>> = OnceLock::new();
    let net = LAYERS.get_or_init(|| network_presets().into_iter().next().map(|p| p.network));
    // The file as the page and the CLI read it (text held once, events
    // streamed into records), and the text path the importer also keeps.
    let _ = chrome::import_file_within(
        "fuzz.json",
        data.to_vec(),
        16 << 20,
        &Mapping::default(),
        net.as_ref(),
    );
    let Ok(t) = chrome::read_bytes_within(data, 16 << 20) else {
        return;
    };
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
        // The shared measured runs (`--import runs=FILE`).
        let _ = ddnn_planner::runs::files::parse_runs(t);
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

/// A scenario whose *structure* varies, not only its numbers: how many
/// catalog types and how long their names, quotas on many types, many
/// worker groups, a Li et al. profile of up to 150,000 ops with chains,
/// fan-ins and cycles, a Paleo network with huge `splits` (whole or
/// float) and long `@all` parent lists, every model's lengths raised to
/// their largest. Nothing is capped here: the product's own limits (the
/// readers' sizes, validation, each model's work budget) must keep every
/// input inside the fuzzer's 512 MB and 10 s, and every report finite.
///
/// The example starts with its lengths bounded as in `evaluate`, so the
/// work is what the changes make it; `lengths_raised` lifts them again.
/// Sizes are drawn with a light tail (`size`): the largest come up in
/// about one input in a hundred (libFuzzer still keeps many of them in
/// its corpus: docs/reliability.md, "Runs and findings").
fn structure(data: &[u8]) {
    let mut u = arbitrary::Unstructured::new(data);
    let Ok(pick) = u.choose_index(EXAMPLES.len()) else {
        return;
    };
    let Ok(mut s) = ddnn_planner::models::from_json(EXAMPLES[pick]) else {
        return;
    };
    bound_runtime(&mut s);
    let changes = u.int_in_range(1..=4u8).unwrap_or(1);
    for _ in 0..changes {
        let Ok(kind) = u.int_in_range(0..=6u8) else {
            break;
        };
        match kind {
            0 => more_types(&mut u, &mut s),
            1 => quotas(&mut u, &mut s),
            2 => groups(&mut u, &mut s),
            3 => li_profile_of(&mut u, &mut s),
            4 => paleo_network(&mut u, &mut s),
            5 => lengths_raised(&mut u, &mut s),
            _ => long_name(&mut u, &mut s),
        }
    }
    // Larger documents are refused by every reader before they are read:
    // measured as the smallest text that holds them (compact JSON, as a
    // file or link may carry them), counted, not written out.
    if compact_len(&s) > ddnn_planner::scenario::MAX_SCENARIO_BYTES {
        return;
    }
    for &m in MODELS {
        // Work its budget admits runs for seconds natively by design, and
        // ten times longer instrumented: past 1% of the budget, only the
        // statement is checked here (what it says, and that it is
        // finite); the benchmarks time the largest accepted inputs.
        let work = if validate_for(m, &s).is_empty() {
            m.work(&s)
        } else {
            Vec::new()
        };
        let heavy = work.iter().any(|w| w.fits() && w.units > w.limit / 100.0);
        if heavy {
            assert!(
                work.iter().all(|w| w.units.is_finite()),
                "{}: {work:?}",
                m.id()
            );
            continue;
        }
        if let Ok(r) = ddnn_planner::models::evaluate(m, &s) {
            if let Some(at) = r.non_finite() {
                panic!("{}: a number that is not finite at {at}", m.id());
            }
        }
    }
}

/// The scenario's length as compact JSON, counted as it is written.
fn compact_len(s: &Scenario) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            if self.0 > ddnn_planner::scenario::MAX_SCENARIO_BYTES {
                // Past the limit: the rest need not be counted.
                return Err(std::io::Error::other("over the limit"));
            }
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, s);
    c.0
}

/// A size in 0..=max: log-uniform in the least of three bytes, so
/// over a tenth of `max` about one time in a hundred (log-uniform in one
/// byte, one in six, and then the largest inputs take most of the run).
fn size(u: &mut arbitrary::Unstructured, max: usize) -> usize {
    let mut b = u8::MAX;
    for _ in 0..3 {
        b = b.min(u.arbitrary::<u8>().unwrap_or(0));
    }
    ((max as f64 + 1.0).powf(f64::from(b) / 255.0) - 1.0).round() as usize
}

/// Copies of the catalog's types under new names (up to 5,000 types),
/// each measured for spotDNN as its original is, so its plan searches
/// get as many types.
fn more_types(u: &mut arbitrary::Unstructured, s: &mut Scenario) {
    use ddnn_planner::models::spotdnn::section::{Measured, SpotDnnSettings};
    let n = size(u, 5_000);
    let base = s.hardware.catalog.clone();
    if base.is_empty() {
        return;
    }
    let mut spot = s.section::<SpotDnnSettings>("spotdnn").ok();
    let mut written = 0;
    for i in 0..n {
        let mut t = base[i % base.len()].clone();
        if !within_document(&mut written, &t.name) {
            break;
        }
        let name = format!("{} copy {i}", t.name);
        if let Some(sp) = spot.as_mut() {
            if let Some(m) = sp.measured.iter().find(|m| m.instance == t.name).cloned() {
                sp.measured.push(Measured {
                    instance: name.clone(),
                    ..m
                });
            }
        }
        t.name = name;
        s.hardware.catalog.push(t);
    }
    if let Some(sp) = spot.filter(|_| s.models.contains_key("spotdnn")) {
        s.set_section("spotdnn", &sp);
    }
}

/// Counts `name`'s bytes into `written`, names copied so far; false past
/// a document's limit, which no reader lets in (a 4 MB name copied a
/// thousand times would be the run's memory, not the product's).
fn within_document(written: &mut usize, name: &str) -> bool {
    *written += name.len();
    *written <= ddnn_planner::scenario::MAX_SCENARIO_BYTES
}

/// A quota of up to 64 on the first up to 64 types (spotDNN's search).
fn quotas(u: &mut arbitrary::Unstructured, s: &mut Scenario) {
    let types = size(u, 64);
    let quota = size(u, 64) as u32;
    for t in s.hardware.catalog.iter_mut().take(types) {
        t.quota = Some(quota);
    }
}

/// Up to 5,000 worker groups over the catalog, each of up to 5,000.
fn groups(u: &mut arbitrary::Unstructured, s: &mut Scenario) {
    let n = size(u, 5_000);
    let count = size(u, 5_000).max(1) as u32;
    let Some(first) = s.hardware.cluster.workers.first().cloned() else {
        return;
    };
    let names: Vec<String> = s.hardware.catalog.iter().map(|t| t.name.clone()).collect();
    let mut written = 0;
    for i in 0..n {
        let mut g = first.clone();
        if let Some(name) = names.get(i % names.len().max(1)) {
            if !within_document(&mut written, name) {
                break;
            }
            g.instance = name.clone();
        }
        g.count = count;
        g.batch_size = 1 + (i as u32 % 512);
        s.hardware.cluster.workers.push(g);
    }
}

/// A Li et al. profile of up to 150,000 ops (half again the reader's
/// `MAX_OPS`, so its refusal is reached; more only costs time): a chain,
/// a fan-in onto one op, or a chain closed into a cycle, amounts at the
/// edges.
fn li_profile_of(u: &mut arbitrary::Unstructured, s: &mut Scenario) {
    let n = size(u, 150_000).max(1);
    let shape = u.int_in_range(0..=2u8).unwrap_or(0);
    let amount = EDGES[u.choose_index(EDGES.len()).unwrap_or(6)];
    // Built whole, not read from text: the reader and its limits have
    // their own target (`li_profile`), and parsing 10⁵ ops would take
    // most of this one's time. Validation must refuse what the reader
    // would (over `MAX_OPS`, cycles, amounts out of range).
    use ddnn_planner::models::li::profile::{Op, Resource};
    let resources = [
        Resource::Downlink,
        Resource::Worker,
        Resource::Uplink,
        Resource::Ps,
    ];
    let ops = (0..n)
        .map(|i| Op {
            name: format!("op{i}"),
            resource: resources[i % 4],
            deps: match shape {
                0 if i > 0 => vec![i as u32 - 1],
                1 if i + 1 == n => (0..i as u32).collect(),
                2 => vec![((i + n - 1) % n) as u32],
                _ => Vec::new(),
            },
            tensor: None,
        })
        .collect();
    let p = LiProfile {
        name: "fuzz".into(),
        batch: 32,
        ops,
        steps: vec![vec![amount; n]],
    };
    use ddnn_planner::models::li::section::LiSettings;
    let mut li = s.section::<LiSettings>("li").unwrap_or_default();
    li.profile = Some(p);
    li.generate = None;
    li.profile_ref = None;
    s.set_section("li", &li);
}

/// A Paleo network with one `ModelParallel` block of up to 10⁸ splits
/// (written whole or as a float) and a layer with up to 50,000 `@all`
/// parents, read by the importer; what it accepts becomes the network.
fn paleo_network(u: &mut arbitrary::Unstructured, s: &mut Scenario) {
    let splits = size(u, 100_000_000).max(1);
    let float = u.arbitrary::<bool>().unwrap_or(false);
    let parents = size(u, 50_000);
    let splits_json = if float {
        format!("{:e}", splits as f64)
    } else {
        splits.to_string()
    };
    let all = vec!["\"p/a@all\""; parents.max(1)].join(",");
    let text = format!(
        r#"{{"name": "fuzz", "layers": {{
            "data": {{"type": "Input", "tensor": [1, 8, 8, 3]}},
            "p": {{"type": "ModelParallel", "splits": {splits_json}, "parents": ["data"], "layers": {{
                "a": {{"type": "Convolution", "filter": [3, 3, 3, 64], "padding": "SAME", "strides": [1, 1, 1, 1], "parents": []}}
            }}}},
            "q": {{"type": "Concatenate", "parents": [{all}]}}
        }}}}"#
    );
    if let Ok(imported) = import_paleo(&text) {
        s.workload.network = imported.network;
    }
}

/// Every model's lengths (steps, seeds, workers, sweeps) raised, up to the
/// largest each accepts (validation refuses what is over).
fn lengths_raised(u: &mut arbitrary::Unstructured, s: &mut Scenario) {
    use ddnn_planner::models::cynthia::section::CynthiaSettings;
    use ddnn_planner::models::li::section::LiSettings;
    use ddnn_planner::models::spotdnn::section::SpotDnnSettings;
    use ddnn_planner::models::stash::section::StashSettings;
    use ddnn_planner::models::zeng::section::ZengSettings;
    let n = |u: &mut arbitrary::Unstructured, max: usize| size(u, max).max(1) as u32;
    if let Ok(mut li) = s.section::<LiSettings>("li") {
        li.steps = n(u, 100_000);
        li.seeds = n(u, 20);
        li.max_workers = n(u, 64);
        s.set_section("li", &li);
    }
    let mut z = s.section::<ZengSettings>("zeng").unwrap_or_default();
    z.sweep_max_workers = n(u, 256);
    s.set_section("zeng", &z);
    let mut c = s.section::<CynthiaSettings>("cynthia").unwrap_or_default();
    c.max_workers = n(u, 256);
    s.set_section("cynthia", &c);
    if let Ok(mut sp) = s.section::<SpotDnnSettings>("spotdnn") {
        sp.max_workers = n(u, 256);
        s.set_section("spotdnn", &sp);
    }
    if let Ok(mut st) = s.section::<StashSettings>("stash") {
        st.max_machines = n(u, 64);
        s.set_section("stash", &st);
    }
}

/// A title or a catalog name of up to 4 MB.
fn long_name(u: &mut arbitrary::Unstructured, s: &mut Scenario) {
    let name = "n".repeat(size(u, 4_000_000));
    if u.arbitrary::<bool>().unwrap_or(false) {
        s.title = name;
    } else if let Some(t) = s.hardware.catalog.first_mut() {
        t.name = name;
    }
}
