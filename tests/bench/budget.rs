//! `cargo bench --bench budget`: the work budget's worst cases (issue 32).
//! For each kind of input, the largest one the product accepts (just
//! under each model's work budget, or at each reader's limit), built here,
//! run as a user runs it: the model through `models::evaluate`, the file
//! through its reader. Each case records its wall time (one run when it
//! takes a second or more, else the median of five) and the peak heap the
//! process held during it, the input included, counted by this binary's
//! global allocator (what the product allocates, without the OS's noise).
//! Target (issue 32): under 10 s and 512 MB each.

mod timing;

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use ddnn_planner::calibration::{calibrate_model, FitOptions};
use ddnn_planner::hardware::{Instance, Precision, WorkerGroup, MAX_CATALOG_ENTRIES, MAX_WORKERS};
use ddnn_planner::models::li::chrome::{MAX_EVENTS, MAX_HELD_BYTES, MAX_TRACE_BYTES};
use ddnn_planner::models::li::presets::{example as li_example, inception_v3_profile};
use ddnn_planner::models::li::profile::{Op, Profile, Resource, MAX_OPS};
use ddnn_planner::models::li::section::LiSettings;
use ddnn_planner::models::spotdnn::presets::current_catalog_example;
use ddnn_planner::models::spotdnn::section::{Measured, SpotDnnSettings};
use ddnn_planner::models::stash::presets::{p3_example, table1_catalog};
use ddnn_planner::models::stash::section::StashSettings;
use ddnn_planner::models::zeng::section::ZengSettings;
use ddnn_planner::models::{
    by_id, evaluate, evaluate_all, from_json, importer, read_json, validate_for, Model, MODELS,
};
use ddnn_planner::scenario::{Scenario, MAX_SCENARIO_BYTES};
use ddnn_planner::workload::network::MAX_LAYERS;
use ddnn_planner::workload::paleo::MAX_PARENT_LINKS;
use ddnn_planner::workload::{Layer, Network};
use timing::record;

// Only Zeng et al.'s 500-run set is used here; the other models' sets
// serve the calibration bench.
#[path = "../suite/calibration_runs50.rs"]
#[allow(dead_code)]
mod runs50;

/// The system allocator, counting the bytes held and their peak.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let held = HELD.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(held, Ordering::Relaxed);
}

fn shrank(n: usize) {
    HELD.fetch_sub(n, Ordering::Relaxed);
}

// SAFETY: every call is passed to `System` unchanged; only the counters
// are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs the case `run` on the input `input()` makes, and records `key`:
/// seconds (one run if it takes a second or more, else the median of
/// five, each on a fresh input), the peak heap held during the first run
/// above what the bench held before its input was made (the input
/// included), that input's heap, and `what`. `run` says what it
/// computed, or why it refused. Returns that peak [B].
fn case<I>(
    key: &str,
    what: &str,
    mut input: impl FnMut() -> I,
    mut run: impl FnMut(I) -> Result<String, String>,
) -> usize {
    let before = HELD.load(Ordering::Relaxed);
    let x = input();
    let held = HELD.load(Ordering::Relaxed);
    PEAK.store(held, Ordering::Relaxed);
    let t = Instant::now();
    let outcome = run(x);
    let first = t.elapsed().as_secs_f64();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    let input_bytes = held.saturating_sub(before);
    let mut times = vec![first];
    if first < 1.0 {
        for _ in 0..4 {
            let x = input();
            let t = Instant::now();
            let _ = run(x);
            times.push(t.elapsed().as_secs_f64());
        }
    }
    times.sort_by(f64::total_cmp);
    let seconds = times[times.len() / 2];
    let (ok, said) = match outcome {
        Ok(s) => (true, s),
        Err(e) => (false, e),
    };
    println!(
        "{what}: {seconds:.3} s, peak heap {:.1} MB (input {:.1} MB); {}: {said}",
        peak as f64 / 1e6,
        input_bytes as f64 / 1e6,
        if ok { "ran" } else { "REFUSED" }
    );
    let fields = serde_json::json!({
        "what": what,
        "seconds": seconds,
        "runs": times.len(),
        "peak_bytes": peak,
        "input_bytes": input_bytes,
        "ok": ok,
        "said": said,
    })
    .to_string();
    // `record` takes the fields without their braces.
    record(key, &fields[1..fields.len() - 1]);
    peak
}

