//! The evaluation runtime's protocol and its worker side, free of web
//! crates so it is tested natively.
//!
//! The page posts the scenario to a Web Worker (`ToWorker`, as JSON
//! text), which answers with one message per model as each finishes
//! (`FromWorker`), so a slow model never holds back a fast one and a newer
//! edit can replace a computation that is still running (the page
//! terminates the worker and starts a new one). Only a model measured to
//! take a millisecond or two (`quick`) is also computed on the page, in
//! the edit's own task, so its numbers are in the edit's own frame; the
//! request names it and the worker answers it `Same`. `serve` is the whole
//! worker: the wasm glue only moves strings.
//!
//! ```text
//!  page (main thread)                    worker (externally tagged JSON:
//!                                        `{"result": {"id": 7, …}}`)
//!  ──────────────────                    ──────
//!                         ◀── ready
//!  evaluate {id, scenario} ──▶
//!                         ◀── progress {id, model, done: 0, total}
//!                         ◀── result {id, model, outcome, elapsed_ms}
//!                         ◀── link {id, fragment}   (after the first model)
//!                         ◀── progress {id, model, done: 1, total}
//!                         ◀── result …
//!                         ◀── done {id}
//! ```

pub mod imports;
pub mod parts;
pub mod quick;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::models::{self, by_id, evaluate_progressive, for_link, Model, Unavailable, MODELS};

/// Reports over every registry model, computed after the models on each
/// request and shown beside them: the measured runs against every model,
/// then the calibration on those runs.
pub static ANALYSES: &[&dyn Model] = &[
    &crate::runs::analysis::MEASURED_RUNS,
    &crate::calibration::analysis::CALIBRATE,
    &crate::runs::papers::PAPERS,
];

/// A registry model or an analysis, by id.
pub fn shown_by_id(id: &str) -> Option<&'static dyn Model> {
    by_id(id).or_else(|| ANALYSES.iter().copied().find(|a| a.id() == id))
}
use crate::report::csv::csv;
use crate::report::Report;
use crate::scenario::codec::encode_link;
use crate::scenario::{Scenario, ScenarioError};

/// What the page asks of the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToWorker {
    /// Evaluate every registry model on `scenario`; `id` grows with every
    /// edit, so answers to an older edit are recognised.
    Evaluate {
        id: u64,
        scenario: Box<Scenario>,
        /// The page has a pool of workers: a model that computes in parts
        /// answers `Split` instead of computing them here.
        #[serde(default)]
        split: bool,
        /// Models the page computed itself for this request
        /// (`quick`): computed here too, for the exports, and answered
        /// `Same`, as the page already shows them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        shown: Vec<String>,
        /// Models the page computed itself for edits replaced before they
        /// were sent: what this worker last sent for them is no longer
        /// what the page shows.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        replaced: Vec<String>,
    },
    /// Part `part` of `model`'s report of `scenario` (a pool worker).
    Part {
        id: u64,
        model: String,
        part: u32,
        scenario: Box<Scenario>,
    },
    /// `model`'s report of request `id`'s scenario from the parts done so
    /// far (`None`: not yet): a `Partial`, or with every part its `Result`.
    Assemble {
        id: u64,
        model: String,
        parts: Vec<Option<String>>,
        /// A part that failed: the model's outcome is this.
        #[serde(default)]
        failed: Option<Unavailable>,
    },
    /// Every model's newest whole report (the page holds copies with long
    /// tables cut), as a file; `id` pairs the answer with the request.
    Export { id: u64, format: ExportFormat },
    /// An input the page keeps out of its requests (what a share link
    /// leaves out: a large profile), sent once, by its storage key: put
    /// back into every scenario the page sends (`Server::put_back`).
    /// Written by `keep_request`, its JSON as it is.
    Keep {
        key: String,
        json: serde_json::Value,
    },
}

/// The results file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    Csv,
    Json,
}

/// Rows of each table the page receives; the rest stay in the worker for
/// the exports (a 1,000-type plan has tables of 64,000 rows).
pub const PAGE_TABLE_ROWS: usize = 200;

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FromWorker {
    /// Loaded and listening (messages sent earlier would have been lost).
    Ready,
    /// The share fragment of request `id`'s scenario (compressing a large
    /// scenario takes long enough to keep it off the page's thread), or
    /// why it cannot be a link.
    Link {
        id: u64,
        fragment: Result<String, ScenarioError>,
        /// Where the page keeps each input the link leaves out (a large
        /// profile): the page copies only one it does not have yet.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        left_out: Vec<String>,
    },
    /// About to evaluate `model`, the `done + 1`-th of `total`.
    Progress {
        id: u64,
        model: String,
        done: usize,
        total: usize,
    },
    /// A model's report so far (`done` of `total` parts, or of its
    /// bands' samples), while it goes on computing; its `Result` follows.
    Partial {
        id: u64,
        model: String,
        report: Box<Report>,
        done: u32,
        total: u32,
        /// What is counted: parts, or `Samples` of the bands.
        #[serde(default, skip_serializing_if = "Counted::is_parts")]
        of: Counted,
    },
    /// One model's outcome.
    Result {
        id: u64,
        model: String,
        outcome: Outcome,
        elapsed_ms: f64,
    },
    /// One model's outcome, the same as the last `Result` this worker sent
    /// for it (no `Partial` since): the page keeps what it shows, so an
    /// edit that leaves a report as it was costs it no reading or drawing.
    Same {
        id: u64,
        model: String,
        elapsed_ms: f64,
    },
    /// `model` computes in `parts` parts: the page shares them out to its
    /// pool (`Part`) and sends them back (`Assemble`) for its report.
    Split { id: u64, model: String, parts: u32 },
    /// A pool worker's part, or why it failed.
    PartDone {
        id: u64,
        model: String,
        part: u32,
        text: Result<String, Unavailable>,
    },
    /// Every model of request `id` has answered (a split model answers
    /// when its parts are assembled).
    Done { id: u64 },
    /// The results file of request `id`, or why there is none.
    Export {
        id: u64,
        format: ExportFormat,
        text: Result<String, ExportError>,
    },
    /// The request could not be read (a bug, not a user error).
    Failed { message: String },
}

