//! The models, one folder per paper, and the one registry that lists them.
//!
//! Every caller (validation, `ddnn-planner eval`, the exports, the page's
//! result panels and input panels, the embed view, the JS package)
//! iterates the registry: adding a model is a folder here, its input panel
//! `src/ui/model_inputs/<id>.rs`, and one line in `registry!`. See
//! `docs/adding-a-model.md`.

/// The registry: one line per model, `<id>: <type>`, in the order the page
/// and the CLI show them. `<id>` names the model's folder here and its
/// input panel's file in `src/ui/model_inputs/`. Expands to
/// `$callback! { <id>: <type>, … }`, so the core (this module) and the
/// page (`ui::model_inputs`) each declare their modules from the one list.
#[macro_export]
macro_rules! registry {
    ($callback:path) => {
        $callback! {
            zeng: Zeng,
            cynthia: Cynthia,
            spotdnn: SpotDnn,
            stash: Stash,
            li: Li,
        }
    };
}

/// The core's side of `registry!`: each model's module and `MODELS`.
macro_rules! declare_models {
    ($($id:ident: $model:ident,)*) => {
        $(pub mod $id;)*

        /// Every model, in the order the page and the CLI show them.
        pub static MODELS: &[&dyn Model] = &[$(&$id::$model),*];
    };
}

registry!(declare_models);

pub mod work;
pub use work::Work;

use std::borrow::Cow;

use crate::errors::FieldError;
use crate::errors::ReadError;
pub use crate::errors::Unavailable;
pub use crate::inputs::Need;
use crate::readers::{text, AnyImporter, Importer, SHARED};
use crate::report::{Report, Value};
pub use crate::runs::RunPrediction;
use crate::scenario::codec::{encode_link, parse_fragment};
use crate::scenario::{Loaded, Scenario, ScenarioError};