/// A model's case: `m` evaluated on a copy of `s`.
fn model_case(key: &str, what: &str, m: &dyn Model, s: &Scenario) {
    case(key, what, || s.clone(), |s| run_model(m, &s));
}

/// The messages of an `Unavailable`, joined.
fn said(e: &ddnn_planner::models::Unavailable) -> String {
    e.errors()
        .iter()
        .map(|f| format!("{}: {}", f.field, f.message))
        .collect::<Vec<_>>()
        .join("; ")
}

/// What `m` says of `s`: every figure computed, or why not.
fn run_model(m: &dyn Model, s: &Scenario) -> Result<String, String> {
    evaluate(m, s)
        .map(|r| format!("{} figures", r.figures.len()))
        .map_err(|e| said(&e))
}

/// `s` passes `m`'s validation and its work fits its budget.
fn accepted(m: &dyn Model, s: &Scenario) -> bool {
    validate_for(m, s).is_empty() && m.work(s).iter().all(|w| w.fits())
}

/// The largest `k` in `lo..=hi` with `fits(k)`, by bisection (`fits`
/// falls from true to false once; `lo` itself must fit).
fn largest(lo: u32, hi: u32, fits: impl Fn(u32) -> bool) -> Option<u32> {
    if !fits(lo) {
        return None;
    }
    if fits(hi) {
        return Some(hi);
    }
    let (mut ok, mut no) = (lo, hi);
    while no - ok > 1 {
        let mid = ok + (no - ok) / 2;
        if fits(mid) {
            ok = mid;
        } else {
            no = mid;
        }
    }
    Some(ok)
}

/// The work units of `m` on `s` (the first measure), for the labels.
fn units(m: &dyn Model, s: &Scenario) -> f64 {
    m.work(s).first().map_or(0.0, |w| w.units)
}

/// `x` as "2.5·10⁸".
fn sci(x: f64) -> String {
    if x <= 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let e = x.log10().floor() as i32;
    let sup: String = e
        .to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            d => "⁰¹²³⁴⁵⁶⁷⁸⁹"
                .chars()
                .nth(d.to_digit(10).unwrap_or(0) as usize)
                .unwrap_or('?'),
        })
        .collect();
    format!("{:.1}·10{sup}", x / 10f64.powi(e))
}

/// `n` with thousands separators: 10,000.
fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn model(id: &str) -> &'static dyn Model {
    by_id(id).unwrap_or_else(|| panic!("{id} is registered"))
}

/// `n` made-up conv layers (the largest layer table is `MAX_LAYERS`).
fn network(n: usize) -> Network {
    let layers = (0..n)
        .map(|i| Layer::conv(&format!("conv{i}"), 64, 3, 64, 28))
        .collect();
    Network {
        pushes: Some(50),
        ..Network::from_layers("budget", layers)
    }
}

/// `n` catalog entries: copies of `base`, renamed and priced apart.
fn copies(base: &[Instance], n: usize) -> Vec<Instance> {
    (0..n)
        .map(|i| {
            let mut t = base[i % base.len()].clone();
            if i >= base.len() {
                t.name = format!("{} #{}", t.name, i / base.len() + 1);
            }
            let f = 1.0 + i as f64 / n as f64;
            t.price_per_hour = t.price_per_hour.map(|p| p * f);
            t.spot_price_per_hour = t.spot_price_per_hour.map(|p| p * f);
            t
        })
        .collect()
}