/// What a `Partial`'s `done` and `total` count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counted {
    /// The model's parts (Li et al.'s worker counts).
    #[default]
    Parts,
    /// Its uncertainty bands' samples (`uncertainty::add_bands_streamed`).
    Samples,
}

impl Counted {
    fn is_parts(&self) -> bool {
        *self == Counted::Parts
    }
}

/// Why there is no results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum ExportError {
    #[error("no model has a result to export yet")]
    NoResultYet,
}

/// A model's report, or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Boxed: a report is far larger than the other messages.
    Report {
        report: Box<Report>,
    },
    Unavailable {
        why: Unavailable,
    },
}

impl From<Result<Report, Unavailable>> for Outcome {
    fn from(r: Result<Report, Unavailable>) -> Self {
        match r {
            Ok(report) => Outcome::Report {
                report: Box::new(report),
            },
            Err(why) => Outcome::Unavailable { why },
        }
    }
}

impl Outcome {
    /// A model's outcome as the page receives it: tables cut to
    /// `PAGE_TABLE_ROWS` (the worker keeps them whole, for the exports).
    pub fn trimmed(result: &Result<Report, Unavailable>) -> Self {
        match result {
            Ok(r) => Outcome::Report {
                report: Box::new(r.trimmed(PAGE_TABLE_ROWS)),
            },
            Err(why) => Outcome::Unavailable { why: why.clone() },
        }
    }

    /// A report, not why there is none.
    pub fn is_report(&self) -> bool {
        matches!(self, Outcome::Report { .. })
    }

    pub fn into_result(self) -> Result<Report, Unavailable> {
        match self {
            Outcome::Report { report } => Ok(*report),
            Outcome::Unavailable { why } => Err(why),
        }
    }
}

/// `ToWorker::Evaluate` around a scenario already written as JSON (the
/// page writes it once per edit, for this and every `part_request`).
/// `shown` and `replaced` are `ToWorker::Evaluate`'s.
pub fn evaluate_request(
    id: u64,
    scenario_json: &str,
    split: bool,
    shown: &[&str],
    replaced: &[&str],
) -> String {
    let list = |key: &str, ids: &[&str]| {
        if ids.is_empty() {
            String::new()
        } else {
            format!(",\"{key}\":{}", encode(&ids))
        }
    };
    format!(
        "{{\"evaluate\":{{\"id\":{id},\"scenario\":{scenario_json},\"split\":{split}{}{}}}}}",
        list("shown", shown),
        list("replaced", replaced)
    )
}

/// `ToWorker::Keep` around JSON already written (`json` must be JSON: a
/// share link's left-out input), not escaped into a string.
pub fn keep_request(key: &str, json: &str) -> String {
    format!("{{\"keep\":{{\"key\":{},\"json\":{json}}}}}", encode(&key))
}

/// `ToWorker::Part` around a scenario already written as JSON (the page
/// sends one per part; the scenario is written once).
pub fn part_request(id: u64, model: &str, part: u32, scenario_json: &str) -> String {
    format!(
        "{{\"part\":{{\"id\":{id},\"model\":{},\"part\":{part},\"scenario\":{scenario_json}}}}}",
        encode(&model)
    )
}

/// `FromWorker::Partial` of a report so far, its tables cut for the page.
fn partial(id: u64, model: &str, r: &Report, done: u32, total: u32, of: Counted) -> String {
    encode(&FromWorker::Partial {
        id,
        model: model.to_string(),
        report: Box::new(r.trimmed(PAGE_TABLE_ROWS)),
        done,
        total,
        of,
    })
}

/// Encodes a message for `postMessage`.
pub fn encode<T: Serialize>(msg: &T) -> String {
    serde_json::to_string(msg).unwrap_or_default()
}

/// The worker's state: each model's newest whole report, for the exports
/// (the page shows the same ones, with long tables cut), and the scenario
/// of the newest request, which split models are assembled from.
#[derive(Default)]
pub struct Server {
    last_good: Vec<Report>,
    current: Option<(u64, Box<Scenario>)>,
    /// When each split model of the current request was split (ms).
    split_at: Vec<(String, f64)>,
    /// `ToWorker::Keep`'s inputs, by storage key.
    kept: HashMap<String, String>,
    /// Each model section as last sent and as put back, with the keys put
    /// back into it: an unchanged section is not read again.
    put: BTreeMap<String, PutBack>,
    /// Each model's outcome as last sent in a `Result`; dropped when a
    /// `Partial` replaces what the page shows.
    sent: HashMap<String, Outcome>,
}

