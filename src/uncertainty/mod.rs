//! Uncertainty bands (issue 35): any numeric input can be given a range
//! (`Scenario::uncertainty`); each model's headline numbers then carry
//! the 10th, 50th and 90th percentile of a seeded Monte Carlo over the
//! ranges (`Figure::band`), and a figure a goal bounds carries the
//! probability of meeting it.
//!
//! - Every range is sampled uniformly and independently in [min, max],
//!   in the order of its path, from one SplitMix64 stream (`rng`): the
//!   same seed gives the same bits natively and in wasm, and sample `k`
//!   holds the same input values for every model.
//! - Each range's path is resolved once to a setter (`paths`); a sample
//!   writes its values into one working copy of the scenario and asks
//!   the model for its headline alone (`Model::headline`).
//! - The work is stated before it starts: samples × one headline's work
//!   (`Model::headline_work`), within the model's own budget, else the
//!   band is refused at `uncertainty.samples` and the report stands.
//! - Percentiles interpolate linearly between order statistics (rank
//!   `p·(n−1)`, Hyndman and Fan's type 7).

pub mod curves;
pub mod paths;
pub mod rng;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::errors::{err, FieldError};
use crate::models::{Model, Work, MODELS};
use crate::report::{fmt_count, Note, Report, Value};
use crate::scenario::Scenario;

pub use paths::Setter;

/// The seed when the document gives none.
pub const DEFAULT_SEED: u64 = 35;
/// Samples when the document gives none.
pub const DEFAULT_SAMPLES: u32 = 10_000;
/// Fewest samples: below, the 10th and 90th percentiles are a sample or two.
pub const MIN_SAMPLES: u32 = 100;
pub const MAX_SAMPLES: u32 = 100_000;
/// Most ranges in one scenario.
pub const MAX_RANGES: usize = 64;
/// Largest seed: JavaScript reads integers exactly up to 2^53 − 1.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// The scenario's `uncertainty` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Uncertainty {
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default = "default_samples")]
    pub samples: u32,
    /// Scenario path → the range its value is drawn from (SI units).
    #[serde(default)]
    pub ranges: BTreeMap<String, Range>,
}

fn default_seed() -> u64 {
    DEFAULT_SEED
}

fn default_samples() -> u32 {
    DEFAULT_SAMPLES
}

impl Default for Uncertainty {
    fn default() -> Self {
        Uncertainty {
            seed: DEFAULT_SEED,
            samples: DEFAULT_SAMPLES,
            ranges: BTreeMap::new(),
        }
    }
}

/// Where an input's value lies, in its stored (SI) unit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Range {
    pub min: f64,
    pub max: f64,
}

/// A headline number's spread over the samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Band {
    pub p10: f64,
    pub p50: f64,
    pub p90: f64,
    /// Samples the percentiles are taken over (a sample the model had no
    /// finite value for is left out).
    pub samples: u32,
    /// The goal this figure is held against, and the share of samples
    /// that meet it (value ≤ goal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<GoalOdds>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GoalOdds {
    /// "time goal" or "budget".
    pub what: String,
    /// The goal, in the figure's stored unit.
    pub goal: f64,
    /// Share of samples at or under it, 0 to 1.
    pub probability: f64,
}

/// Which goal bounds a headline figure (`Model::goal_figures`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// `goals.time_s`; the figure is in seconds.
    Time,
    /// `goals.budget_usd`; the figure is in USD.
    Budget,
}

impl Goal {
    fn of(self, s: &Scenario) -> Option<(&'static str, f64)> {
        match self {
            Goal::Time => s.goals.time_s.map(|g| ("time goal", g)),
            Goal::Budget => s.goals.budget_usd.map(|g| ("budget", g)),
        }
    }
}

/// A path's range checked and resolved.
struct Resolved {
    setter: Setter,
    range: Range,
}