fn main() {
    // `cargo bench --bench budget -- li trace` runs only the cases named.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let cases: [(&str, fn()); 13] = [
        ("li", li),
        ("spotdnn", spotdnn),
        ("cynthia", cynthia),
        ("zeng", zeng),
        ("stash", stash),
        ("calibration", calibration),
        ("scenario", scenario_document),
        ("catalog", catalog_file),
        ("paleo", paleo_file),
        ("li_profile", li_profile_file),
        ("trace", trace_file),
        ("trace_gz", trace_gz_file),
        ("trace_names", trace_names_file),
    ];
    for (name, run) in cases {
        if only.is_empty() || only.iter().any(|o| o == name) {
            run();
        }
    }
}

/// Li et al.: the Inception v3 profile per op, W = 1..64, one seed, the
/// steps raised to the budget of ops simulated.
fn li() {
    let li = model("li");
    let build = |steps: u32| {
        let mut s = li_example();
        let set = LiSettings {
            profile: inception_v3_profile().ok(),
            generate: None,
            max_workers: 64,
            seeds: 1,
            steps,
            warmup: 0,
            ..LiSettings::default()
        };
        s.set_section("li", &set);
        s
    };
    let Some(steps) = largest(1, 1_000_000, |k| accepted(li, &build(k))) else {
        println!("Li et al.: no step count is accepted");
        return;
    };
    let s = build(steps);
    let what = format!(
        "Li et al., {} ops simulated (its budget): the Inception v3 profile per op, W = 1..64 × {steps} steps, one seed",
        sci(units(li, &s))
    );
    model_case("budget.li", &what, li, &s);
}

/// spotDNN: the shipped current catalog at quota 63 (the worker cap), and
/// copies of its measured GPU types priced apart (so no two are
/// interchangeable), their number raised to the budget of plan search
/// steps or the catalog's limit.
fn spotdnn() {
    let m = model("spotdnn");
    let base = current_catalog_example(63);
    let set: SpotDnnSettings = base.section("spotdnn").unwrap_or_default();
    let measured: Vec<Instance> = base
        .hardware
        .catalog
        .iter()
        .filter(|i| set.measured.iter().any(|x| x.instance == i.name))
        .cloned()
        .collect();
    let build = |extra: u32| {
        let mut s = base.clone();
        let mut set = set.clone();
        for k in 0..extra as usize {
            let Some(mut inst) = measured.get(k % measured.len().max(1)).cloned() else {
                break;
            };
            let original = inst.name.clone();
            inst.name = format!("{original} #{}", k / measured.len() + 2);
            // 0.8 to 1.2 of the original's prices, scattered.
            let f = 0.8 + 0.4 * ((k * 37) % 101) as f64 / 100.0;
            inst.price_per_hour = inst.price_per_hour.map(|p| p * f);
            inst.spot_price_per_hour = inst.spot_price_per_hour.map(|p| p * f);
            set.measured.push(Measured {
                instance: inst.name.clone(),
                iteration_s: None,
                same_gpu_as: Some(original),
            });
            s.hardware.catalog.push(inst);
        }
        s.set_section("spotdnn", &set);
        s
    };
    let room = MAX_CATALOG_ENTRIES.saturating_sub(base.hardware.catalog.len()) as u32;
    let Some(extra) = largest(0, room, |k| accepted(m, &build(k))) else {
        println!("spotDNN: the current catalog at quota 63 is not accepted");
        return;
    };
    let s = build(extra);
    let what = format!(
        "spotDNN, {} plan search steps (its budget, 10¹⁰, {}): the current catalog's {} measured types and {extra} copies priced apart, quota 63 each, ≤ 63 workers; plans, fastest, frontier and replan",
        sci(units(m, &s)),
        if extra == room { "not reached: the catalog's limit" } else { "reached" },
        measured.len()
    );
    model_case("budget.spotdnn", &what, m, &s);
}