/// A model section as the page sent it, and with its kept inputs back.
struct PutBack {
    sent: Arc<serde_json::Value>,
    whole: Arc<serde_json::Value>,
    keys: Vec<String>,
}

impl Server {
    /// Answers one request, posting each message as it is ready. `now` is
    /// a millisecond clock (`performance.now()` in the browser).
    pub fn handle(&mut self, request: &str, post: &mut dyn FnMut(String), now: &dyn Fn() -> f64) {
        match serde_json::from_str::<ToWorker>(request) {
            Ok(ToWorker::Evaluate {
                id,
                scenario,
                split,
                shown,
                replaced,
            }) => {
                for m in &replaced {
                    self.sent.remove(m);
                }
                self.evaluate(id, scenario, split, &shown, post, now)
            }
            Ok(ToWorker::Part {
                id,
                model,
                part,
                mut scenario,
            }) => {
                self.put_back(&mut scenario);
                let text = match by_id(&model) {
                    Some(m) => models::part(m, &scenario, part),
                    None => Err(Unavailable::missing(
                        "models",
                        format!("no model '{model}'"),
                    )),
                };
                post(encode(&FromWorker::PartDone {
                    id,
                    model,
                    part,
                    text,
                }));
            }
            Ok(ToWorker::Assemble {
                id,
                model,
                parts,
                failed,
            }) => self.assemble(id, &model, &parts, failed, post, now),
            Ok(ToWorker::Export { id, format }) => post(encode(&FromWorker::Export {
                id,
                format,
                text: self.export(format),
            })),
            Ok(ToWorker::Keep { key, json }) => {
                self.kept.insert(key, json.to_string());
                self.put.clear();
            }
            Err(e) => post(encode(&FromWorker::Failed {
                message: format!("the worker could not read the request: {e}"),
            })),
        }
    }

    /// Puts the kept inputs back into `s` (`restore_after_link` with the
    /// kept copies), reading only sections that changed since the last
    /// request; returns the keys put back.
    fn put_back(&mut self, s: &mut Scenario) -> Vec<String> {
        if self.kept.is_empty() {
            return Vec::new();
        }
        self.put.retain(|id, _| s.models.contains_key(id));
        let mut keys = Vec::new();
        let mut changed = false;
        for (id, v) in s.models.iter_mut() {
            match self.put.get(id) {
                Some(p) if Arc::ptr_eq(&p.sent, v) || p.sent == *v => {
                    *v = p.whole.clone();
                    keys.extend(p.keys.iter().cloned());
                }
                _ => changed = true,
            }
        }
        if !changed {
            return keys;
        }
        let sent = s.models.clone();
        let asked = std::cell::RefCell::new(Vec::new());
        let kept = &self.kept;
        models::restore_after_link(s, &|k: &str| {
            let json = kept.get(k).cloned();
            if json.is_some() {
                asked.borrow_mut().push(k.to_string());
            }
            json
        });
        let asked = asked.into_inner();
        for (id, v) in &s.models {
            let Some(before) = sent.get(id) else { continue };
            if self.put.get(id).is_some_and(|p| Arc::ptr_eq(&p.whole, v)) {
                continue;
            }
            let put_back = !Arc::ptr_eq(before, v);
            let keys_here = if put_back { asked.clone() } else { Vec::new() };
            keys.extend(keys_here.iter().cloned());
            self.put.insert(
                id.clone(),
                PutBack {
                    sent: before.clone(),
                    whole: v.clone(),
                    keys: keys_here,
                },
            );
        }
        keys.sort();
        keys.dedup();
        keys
    }

    fn evaluate(
        &mut self,
        id: u64,
        mut scenario: Box<Scenario>,
        split: bool,
        shown: &[String],
        post: &mut dyn FnMut(String),
        now: &dyn Fn() -> f64,
    ) {
        // The link is the scenario as sent: what it leaves out is kept.
        let as_sent = scenario.clone();
        let restored_keys = self.put_back(&mut scenario);
        self.split_at.clear();
        let total = MODELS.len() + ANALYSES.len();
        for (done, model) in MODELS.iter().enumerate() {
            let model_id = model.id().to_string();
            post(encode(&FromWorker::Progress {
                id,
                model: model_id.clone(),
                done,
                total,
            }));
            let start = now();
            let parts = if split {
                models::parts(*model, &scenario)
            } else {
                0
            };
            if parts > 1 {
                self.split_at.push((model_id.clone(), start));
                post(encode(&FromWorker::Split {
                    id,
                    model: model_id,
                    parts,
                }));
            } else {
                // Both callbacks post: one at a time, as the model computes.
                let post = std::cell::RefCell::new(&mut *post);
                let partials = std::cell::Cell::new(false);
                let result = evaluate_progressive(
                    *model,
                    &scenario,
                    &mut |r, done, total| {
                        partials.set(true);
                        (post.borrow_mut())(partial(id, &model_id, &r, done, total, Counted::Parts))
                    },
                    &mut |r, done, total| {
                        partials.set(true);
                        (post.borrow_mut())(partial(
                            id,
                            &model_id,
                            &r,
                            done,
                            total,
                            Counted::Samples,
                        ))
                    },
                    now,
                );
                let post = post.into_inner();
                if partials.get() {
                    self.sent.remove(&model_id);
                }
                let page_shows = shown.contains(&model_id);
                self.finish(id, model_id, result, now() - start, page_shows, post);
            }
            // The address follows the first model's numbers, not a
            // simulation that may run for seconds (compressing a large
            // scenario takes a while too).
            if done == 0 {
                let (shrunk, left_out) = for_link(&as_sent);
                let mut left_out: Vec<String> = left_out.into_iter().map(|l| l.key).collect();
                left_out.extend(restored_keys.iter().cloned());
                post(encode(&FromWorker::Link {
                    id,
                    fragment: encode_link(&shrunk),
                    left_out,
                }));
            }
        }
        for (k, analysis) in ANALYSES.iter().enumerate() {
            let analysis_id = analysis.id().to_string();
            post(encode(&FromWorker::Progress {
                id,
                model: analysis_id.clone(),
                done: MODELS.len() + k,
                total,
            }));
            let start = now();
            let result = models::evaluate(*analysis, &scenario);
            self.finish(id, analysis_id, result, now() - start, false, post);
        }
        self.current = Some((id, scenario));
        post(encode(&FromWorker::Done { id }));
    }

