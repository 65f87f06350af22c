//! The measured configurations ranked per epoch, as the paper ranks the
//! ones it measured (Sec. V: Figs. 6, 10, 12 and 14 compare training time
//! and cost per epoch; Sec. V-A and V-B rank them in words), beside the
//! all-reduce prediction's order of the same configurations.
//!
//! - An epoch of `S` samples (the section's samples per epoch, the epoch
//!   the prediction uses) on a configuration of `n` GPUs takes
//!   `t / s_gpu · S/n` [s], `t` a run's time normalised to the
//!   configuration's samples per GPU `s_gpu` (time taken as proportional
//!   to samples, as the normalisation of `stalls.rs` takes it).
//! - **With stalls**: run (3), real data from a cold cache, the run that
//!   has every stall (interconnect or network, CPU prep, disk fetch).
//! - **Without stalls**: run (1), one GPU on synthetic data, as if every
//!   GPU ran alone; on several machines, their one-machine member's run (1)
//!   when they have none of their own (the same GPU of the same type).
//! - Cost per epoch [USD]: the epoch [s] / 3600 × machines × the catalog's
//!   price [USD/h] at the scenario's pricing, the convention of
//!   `predict.rs`.
//! - Ranks are competition ranks (1, 2, 2, 4): tied configurations share
//!   the rank of their group, and the next group skips. Measured figures
//!   within [`MEASURED_TIE`] (0.5%) relative of their group's least one are
//!   a tie; predicted figures within `predict::TIE` (1e-9, exact but for
//!   rounding), as the prediction's own ranking counts them.
//! - Predicted ranks count among the measured configurations only, so the
//!   two orders compare; a pair the two orders put the other way round is
//!   a disagreement, named.

use serde::Serialize;

use super::eval::Predictions;
use super::predict::TIE;
use super::stalls::{ConfigStalls, StallAnalysis};
use crate::hardware::{Instance, Pricing};

/// Relative difference under which two measured figures tie: runs of the
/// same job vary by more than this from one repeat to the next, and the
/// paper's bar charts do not resolve less.
pub const MEASURED_TIE: f64 = 0.005;

/// Names listed at most per tie and per disagreement; the rest are
/// counted ("and 12 more"), so thousands of configurations stay readable
/// and small.
pub const NAMED: usize = 10;

/// "a", "a and b", "a, b and c", or "a, b, … and 12 more" for the first
/// `names` of `total`.
pub fn name_list(names: &[String], total: usize) -> String {
    let more = total.saturating_sub(names.len());
    match (names, more) {
        ([], _) => format!("{more} more"),
        ([one], 0) => one.clone(),
        ([rest @ .., last], 0) => format!("{} and {last}", rest.join(", ")),
        (all, _) => format!("{}, … and {more} more", all.join(", ")),
    }
}

/// Which figure a configuration is ranked by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Run (3): every stall.
    WithStalls,
    /// Run (1): no stall.
    WithoutStalls,
    /// The all-reduce prediction (this product's extension).
    Predicted,
}

impl Basis {
    pub const ALL: [Basis; 3] = [Basis::WithStalls, Basis::WithoutStalls, Basis::Predicted];
    pub const MEASURED: [Basis; 2] = [Basis::WithStalls, Basis::WithoutStalls];

    pub fn word(self) -> &'static str {
        match self {
            Basis::WithStalls => "measured with stalls",
            Basis::WithoutStalls => "measured without stalls",
            Basis::Predicted => "predicted",
        }
    }

    /// Relative difference under which two figures on this basis tie.
    pub fn tolerance(self) -> f64 {
        match self {
            Basis::WithStalls | Basis::WithoutStalls => MEASURED_TIE,
            Basis::Predicted => TIE,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    Time,
    Cost,
}

impl Metric {
    pub const ALL: [Metric; 2] = [Metric::Time, Metric::Cost];

    pub fn word(self) -> &'static str {
        match self {
            Metric::Time => "epoch time [s]",
            Metric::Cost => "epoch cost [USD]",
        }
    }
}

/// A configuration's place in one order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Place {
    /// 1 is the best; tied configurations share their group's rank.
    pub rank: usize,
    /// The configurations tied with this one, in order (the first
    /// [`NAMED`]).
    pub tied_with: Vec<String>,
    /// How many configurations it is tied with, named or not.
    pub ties: usize,
}

impl Place {
    /// "2", or "2 (tied with p3.8xlarge and 2× p3.8xlarge)".
    pub fn words(&self) -> String {
        if self.ties == 0 {
            return self.rank.to_string();
        }
        format!(
            "{} (tied with {})",
            self.rank,
            name_list(&self.tied_with, self.ties)
        )
    }
}