/// Cynthia: the shipped m4 example with a catalog of the most entries
/// accepted and the search to its most workers.
fn cynthia() {
    let m = model("cynthia");
    let mut s = match from_json(include_str!("../../public/examples/cifar10-bsp-m4.json")) {
        Ok(s) => s,
        Err(e) => return println!("Cynthia: the example does not read: {e}"),
    };
    s.hardware.catalog = copies(&s.hardware.catalog, MAX_CATALOG_ENTRIES);
    let mut set: ddnn_planner::models::cynthia::section::CynthiaSettings =
        s.section("cynthia").unwrap_or_default();
    set.max_workers = 256;
    s.set_section("cynthia", &set);
    let what = format!(
        "Cynthia, {} candidate clusters ({} types × 1 ≤ n_ps ≤ n_wk ≤ 256; the budget, 2·10⁸, is out of reach of the inputs): plans and curves",
        sci(units(m, &s)),
        count(MAX_CATALOG_ENTRIES)
    );
    if !accepted(m, &s) {
        println!("Cynthia: {:?}", validate_for(m, &s));
    }
    model_case("budget.cynthia", &what, m, &s);
}

/// Zeng et al.: the largest layer table, the most workers (4,096) in as many distinct
/// groups (batch sizes) as the budget of push-queue positions takes,
/// sweeps to 256 workers.
fn zeng() {
    let m = model("zeng");
    let base = {
        let mut s = Scenario::example();
        s.workload.network = network(MAX_LAYERS);
        s.set_section(
            "zeng",
            &ZengSettings {
                sweep_max_workers: 256,
                ..ZengSettings::default()
            },
        );
        s
    };
    let device = base
        .hardware
        .cluster
        .workers
        .first()
        .map(|g| g.instance.clone())
        .unwrap_or_default();
    let build = |groups: u32| {
        let mut s = base.clone();
        s.hardware.cluster.workers = (0..groups)
            .map(|i| WorkerGroup {
                instance: device.clone(),
                count: MAX_WORKERS / groups + u32::from(i < MAX_WORKERS % groups),
                batch_size: 16 + i,
            })
            .collect();
        s
    };
    let Some(groups) = largest(1, MAX_WORKERS, |k| accepted(m, &build(k))) else {
        println!("Zeng et al.: no cluster is accepted");
        return;
    };
    let s = build(groups);
    let what = format!(
        "Zeng et al., {} push-queue positions (its budget): {} layers, {} workers (the most) in {groups} distinct groups, sweeps to 256 workers",
        sci(units(m, &s)),
        count(MAX_LAYERS),
        count(MAX_WORKERS as usize)
    );
    model_case("budget.zeng", &what, m, &s);
}

/// Stash: the most catalog entries (GPU types) × the most machines, and
/// the most runs (repeats of the example's, averaged).
fn stash() {
    let m = model("stash");
    let mut s = p3_example();
    s.hardware.catalog = copies(&table1_catalog(), MAX_CATALOG_ENTRIES);
    s.hardware.precision = Precision::Fp32;
    let mut set: StashSettings = s.section("stash").unwrap_or_default();
    let runs = set.runs.clone();
    let most = ddnn_planner::models::stash::section::MAX_RUNS;
    set.runs = runs.iter().cycle().take(most).cloned().collect();
    set.max_machines = 64;
    s.set_section("stash", &set);
    if !accepted(m, &s) {
        println!("Stash: {:?}", validate_for(m, &s));
    }
    let what = format!(
        "Stash, {} configurations ({} types × 64 machines + {} runs; the budget, 10⁶, is out of reach of the inputs)",
        sci(units(m, &s)),
        count(MAX_CATALOG_ENTRIES),
        count(most)
    );
    model_case("budget.stash", &what, m, &s);
}