    /// A split model's report from its parts so far.
    fn assemble(
        &mut self,
        id: u64,
        model: &str,
        parts: &[Option<String>],
        failed: Option<Unavailable>,
        post: &mut dyn FnMut(String),
        now: &dyn Fn() -> f64,
    ) {
        let (Some((current, scenario)), Some(m)) = (&self.current, by_id(model)) else {
            return;
        };
        if *current != id {
            return;
        }
        // The page shows this model's parts so far: not what was last sent.
        self.sent.remove(model);
        let result = match failed {
            Some(why) => Err(why),
            None => models::assemble_progressive(
                m,
                scenario,
                parts,
                &mut |r, done, total| post(partial(id, model, &r, done, total, Counted::Samples)),
                now,
            ),
        };
        let done = parts.iter().filter(|p| p.is_some()).count() as u32;
        let total = parts.len() as u32;
        match result {
            Ok(r) if done < total => post(partial(id, model, &r, done, total, Counted::Parts)),
            result => {
                let start = self
                    .split_at
                    .iter()
                    .find(|(m, _)| m == model)
                    .map_or(now(), |(_, t)| *t);
                self.finish(id, model.to_string(), result, now() - start, false, post);
            }
        }
    }

    /// Posts a model's outcome and keeps it for the exports; `page_shows`:
    /// the page computed it itself, so it is what the page holds.
    fn finish(
        &mut self,
        id: u64,
        model_id: String,
        result: Result<Report, Unavailable>,
        elapsed_ms: f64,
        page_shows: bool,
        post: &mut dyn FnMut(String),
    ) {
        let outcome = Outcome::trimmed(&result);
        // As the page keeps its reports: a new one replaces the old,
        // missing inputs clear it, invalid ones keep it.
        let slot = self.last_good.iter().position(|r| r.model == model_id);
        match (result, slot) {
            (Ok(r), Some(i)) => self.last_good[i] = r,
            (Ok(r), None) => self.last_good.push(r),
            (Err(why), Some(i)) if why.is_missing() => {
                self.last_good.remove(i);
            }
            (Err(_), _) => {}
        }
        let order = |r: &Report| {
            MODELS
                .iter()
                .chain(ANALYSES)
                .position(|m| m.id() == r.model)
        };
        crate::order::sort_by_key(&mut self.last_good, order);
        if page_shows || self.sent.get(&model_id) == Some(&outcome) {
            post(encode(&FromWorker::Same {
                id,
                model: model_id.clone(),
                elapsed_ms,
            }));
            if page_shows {
                self.sent.insert(model_id, outcome);
            }
            return;
        }
        let msg = FromWorker::Result {
            id,
            model: model_id,
            outcome,
            elapsed_ms,
        };
        post(encode(&msg));
        if let FromWorker::Result { model, outcome, .. } = msg {
            self.sent.insert(model, outcome);
        }
    }

    fn export(&self, format: ExportFormat) -> Result<String, ExportError> {
        // The scenario's results: a report that reads nothing of it (the
        // paper check) is not one of them.
        let results: Vec<Report> = self
            .last_good
            .iter()
            .filter(|r| shown_by_id(&r.model).is_none_or(|m| !m.reads().is_empty()))
            .cloned()
            .collect();
        if results.is_empty() {
            return Err(ExportError::NoResultYet);
        }
        Ok(match format {
            ExportFormat::Csv => csv(&results),
            ExportFormat::Json => serde_json::to_string_pretty(&results).unwrap_or_default(),
        })
    }
}