/// One configuration's epoch on one basis, with its places.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Epoch {
    /// Where the time comes from: "run (3)", "run (1) of p3.8xlarge",
    /// "all-reduce prediction".
    pub source: String,
    pub epoch_s: f64,
    /// None: no price in the catalog (the configuration's `cost_missing`).
    pub epoch_usd: Option<f64>,
    pub time: Place,
    /// None when there is no cost to rank.
    pub cost: Option<Place>,
}

impl Epoch {
    pub fn place(&self, m: Metric) -> Option<&Place> {
        match m {
            Metric::Time => Some(&self.time),
            Metric::Cost => self.cost.as_ref(),
        }
    }

    pub fn value(&self, m: Metric) -> Option<f64> {
        match m {
            Metric::Time => Some(self.epoch_s),
            Metric::Cost => self.epoch_usd,
        }
    }
}

/// A measured configuration on every basis, or why it has no figure there.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ranked {
    pub name: String,
    pub instance: String,
    pub machines: u32,
    pub gpus: u32,
    /// The whole configuration [USD/h].
    pub price_per_hour: Option<f64>,
    /// Why its cost is not ranked (no price at the scenario's pricing).
    pub cost_missing: Option<String>,
    pub with_stalls: Result<Epoch, Unranked>,
    pub without_stalls: Result<Epoch, Unranked>,
    pub predicted: Result<Epoch, Unranked>,
}

/// Why a configuration has no figure on a basis.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Unranked {
    #[error("no run (3) of {config}: the epoch with stalls is run (3), real data from a cold cache, the run with every stall")]
    NoRun3 { config: String },
    #[error("no run (1) of {config}{}: the epoch without stalls is run (1), one GPU on synthetic data, the run with no stall", .member.as_ref().map(|i| format!(" nor of one {i}")).unwrap_or_default())]
    NoRun1 {
        config: String,
        /// The instance whose one-machine run (1) was looked for too.
        member: Option<String>,
    },
    #[error("no prediction: it needs F_s, L and G (see the notes)")]
    NoPrediction,
    #[error("not predicted: {0}")]
    Skipped(String),
    #[error("not predicted: {machines} machines is more than the most machines per configuration ({max})")]
    TooManyMachines { machines: u32, max: u32 },
    #[error("not predicted: {config} is not among the predicted configurations")]
    NotPredicted { config: String },
    #[error("{config}'s epoch from {source_run} is not a finite number of seconds (check the run's time and samples)")]
    NotFinite { config: String, source_run: String },
}

/// As its sentence, as the report and the JSON have always shown it.
impl Serialize for Unranked {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl Ranked {
    pub fn on(&self, b: Basis) -> Result<&Epoch, &Unranked> {
        match b {
            Basis::WithStalls => self.with_stalls.as_ref(),
            Basis::WithoutStalls => self.without_stalls.as_ref(),
            Basis::Predicted => self.predicted.as_ref(),
        }
    }

    fn on_mut(&mut self, b: Basis) -> Option<&mut Epoch> {
        match b {
            Basis::WithStalls => self.with_stalls.as_mut().ok(),
            Basis::WithoutStalls => self.without_stalls.as_mut().ok(),
            Basis::Predicted => self.predicted.as_mut().ok(),
        }
    }