/// The calibration at its run limit: the 50 runs of the calibration bench
/// ten times over (500 runs), Zeng et al. with leave-one-out.
fn calibration() {
    let mut s = runs50::scenario();
    let fifty = s.runs.clone();
    s.runs = (0..10)
        .flat_map(|k| {
            fifty.iter().map(move |r| {
                let mut r = r.clone();
                r.label = format!("{} ({k})", r.label);
                r
            })
        })
        .collect();
    let n = s.runs.len();
    let zeng = model("zeng");
    case(
        "budget.calibration",
        &format!(
            "calibration of Zeng et al. on {} runs with leave-one-out ({} run-refits, its budget)",
            count(n),
            sci((n * n) as f64)
        ),
        || s.clone(),
        |s| {
            calibrate_model(&s, zeng, &FitOptions::default())
                .map(|c| format!("{} factors", c.factors.len()))
                .map_err(|e| e.to_string())
        },
    );
}

/// A scenario document just under `MAX_SCENARIO_BYTES`: the largest layer
/// table, the largest catalog and as many measured runs as fit, read,
/// validated and evaluated by every model, runs compared, as `eval` does.
fn scenario_document() {
    let mut s = Scenario::example();
    s.workload.network = network(MAX_LAYERS);
    s.hardware.catalog = copies(&s.hardware.catalog, MAX_CATALOG_ENTRIES);
    let run = ddnn_planner::runs::Run {
        label: "run".into(),
        workers: s.hardware.cluster.workers.clone(),
        ps: None,
        iteration_s: Some(1.0),
        throughput: None,
        source: "budget bench".into(),
        published: None,
        lacks: None,
    };
    let with_runs = |n: u32| {
        let mut t = s.clone();
        t.runs = (0..n)
            .map(|i| ddnn_planner::runs::Run {
                label: format!("run {i}"),
                iteration_s: Some(1.0 + f64::from(i % 100) / 100.0),
                ..run.clone()
            })
            .collect();
        t
    };
    let most = ddnn_planner::runs::MAX_RUNS as u32;
    let fits = |n: u32| with_runs(n).to_json().len() <= MAX_SCENARIO_BYTES;
    let Some(n) = largest(0, most, fits) else {
        println!("scenario: the largest layer table and catalog alone pass the size limit");
        return;
    };
    // At the run limit, each run's source note grows to fill the rest.
    let sourced = |chars: u32| {
        let mut t = with_runs(n);
        for r in &mut t.runs {
            r.source = "s".repeat(chars as usize);
        }
        t
    };
    let chars = ddnn_planner::runs::MAX_SOURCE_CHARS as u32;
    let text = match largest(1, chars, |c| {
        sourced(c).to_json().len() <= MAX_SCENARIO_BYTES
    }) {
        Some(c) => sourced(c).to_json(),
        None => with_runs(n).to_json(),
    };
    let what = format!(
        "scenario document, {:.2} MiB (the limit: 8 MiB): {} layers, {} catalog entries, {} runs with source notes; read, validated, every model evaluated (those lacking an input say which) and the runs compared",
        text.len() as f64 / 1048576.0,
        count(MAX_LAYERS),
        count(MAX_CATALOG_ENTRIES),
        count(n as usize)
    );
    drop(s);
    case(
        "budget.scenario",
        &what,
        || text.clone(),
        |text| {
            let loaded = read_json(&text).map_err(|e| e.to_string())?;
            let s = loaded.scenario;
            let reports = evaluate_all(&s);
            let ran = reports.iter().filter(|(_, r)| r.is_ok()).count();
            let runs = ddnn_planner::runs::evaluate(&s, MODELS).map_err(|e| said(&e))?;
            Ok(format!(
                "{ran} of {} models reported, runs: {} figures",
                reports.len(),
                runs.figures.len()
            ))
        },
    );
}

/// A catalog file of the most entries, each with a source note long
/// enough to bring the file just under its 5 MB limit.
fn catalog_file() {
    let base = Scenario::example().hardware.catalog;
    let mut list = copies(&base, MAX_CATALOG_ENTRIES);
    let plain = serde_json::to_string(&list).unwrap_or_default().len();
    let room = (5 * 1024 * 1024 - plain - 1000) / MAX_CATALOG_ENTRIES;
    for i in &mut list {
        i.source.push_str(&" (budget bench)".repeat(room / 15));
    }
    let bytes = serde_json::to_string(&list)
        .unwrap_or_default()
        .into_bytes();
    drop(list);
    let what = format!(
        "catalog file, {} entries, {:.2} MiB (the limits: 1,000 entries, 5 MiB); read and checked",
        count(MAX_CATALOG_ENTRIES),
        bytes.len() as f64 / 1048576.0
    );
    read_file(
        "budget.catalog",
        &what,
        "catalog",
        "catalog.json",
        &bytes,
        "null",
    );
}