/// The checks of the `uncertainty` section, at `uncertainty.…`: the
/// samples and seed in range, and each range on an input that takes one,
/// finite, min ≤ max, and both ends inputs the scenario's own checks
/// accept.
pub fn validate(s: &Scenario) -> Vec<FieldError> {
    checked(s).err().unwrap_or_default()
}

/// The section and its ranges resolved, or every message about it.
fn checked(s: &Scenario) -> Result<Option<(&Uncertainty, Vec<Resolved>)>, Vec<FieldError>> {
    let Some(u) = &s.uncertainty else {
        return Ok(None);
    };
    let mut errs = Vec::new();
    if !(MIN_SAMPLES..=MAX_SAMPLES).contains(&u.samples) {
        errs.push(err(
            "uncertainty.samples",
            format!(
                "the samples must be {} to {} (got {})",
                fmt_count(f64::from(MIN_SAMPLES)),
                fmt_count(f64::from(MAX_SAMPLES)),
                fmt_count(f64::from(u.samples))
            ),
        ));
    }
    if u.seed > MAX_SEED {
        errs.push(err(
            "uncertainty.seed",
            format!("the seed must be at most 2^53 − 1 = {MAX_SEED}, so JavaScript reads it exactly (got {})", u.seed),
        ));
    }
    if u.ranges.len() > MAX_RANGES {
        errs.push(err(
            "uncertainty.ranges",
            format!(
                "{} ranges, more than the {MAX_RANGES} accepted: remove some",
                u.ranges.len()
            ),
        ));
        return Err(errs);
    }
    let mut list = Vec::new();
    for (path, range) in &u.ranges {
        match resolve_one(s, path, *range) {
            Ok(r) => list.push(r),
            Err(e) => errs.push(e),
        }
    }
    if errs.is_empty() {
        Ok(Some((u, list)))
    } else {
        Err(errs)
    }
}

/// The setter of one range, or its message at
/// `uncertainty.ranges.<path>`: the input's own checks run at both ends,
/// and only what an end adds to the scenario's messages is blamed on it.
fn resolve_one(s: &Scenario, path: &str, range: Range) -> Result<Resolved, FieldError> {
    let at = format!("uncertainty.ranges.{path}");
    let setter = paths::resolve(s, path).map_err(|m| err(&at, m.to_string()))?;
    let Range { min, max } = range;
    // The ends as typed: in the unit the input is shown in.
    let typed = |v: f64| in_shown_unit(&setter, s, v);
    if !(min.is_finite() && max.is_finite()) {
        return Err(err(
            &at,
            format!(
                "the range's min and max must be finite numbers (got {} to {})",
                typed(min),
                typed(max)
            ),
        ));
    }
    if min > max {
        return Err(err(
            &at,
            format!(
                "the range's min ({}) is above its max ({}): swap them",
                typed(min),
                typed(max)
            ),
        ));
    }
    let base = checks_of(&setter, s);
    for (end, v) in [("min", min), ("max", max)] {
        let mut copy = s.clone();
        setter.set(&mut copy, v);
        if let Some(e) = checks_of(&setter, &copy)
            .into_iter()
            .find(|e| !base.contains(e))
        {
            return Err(err(&at, format!("the range's {end}: {}", e.message)));
        }
    }
    Ok(Resolved { setter, range })
}

/// `v`, a stored (SI) value of the input `setter` writes, in the unit
/// the input is typed in.
fn in_shown_unit(setter: &Setter, s: &Scenario, v: f64) -> String {
    let (scale, unit) = setter.shown(s);
    let n = crate::bounds::fmt_typed(v, scale);
    if unit.is_empty() {
        n
    } else {
        format!("{n} {unit}")
    }
}

/// The checks that read the input `setter` writes: its model's for a
/// model's input or factor, the shared ones otherwise (the page runs
/// these on every edit, so not every model's).
fn checks_of(setter: &Setter, s: &Scenario) -> Vec<FieldError> {
    match setter {
        Setter::Section { model, .. } | Setter::Factor { model, .. } => MODELS
            .iter()
            .find(|m| m.id() == model)
            .map(|m| m.validate(s))
            .unwrap_or_default(),
        _ => s.validate_shared(),
    }
}