/// What one model needs to say about a scenario.
pub trait Model: Sync {
    /// Registry id: scenario section name, CLI and URL key (`zeng`).
    fn id(&self) -> &'static str;
    /// Short name as people cite it ("Zeng et al.").
    fn name(&self) -> &'static str;
    /// What it computes, in one line.
    fn about(&self) -> &'static str;
    /// The paper, as a reference.
    fn paper(&self) -> &'static str;
    /// The scenario inputs it reads, for `ddnn-planner models` and the page.
    fn needs(&self) -> &'static [Need];
    /// Dotted scenario paths whose validation messages stop this model.
    /// Messages about other fields do not blank its results.
    fn reads(&self) -> &'static [&'static str];
    /// Checks of the fields only this model owns (its section).
    fn validate(&self, _s: &Scenario) -> Vec<FieldError> {
        Vec::new()
    }
    /// The size of its work on `s`, each measure with its budget, stated
    /// before it runs (`work::Work`); asked only of a scenario that passed
    /// `validate_for(self)`. Over a budget, the registry refuses `s` at
    /// the input to reduce and nothing is computed.
    fn work(&self, s: &Scenario) -> Vec<Work>;
    /// The model's report, assuming `s` passed `validate_for(self)` and
    /// its work fits its budget.
    fn report(&self, s: &Scenario) -> Result<Report, Unavailable>;
    /// The same, for a model that computes in parts (a simulation over
    /// worker counts): `partial(report so far, parts done, parts)` after
    /// each part, so the page shows the result growing.
    fn report_streamed(
        &self,
        s: &Scenario,
        _partial: &mut dyn FnMut(Report, u32, u32),
    ) -> Result<Report, Unavailable> {
        self.report(s)
    }
    /// How many independent parts the report of `s` splits into, for the
    /// page's pool of Web Workers, one per core (0: computed whole, as
    /// `report_streamed`; e.g. cheap, or already computed). Asked only of
    /// a scenario that passed `validate_for(self)`.
    fn parts(&self, _s: &Scenario) -> u32 {
        0
    }
    /// Part `k` of `parts(s)`, as text for `assemble` (on any thread).
    fn part(&self, _s: &Scenario, _k: u32) -> Result<String, Unavailable> {
        Err(Unavailable::missing(
            self.id(),
            "this model computes its report whole, not in parts",
        ))
    }
    /// The report from the parts done so far (`None`: not yet). With every
    /// part in, it is `report(s)` to the bit; before, a report in progress.
    fn assemble(&self, s: &Scenario, _parts: &[Option<String>]) -> Result<Report, Unavailable> {
        self.report(s)
    }
    /// Whether its report may come from a cache of an earlier evaluation
    /// (a simulation kept while the inputs it reads stay the same): a
    /// fast answer then says nothing of how long the next one takes, so
    /// the page never computes it on its own thread (`worker::quick`).
    fn caches(&self) -> bool {
        false
    }
    /// Its prediction of one measured run (`crate::runs`), from its own
    /// evaluation of a cluster, never a plan search: `s` is the scenario
    /// with the run's cluster (`runs::run_scenario`), and what this model
    /// reads passed validation. `None`: this model does not predict
    /// measured runs; `Some(Err(…))`: not this run, naming the input it
    /// lacks.
    fn predict_run(&self, _s: &Scenario) -> Option<Result<RunPrediction, Unavailable>> {
        None
    }
    /// `predict_run` of `s` prepared for many values of this model's
    /// factors (a calibration asks thousands): what does not depend on
    /// them is computed once. `None`: the calibration calls `predict_run`
    /// with the factors set in the scenario.
    fn run_predictor(&self, _s: &Scenario) -> Option<RunPredictor> {
        None
    }
    /// Whether `run_predictor` gives `predict_run`'s numbers to the bit
    /// (the default) or approximates them (a surrogate, as Li et al.'s
    /// tabulated simulation): then the calibration fits on it and reports
    /// every calibrated and left-out prediction from `predict_run`.
    fn run_predictor_exact(&self) -> bool {
        true
    }
    /// The work of calibrating it on `s`'s runs beyond the fit's own
    /// (`calibration::fit::work`), for a model whose predictions are
    /// simulations; over a budget, its calibration is refused with the
    /// sentence of the measure before anything runs.
    fn calibration_work(&self, _s: &Scenario) -> Vec<Work> {
        Vec::new()
    }
    /// The factors it can be calibrated by on `s` (`crate::calibration`),
    /// in the order they are fitted; none: as published only. A model
    /// with factors reads their values from `s.calibration` wherever it
    /// computes, and checks them in `validate`
    /// (`calibration::validate`).
    fn factors(&self, _s: &Scenario) -> Vec<crate::calibration::FactorSpec> {
        Vec::new()
    }
    /// The measured-run sets its paper prints, with the paper's own
    /// predictions (`runs::papers`): the paper check. `None`: its paper
    /// prints none this product ships.
    fn paper_check(&self) -> Option<&'static crate::runs::papers::PaperCheck> {
        None
    }
    /// Its headline figures alone, for the many samples of an
    /// uncertainty band (`crate::uncertainty`), assuming `s` passed
    /// `validate_for(self)`: the same numbers as `report(s)`'s headline,
    /// without what the band does not need (sweeps, charts, tables).
    fn headline(&self, s: &Scenario) -> Result<Vec<crate::report::Figure>, Unavailable> {
        self.report(s).map(|r| r.headline)
    }
    /// The work of one `headline(s)` (default: the whole report's,
    /// `work(s)`), which a band asks for once per sample.
    fn headline_work(&self, s: &Scenario) -> Vec<Work> {
        self.work(s)
    }
    /// Keys of its charts that get uncertainty bands (cost and time
    /// against the worker count; a timeline, on the total its vertical
    /// marker stands at): each line's 10th-90th percentile per point, and
    /// the timeline's total's (`crate::uncertainty::curves`).
    fn banded_charts(&self) -> &'static [&'static str] {
        &[]
    }
    /// Those charts alone, for one sample of their bands, assuming `s`
    /// passed `validate_for(self)`: the same as `report(s)`'s charts with
    /// those keys (default: taken from it); a model overrides it to
    /// skip what they do not need.
    fn curves(&self, s: &Scenario) -> Result<Vec<crate::report::Chart>, Unavailable> {
        let keys = self.banded_charts();
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.report(s).map(|r| {
            r.charts
                .into_iter()
                .filter(|c| keys.contains(&c.key.as_str()))
                .collect()
        })
    }
    /// The work of one `curves(s)` (default: the whole report's,
    /// `work(s)`), which a band asks for once per sample.
    fn curves_work(&self, s: &Scenario) -> Vec<Work> {
        self.work(s)
    }
    /// `curves` prepared once from the as-given scenario `s`, for charts
    /// whose points are choices the report made (spotDNN's frontier: the
    /// plan for each time goal), which every sample then keeps. `None`
    /// (the default): each sample calls `curves`.
    fn curve_sampler(&self, _s: &Scenario) -> Option<CurveSampler> {
        None
    }
    /// Headline figure keys a goal bounds (a plan's training time, its
    /// cost), for a band's probability of meeting the goal.
    fn goal_figures(&self) -> &'static [(&'static str, crate::uncertainty::Goal)] {
        &[]
    }
    /// What its figures assume, in one sentence, for readers comparing two
    /// models' numbers for the same cluster.
    fn assumes(&self) -> &'static str {
        ""
    }
    /// Charts the page's overview may show: (place, chart key), places
    /// `timeline` and `cost`. For each place the overview takes the last
    /// registry model with such a chart.
    fn overview_charts(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// Headline figure keys the overview shows, in order (empty: the
    /// first four of the headline).
    fn overview_figures(&self) -> &'static [&'static str] {
        &[]
    }
    /// Files of this model's own inputs that the page reads in an import
    /// worker (`worker::imports`), by id `<model>.<file>`.
    fn file_importers(&self) -> &'static [&'static dyn AnyImporter] {
        &[]
    }
    /// Files of this model's own inputs that the CLI reads as
    /// `--import <id>.<key>=FILE` (the page has a box or upload for each).
    fn imports(&self) -> &'static [Import] {
        &[]
    }
    /// Files the CLI reads as bytes (gzip, or text past the scenario's
    /// size), `--import <id>.<key>=FILE` too.
    fn byte_imports(&self) -> &'static [ByteImport] {
        &[]
    }
    /// Leaves out of a share link what is too large to travel in one,
    /// naming it instead (the scenario file keeps everything), and returns
    /// what it left out, for the page to keep.
    /// `s` is cloned only if a model changes it (`Cow::to_mut`).
    fn shrink_for_link(&self, _s: &mut Cow<'_, Scenario>) -> Vec<LeftOut> {
        Vec::new()
    }
    /// Puts back what a link left out from the copies the page kept
    /// (`saved(key)`), and says what it restored.
    fn restore_after_link(
        &self,
        _s: &mut Scenario,
        _saved: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        None
    }
}