/// Reads `bytes` with the importer `id`, as the page's import worker and
/// the CLI do.
fn read_file(key: &str, what: &str, id: &str, name: &str, bytes: &[u8], options: &str) {
    let Some(reader) = importer(id) else {
        return println!("no reader {id}");
    };
    case(
        key,
        what,
        || bytes.to_vec(),
        |bytes| {
            reader
                .run(name, bytes, options)
                .map(|json| format!("read, {} bytes of JSON", json.len()))
                .map_err(|e| e.to_string())
        },
    );
}

/// A Paleo network of the most layers and parent links: an input, then
/// elementwise layers each on the 16 before it (a convolution every
/// hundredth, so the layer table is not empty).
fn paleo_file() {
    let mut t = String::from(r#"{"name": "budget", "layers": {"#);
    t.push_str(r#""data": {"type": "Input", "parents": [], "tensor": [8, 28, 28, 64]}"#);
    let name = |i: usize| {
        if i == 0 {
            "data".to_string()
        } else {
            format!("l{i}")
        }
    };
    let per = MAX_PARENT_LINKS / MAX_LAYERS;
    let mut links = 0;
    for i in 1..MAX_LAYERS {
        if i % 100 == 0 {
            let _ = write!(
                t,
                r#", "{}": {{"type": "Convolution", "parents": ["{}"], "filter": [3, 3, 64, 64], "strides": [1, 1, 1, 1], "padding": "SAME"}}"#,
                name(i),
                name(i - 1)
            );
            links += 1;
        } else {
            let parents: Vec<String> = (i.saturating_sub(per)..i)
                .map(|p| format!("\"{}\"", name(p)))
                .collect();
            links += parents.len();
            let _ = write!(
                t,
                r#", "{}": {{"type": "Elementwise", "parents": [{}]}}"#,
                name(i),
                parents.join(", ")
            );
        }
    }
    t.push_str("}}");
    let what = format!(
        "Paleo network file, {} layers, {} parent links, {:.2} MiB (the limits: {} layers, {} links, 5 MiB); read, shapes inferred",
        count(MAX_LAYERS),
        count(links),
        t.len() as f64 / 1048576.0,
        count(MAX_LAYERS),
        count(MAX_PARENT_LINKS)
    );
    let bytes = t.into_bytes();
    read_file(
        "budget.paleo",
        &what,
        "layers",
        "budget.paleo.json",
        &bytes,
        "null",
    );
}

/// A Li et al. profile of the most ops, chained layer by layer, with as
/// many profiled steps as fit in the 8 MiB a CLI import may have.
fn li_profile_file() {
    let ops: Vec<Op> = (0..MAX_OPS)
        .map(|i| Op {
            name: format!("o{i}"),
            resource: match i % 4 {
                0 => Resource::Downlink,
                1 => Resource::Worker,
                2 => Resource::Uplink,
                _ => Resource::Ps,
            },
            deps: if i == 0 {
                Vec::new()
            } else {
                vec![(i - 1) as u32]
            },
            tensor: Some(format!("t{}", i / 4)),
        })
        .collect();
    let step: Vec<f64> = (0..MAX_OPS)
        .map(|i| if i % 2 == 0 { 4096.0 } else { 1e-4 })
        .collect();
    let profile = |k: usize| Profile {
        name: "budget".into(),
        batch: 32,
        ops: ops.clone(),
        steps: vec![step.clone(); k],
    };
    let len = |k: usize| serde_json::to_string(&profile(k)).map_or(usize::MAX, |t| t.len());
    let Some(k) = largest(1, 64, |k| len(k as usize) <= MAX_SCENARIO_BYTES) else {
        return println!("Li profile: {MAX_OPS} ops alone pass 8 MiB");
    };
    let bytes = serde_json::to_string(&profile(k as usize))
        .unwrap_or_default()
        .into_bytes();
    drop((ops, step));
    let what = format!(
        "Li et al. profile file, {} ops (the limit) × {k} profiled steps, {:.2} MiB (a CLI import: 8 MiB); read and checked",
        count(MAX_OPS),
        bytes.len() as f64 / 1048576.0
    );
    read_file(
        "budget.li_profile",
        &what,
        "li.profile",
        "profile.json",
        &bytes,
        "null",
    );
}

/// A Chrome trace just under `MAX_TRACE_BYTES` holding just under
/// `MAX_EVENTS` events the import keeps: PyTorch-shaped steps of 1,000
/// CPU ops and 1,000 kernels each (complete events, all kept), then
/// allocator counter samples (counted, not kept) up to the size limit;
/// read with the default mapping and the example's layer table. Its
/// text and the events kept. With `steps`, that many steps and no
/// samples.
fn trace(steps: Option<usize>) -> (String, usize) {
    let limit = MAX_TRACE_BYTES as usize - 4096;
    let mut t = String::with_capacity(limit + 4096);
    t.push_str("{\"traceEvents\": [\n");
    t.push_str(r#"{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"python"}}"#);
    let mut kept = 1usize;
    let mut ts = 0u64;
    let mut step = 1;
    while kept + 2001 < MAX_EVENTS && t.len() + 300_000 < limit && steps.is_none_or(|n| step <= n) {
        let _ = write!(
            t,
            ",\n{{\"ph\":\"X\",\"name\":\"ProfilerStep#{step}\",\"cat\":\"user_annotation\",\"pid\":1,\"tid\":1,\"ts\":{ts},\"dur\":20000}}"
        );
        for k in 0..1000 {
            let _ = write!(
                t,
                ",\n{{\"ph\":\"X\",\"name\":\"aten::op_{k}\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":{},\"dur\":8,\"args\":{{\"External id\":{k}}}}}",
                ts + 20 * k
            );
            let _ = write!(
                t,
                ",\n{{\"ph\":\"X\",\"name\":\"kernel_{k}\",\"cat\":\"kernel\",\"pid\":2,\"tid\":7,\"ts\":{},\"dur\":9,\"args\":{{\"stream\":7}}}}",
                ts + 20 * k + 10
            );
        }
        kept += 2001;
        ts += 20_000;
        step += 1;
    }
    let mut n = 0u64;
    while steps.is_none() && t.len() + 200 < limit {
        let _ = write!(
            t,
            ",\n{{\"ph\":\"C\",\"name\":\"GPU_0_bfc\",\"pid\":9,\"tid\":0,\"ts\":{n},\"args\":{{\"allocated_bytes\":{}}}}}",
            n * 64
        );
        n += 1;
    }
    t.push_str("\n]}");
    (t, kept)
}

/// Issue 32's bound on a trace case: the peak heap of its first run, its
/// input included, under 512 MB; else the bench fails.
fn within_bound(key: &str, peak: usize) {
    const BOUND: usize = 512_000_000;
    if peak > BOUND {
        eprintln!(
            "{key}: peak heap {:.1} MB, over the {} MB bound",
            peak as f64 / 1e6,
            BOUND / 1_000_000
        );
        std::process::exit(1);
    }
}

fn trace_file() {
    let (t, events) = trace(None);
    let what = format!(
        "Chrome trace, {:.0} MiB (the limit: 256 MiB), {} events kept (the limit: {}) and counter samples; read and imported",
        t.len() as f64 / 1048576.0,
        count(events),
        count(MAX_EVENTS)
    );
    drop(t);
    trace_case("budget.trace", &what, "trace.json", || {
        trace(None).0.into_bytes()
    });
}

/// The page's and the CLI's trace reader on the bytes `input` makes,
/// named `file`, with the example's options, measured as `key`. The
/// reader takes the bytes by value, as the page and the CLI hand them
/// over: each run's input is made anew outside the measure.
fn trace_case(key: &str, what: &str, file: &str, input: impl FnMut() -> Vec<u8>) {
    let options = serde_json::to_string(&ddnn_planner::models::li::files::trace_options(
        &li_example(),
    ))
    .unwrap_or_default();
    let Some(reader) = importer("li.trace") else {
        return println!("no reader li.trace");
    };
    let peak = case(key, what, input, |b| {
        reader
            .run(file, b, &options)
            .map(|json| format!("read, {} bytes of JSON", json.len()))
            .map_err(|e| e.to_string())
    });
    within_bound(key, peak);
}

/// Names made distinct in `trace_names`: with the 48-byte record of each
/// of the ~2·10⁶ events kept, what they hold comes just under
/// `MAX_HELD_BYTES` (a distinct name costs 88 B: its index entry and its
/// rules' target).
const DISTINCT_NAMES: u64 = 500_000;

/// The trace of `trace`, its first `DISTINCT_NAMES` names made distinct:
/// the largest trace accepted, with the 256 MiB text held and what the
/// events hold near its limit.
fn trace_names() -> String {
    let (t, _) = trace(None);
    let mut out = String::with_capacity(t.len());
    let mut n = 0u64;
    for (i, part) in t.split("\"name\":\"").enumerate() {
        if i > 0 {
            // A distinct prefix, the same length as the text it replaces,
            // on names of 7 characters or more.
            match part.find('"').filter(|&end| end >= 7 && n < DISTINCT_NAMES) {
                Some(_) => {
                    let _ = write!(out, "\"name\":\"{:07x}", n % 0x1000_0000);
                    out.push_str(part.get(7..).unwrap_or(part));
                    n += 1;
                }
                None => {
                    out.push_str("\"name\":\"");
                    out.push_str(part);
                }
            }
        } else {
            out.push_str(part);
        }
    }
    out
}

fn trace_names_file() {
    let what = format!(
        "Chrome trace, 256 MiB, {} events kept, {} of their names distinct: what they hold near its limit ({} MiB); read and imported",
        count(MAX_EVENTS - 1000),
        count(DISTINCT_NAMES as usize),
        MAX_HELD_BYTES >> 20
    );
    trace_case("budget.trace_names", &what, "trace.json", || {
        trace_names().into_bytes()
    });
}

/// `text` gzipped (level 9), as a trace file may come.
fn gzip(text: &str) -> Vec<u8> {
    use std::io::Write as _;
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let _ = z.write_all(text.as_bytes());
    z.finish().unwrap_or_default()
}

/// The issue's own bound, an input of at most 8 MiB: a gzipped Chrome
/// trace of as many steps as fit in 8 MiB compressed (found from the
/// compressed size of 50 steps, then checked), read and imported.
fn trace_gz_file() {
    let per_step = gzip(&trace(Some(50)).0).len() as f64 / 50.0;
    let mut steps = (MAX_SCENARIO_BYTES as f64 / per_step) as usize;
    let (bytes, text_len, events) = loop {
        let (t, kept) = trace(Some(steps));
        let z = gzip(&t);
        if z.len() <= MAX_SCENARIO_BYTES || steps <= 1 {
            break (z, t.len(), kept);
        }
        steps = steps * 97 / 100;
    };
    let what = format!(
        "gzipped Chrome trace, {:.2} MiB (a CLI input of at most 8 MiB), inflating to {:.0} MiB: {steps} steps, {} events kept; read and imported",
        bytes.len() as f64 / 1048576.0,
        text_len as f64 / 1048576.0,
        count(events)
    );
    trace_case("budget.trace_gz", &what, "trace.json.gz", || bytes.clone());
}