/// Whether `s` gives ranges that pass `validate`: its reports are banded.
pub fn has_ranges(s: &Scenario) -> bool {
    resolved(s).is_some()
}

/// The ranges of `s`, resolved; `None` when it has none, or any does not
/// pass `validate` (its messages are at the fields).
fn resolved(s: &Scenario) -> Option<(&Uncertainty, Vec<Resolved>)> {
    checked(s)
        .ok()
        .flatten()
        .filter(|(u, _)| !u.ranges.is_empty())
}

/// The work of `model`'s bands on `s`: samples × one headline's work,
/// each within the model's own budget, refused at `uncertainty.samples`.
pub fn work(model: &dyn Model, s: &Scenario, samples: u32) -> Vec<Work> {
    per_sample(model.headline_work(s), samples)
}

/// `one`, the work of one sample, done `samples` times: refused at
/// `uncertainty.samples`.
fn per_sample(one: Vec<Work>, samples: u32) -> Vec<Work> {
    one.into_iter()
        .map(|w| Work {
            units: w.units * f64::from(samples),
            field: "uncertainty.samples".into(),
            reduce: format!("the band's samples, or {}", w.reduce),
            ..w
        })
        .collect()
}

/// Adds the bands to `r`, `model`'s report of `s`, when `s` gives valid
/// ranges; within the work budget, else a note says why there are none.
pub fn add_bands(model: &dyn Model, s: &Scenario, r: &mut Report) {
    add_bands_streamed(model, s, r, &mut |_, _, _| {}, &|| 0.0);
}

/// A job of bands that has run this long by its clock streams [ms].
pub const STREAM_AFTER_MS: f64 = 100.0;
/// How long one chunk of samples is meant to take [ms]: the clock is
/// read between chunks, and a chunk is sized from the last one's time.
const CHUNK_MS: f64 = 25.0;

/// `add_bands`, drawing the samples in chunks timed by `now` (ms): once
/// the job has run `STREAM_AFTER_MS`, and then every `STREAM_AFTER_MS`,
/// `so_far(report with the bands so far, samples drawn, samples)`. The
/// bands are the same however the samples are chunked; a caller stops
/// the job by dropping it (the page ends its worker).
pub fn add_bands_streamed(
    model: &dyn Model,
    s: &Scenario,
    r: &mut Report,
    so_far: &mut dyn FnMut(Report, u32, u32),
    now: &dyn Fn() -> f64,
) {
    let Some(mut b) = Sampler::new(model, s, r) else {
        return;
    };
    let total = b.total();
    let start = now();
    let mut shown = start;
    let mut chunk: u32 = 1;
    while b.drawn() < total {
        let t0 = now();
        b.run(chunk);
        let t1 = now();
        let took = t1 - t0;
        // The next chunk aimed at CHUNK_MS, growing at most twofold.
        chunk = if took > 0.0 {
            (f64::from(chunk) * CHUNK_MS / took).clamp(1.0, f64::from(chunk) * 2.0) as u32
        } else {
            chunk.saturating_mul(2)
        };
        if b.drawn() < total && t1 - start >= STREAM_AFTER_MS && t1 - shown >= STREAM_AFTER_MS {
            let mut p = r.clone();
            // The files come with the whole result.
            p.downloads.clear();
            b.apply(&mut p);
            so_far(p, b.drawn(), total);
            shown = now();
        }
    }
    b.apply(r);
}

/// One model's band samples, drawn in order and resumable: `run` draws
/// the next ones, `apply` writes the bands of those drawn so far, so a
/// long job shows its band growing (`worker`, the CLI's progress).
pub struct Sampler<'a> {
    model: &'a dyn Model,
    s: &'a Scenario,
    u: &'a Uncertainty,
    ranges: Vec<Resolved>,
    rng: rng::SplitMix64,
    copy: Scenario,
    /// The headline figures banded (none: refused, or no numbers).
    keys: Vec<String>,
    values: Vec<Vec<f64>>,
    curves: Option<curves::Collect>,
    /// The model's prepared `curves`, if it has one.
    curve_sampler: Option<crate::models::CurveSampler>,
    drawn: u32,
    /// Notes for the report: refusals, thinning.
    notes: Vec<Note>,
}