    fn place(&self, b: Basis, m: Metric) -> Option<usize> {
        self.on(b).ok()?.place(m).map(|p| p.rank)
    }
}

/// Pairs a measured order and the predicted one put the other way round:
/// `(a, b)` with `a` ahead of `b` measured and `b` ahead of `a` predicted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Disagreement {
    pub basis: Basis,
    pub metric: Metric,
    /// The first [`NAMED`] pairs, in the measured order.
    pub pairs: Vec<(String, String)>,
    /// How many pairs disagree, named or not.
    pub count: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeasuredRanking {
    /// `S`, the epoch every figure is scaled to.
    pub epoch_samples: f64,
    pub pricing: Pricing,
    /// Ties among measured figures, relative.
    pub measured_tie: f64,
    /// Ties among predicted figures, relative.
    pub predicted_tie: f64,
    /// In the order of the stall analysis (the runs' first appearance).
    pub rows: Vec<Ranked>,
    pub disagreements: Vec<Disagreement>,
}

/// Competition ranks of `values` (None: not ranked): sorted ascending, a
/// group takes every figure within `tolerance` relative of its least one.
pub fn places(names: &[&str], values: &[Option<f64>], tolerance: f64) -> Vec<Option<Place>> {
    let mut order: Vec<(usize, f64)> = values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.filter(|v| v.is_finite()).map(|v| (i, v)))
        .collect();
    crate::order::sort_by(&mut order, |a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let mut out = vec![None; values.len()];
    let mut start = 0;
    while start < order.len() {
        let least = order[start].1;
        let end = order[start..]
            .iter()
            .position(|&(_, v)| v - least > tolerance * least.abs())
            .map_or(order.len(), |k| start + k);
        let group = &order[start..end];
        for &(i, _) in group {
            out[i] = Some(Place {
                rank: start + 1,
                tied_with: group
                    .iter()
                    .filter(|&&(j, _)| j != i)
                    .take(NAMED)
                    .map(|&(j, _)| names.get(j).copied().unwrap_or("").to_string())
                    .collect(),
                ties: group.len() - 1,
            });
        }
        start = end;
    }
    out
}

/// `t` [s] over `per_gpu` samples per GPU, scaled to an epoch of `samples`
/// over `gpus` GPUs.
fn epoch_s(t: f64, per_gpu: f64, gpus: u32, samples: f64) -> f64 {
    t / per_gpu * (samples / f64::from(gpus.max(1)))
}

fn with_stalls(c: &ConfigStalls, samples: f64) -> Result<(String, f64), Unranked> {
    let t3 = c.time(3).ok_or_else(|| Unranked::NoRun3 {
        config: c.name.clone(),
    })?;
    Ok((
        "run (3)".to_string(),
        epoch_s(t3, c.per_gpu_samples, c.gpus, samples),
    ))
}

/// Run (1) of the configuration, else of its one-machine member.
fn without_stalls(
    c: &ConfigStalls,
    all: &[ConfigStalls],
    samples: f64,
) -> Result<(String, f64), Unranked> {
    if let Some(t1) = c.time(1) {
        return Ok((
            "run (1)".to_string(),
            epoch_s(t1, c.per_gpu_samples, c.gpus, samples),
        ));
    }
    let member = (c.machines > 1)
        .then(|| {
            all.iter()
                .find(|o| o.instance == c.instance && o.machines == 1 && o.time(1).is_some())
        })
        .flatten();
    match member.and_then(|m| m.time(1).map(|t1| (m, t1))) {
        Some((m, t1)) => Ok((
            format!("run (1) of {}", m.name),
            epoch_s(t1, m.per_gpu_samples, c.gpus, samples),
        )),
        None => Err(Unranked::NoRun1 {
            config: c.name.clone(),
            member: (c.machines > 1).then(|| c.instance.clone()),
        }),
    }
}

fn predicted(
    c: &ConfigStalls,
    prediction: Option<&Predictions>,
    max_machines: u32,
) -> Result<(String, f64, Option<f64>), Unranked> {
    let p = prediction.ok_or(Unranked::NoPrediction)?;
    if let Some(r) = p.rows.iter().find(|r| r.name == c.name) {
        return Ok(("all-reduce prediction".to_string(), r.epoch_s, r.epoch_usd));
    }
    let prefix = format!("{}:", c.instance);
    if let Some(why) = p.skipped.iter().find(|w| w.starts_with(&prefix)) {
        return Err(Unranked::Skipped(why.clone()));
    }
    Err(if c.machines > max_machines {
        Unranked::TooManyMachines {
            machines: c.machines,
            max: max_machines,
        }
    } else {
        Unranked::NotPredicted {
            config: c.name.clone(),
        }
    })
}

/// The epoch, or why its figure is not a number the ranking can use.
fn epoch(name: &str, source: String, seconds: f64, usd: Option<f64>) -> Result<Epoch, Unranked> {
    if !seconds.is_finite() {
        return Err(Unranked::NotFinite {
            config: name.to_string(),
            source_run: source,
        });
    }
    Ok(Epoch {
        source,
        epoch_s: seconds,
        epoch_usd: usd.filter(|c| c.is_finite()),
        time: Place::default(),
        cost: None,
    })
}

/// Every measured configuration on every basis, ranked; None without
/// measured configurations.
pub fn rank_measured(
    stalls: &StallAnalysis,
    catalog: &[Instance],
    pricing: Pricing,
    epoch_samples: f64,
    prediction: Option<&Predictions>,
    max_machines: u32,
) -> Option<MeasuredRanking> {
    if stalls.configs.is_empty() {
        return None;
    }
    let mut rows: Vec<Ranked> = stalls
        .configs
        .iter()
        .map(|c| {
            let price = catalog
                .iter()
                .find(|i| i.name == c.instance)
                .and_then(|i| i.price(pricing))
                .map(|p| p * f64::from(c.machines));
            let cost = |s: f64| price.map(|p| s / 3600.0 * p);
            Ranked {
                name: c.name.clone(),
                instance: c.instance.clone(),
                machines: c.machines,
                gpus: c.gpus,
                price_per_hour: price,
                cost_missing: price.is_none().then(|| {
                    format!(
                        "{} has no {} price in the catalog: the epoch cost [USD] of {} is not ranked (give its price per hour [USD/h])",
                        c.instance,
                        pricing.word(),
                        c.name
                    )
                }),
                with_stalls: with_stalls(c, epoch_samples)
                    .and_then(|(w, s)| epoch(&c.name, w, s, cost(s))),
                without_stalls: without_stalls(c, &stalls.configs, epoch_samples)
                    .and_then(|(w, s)| epoch(&c.name, w, s, cost(s))),
                predicted: predicted(c, prediction, max_machines)
                    .and_then(|(w, s, usd)| epoch(&c.name, w, s, usd)),
            }
        })
        .collect();
    let names: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    for b in Basis::ALL {
        for m in Metric::ALL {
            let values: Vec<Option<f64>> = rows
                .iter()
                .map(|r| r.on(b).ok().and_then(|e| e.value(m)))
                .collect();
            let ps = places(&names, &values, b.tolerance());
            for (r, p) in rows.iter_mut().zip(ps) {
                if let (Some(e), Some(p)) = (r.on_mut(b), p) {
                    match m {
                        Metric::Time => e.time = p,
                        Metric::Cost => e.cost = Some(p),
                    }
                }
            }
        }
    }
    let disagreements = disagreements(&rows);
    Some(MeasuredRanking {
        epoch_samples,
        pricing,
        measured_tie: MEASURED_TIE,
        predicted_tie: TIE,
        rows,
        disagreements,
    })
}

/// For each measured basis and metric, the pairs the prediction orders the
/// other way round; ties on either side are no disagreement.
fn disagreements(rows: &[Ranked]) -> Vec<Disagreement> {
    let mut out = Vec::new();
    for b in Basis::MEASURED {
        for m in Metric::ALL {
            // (measured rank, predicted rank, row), in the measured order.
            let mut both: Vec<(usize, usize, usize)> = rows
                .iter()
                .enumerate()
                .filter_map(|(i, r)| Some((r.place(b, m)?, r.place(Basis::Predicted, m)?, i)))
                .collect();
            both.sort_unstable();
            let mut pairs = Vec::new();
            let mut count = 0;
            for (k, &(mx, px, x)) in both.iter().enumerate() {
                for &(my, py, y) in &both[k + 1..] {
                    if mx < my && py < px {
                        count += 1;
                        if pairs.len() < NAMED {
                            pairs.push((rows[x].name.clone(), rows[y].name.clone()));
                        }
                    }
                }
            }
            if count > 0 {
                out.push(Disagreement {
                    basis: b,
                    metric: m,
                    pairs,
                    count,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn competition_ranks_with_ties_within_the_tolerance_of_the_least() {
        let names = ["a", "b", "c", "d", "e"];
        // 100 and 100.4 tie (0.4%); 100.6 is 0.6% above the least: next.
        let v = [Some(100.6), Some(100.0), None, Some(100.4), Some(90.0)];
        let p = places(&names, &v, MEASURED_TIE);
        let rank = |i: usize| p[i].as_ref().map(|p| p.rank);
        assert_eq!(
            [rank(0), rank(1), rank(2), rank(3), rank(4)],
            [Some(4), Some(2), None, Some(2), Some(1)]
        );
        assert_eq!(p[1].as_ref().unwrap().tied_with, ["d"]);
        assert_eq!(p[1].as_ref().unwrap().words(), "2 (tied with d)");
        assert_eq!(p[4].as_ref().unwrap().words(), "1");
        let three = places(&names[..3], &[Some(1.0); 3], 0.0);
        assert_eq!(three[0].as_ref().unwrap().words(), "1 (tied with b and c)");
    }

    #[test]
    fn long_ties_name_the_first_ten_and_count_the_rest() {
        let names: Vec<String> = (0..30).map(|i| format!("c{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let p = places(&refs, &[Some(2.0); 30], MEASURED_TIE);
        let first = p[0].as_ref().unwrap();
        assert_eq!(
            (first.rank, first.tied_with.len(), first.ties),
            (1, NAMED, 29)
        );
        assert!(
            first.words().ends_with("c10, … and 19 more)"),
            "{}",
            first.words()
        );
        assert_eq!(name_list(&[], 3), "3 more");
        assert_eq!(name_list(&["a".into()], 1), "a");
    }
}
