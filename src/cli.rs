//! `ddnn-planner eval|calibrate|models|papers|url|decode|example`: the page in a terminal.
//! It reads the files the page imports, combines them into the scenario
//! document the page carries in its URL, and prints every model's report
//! from the registry.

use std::io::{Read, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::errors::ReadError;
use crate::models::decode_fragment;
use crate::models::{by_id, evaluate, Model, Unavailable, MODELS};
use crate::report::{csv::csv, text, Report};
use crate::runs::files::apply_runs;
use crate::scenario::codec::encode_link;
use crate::scenario::files::{
    apply_loss_curve, apply_profile, merge_catalog, read_network, sniff, FileKind,
};
use crate::scenario::{Scenario, ScenarioError, MAX_SCENARIO_BYTES};
use crate::workload::listing::listing;
use crate::workload::paleo::PaleoImport;
use crate::workload::presets::{network_preset, network_presets};

#[derive(Parser)]
#[command(
    name = "ddnn-planner",
    version,
    about = "Predict distributed DNN training time and cost, and plan cloud clusters"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print every model's report for a scenario, as the page shows it.
    Eval(EvalArgs),
    /// Fit each model's factors to the measured runs: print the factors
    /// and the errors as published, calibrated and leave-one-out, and
    /// write the calibrated scenario (`-o`).
    Calibrate(CalibrateArgs),
    /// List the models and the inputs each one reads.
    Models,
    /// The papers' own accuracy: each printed measurement beside the
    /// paper's prediction, this product's recomputation and its
    /// leave-one-out calibrated prediction, per cell and per table.
    Papers {
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Li et al.'s simulation for a range of workers on every core, each W
    /// printed as it finishes.
    Simulate(SimulateArgs),
    /// Print the share fragment (or a whole link with --base).
    Url {
        scenario: String,
        /// Page address to prefix, e.g. https://example.org/ddnn-planner/
        #[arg(long)]
        base: Option<String>,
    },
    /// Print the scenario JSON carried by a fragment or link: the link
    /// itself (a fragment, `#…`, or the whole page address), a file that
    /// holds it, or `-` for standard input.
    Decode { fragment: String },
    /// Print a scenario file of any older version as the current version.
    Upgrade { scenario: String },
    /// Print the page's landing example scenario, optionally with another
    /// preset network (alexnet, vgg11, vgg16, vgg19, resnet50, …).
    Example {
        #[arg(long)]
        network: Option<String>,
    },
}

#[derive(clap::Args)]
struct EvalArgs {
    /// Scenario JSON file, or `-` for standard input; without it the
    /// page's landing example is the base the other files change.
    scenario: Option<String>,
    /// Layer table (CSV/TSV/JSON) or Paleo network JSON: the network.
    #[arg(long, value_name = "FILE")]
    network: Option<String>,
    /// Cynthia job profile JSON.
    #[arg(long, value_name = "FILE")]
    profile: Option<String>,
    /// Measured loss curve (step, loss): β0, β1 are fitted from it.
    #[arg(long, value_name = "FILE")]
    loss_curve: Option<String>,
    /// Workers of the run that produced an ASP loss curve (required under
    /// ASP: β0 scales with them, and the planned cluster is not that run).
    #[arg(long, value_name = "N")]
    loss_workers: Option<u32>,
    /// Instance catalog JSON, merged into the scenario's (same name replaces).
    #[arg(long, value_name = "FILE")]
    catalog: Option<String>,
    /// A file of one model's own inputs, `<model>.<kind>=FILE` (repeatable),
    /// e.g. `stash.runs=runs.csv`; `ddnn-planner models` lists the kinds.
    /// `runs=FILE` reads measured runs (CSV or JSON, docs/scenario.md),
    /// which every model is then held against.
    #[arg(long = "import", value_name = "MODEL.KIND=FILE")]
    imports: Vec<String>,
    /// Only these models (repeatable); `ddnn-planner models` lists them.
    #[arg(long = "model", value_name = "ID")]
    models: Vec<String>,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

#[derive(clap::Args)]
struct CalibrateArgs {
    /// Scenario JSON file, or `-` for standard input.
    scenario: String,
    /// Measured runs (CSV or JSON, docs/scenario.md), replacing the
    /// scenario's.
    #[arg(long, value_name = "FILE")]
    runs: Option<String>,
    /// Only these models (repeatable; default: every model with factors).
    #[arg(long = "model", value_name = "ID")]
    models: Vec<String>,
    /// Only these factors (repeatable, e.g. `link`); the others stay as
    /// published.
    #[arg(long = "factor", value_name = "NAME")]
    factors: Vec<String>,
    /// Starts of each fit: the published values and seeded random points.
    #[arg(long, value_name = "N", default_value_t = crate::calibration::fit::DEFAULT_STARTS)]
    starts: usize,
    /// Write the calibrated scenario here (`-`: standard output, the
    /// report then goes to standard error).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

#[derive(clap::Args)]
struct SimulateArgs {
    /// Scenario JSON file with a `models.li` section (or `--profile`).
    scenario: String,
    /// One-worker profile JSON, replacing the scenario's.
    #[arg(long, value_name = "FILE")]
    profile: Option<String>,
    /// Workers, `N` or `FROM-TO` (default: 1 to the section's most).
    #[arg(long, value_name = "RANGE")]
    workers: Option<String>,
    /// Threads (default: every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// One JSON object per line instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Json,
    Csv,
    Table,
}

/// Why a command stopped: printed after "error: ", exit status 2.
#[derive(Debug, thiserror::Error)]
enum CliError {
    #[error("reading standard input: {0}")]
    Stdin(std::io::Error),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {bytes} bytes is more than the {limit} a scenario or import may have")]
    TooLarge {
        path: String,
        bytes: u64,
        limit: u64,
    },
    /// Standard input or a special file that goes on past the limit.
    #[error("{path}: more than the {limit} bytes a scenario or import may have")]
    TooLong { path: String, limit: u64 },
    #[error("{path} is not text (UTF-8)")]
    NotText { path: String },
    /// A file given as the scenario that is another kind of file.
    #[error("{path} is not a scenario: it looks like {usage}")]
    NotAScenario { path: String, usage: &'static str },
    #[error("{path}: {error}")]
    Scenario { path: String, error: ScenarioError },
    /// A link's scenario, or one too large for a link.
    #[error(transparent)]
    Link(ScenarioError),
    /// An import whose content its reader refused (the message names
    /// the file).
    #[error(transparent)]
    Read(#[from] ReadError),
    /// An argument that names nothing this build knows, or is malformed.
    #[error("{0}")]
    Usage(String),
    /// The model cannot run on these inputs (the report's own words).
    #[error("{0}")]
    Unavailable(String),
    #[error("writing the output: {0}")]
    Output(String),
}

/// A file's text, or standard input's for `-`: read no further than the
/// size any scenario or import may have (a special file such as
/// `/dev/zero` stops there too), a leading byte-order mark dropped, as the
/// page drops it.
fn read_text(path: &str) -> Result<String, CliError> {
    let bytes = read_file(path, MAX_SCENARIO_BYTES as u64)?;
    let shown = || if path == "-" { "standard input" } else { path }.to_string();
    let text = String::from_utf8(bytes).map_err(|_| CliError::NotText { path: shown() })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// A file's bytes, or standard input's for `-`, at most `limit`.
fn read_file(path: &str, limit: u64) -> Result<Vec<u8>, CliError> {
    let mut bytes = Vec::new();
    let read = if path == "-" {
        std::io::stdin()
            .lock()
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(CliError::Stdin)?
    } else {
        let io = |source| CliError::Io {
            path: path.to_string(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        if let Ok(meta) = file.metadata() {
            if meta.is_file() && meta.len() > limit {
                return Err(CliError::TooLarge {
                    path: path.to_string(),
                    bytes: meta.len(),
                    limit,
                });
            }
        }
        file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?
    };
    if read as u64 > limit {
        let path = if path == "-" { "standard input" } else { path }.to_string();
        return Err(CliError::TooLong { path, limit });
    }
    Ok(bytes)
}

/// A link given to `decode`: `-` reads standard input, an existing file
/// its text, anything else is the link itself.
fn link_text(arg: &str) -> Result<String, CliError> {
    if arg == "-" || std::path::Path::new(arg).is_file() {
        read_text(arg)
    } else {
        Ok(arg.to_string())
    }
}

/// A scenario file; anything else gets a message saying what it is.
/// Reads a scenario file of any known version; what an upgrade changed
/// goes to stderr.
fn read_scenario(path: &str) -> Result<Scenario, CliError> {
    let text = read_text(path)?;
    let loaded = crate::models::read_json(&text).map_err(|error| match sniff(&text) {
        FileKind::Scenario | FileKind::Unknown => CliError::Scenario {
            path: path.to_string(),
            error,
        },
        kind => CliError::NotAScenario {
            path: path.to_string(),
            usage: kind.usage(),
        },
    })?;
    for n in &loaded.notes {
        eprintln!("note: {path}: {n}");
    }
    Ok(loaded.scenario)
}

/// The scenario `eval` works on: the file (or the example) with every
/// import applied, in the order the page applies them; what each import
/// read; and the Paleo import the network came from, if it did.
fn build_scenario(a: &EvalArgs) -> Result<(Scenario, Vec<String>, Option<PaleoImport>), CliError> {
    let mut s = match &a.scenario {
        Some(p) => read_scenario(p)?,
        None => Scenario::example(),
    };
    let mut log = Vec::new();
    let mut paleo = None;
    if let Some(p) = &a.network {
        let read = read_network(p, &read_text(p)?)?;
        s.workload.network = read.network;
        log.push(read.message);
        paleo = read.paleo;
    }
    if let Some(p) = &a.catalog {
        log.push(merge_catalog(&mut s, p, &read_text(p)?)?);
    }
    if let Some(p) = &a.profile {
        log.push(apply_profile(&mut s, p, &read_text(p)?)?);
    }
    if let Some(p) = &a.loss_curve {
        let asp = s
            .workload
            .profile
            .as_ref()
            .is_some_and(|p| p.sync == crate::workload::profile::SyncMode::Asp);
        let workers = match a.loss_workers {
            Some(n) => n,
            None if asp => {
                return Err(CliError::Usage(format!(
                    "--loss-curve {p}: under ASP give --loss-workers N, the workers of the run the curve was measured on (β0 scales with them; the planned cluster's count is not that run's)"
                )))
            }
            // BSP: the fit does not read it.
            None => 1,
        };
        let read = apply_loss_curve(&mut s, p, &read_text(p)?, workers);
        log.push(read?);
    }
    for spec in &a.imports {
        log.push(apply_import(&mut s, spec)?);
    }
    Ok((s, log, paleo))
}

/// `--import stash.runs=runs.csv`: the model's own reader, named in its
/// registry entry; `--import runs=FILE`: the shared measured runs.
fn apply_import(s: &mut Scenario, spec: &str) -> Result<String, CliError> {
    let usage = || {
        let kinds: Vec<String> = MODELS
            .iter()
            .flat_map(|m| {
                let keys = m.imports().iter().map(|i| i.key);
                keys.chain(m.byte_imports().iter().map(|i| i.key))
                    .map(move |key| format!("{}.{key}", m.id()))
            })
            .collect();
        CliError::Usage(format!(
            "--import {spec}: write it as runs=FILE, or MODEL.KIND=FILE with MODEL.KIND one of {}",
            kinds.join(", ")
        ))
    };
    let (kind, path) = spec.split_once('=').ok_or_else(usage)?;
    if kind == "runs" {
        let read = apply_runs(s, &read_text(path)?).map_err(|e| e.in_file(path))?;
        return Ok(format!("{path}: {read}"));
    }
    let (model, key) = kind.split_once('.').ok_or_else(usage)?;
    let model = by_id(model).ok_or_else(usage)?;
    if let Some(import) = model.byte_imports().iter().find(|i| i.key == key) {
        // Named as the page names an upload: by its file name.
        let name = match path {
            "-" => "standard input",
            p => p.rsplit(['/', '\\']).next().unwrap_or(p),
        };
        let bytes = read_file(path, import.max_bytes)?;
        let read = (import.apply)(s, name, bytes).map_err(|e| e.in_file(path))?;
        return Ok(format!("{path}: {read}"));
    }
    let import = model
        .imports()
        .iter()
        .find(|i| i.key == key)
        .ok_or_else(usage)?;
    let read = (import.apply)(s, &read_text(path)?).map_err(|e| e.in_file(path))?;
    Ok(format!("{path}: {read}"))
}

/// `wanted` in registry order, as the reports are printed.
fn wanted_in_order(wanted: &[&'static dyn Model]) -> Vec<&'static dyn Model> {
    MODELS
        .iter()
        .copied()
        .filter(|m| wanted.iter().any(|w| w.id() == m.id()))
        .collect()
}

fn selected(ids: &[String]) -> Result<Vec<&'static dyn Model>, CliError> {
    if ids.is_empty() {
        return Ok(MODELS.to_vec());
    }
    ids.iter()
        .map(|id| {
            by_id(id).ok_or_else(|| {
                let known: Vec<&str> = MODELS.iter().map(|m| m.id()).collect();
                CliError::Usage(format!("no model '{id}'; models: {}", known.join(", ")))
            })
        })
        .collect()
}

/// `evaluate`, saying on a terminal's standard error how far a model that
/// computes in parts, or its uncertainty bands' samples, has got (a long
/// simulation is never silent; Ctrl-C stops it). Nothing is written when
/// standard error is not a terminal.
fn evaluate_with_progress(m: &'static dyn Model, s: &Scenario) -> Result<Report, Unavailable> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return evaluate(m, s);
    }
    let err = std::cell::RefCell::new(std::io::stderr());
    let shown = std::cell::Cell::new(false);
    let show = |line: String| {
        let mut err = err.borrow_mut();
        let _ = write!(err, "\r\x1b[2K{line}");
        let _ = err.flush();
        shown.set(true);
    };
    let start = std::time::Instant::now();
    let r = crate::models::evaluate_progressive(
        m,
        s,
        &mut |_, done, total| show(format!("{}: {done} of {total} parts computed…", m.name())),
        &mut |_, done, total| {
            show(format!(
                "{}: bands: {} of {} samples drawn…",
                m.name(),
                crate::report::fmt_count(f64::from(done)),
                crate::report::fmt_count(f64::from(total))
            ))
        },
        &|| start.elapsed().as_secs_f64() * 1e3,
    );
    if shown.get() {
        let _ = write!(err.borrow_mut(), "\r\x1b[2K");
    }
    r
}

/// Output text and whether any model's inputs were invalid.
fn eval(a: &EvalArgs) -> Result<(String, bool), CliError> {
    let (s, log, paleo) = build_scenario(a)?;
    let network = listing(&s.workload.network, paleo.as_ref());
    // Only the models asked for are evaluated, in registry order.
    let wanted = selected(&a.models)?;
    let outcomes: Vec<_> = MODELS
        .iter()
        .filter(|m| wanted.iter().any(|w| w.id() == m.id()))
        .map(|&m| (m, evaluate_with_progress(m, &s)))
        .collect();
    // Every model held against the measured runs, when there are any.
    let runs = (!s.runs.is_empty()).then(|| crate::runs::evaluate(&s, &wanted_in_order(&wanted)));
    let invalid = outcomes
        .iter()
        .map(|(_, r)| r)
        .chain(runs.iter())
        .any(|r| matches!(r, Err(Unavailable::Invalid { .. })));
    let out = match a.format {
        Format::Json => {
            let mut map = serde_json::Map::new();
            for (m, r) in &outcomes {
                let v = match r {
                    Ok(rep) => serde_json::json!({ "report": rep }),
                    Err(u) => serde_json::json!({ "unavailable": u }),
                };
                map.insert(m.id().to_string(), v);
            }
            let mut doc = serde_json::json!({
                "title": s.display_title(),
                "imports": log,
                "network": network,
                "models": map,
            });
            if let Some(r) = &runs {
                doc["runs"] = match r {
                    Ok(rep) => serde_json::json!({ "report": rep }),
                    Err(u) => serde_json::json!({ "unavailable": u }),
                };
            }
            serde_json::to_string_pretty(&doc).map_err(|e| CliError::Output(e.to_string()))?
        }
        Format::Csv => {
            let reports: Vec<_> = outcomes
                .iter()
                .map(|(_, r)| r)
                .chain(runs.iter())
                .filter_map(|r| r.as_ref().ok().cloned())
                .collect();
            csv(&reports)
        }
        Format::Table => {
            let mut out = String::new();
            out.push_str(&format!("{}\n", s.display_title()));
            for l in &log {
                out.push_str(&format!("imported {l}\n"));
            }
            out.push_str(&text::tables(&network.tables()));
            for (m, r) in &outcomes {
                out.push('\n');
                match r {
                    Ok(rep) => out.push_str(&text::table(rep)),
                    Err(u) => {
                        out.push_str(&text::unavailable(m.name(), u.errors(), u.is_missing()))
                    }
                }
            }
            if let Some(r) = &runs {
                out.push('\n');
                match r {
                    Ok(rep) => out.push_str(&text::table(rep)),
                    Err(u) => out.push_str(&text::unavailable(
                        "Measured runs",
                        u.errors(),
                        u.is_missing(),
                    )),
                }
            }
            out
        }
    };
    if invalid {
        // The reports of the other models are printed; the problems go
        // to standard error too, where scripts look for them.
        for (m, r) in &outcomes {
            if let Err(Unavailable::Invalid { errors }) = r {
                for e in errors {
                    eprintln!("error: {}: {e}", m.name());
                }
            }
        }
        if let Some(Err(Unavailable::Invalid { errors })) = &runs {
            for e in errors {
                eprintln!("error: measured runs: {e}");
            }
        }
    }
    Ok((out, invalid))
}

/// `ddnn-planner calibrate`: the report (stdout, or stderr with `-o -`),
/// the calibrated scenario to `-o`; whether a model could not be fitted.
fn calibrate(a: &CalibrateArgs) -> Result<(String, bool), CliError> {
    use crate::calibration::{self, FitOptions};
    let mut s = read_scenario(&a.scenario)?;
    if let Some(p) = &a.runs {
        let read = apply_runs(&mut s, &read_text(p)?).map_err(|e| e.in_file(p))?;
        eprintln!("imported {p}: {read}");
    }
    let models: Vec<&'static dyn Model> = if a.models.is_empty() {
        calibration::analysis::calibrated_models(&s)
    } else {
        wanted_in_order(&selected(&a.models)?)
    };
    let opts = FitOptions {
        only: a.factors.clone(),
        starts: a.starts.clamp(1, 64),
        ..FitOptions::default()
    };
    let results = calibration::calibrate(&s, &models, &opts);
    if results.is_empty() {
        eprintln!(
            "error: no model with factors predicts these runs (each model's `eval` says why it does not)"
        );
    }
    let failed = results.is_empty() || results.iter().any(|(_, r)| r.is_err());
    let report = calibration::report::build(&results, &s.display_title());
    let text = match a.format {
        Format::Json => {
            serde_json::to_string_pretty(&report).map_err(|e| CliError::Output(e.to_string()))?
        }
        Format::Csv => csv(std::slice::from_ref(&report)),
        Format::Table => text::table(&report),
    };
    for (m, r) in &results {
        if let Err(e) = r {
            eprintln!("error: {}: not calibrated: {e}", m.name());
        }
    }
    let out = calibration::fit::with_factors(&s, &results);
    match a.output.as_deref() {
        Some("-") => {
            eprintln!("{text}");
            Ok((out.to_json(), failed))
        }
        Some(path) => {
            std::fs::write(path, out.to_json() + "\n").map_err(|source| CliError::Io {
                path: path.to_string(),
                source,
            })?;
            eprintln!("wrote the calibrated scenario to {path}");
            Ok((text, failed))
        }
        None => Ok((text, failed)),
    }
}

/// `ddnn-planner papers`: the paper check, from the shipped sets.
fn papers(format: Format) -> Result<String, CliError> {
    let report = crate::runs::papers::paper_report().map_err(|u| {
        CliError::Unavailable(text::unavailable("Paper check", u.errors(), u.is_missing()))
    })?;
    match format {
        Format::Json => {
            serde_json::to_string_pretty(&report).map_err(|e| CliError::Output(e.to_string()))
        }
        Format::Csv => Ok(csv(std::slice::from_ref(&report))),
        Format::Table => Ok(text::table(&report)),
    }
}

/// "8" or "2-10" as an inclusive range of worker counts.
fn worker_range(text: &str) -> Result<(u32, u32), CliError> {
    let bad = || {
        CliError::Usage(format!(
            "--workers {text}: write N or FROM-TO, e.g. 2-10 (1 to 64)"
        ))
    };
    let (a, b) = match text.split_once('-') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (text.trim(), text.trim()),
    };
    let a: u32 = a.parse().map_err(|_| bad())?;
    let b: u32 = b.parse().map_err(|_| bad())?;
    if a == 0 || b < a || b > 64 {
        return Err(bad());
    }
    Ok((a, b))
}

/// `ddnn-planner simulate`: the W of the range shared out to threads;
/// each line is printed when its W is done (so not in order), with the
/// coarse estimates the page draws beside it. W = 1 runs first, alone:
/// Cynthia's estimate reads its downlink share.
fn simulate(a: &SimulateArgs) -> Result<(), CliError> {
    use crate::models::li::eval::{coarse, push_point, skeleton, spread, Spread};
    let mut s = read_scenario(&a.scenario)?;
    if let Some(p) = &a.profile {
        let import = by_id("li")
            .and_then(|m| m.imports().iter().find(|i| i.key == "profile"))
            .ok_or_else(|| CliError::Usage("no Li et al. model in this build".into()))?;
        (import.apply)(&mut s, &read_text(p)?).map_err(|e| e.in_file(p))?;
    }
    let (mut e, base) = skeleton(&s).map_err(|u| {
        CliError::Unavailable(
            text::unavailable("Li et al.", u.errors(), u.is_missing())
                .trim_end()
                .to_string(),
        )
    })?;
    let seeds = e.settings.seeds;
    let (from, to) = match &a.workers {
        Some(r) => worker_range(r)?,
        None => (1, e.settings.max_workers.max(1)),
    };
    let threads = a
        .threads
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
        .clamp(1, 64);
    let out = std::sync::Mutex::new(std::io::stdout());
    let start = std::time::Instant::now();
    let json = a.json;
    if !json {
        let _ = writeln!(
            out.lock().map_err(|e| CliError::Output(e.to_string()))?,
            "{}: {} steps per worker ({} warm-up), {} seeds, {threads} threads\n{:>4}  {:>12}  {:>12}  {:>12}  {:>9}  {:>9}  {:>12}  {:>12}  {:>8}",
            e.profile.name, base.steps, base.warmup, seeds.max(1),
            "W", "mean [sa/s]", "least", "most", "down busy", "up busy", "Cynthia", "Lin et al.", "time [s]"
        );
    }
    let one = spread(&e.profile, &base, 1, seeds);
    push_point(&mut e, one);
    let e = &e;
    let print = |r: &Spread| {
        let w = r.workers;
        let (cynthia, lin) = coarse(e, w);
        let secs = start.elapsed().as_secs_f64();
        let line = if json {
            serde_json::json!({"workers": w, "mean": r.mean, "min": r.min, "max": r.max,
                "down_busy": r.down_busy, "up_busy": r.up_busy,
                "cynthia": cynthia, "lin": lin, "elapsed_s": secs})
            .to_string()
        } else {
            // Not drawn where it has no value (a step of zero time), as
            // on the page; JSON writes null.
            let shown = |v: Option<f64>| {
                v.filter(|v| v.is_finite())
                    .map_or("—".to_string(), |v| format!("{v:.4}"))
            };
            let (cynthia, lin) = (shown(Some(cynthia)), shown(lin));
            format!(
                "{w:>4}  {:>12.4}  {:>12.4}  {:>12.4}  {:>8.1}%  {:>8.1}%  {cynthia:>12}  {lin:>12}  {secs:>8.2}",
                r.mean,
                r.min,
                r.max,
                100.0 * r.down_busy,
                100.0 * r.up_busy
            )
        };
        out.lock().is_ok_and(|mut o| writeln!(o, "{line}").is_ok())
    };
    if from == 1 && !print(&one) {
        return Ok(());
    }
    let next = std::sync::atomic::AtomicU32::new(from.max(2));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let w = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if w > to || !print(&spread(&e.profile, &base, w, seeds)) {
                    break;
                }
            });
        }
    });
    Ok(())
}

fn models_list() -> String {
    let mut out = String::new();
    for m in MODELS {
        out.push_str(&format!(
            "{} — {}\n  {}\n  {}\n",
            m.id(),
            m.name(),
            m.about(),
            m.paper()
        ));
        for n in m.needs() {
            let opt = if n.optional { " (optional)" } else { "" };
            out.push_str(&format!("    {}{opt}: {}\n", n.field, n.what));
        }
        let imports = m.imports().iter().map(|i| (i.key, i.what));
        for (key, what) in imports.chain(m.byte_imports().iter().map(|i| (i.key, i.what))) {
            out.push_str(&format!("    --import {}.{key}=FILE: {what}\n", m.id()));
        }
        out.push('\n');
    }
    out
}

fn run(cli: Cli) -> Result<(String, bool), CliError> {
    match cli.command {
        Command::Eval(a) => eval(&a),
        Command::Calibrate(a) => calibrate(&a),
        Command::Models => Ok((models_list(), false)),
        Command::Papers { format } => papers(format).map(|t| (t, false)),
        Command::Simulate(a) => simulate(&a).map(|()| (String::new(), false)),
        Command::Url { scenario, base } => {
            let s = read_scenario(&scenario)?;
            let (shared, left_out) = crate::models::for_link(&s);
            for l in &left_out {
                eprintln!(
                    "note: {} is too large for a link: the link names it, and whoever opens it attaches the file",
                    l.what
                );
            }
            let frag = encode_link(&shared).map_err(CliError::Link)?;
            Ok((
                match base {
                    Some(b) => format!("{b}#{frag}"),
                    None => frag,
                },
                false,
            ))
        }
        Command::Upgrade { scenario } => Ok((read_scenario(&scenario)?.to_json(), false)),
        Command::Decode { fragment } => decode_fragment(&link_text(&fragment)?)
            .map(|s| (s.to_json(), false))
            .map_err(CliError::Link),
        Command::Example { network } => {
            let mut s = Scenario::example();
            if let Some(id) = network {
                let ids = || {
                    network_presets()
                        .iter()
                        .map(|p| p.id)
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                s.workload.network = network_preset(&id).ok_or_else(|| {
                    CliError::Usage(format!("no preset '{id}'; presets: {}", ids()))
                })?;
                s.title = format!(
                    "{} on 2× Quadro RTX 4000 + 1× GTX 1060, 1 GbE",
                    s.workload.network.name
                );
            }
            Ok((s.to_json(), false))
        }
    }
}

pub fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok((out, invalid)) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`| head -1`) is the reader saying "enough";
            // `simulate` printed its lines already.
            let text = out.trim_end();
            let write = if text.is_empty() {
                stdout.flush()
            } else {
                writeln!(stdout, "{text}").and_then(|()| stdout.flush())
            };
            match write {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("error: writing the output: {e}");
                    return ExitCode::from(2);
                }
                _ => {}
            }
            if invalid {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}