/// One request, answered by a fresh `Server` (tests; the worker keeps one).
pub fn serve(request: &str, post: &mut dyn FnMut(String), now: &dyn Fn() -> f64) {
    Server::default().handle(request, post, now);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{evaluate, evaluate_all};

    fn run(request: &str) -> Vec<FromWorker> {
        let mut out = Vec::new();
        serve(request, &mut |m| out.push(m), &|| 0.0);
        out.iter()
            .map(|m| serde_json::from_str(m).unwrap_or_else(|e| panic!("{e}: {m}")))
            .collect()
    }

    #[test]
    fn a_model_in_parts_sends_its_report_as_it_grows() {
        let mut s = crate::models::li::presets::example();
        let mut set: crate::models::li::section::LiSettings = s.section("li").unwrap_or_default();
        set.steps = 40;
        set.warmup = 4;
        set.max_workers = 3;
        set.seed = 99;
        s.set_section("li", &set);
        let msgs = run(&encode(&ToWorker::Evaluate {
            id: 5,
            scenario: Box::new(s),
            split: false,
            shown: Vec::new(),
            replaced: Vec::new(),
        }));
        let parts: Vec<(u32, u32, usize)> = msgs
            .iter()
            .filter_map(|m| match m {
                FromWorker::Partial {
                    model,
                    report,
                    done,
                    total,
                    ..
                } if model == "li" => Some((
                    *done,
                    *total,
                    report.table("throughput").map_or(0, |t| t.rows.len()),
                )),
                _ => None,
            })
            .collect();
        // W = 1 and 2 as they finish, one more row each; then the result.
        assert_eq!(parts, [(1, 3, 1), (2, 3, 2)]);
        let last = msgs
            .iter()
            .rposition(|m| matches!(m, FromWorker::Partial { .. }));
        let result = msgs
            .iter()
            .position(|m| matches!(m, FromWorker::Result { model, .. } if model == "li"));
        assert!(last < result);
        match &msgs[result.unwrap_or(0)] {
            FromWorker::Result {
                outcome: Outcome::Report { report },
                ..
            } => {
                assert_eq!(report.table("throughput").map(|t| t.rows.len()), Some(3));
                assert_eq!(report.downloads.len(), 1);
            }
            other => panic!("{other:?}"),
        }
    }

    /// A page with a pool: the main worker splits Li, two pool workers
    /// compute its parts (answered out of order), the main worker
    /// assembles them; the result is the whole computation's, to the bit.
    #[test]
    fn a_split_model_assembled_from_its_parts_reads_as_computed_whole() {
        use crate::worker::parts::{Handout, Splits};
        let mut s = crate::models::li::presets::example();
        let mut set: crate::models::li::section::LiSettings = s.section("li").unwrap_or_default();
        (set.steps, set.warmup, set.max_workers, set.seed) = (30, 3, 4, 4242);
        s.set_section("li", &set);
        let whole = crate::models::li::report::build(
            &crate::models::li::eval::evaluate(&s).unwrap_or_else(|_| panic!("li runs")),
        );

        let mut main = Server::default();
        let mut pool = [Server::default(), Server::default()];
        let mut splits = Splits::default();
        let parse = |m: &str| -> FromWorker {
            serde_json::from_str(m).unwrap_or_else(|e| panic!("{e}: {m}"))
        };
        let mut out = Vec::new();
        let json = serde_json::to_string(&s).unwrap_or_default();
        main.handle(
            &evaluate_request(9, &json, true, &[], &[]),
            &mut |m| out.push(m),
            &|| 0.0,
        );
        let msgs: Vec<FromWorker> = out.iter().map(|m| parse(m)).collect();
        // Li answers Split, not a result; every other model answers its
        // Result.
        assert!(msgs.contains(&FromWorker::Split {
            id: 9,
            model: "li".into(),
            parts: 4
        }));
        assert!(!msgs
            .iter()
            .any(|m| matches!(m, FromWorker::Result { model, .. } if model == "li")));
        splits.split(9, "li", 4);
        assert!(splits.pending(9));
        let handouts: Vec<Handout> = std::iter::from_fn(|| splits.take()).collect();
        assert_eq!(
            handouts.iter().map(|h| h.part).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        // A pool worker stopped while holding W = 3: handed out again.
        splits.lost(&handouts[2]);
        assert_eq!(splits.take().map(|h| h.part), Some(2));
        assert_eq!(splits.take(), None);

        let mut answers = Vec::new();
        for (i, k) in [1usize, 0, 3, 2].into_iter().enumerate() {
            let h = &handouts[k];
            let mut got = Vec::new();
            pool[i % 2].handle(
                &part_request(h.id, &h.model, h.part, &json),
                &mut |m| got.push(m),
                &|| 0.0,
            );
            let FromWorker::PartDone { text, part, .. } = parse(&got[0]) else {
                panic!("{}", got[0]);
            };
            assert_eq!(part, h.part);
            let request = splits.done(h, text).unwrap_or_default();
            main.handle(&request, &mut |m| answers.push(parse(&m)), &|| 0.0);
        }
        // Nothing to show before W = 1; then the curve grows; then the result.
        let shown: Vec<(u32, usize)> = answers
            .iter()
            .filter_map(|m| match m {
                FromWorker::Partial { done, report, .. } => Some((
                    *done,
                    report.table("throughput").map_or(0, |t| t.rows.len()),
                )),
                _ => None,
            })
            .collect();
        assert_eq!(shown, [(1, 0), (2, 2), (3, 3)]);
        match answers.last() {
            Some(FromWorker::Result {
                id: 9,
                outcome: Outcome::Report { report },
                ..
            }) => assert_eq!(**report, whole.trimmed(PAGE_TABLE_ROWS)),
            other => panic!("{other:?}"),
        }
        splits.answered(9, "li");
        assert!(!splits.pending(9));
        // The exports carry it, and a part arriving after the whole report
        // is assembled into nothing.
        let mut file = Vec::new();
        let req = encode(&ToWorker::Export {
            id: 9,
            format: ExportFormat::Json,
        });
        main.handle(&req, &mut |m| file.push(m), &|| 0.0);
        assert!(
            file[0].contains("Li et al."),
            "{}",
            &file[0][..200.min(file[0].len())]
        );
        assert_eq!(splits.done(&handouts[0], Ok("{}".into())), None);
    }

    #[test]
    fn the_worker_answers_every_model_as_the_core_does() {
        let s = Scenario::example();
        let msgs = run(&encode(&ToWorker::Evaluate {
            id: 7,
            scenario: Box::new(s.clone()),
            split: false,
            shown: Vec::new(),
            replaced: Vec::new(),
        }));
        // progress + result of the first model, the link, progress + result
        // of every other model and analysis, then done.
        assert_eq!(msgs.len(), 2 * (MODELS.len() + ANALYSES.len()) + 2);
        assert_eq!(
            msgs[2],
            FromWorker::Link {
                id: 7,
                fragment: Ok(crate::scenario::codec::encode_fragment(&s)),
                left_out: Vec::new(),
            }
        );
        assert_eq!(msgs.last(), Some(&FromWorker::Done { id: 7 }));
        let results: Vec<(String, Result<Report, Unavailable>)> = msgs
            .into_iter()
            .filter_map(|m| match m {
                FromWorker::Result {
                    id: 7,
                    model,
                    outcome,
                    ..
                } => Some((model, outcome.into_result())),
                _ => None,
            })
            .collect();
        let direct: Vec<(String, Result<Report, Unavailable>)> = evaluate_all(&s)
            .into_iter()
            .chain(ANALYSES.iter().map(|&a| (a, evaluate(a, &s))))
            .map(|(m, r)| (m.id().to_string(), r))
            .collect();
        // Through JSON and back, bit for bit.
        assert_eq!(results, direct);
    }

    #[test]
    fn a_scenario_with_runs_gets_the_comparison_and_the_calibration() {
        let s = crate::models::from_json(include_str!(
            "../../public/examples/zeng-tables6-7-vgg16-runs.json"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let msgs = run(&encode(&ToWorker::Evaluate {
            id: 3,
            scenario: Box::new(s.clone()),
            split: false,
            shown: Vec::new(),
            replaced: Vec::new(),
        }));
        for a in ANALYSES {
            let got = msgs.iter().find_map(|m| match m {
                FromWorker::Result { model, outcome, .. } if model == a.id() => {
                    Some(outcome.clone().into_result())
                }
                _ => None,
            });
            let want = evaluate(*a, &s).map(|r| r.trimmed(PAGE_TABLE_ROWS));
            assert!(want.is_ok(), "{}: {want:?}", a.id());
            assert_eq!(got, Some(want), "{}", a.id());
        }
    }

    #[test]
    fn requests_around_scenario_json_read_as_the_owned_ones() {
        let s = Scenario::example();
        let owned = encode(&ToWorker::Evaluate {
            id: 5,
            scenario: Box::new(s.clone()),
            split: false,
            shown: Vec::new(),
            replaced: Vec::new(),
        });
        let json = serde_json::to_string(&s).unwrap_or_default();
        assert_eq!(evaluate_request(5, &json, false, &[], &[]), owned);
        let part = part_request(5, "li", 3, &json);
        let read: ToWorker = serde_json::from_str(&part).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            read,
            ToWorker::Part {
                id: 5,
                model: "li".into(),
                part: 3,
                scenario: Box::new(s),
            }
        );
    }

    #[test]
    fn progress_counts_the_models() {
        let msgs = run(&encode(&ToWorker::Evaluate {
            id: 1,
            scenario: Box::new(Scenario::example()),
            split: false,
            shown: Vec::new(),
            replaced: Vec::new(),
        }));
        let done: Vec<usize> = msgs
            .iter()
            .filter_map(|m| match m {
                FromWorker::Progress { done, total, .. } => {
                    assert_eq!(*total, MODELS.len() + ANALYSES.len());
                    Some(*done)
                }
                _ => None,
            })
            .collect();
        assert_eq!(done, (0..MODELS.len() + ANALYSES.len()).collect::<Vec<_>>());
    }

    #[test]
    fn long_tables_reach_the_page_cut_and_the_exports_whole() {
        let mut s: Scenario = Scenario::example();
        let name = s.hardware.catalog[2].name.clone();
        s.hardware.cluster.workers = (0..300)
            .map(|i| crate::hardware::WorkerGroup {
                instance: name.clone(),
                count: 1,
                batch_size: 16 + i % 3,
            })
            .collect();
        let mut server = Server::default();
        let mut out = Vec::new();
        let req = encode(&ToWorker::Evaluate {
            id: 3,
            scenario: Box::new(s.clone()),
            split: false,
            shown: Vec::new(),
            replaced: Vec::new(),
        });
        server.handle(&req, &mut |m| out.push(m), &|| 0.0);
        let zeng = out
            .iter()
            .filter_map(|m| match serde_json::from_str(m) {
                Ok(FromWorker::Result {
                    outcome: Outcome::Report { report },
                    ..
                }) if report.model == "zeng" => Some(report),
                _ => None,
            })
            .next()
            .unwrap_or_else(|| panic!("no zeng report"));
        let workers = zeng.tables.iter().find(|t| t.key == "workers");
        let workers = workers.unwrap_or_else(|| panic!("workers table"));
        assert_eq!(
            (workers.rows.len(), workers.omitted_rows),
            (PAGE_TABLE_ROWS, 100)
        );

        let mut files = Vec::new();
        for format in [ExportFormat::Csv, ExportFormat::Json] {
            let req = encode(&ToWorker::Export { id: 3, format });
            server.handle(&req, &mut |m| files.push(m), &|| 0.0);
        }
        // Every model with a report, each with every row.
        let full: Vec<_> = MODELS
            .iter()
            .filter_map(|&m| evaluate(m, &s).ok())
            .collect();
        assert_eq!(full[0].model, "zeng");
        match serde_json::from_str(&files[0]) {
            Ok(FromWorker::Export { text: Ok(t), .. }) => {
                assert_eq!(t, csv(&full));
            }
            other => panic!("{other:?}"),
        }
        // Before any result there is nothing to export, and it says so.
        let req = encode(&ToWorker::Export {
            id: 1,
            format: ExportFormat::Csv,
        });
        let mut early = Vec::new();
        Server::default().handle(&req, &mut |m| early.push(m), &|| 0.0);
        match serde_json::from_str(&early[0]) {
            Ok(FromWorker::Export { text: Err(e), .. }) => {
                assert_eq!(e, ExportError::NoResultYet);
                assert_eq!(e.to_string(), "no model has a result to export yet");
            }
            other => panic!("{other:?}"),
        }
    }

    /// An outcome equal to the last one sent for its model goes as `Same`;
    /// a changed one goes whole, and so does the next after a change.
    #[test]
    fn an_unchanged_outcome_is_sent_as_same() {
        let mut s = crate::scenario::Scenario::example();
        let mut server = Server::default();
        let mut ask = |id: u64, s: &crate::scenario::Scenario| {
            let mut out = Vec::new();
            let json = serde_json::to_string(s).unwrap_or_default();
            server.handle(
                &evaluate_request(id, &json, false, &[], &[]),
                &mut |m| out.push(m),
                &|| 0.0,
            );
            out.iter()
                .filter_map(|m| serde_json::from_str::<FromWorker>(m).ok())
                .filter_map(|m| match m {
                    FromWorker::Result { model, .. } => Some((model, true)),
                    FromWorker::Same { model, .. } => Some((model, false)),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        let whole =
            |v: &[(String, bool)], id: &str| v.iter().find(|(m, _)| m == id).map(|(_, w)| *w);
        let first = ask(1, &s);
        assert!(first.iter().all(|(_, whole)| *whole), "{first:?}");
        let again = ask(2, &s);
        assert_eq!(again.len(), first.len());
        assert!(again.iter().all(|(_, whole)| !*whole), "{again:?}");
        let link = s.hardware.cluster.ps.link_bytes_per_s.unwrap_or(1.25e8);
        s.hardware.cluster.ps.link_bytes_per_s = Some(link * 2.0);
        let changed = ask(3, &s);
        assert_eq!(whole(&changed, "zeng"), Some(true), "{changed:?}");
        assert_eq!(whole(&changed, "papers"), Some(false), "{changed:?}");
    }

    /// A model the page computed itself (`quick`) is answered `Same`,
    /// its outcome the page's to the bit, and its whole report is kept
    /// for the exports; the next request compares with it.
    #[test]
    fn a_model_the_page_shows_is_answered_same_and_exported() {
        let s = crate::scenario::Scenario::example();
        let json = serde_json::to_string(&s).unwrap_or_default();
        let mut server = Server::default();
        let mut out = Vec::new();
        server.handle(
            &evaluate_request(1, &json, false, &["zeng"], &[]),
            &mut |m| out.push(m),
            &|| 0.0,
        );
        let msgs: Vec<FromWorker> = out
            .iter()
            .filter_map(|m| serde_json::from_str(m).ok())
            .collect();
        assert!(msgs
            .iter()
            .any(|m| matches!(m, FromWorker::Same { model, .. } if model == "zeng")));
        assert!(msgs
            .iter()
            .any(|m| matches!(m, FromWorker::Result { model, .. } if model == "cynthia")));
        let zeng = by_id("zeng").map(|m| quick::evaluate(m, &s));
        assert_eq!(server.sent.get("zeng"), zeng.as_ref());
        let exported = server.export(ExportFormat::Json).unwrap_or_default();
        assert!(exported.contains("\"model\": \"zeng\""), "{exported}");
        // The page then computed Zeng for an edit the worker never saw:
        // the same scenario again is sent whole, not `Same`.
        let request = evaluate_request(2, &json, false, &[], &["zeng"]);
        let owned = encode(&ToWorker::Evaluate {
            id: 2,
            scenario: Box::new(s.clone()),
            split: false,
            shown: Vec::new(),
            replaced: vec!["zeng".into()],
        });
        assert_eq!(
            serde_json::from_str::<ToWorker>(&request).ok(),
            serde_json::from_str::<ToWorker>(&owned).ok()
        );
        let mut out = Vec::new();
        server.handle(&request, &mut |m| out.push(m), &|| 0.0);
        let zeng: Vec<FromWorker> = out
            .iter()
            .filter_map(|m| serde_json::from_str(m).ok())
            .filter(|m| {
                matches!(m, FromWorker::Result { model, .. } | FromWorker::Same { model, .. } if model == "zeng")
            })
            .collect();
        assert!(matches!(&zeng[..], [FromWorker::Result { .. }]), "{zeng:?}");
    }

    #[test]
    fn a_garbled_request_is_answered_not_panicked() {
        let msgs = run("{\"evaluate\":{\"id\":1");
        assert!(matches!(&msgs[..], [FromWorker::Failed { .. }]));
    }
}

#[cfg(test)]
mod keep_tests {
    use super::*;

    /// A scenario whose Li profile a link leaves out (the shipped
    /// Inception v3 profile, 240 kB), as the page holds it: named, the
    /// profile kept aside and sent once.
    fn named_and_kept() -> (Scenario, Scenario, Vec<crate::models::LeftOut>) {
        let mut s = crate::models::li::presets::example();
        let text = std::fs::read_to_string("public/examples/inception-v3.profile.json")
            .unwrap_or_else(|e| panic!("{e}"));
        let p =
            crate::models::li::profile::Profile::from_json(&text).unwrap_or_else(|e| panic!("{e}"));
        let mut set: crate::models::li::section::LiSettings = s.section("li").unwrap_or_default();
        (set.steps, set.warmup, set.max_workers, set.seeds) = (20, 2, 2, 1);
        set.profile = Some(p);
        s.set_section("li", &set);
        let (named, left) = for_link(&s);
        (s.clone(), named.into_owned(), left)
    }

    fn li_outcome(msgs: &[String]) -> Result<Report, Unavailable> {
        msgs.iter()
            .filter_map(|m| serde_json::from_str::<FromWorker>(m).ok())
            .find_map(|m| match m {
                FromWorker::Result { model, outcome, .. } if model == "li" => {
                    Some(outcome.into_result())
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("no Li result"))
    }

    /// The upload names a profile as the link would, with the same JSON
    /// left out (so the page's copy puts it back); a small one stays.
    #[test]
    fn an_upload_names_a_large_profile_as_its_link_does() {
        use crate::models::li::files::{ProfileUpload, PROFILE_UPLOAD};
        let (_, named, left) = named_and_kept();
        let bytes = std::fs::read("public/examples/inception-v3.profile.json")
            .unwrap_or_else(|e| panic!("{e}"));
        match (PROFILE_UPLOAD.read)("p.json", bytes, ()) {
            Ok(ProfileUpload::Named { named: r, json, .. }) => {
                assert_eq!(json.get(), left[0].json);
                let set: crate::models::li::section::LiSettings =
                    named.section("li").unwrap_or_default();
                assert_eq!(set.profile_ref, Some(r));
            }
            other => panic!("{other:?}"),
        }
        let small = br#"{"name": "4-layer DNN", "batch": 32,
            "ops": [{"name": "recv w0", "resource": "downlink", "tensor": "w0"},
                    {"name": "fwd 0", "resource": "worker", "deps": [0]}],
            "steps": [[4.0e6, 0.012], [4.0e6, 0.013]]}"#
            .to_vec();
        let read = (PROFILE_UPLOAD.read)("m.json", small, ());
        assert!(matches!(read, Ok(ProfileUpload::Inline(_))), "{read:?}");
    }

    #[test]
    fn a_kept_profile_is_put_back_and_the_link_names_it() {
        let (whole, named, left) = named_and_kept();
        assert_eq!(left.len(), 1, "the profile is left out of the link");
        let mut direct = Server::default();
        let mut out = Vec::new();
        let json = serde_json::to_string(&whole).unwrap_or_default();
        direct.handle(
            &evaluate_request(1, &json, false, &[], &[]),
            &mut |m| out.push(m),
            &|| 0.0,
        );
        let expected = li_outcome(&out).unwrap_or_else(|u| panic!("{u:?}"));

        let mut server = Server::default();
        let mut out = Vec::new();
        let keep = keep_request(&left[0].key, &left[0].json);
        server.handle(&keep, &mut |m| out.push(m), &|| 0.0);
        assert!(out.is_empty(), "Keep has no answer: {out:?}");
        let json = serde_json::to_string(&named).unwrap_or_default();
        assert!(json.len() < 10_000, "the request names the profile");
        for id in [2, 3] {
            let mut out = Vec::new();
            server.handle(
                &evaluate_request(id, &json, false, &[], &[]),
                &mut |m| out.push(m),
                &|| 0.0,
            );
            // Request 3's outcome is request 2's: sent as `Same`, or whole
            // again after a `Partial` (under load Li's bands stream).
            let same = out
                .iter()
                .any(|m| m.starts_with("{\"same\"") && m.contains("\"model\":\"li\""));
            if id == 2 || !same {
                let got = li_outcome(&out).unwrap_or_else(|u| panic!("request {id}: {u:?}"));
                assert_eq!(got, expected, "request {id} computes on the whole profile");
            }
            let link = out
                .iter()
                .filter_map(|m| serde_json::from_str::<FromWorker>(m).ok())
                .find_map(|m| match m {
                    FromWorker::Link {
                        fragment, left_out, ..
                    } => Some((fragment, left_out)),
                    _ => None,
                });
            assert_eq!(
                link,
                Some((encode_link(&named), vec![left[0].key.clone()])),
                "the link is the one of the whole scenario"
            );
        }
        // Without the kept copy the model lacks the profile.
        let mut fresh = Server::default();
        let mut out = Vec::new();
        fresh.handle(
            &evaluate_request(4, &json, false, &[], &[]),
            &mut |m| out.push(m),
            &|| 0.0,
        );
        assert!(li_outcome(&out).is_err());
    }
}
