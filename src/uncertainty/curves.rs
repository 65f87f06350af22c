//! Bands on the charts (issue 35): the lines of a model's cost and time
//! curves (`Model::banded_charts`) get each point's 10th-90th percentile
//! over the same samples as the headline (`SeriesBand`), and a timeline
//! the percentiles of the total its vertical marker stands at
//! (`Marker::Span`).
//!
//! - A point is matched across samples by its series' name and its x
//!   (a worker count): a line or point a sample does not have adds no
//!   value there, and a line some point of which no sample reaches gets
//!   no band.
//! - The work is stated before it starts: samples × one `Model::curves`
//!   (`Model::curves_work`, within the model's budget), and samples ×
//!   points kept (`MAX_CURVE_VALUES`). Over either, the charts take the
//!   first samples that fit (at least `MIN_SAMPLES`), or none, and a note
//!   says which.

use crate::models::{Model, Work};
use crate::report::{fmt_count, Chart, Marker, Note, Report, SeriesBand, SeriesData, Style};
use crate::scenario::Scenario;

use super::MIN_SAMPLES;

/// Most values the charts' bands keep (8 bytes each: 8 MB); each is a
/// point of a chart built for a sample, about 0.1 s natively in all.
pub const MAX_CURVE_VALUES: f64 = 1e6;

/// What one banded point is.
enum Of {
    /// The line `series` of chart `chart`, at each of its `x`.
    Line { series: String, x: Vec<f64> },
    /// The total a timeline's first vertical marker stands at.
    Total,
}

struct Target {
    chart: String,
    of: Of,
    /// The values drawn, one list per point.
    values: Vec<Vec<f64>>,
}

/// The charts' band samples being collected (`super::Sampler`).
pub struct Collect {
    /// Samples the charts take: the section's, or fewer within budget.
    pub samples: u32,
    targets: Vec<Target>,
    /// Why fewer than the section's samples: the model's name and the
    /// first measure all of them would pass.
    thinned: Option<(&'static str, Work)>,
}

/// The points of `r`'s charts that `model` bands.
fn targets(model: &dyn Model, r: &Report) -> Vec<Target> {
    let keys = model.banded_charts();
    let mut out = Vec::new();
    for c in r.charts.iter().filter(|c| keys.contains(&c.key.as_str())) {
        let timeline = c
            .series
            .iter()
            .any(|s| matches!(s.data, SeriesData::Segments { .. }));
        if timeline {
            if c.markers
                .iter()
                .any(|m| matches!(m, Marker::Vertical { .. }))
            {
                out.push(Target {
                    chart: c.key.clone(),
                    of: Of::Total,
                    values: vec![Vec::new()],
                });
            }
            continue;
        }
        for s in &c.series {
            let (SeriesData::Xy { x, .. }, Style::Line | Style::LinePoints) = (&s.data, s.style)
            else {
                continue;
            };
            if x.is_empty() {
                continue;
            }
            out.push(Target {
                chart: c.key.clone(),
                of: Of::Line {
                    series: s.name.clone(),
                    x: x.clone(),
                },
                values: vec![Vec::new(); x.len()],
            });
        }
    }
    out
}

/// The work of the charts' bands of `points` points over `samples`.
pub fn work(model: &dyn Model, s: &Scenario, samples: u32, points: usize) -> Vec<Work> {
    let mut w = super::per_sample(model.curves_work(s), samples);
    w.push(Work {
        units: f64::from(samples) * points as f64,
        unit: "chart points sampled",
        limit: MAX_CURVE_VALUES,
        field: "uncertainty.samples".into(),
        reduce: "the band's samples".into(),
    });
    w
}

impl Collect {
    /// The charts' bands of `model`'s report `r` on `s` over `samples`:
    /// `Ok(None)` when it bands none, `Err` (a note) when even
    /// `MIN_SAMPLES` are over budget.
    pub fn new(
        model: &dyn Model,
        s: &Scenario,
        r: &Report,
        samples: u32,
    ) -> Result<Option<Collect>, Note> {
        let targets = targets(model, r);
        if targets.is_empty() {
            return Ok(None);
        }
        let points: usize = targets.iter().map(|t| t.values.len()).sum();
        let works = work(model, s, samples, points);
        let over = crate::models::work::over_budget(model.name(), &works);
        let Some(first) = over.first() else {
            return Ok(Some(Collect {
                samples,
                targets,
                thinned: None,
            }));
        };
        // The most samples every measure fits (per sample: units / samples).
        let fit = works
            .iter()
            .map(|w| {
                let per = w.units / f64::from(samples);
                if per > 0.0 {
                    (w.limit / per).floor()
                } else {
                    f64::INFINITY
                }
            })
            .fold(f64::from(samples), f64::min);
        if fit.is_nan() || fit < f64::from(MIN_SAMPLES) {
            return Err(
                Note::warning(format!("No bands on the charts: {}.", first.message))
                    .at(first.field.clone()),
            );
        }
        Ok(Some(Collect {
            samples: fit as u32,
            targets,
            thinned: works
                .iter()
                .find(|w| !w.fits())
                .map(|w| (model.name(), w.clone())),
        }))
    }