impl<'a> Sampler<'a> {
    /// The sampler of `model`'s bands on `s`, whose report is `r`; `None`
    /// when `s` gives no valid ranges or `model` is not a registry model
    /// (an analysis would redo all of its work once per sample). Work
    /// over a budget is refused (or the curves thinned) with a note,
    /// which `apply` adds.
    pub fn new(model: &'a dyn Model, s: &'a Scenario, r: &Report) -> Option<Self> {
        if !crate::models::MODELS.iter().any(|m| m.id() == model.id()) {
            return None;
        }
        let (u, ranges) = resolved(s)?;
        let mut notes = Vec::new();
        let refused = crate::models::work::over_budget(model.name(), &work(model, s, u.samples));
        let keys: Vec<String> = match refused.first() {
            Some(e) => {
                notes.push(Note::warning(format!("No bands: {}.", e.message)).at(e.field.clone()));
                Vec::new()
            }
            None => r
                .headline
                .iter()
                .filter(|f| f.value.number().is_some())
                .map(|f| f.key.clone())
                .collect(),
        };
        let curves = match curves::Collect::new(model, s, r, u.samples) {
            Ok(c) => c,
            Err(note) => {
                notes.push(note);
                None
            }
        };
        if let Some(c) = &curves {
            notes.extend(c.thinned_note(u.samples));
        }
        let curve_sampler = curves.as_ref().and_then(|_| model.curve_sampler(s));
        Some(Sampler {
            model,
            s,
            u,
            values: vec![Vec::with_capacity(u.samples as usize); keys.len()],
            keys,
            curves,
            curve_sampler,
            ranges,
            rng: rng::SplitMix64::new(u.seed),
            copy: s.clone(),
            drawn: 0,
            notes,
        })
    }

    /// Samples to draw in all (0: nothing to band, only notes to add).
    pub fn total(&self) -> u32 {
        let curves = self.curves.as_ref().map_or(0, |c| c.samples);
        if self.keys.is_empty() {
            curves
        } else {
            self.u.samples.max(curves)
        }
    }

    /// Samples drawn so far.
    pub fn drawn(&self) -> u32 {
        self.drawn
    }

    /// Draws the next `n` samples (fewer at the end). Sample `k` holds
    /// the same input values however the draws are split.
    pub fn run(&mut self, n: u32) {
        let end = self.drawn.saturating_add(n).min(self.total());
        while self.drawn < end {
            for x in &self.ranges {
                let v = x.range.min + (x.range.max - x.range.min) * self.rng.next_unit();
                x.setter.set(&mut self.copy, v);
            }
            if !self.keys.is_empty() && self.drawn < self.u.samples {
                if let Ok(headline) = self.model.headline(&self.copy) {
                    for (key, out) in self.keys.iter().zip(self.values.iter_mut()) {
                        if let Some(v) = headline
                            .iter()
                            .find(|f| &f.key == key)
                            .and_then(|f| f.value.number())
                            .filter(|v| v.is_finite())
                        {
                            out.push(v);
                        }
                    }
                }
            }
            if let Some(c) = &mut self.curves {
                if self.drawn < c.samples {
                    let charts = match &self.curve_sampler {
                        Some(f) => f(&self.copy),
                        None => self.model.curves(&self.copy),
                    };
                    if let Ok(charts) = charts {
                        c.take(&charts);
                    }
                }
            }
            self.drawn += 1;
        }
    }