/// A run's prediction as a function of the model's factors (name →
/// value; absent: as published), `None` when it gives none
/// (`Model::run_predictor`).
pub type RunPredictor =
    Box<dyn Fn(&std::collections::BTreeMap<String, f64>) -> Option<RunPrediction> + Send + Sync>;

/// A banded chart's sample from a scenario (`Model::curve_sampler`).
pub type CurveSampler = Box<dyn Fn(&Scenario) -> Result<Vec<crate::report::Chart>, Unavailable>>;

/// An input a share link names but does not carry.
#[derive(Clone, Debug, PartialEq)]
pub struct LeftOut {
    /// Where the page keeps its copy (local storage).
    pub key: String,
    pub json: String,
    /// What it is, in words ("Li et al.'s profile 'x' (1,512 ops)").
    pub what: String,
}

/// The scenario as a share link carries it (each model's large inputs
/// named, not carried), and what was left out.
pub fn for_link(s: &Scenario) -> (Cow<'_, Scenario>, Vec<LeftOut>) {
    let mut s = Cow::Borrowed(s);
    let left_out = MODELS
        .iter()
        .flat_map(|m| m.shrink_for_link(&mut s))
        .collect();
    (s, left_out)
}

/// The share link's fragment of `s` (`codec::encode_link` of `for_link`).
pub fn encode_share(s: &Scenario) -> Result<String, ScenarioError> {
    encode_link(&for_link(s).0)
}

/// Puts back into `s` what its link left out, from `saved`; what was
/// restored, one sentence per input.
pub fn restore_after_link(s: &mut Scenario, saved: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    MODELS
        .iter()
        .filter_map(|m| m.restore_after_link(s, saved))
        .collect()
}

/// A file of one model's inputs: `apply` reads its text into the scenario
/// and says what it read, or why it cannot.
pub struct Import {
    pub key: &'static str,
    pub what: &'static str,
    pub apply: fn(&mut Scenario, &str) -> Result<String, ReadError>,
}

/// A file of one model's inputs read as bytes: `apply` reads the file named
/// `name` (its bytes, at most `max_bytes`) into the scenario, as the page's
/// upload does, and says what it read.
pub struct ByteImport {
    pub key: &'static str,
    pub what: &'static str,
    pub max_bytes: u64,
    pub apply: fn(&mut Scenario, &str, Vec<u8>) -> Result<String, ReadError>,
}