    /// Points banded per sample.
    pub fn points(&self) -> usize {
        self.targets.iter().map(|t| t.values.len()).sum()
    }

    /// The note saying the charts take fewer samples than `all`, if so.
    pub fn thinned_note(&self, all: u32) -> Option<Note> {
        self.thinned.as_ref().map(|(model, w)| {
            Note::info(format!(
                "The charts' bands take the first {} of the {} samples: all of them would ask {model} for {} {}, more than the {} it takes on for them; reducing {} would draw them all.",
                fmt_count(f64::from(self.samples)),
                fmt_count(f64::from(all)),
                fmt_count(w.units),
                w.unit,
                fmt_count(w.limit),
                w.reduce,
            ))
            .at(w.field.clone())
        })
    }

    /// Keeps one sample's values from its `charts` (`Model::curves`).
    pub fn take(&mut self, charts: &[Chart]) {
        for t in &mut self.targets {
            let Some(c) = charts.iter().find(|c| c.key == t.chart) else {
                continue;
            };
            match &t.of {
                Of::Total => {
                    let total = c.markers.iter().find_map(|m| match m {
                        Marker::Vertical { x, .. } => Some(*x),
                        _ => None,
                    });
                    if let (Some(v), Some(out)) =
                        (total.filter(|v| v.is_finite()), t.values.first_mut())
                    {
                        out.push(v);
                    }
                }
                Of::Line { series, x } => {
                    let Some((sx, sy)) = c.series.iter().find_map(|s| match &s.data {
                        SeriesData::Xy { x, y } if &s.name == series => Some((x, y)),
                        _ => None,
                    }) else {
                        continue;
                    };
                    for (i, (&xi, out)) in x.iter().zip(t.values.iter_mut()).enumerate() {
                        // Same x at the same index, as a rule; else find it.
                        let j = if sx.get(i) == Some(&xi) {
                            Some(i)
                        } else {
                            sx.iter().position(|&v| v == xi)
                        };
                        if let Some(v) = j.and_then(|j| sy.get(j)).filter(|v| v.is_finite()) {
                            out.push(*v);
                        }
                    }
                }
            }
        }
    }

    /// Writes the bands of the values kept so far into `r`'s charts; the
    /// keys of the charts that got one.
    pub fn apply(&self, r: &mut Report) -> Vec<String> {
        let mut banded: Vec<String> = Vec::new();
        for t in &self.targets {
            if t.values.iter().any(Vec::is_empty) {
                continue;
            }
            let Some(c) = r.charts.iter_mut().find(|c| c.key == t.chart) else {
                continue;
            };
            let (p10, p90): (Vec<f64>, Vec<f64>) = t
                .values
                .iter()
                .map(|v| {
                    let mut v = v.clone();
                    (quantile(&mut v, 0.1), quantile(&mut v, 0.9))
                })
                .unzip();
            let samples = t.values.iter().map(Vec::len).max().unwrap_or(0) as u32;
            match &t.of {
                Of::Total => {
                    let Some(at) = c
                        .markers
                        .iter()
                        .position(|m| matches!(m, Marker::Vertical { .. }))
                    else {
                        continue;
                    };
                    let label = match &c.markers[at] {
                        Marker::Vertical { label, .. } => label.clone(),
                        _ => String::new(),
                    };
                    c.markers.insert(
                        at + 1,
                        Marker::Span {
                            x0: p10[0],
                            x1: p90[0],
                            label: format!(
                                "{label}: 10th–90th percentile of {} samples",
                                fmt_count(f64::from(samples))
                            ),
                        },
                    );
                }
                Of::Line { series, .. } => {
                    let Some(s) = c.series.iter_mut().find(|s| &s.name == series) else {
                        continue;
                    };
                    s.band = Some(SeriesBand { p10, p90, samples });
                }
            }
            if !banded.contains(&t.chart) {
                banded.push(t.chart.clone());
            }
        }
        banded
    }
}

/// The `p` quantile of non-empty `v` (type 7, as `super::percentile`),
/// without sorting all of it; reorders `v`.
pub fn quantile(v: &mut [f64], p: f64) -> f64 {
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    let h = p * (n - 1) as f64;
    let lo = h.floor() as usize;
    let (_, &mut a, right) = v.select_nth_unstable_by(lo, f64::total_cmp);
    let b = right.iter().copied().min_by(f64::total_cmp).unwrap_or(a);
    a + (h - lo as f64) * (b - a)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::quantile;

    #[test]
    fn quantile_agrees_with_the_sorted_percentile() {
        let mut v = [5.0, 1.0, 4.0, 2.0, 3.0];
        assert_eq!(quantile(&mut v.clone(), 0.1), 1.4);
        assert_eq!(quantile(&mut v.clone(), 0.9), 4.6);
        assert_eq!(quantile(&mut v, 0.5), 3.0);
        assert_eq!(quantile(&mut [7.0], 0.9), 7.0);
    }
}