    /// Writes into `r` the bands of the samples drawn so far, and the
    /// notes saying how they were made.
    pub fn apply(&self, r: &mut Report) {
        r.notes.extend(self.notes.iter().cloned());
        if self.drawn == 0 {
            return;
        }
        let goals = self.model.goal_figures();
        let mut any = false;
        for (key, vs) in self.keys.iter().zip(&self.values) {
            if vs.is_empty() {
                continue;
            }
            let mut vs = vs.clone();
            vs.sort_by(f64::total_cmp);
            let goal = goals
                .iter()
                .find(|(k, _)| k == key)
                .and_then(|(_, g)| g.of(self.s))
                .map(|(what, goal)| GoalOdds {
                    what: what.into(),
                    goal,
                    probability: vs.partition_point(|&v| v <= goal) as f64 / vs.len() as f64,
                });
            let band = Band {
                p10: percentile(&vs, 0.1),
                p50: percentile(&vs, 0.5),
                p90: percentile(&vs, 0.9),
                samples: vs.len() as u32,
                goal,
            };
            if let Some(f) = r.headline.iter_mut().find(|f| &f.key == key) {
                f.band = Some(band);
                any = true;
            }
        }
        let charted = self.curves.as_ref().map_or(Vec::new(), |c| c.apply(r));
        if !any && charted.is_empty() {
            return;
        }
        let u = self.u;
        let so_far = if self.drawn < self.total() {
            format!(" (so far: {} drawn)", fmt_count(f64::from(self.drawn)))
        } else {
            String::new()
        };
        let charts = if charted.is_empty() {
            String::new()
        } else {
            let c = self.curves.as_ref().map_or(0, |c| c.samples);
            format!(
                " The charts {} carry the 10th–90th percentile of each point over {} samples × {} points.",
                charted.join(", "),
                fmt_count(f64::from(c)),
                fmt_count(self.curves.as_ref().map_or(0.0, |c| c.points() as f64)),
            )
        };
        r.notes.push(
            Note::info(format!(
                "Bands: 10th–90th percentile of {} seeded samples{so_far} (seed {}), each input drawn uniformly within its range: {}.{charts}",
                fmt_count(f64::from(u.samples)),
                u.seed,
                u.ranges
                    .iter()
                    .map(|(p, r)| match paths::resolve(self.s, p) {
                        Ok(setter) => format!(
                            "{p} {} to {}",
                            in_shown_unit(&setter, self.s, r.min),
                            in_shown_unit(&setter, self.s, r.max)
                        ),
                        Err(_) => format!("{p} {} to {}", crate::report::fmt_sig(r.min), crate::report::fmt_sig(r.max)),
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            ))
            .at("uncertainty"),
        );
    }
}

/// The `p` quantile of sorted, non-empty `v` (type 7).
pub fn percentile(v: &[f64], p: f64) -> f64 {
    let h = p * (v.len() - 1) as f64;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    v[lo] + (h - lo as f64) * (v[hi] - v[lo])
}

/// A band as people read it, in the figure's unit: "p10–p90 2.1 s – 2.6 s".
pub fn display(band: &Band, value: &Value) -> Option<String> {
    let Value::Number { unit, .. } = value else {
        return None;
    };
    // A figure the ranges do not move (another model's inputs) shows
    // nothing, unless it says how often a goal is met.
    let spread = (band.p10 != band.p90).then(|| {
        format!(
            "p10–p90 {} – {}",
            unit.display(band.p10),
            unit.display(band.p90)
        )
    });
    let goal = band
        .goal
        .as_ref()
        .map(|g| format!("{:.0}% within the {}", g.probability * 100.0, g.what));
    match (spread, goal) {
        (Some(s), Some(g)) => Some(format!("{s}, {g}")),
        (s, g) => s.or(g),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::percentile;

    #[test]
    fn percentiles_interpolate_between_order_statistics() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&v, 0.5), 3.0);
        assert_eq!(percentile(&v, 0.1), 1.4);
        assert_eq!(percentile(&v, 0.9), 4.6);
        assert_eq!(percentile(&[7.0], 0.9), 7.0);
    }
}