/// A scenario document (Import scenario JSON), read and checked whole.
pub const SCENARIO: Importer<Loaded> = Importer {
    id: "scenario",
    read: |_, bytes, ()| read_json(&text(bytes)?).map_err(|e| ReadError::Content(e.to_string())),
};

/// The file reader with this id: the scenario document, a shared input's
/// (`readers::SHARED`) or a model's (`Model::file_importers`).
pub fn importer(id: &str) -> Option<&'static dyn AnyImporter> {
    let scenario: &'static dyn AnyImporter = &SCENARIO;
    std::iter::once(scenario)
        .chain(SHARED.iter().copied())
        .chain(
            MODELS
                .iter()
                .flat_map(|m| m.file_importers().iter().copied()),
        )
        .find(|i| i.id() == id)
}

/// The model with this id.
pub fn by_id(id: &str) -> Option<&'static dyn Model> {
    MODELS.iter().copied().find(|m| m.id() == id)
}

/// The messages that stop `model`: shared fields it reads plus its own
/// section. One model's bad field must not blank another's results.
pub fn validate_for(model: &dyn Model, s: &Scenario) -> Vec<FieldError> {
    let reads = model.reads();
    let mut errs: Vec<FieldError> = s
        .validate_shared()
        .into_iter()
        .filter(|e| reads.iter().any(|p| e.field.starts_with(p)))
        .collect();
    errs.extend(model.validate(s));
    errs
}

/// Every message about the scenario: shared fields and every model's
/// section.
pub fn validate(s: &Scenario) -> Vec<FieldError> {
    let mut errs = s.validate_shared();
    for m in MODELS {
        errs.extend(m.validate(s));
    }
    errs.extend(crate::uncertainty::validate(s));
    errs
}

/// A document as read, if the whole of it passes `validate`.
fn checked(loaded: Loaded) -> Result<Loaded, ScenarioError> {
    let errs = validate(&loaded.scenario);
    if errs.is_empty() {
        Ok(loaded)
    } else {
        Err(ScenarioError::Invalid(errs))
    }
}

/// Reads a scenario document of any version this build knows, refusing
/// newer versions and invalid fields with messages that name them, with
/// what an upgrade from an older version changed.
pub fn read_json(text: &str) -> Result<Loaded, ScenarioError> {
    checked(Scenario::parse_json(text)?)
}

/// `read_json`'s scenario.
pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
    read_json(text).map(|l| l.scenario)
}

/// The scenario a share link carries, checked as `read_json`. Accepts a
/// bare fragment, one starting with `#`, or a whole URL.
pub fn read_fragment(input: &str) -> Result<Loaded, ScenarioError> {
    checked(parse_fragment(input)?)
}

/// `read_fragment`'s scenario.
pub fn decode_fragment(input: &str) -> Result<Scenario, ScenarioError> {
    read_fragment(input).map(|l| l.scenario)
}

/// What `model` reads passes validation, or the messages that stop it.
fn valid(model: &dyn Model, s: &Scenario) -> Result<(), Unavailable> {
    valid_work(model, s).map(drop)
}

/// `valid`, and the work `s` asks of `model` (every measure within its
/// budget).
pub fn valid_work(model: &dyn Model, s: &Scenario) -> Result<Vec<Work>, Unavailable> {
    let mut errors = validate_for(model, s);
    let mut work = Vec::new();
    if errors.is_empty() {
        work = model.work(s);
        errors = work::over_budget(model.name(), &work);
    }
    if errors.is_empty() {
        Ok(work)
    } else {
        Err(Unavailable::Invalid { errors })
    }
}

/// A report whose every number is finite; else why not, at the model's
/// section. Validation keeps inputs where the arithmetic stays finite:
/// should a number still overflow, the page and the exports say so
/// rather than show "inf" or write `null`.
fn finite(model: &dyn Model, r: Report) -> Result<Report, Unavailable> {
    match r.non_finite() {
        None => Ok(r),
        Some(at) => Err(Unavailable::Invalid {
            errors: vec![FieldError {
                field: format!("models.{}", model.id()),
                message: format!(
                    "{}: these inputs give a number too large or too small to compute ({at}): check the rates, bandwidths and sizes it reads",
                    model.name()
                ),
            }],
        }),
    }
}

/// `r` with its uncertainty bands, when `s` gives ranges
/// (`crate::uncertainty`), and its figures as published beside the
/// calibrated ones.
fn banded(model: &dyn Model, s: &Scenario, r: Report) -> Result<Report, Unavailable> {
    banded_streamed(model, s, r, &mut |_, _, _| {}, &|| 0.0)
}

/// `banded`, the bands' samples streamed (`uncertainty::add_bands_streamed`).
fn banded_streamed(
    model: &dyn Model,
    s: &Scenario,
    r: Report,
    bands: &mut dyn FnMut(Report, u32, u32),
    now: &dyn Fn() -> f64,
) -> Result<Report, Unavailable> {
    let mut r = finite(model, r)?;
    add_published(model, s, &mut r);
    crate::uncertainty::add_bands_streamed(model, s, &mut r, bands, now);
    Ok(r)
}

/// With `model` calibrated on `s`, each headline number beside the one
/// the model gives as published (its factors removed), where they
/// differ: one more `headline` evaluation, the cheap one bands use.
fn add_published(model: &dyn Model, s: &Scenario, r: &mut Report) {
    if s.calibration.of(model.id()).is_none() {
        return;
    }
    let mut published = s.clone();
    published
        .calibration
        .set(model.id(), std::collections::BTreeMap::new());
    let Ok(figures) = model.headline(&published) else {
        return;
    };
    for f in &mut r.headline {
        let Some(p) = figures.iter().find(|p| p.key == f.key) else {
            continue;
        };
        if let (Value::Number { value: a, .. }, Value::Number { value: b, .. }) =
            (&f.value, &p.value)
        {
            if a != b && b.is_finite() {
                f.published = Some(p.value.clone());
            }
        }
    }
}

/// Validates what `model` reads, then evaluates it.
pub fn evaluate(model: &dyn Model, s: &Scenario) -> Result<Report, Unavailable> {
    valid(model, s)?;
    banded(model, s, model.report(s)?)
}

/// `evaluate` with the model's partial reports on the way.
pub fn evaluate_streamed(
    model: &dyn Model,
    s: &Scenario,
    partial: &mut dyn FnMut(Report, u32, u32),
) -> Result<Report, Unavailable> {
    valid(model, s)?;
    banded(model, s, model.report_streamed(s, partial)?)
}

/// `evaluate_streamed`, whose bands, once they have taken
/// `uncertainty::STREAM_AFTER_MS` by `now` (ms), arrive as they grow:
/// `bands(report with the bands so far, samples drawn, samples)`.
pub fn evaluate_progressive(
    model: &dyn Model,
    s: &Scenario,
    partial: &mut dyn FnMut(Report, u32, u32),
    bands: &mut dyn FnMut(Report, u32, u32),
    now: &dyn Fn() -> f64,
) -> Result<Report, Unavailable> {
    valid(model, s)?;
    let r = model.report_streamed(s, partial)?;
    banded_streamed(model, s, r, bands, now)
}

/// `assemble`, its bands streamed as `evaluate_progressive`'s once every
/// part is in.
pub fn assemble_progressive(
    model: &dyn Model,
    s: &Scenario,
    parts: &[Option<String>],
    bands: &mut dyn FnMut(Report, u32, u32),
    now: &dyn Fn() -> f64,
) -> Result<Report, Unavailable> {
    valid(model, s)?;
    let r = model.assemble(s, parts)?;
    if parts.iter().all(Option::is_some) {
        banded_streamed(model, s, r, bands, now)
    } else {
        Ok(r)
    }
}

/// `Model::parts` of a scenario that passes `model`'s validation (0
/// otherwise: its report says what is wrong).
pub fn parts(model: &dyn Model, s: &Scenario) -> u32 {
    valid(model, s).map_or(0, |()| model.parts(s))
}

/// Validates what `model` reads, then computes its part `k`.
pub fn part(model: &dyn Model, s: &Scenario, k: u32) -> Result<String, Unavailable> {
    valid(model, s)?;
    model.part(s, k)
}

/// Validates what `model` reads, then assembles its report from `parts`.
pub fn assemble(
    model: &dyn Model,
    s: &Scenario,
    parts: &[Option<String>],
) -> Result<Report, Unavailable> {
    valid(model, s)?;
    let r = model.assemble(s, parts)?;
    if parts.iter().all(Option::is_some) {
        banded(model, s, r)
    } else {
        Ok(r)
    }
}

/// Every model's outcome, in registry order.
pub fn evaluate_all(s: &Scenario) -> Vec<(&'static dyn Model, Result<Report, Unavailable>)> {
    MODELS.iter().map(|&m| (m, evaluate(m, s))).collect()
}
