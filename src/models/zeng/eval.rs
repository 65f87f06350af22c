//! The Zeng model applied to a scenario: network figures, the queue and its
//! timeline, the regime, and the scaling sweeps behind the charts.

use serde::Serialize;

use super::section;
use super::{
    iteration_flop, regime, simulate, throughput, Link, NetworkFigures, QueueResult, Regime,
    Throughput, WorkerInput, BYTES_PER_VALUE,
};
use crate::hardware::{Pricing, Processor, WorkerGroup};
use crate::errors::FieldError;
use crate::scenario::Scenario;
use crate::workload::NetworkSummary;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupFigures {
    pub instance: String,
    pub kind: &'static str,
    pub count: u32,
    pub batch_size: u32,
    /// Peak rate as Eq. 28/33 use it, FLOP/s.
    pub flops: f64,
    /// Eq. 27, FLOP per iteration on one worker of the group.
    pub iteration_flop: f64,
}

/// One point of a scaling chart.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SweepPoint {
    /// Worker count or bandwidth (bytes/s), per the sweep.
    pub x: f64,
    pub iteration_s: f64,
    /// Throughput over one worker of the cluster's fastest device alone
    /// (`speedup_baseline`): the same baseline for every sweep.
    pub speedup: f64,
    pub communication_bound: bool,
    /// `(n_workers × price + PS price) × t_iter × 1000 / 3600`, USD, when
    /// every instance in use has a price.
    pub cost_per_1000_usd: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sweep {
    pub label: String,
    pub points: Vec<SweepPoint>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ZengEvaluation {
    pub network_name: String,
    pub summary: NetworkSummary,
    pub backward_flop: f64,
    pub pushes: Option<u32>,
    pub transfer_bytes: f64,
    pub pull_bytes: f64,
    /// The PS link as given, bytes/s (the calibrated fraction `link` of
    /// `calibration.zeng` applies on top).
    pub bandwidth_bytes_per_s: f64,
    pub groups: Vec<GroupFigures>,
    pub queue: QueueResult,
    pub regime: Regime,
    pub throughput: Throughput,
    /// Iteration time vs workers: one homogeneous line per device in the
    /// cluster, plus the cluster's own mix repeated.
    pub worker_sweeps: Vec<Sweep>,
    /// Iteration time vs PS bandwidth for this cluster.
    pub bandwidth_sweep: Sweep,
    /// What the cluster costs; `None` when an instance in use has no
    /// price (`missing_prices` says which).
    pub cost: Option<Cost>,
    /// Instances in use without a price under the scenario's pricing, in
    /// cluster order (workers, then the PS), each once.
    pub missing_prices: Vec<MissingPrice>,
    /// Whether the PS nodes have an instance type (and so a price).
    pub ps_has_instance: bool,
    /// The epoch, when `models.zeng.epoch_samples` is set.
    pub epoch: Option<Epoch>,
}

/// The cluster's cost under `hardware.pricing` (USD; prices USD/h).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Cost {
    pub pricing: Pricing,
    /// Σ over workers of their instance's price, USD/h.
    pub workers_usd_per_hour: f64,
    /// `ps.count ×` the PS instance's price (0 without a PS instance), USD/h.
    pub ps_usd_per_hour: f64,
    /// `(workers + PS) × t_iter / 3600`.
    pub per_iteration_usd: f64,
    /// 1,000 iterations.
    pub per_1000_iterations_usd: f64,
    /// `iterations per epoch × per iteration`, with `epoch_samples`.
    pub per_epoch_usd: Option<f64>,
}

impl Cost {
    /// The whole cluster, USD/h.
    pub fn usd_per_hour(&self) -> f64 {
        self.workers_usd_per_hour + self.ps_usd_per_hour
    }
}

/// An instance in use that has no price under the scenario's pricing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MissingPrice {
    pub instance: String,
    /// Its price field, e.g. `hardware.catalog[2].price_per_hour`.
    pub field: String,
    /// "price per hour" or "spot price".
    pub what: &'static str,
    /// Used as a PS node (else as a worker).
    pub ps: bool,
}

/// One pass over `epoch_samples` samples under BSP.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Epoch {
    pub samples: u64,
    /// Σ of every worker's batch size: samples per iteration.
    pub global_batch: u64,
    /// `ceil(samples / global_batch)`.
    pub iterations: u64,
    /// `iterations × t_iter`, seconds.
    pub time_s: f64,
}

/// Iterations of one epoch: `ceil(samples / global_batch)`.
pub fn iterations_per_epoch(samples: u64, global_batch: u64) -> u64 {
    if global_batch == 0 {
        return 0;
    }
    samples.div_ceil(global_batch)
}

/// Cost of 1,000 iterations of `t_iter_s` on a cluster of `usd_per_hour`.
pub fn cost_per_1000_usd(usd_per_hour: f64, t_iter_s: f64) -> f64 {
    usd_per_hour * t_iter_s * 1000.0 / 3600.0
}

/// Each worker's price (workers in `worker_inputs` order) and the PS
/// nodes' price, or the instances that have none.
fn prices(s: &Scenario) -> (Vec<Option<f64>>, Option<f64>, Vec<MissingPrice>) {
    let pricing = s.hardware.pricing;
    let what = match pricing {
        Pricing::OnDemand => "price per hour",
        Pricing::Spot => "spot price",
    };
    let key = match pricing {
        Pricing::OnDemand => "price_per_hour",
        Pricing::Spot => "spot_price_per_hour",
    };
    let catalog = &s.hardware.catalog;
    let mut missing: Vec<MissingPrice> = Vec::new();
    let mut note = |name: &str, ps: bool| {
        if missing.iter().any(|m| m.instance == name) {
            return;
        }
        if let Some(i) = catalog.iter().position(|c| c.name == name) {
            missing.push(MissingPrice {
                instance: name.to_string(),
                field: format!("hardware.catalog[{i}].{key}"),
                what,
                ps,
            });
        }
    };
    let mut per_worker = Vec::new();
    for g in &s.hardware.cluster.workers {
        let p = s.instance(&g.instance).and_then(|i| i.price(pricing));
        if p.is_none() {
            note(&g.instance, false);
        }
        per_worker.extend(std::iter::repeat_n(p, g.count as usize));
    }
    let ps = &s.hardware.cluster.ps;
    let ps_price = match &ps.instance {
        None => Some(0.0),
        Some(name) => {
            let p = s.instance(name).and_then(|i| i.price(pricing));
            if p.is_none() {
                note(name, true);
            }
            p.map(|p| f64::from(ps.count) * p)
        }
    };
    (per_worker, ps_price, missing)
}

/// The figures the Zeng model reads from a scenario.
pub fn network_figures(s: &Scenario) -> (NetworkSummary, NetworkFigures) {
    let net = &s.workload.network;
    let summary = net.summary();
    let figures = NetworkFigures {
        forward_flop: summary.forward_flop,
        backward_flop: section::settings(s).flops_per_weight * summary.weights,
        pushes: net.pushes,
        transfer_bytes: summary.transfer_values * BYTES_PER_VALUE,
        pull_bytes: summary.pull_values * BYTES_PER_VALUE,
    };
    (summary, figures)
}

/// The group's processor at its calibrated rate (`factors`).
fn processor_of(s: &Scenario, g: &WorkerGroup, i: usize) -> Result<Processor, FieldError> {
    let p = processor_as_published(s, g, i)?;
    Ok(super::factors::applied(s).processor(&g.instance, p))
}

fn processor_as_published(
    s: &Scenario,
    g: &WorkerGroup,
    i: usize,
) -> Result<Processor, FieldError> {
    let field = format!("hardware.cluster.workers[{i}]");
    let inst = s.instance(&g.instance).ok_or_else(|| FieldError {
        field: field.clone(),
        message: format!("'{}' is not in the instance catalog", g.instance),
    })?;
    if let Some(p) = &inst.processor {
        return Ok(p.clone());
    }
    // An instance known only by its rate (or its GPUs' peak at the
    // scenario's precision): Eq. 28 (CPU) or Eq. 33 (GPU) with the rate as
    // the clock term, so `flops()` returns it exactly.
    match (inst.flops_at(s.hardware.precision), inst.gpus.unwrap_or(0)) {
        (Some(rate), 0) => Ok(Processor::Cpu { hz: rate, simd: 1.0 }),
        (Some(rate), _) => Ok(Processor::Gpu {
            hz: rate,
            stream_processors: 1,
            fma: false,
        }),
        (None, _) => Err(FieldError {
            field,
            message: format!(
                "the Zeng model needs the rate of '{}': FLOP/s, a clock-level description (CPU: GHz and SIMD; GPU: GHz, stream processors, FMA), or its GPUs' {} peak",
                g.instance,
                s.hardware.precision.word()
            ),
        }),
    }
}

/// The cluster expanded into one entry per worker.
pub fn worker_inputs(s: &Scenario) -> Result<Vec<WorkerInput>, Vec<FieldError>> {
    let mut out = Vec::new();
    let mut errs = Vec::new();
    // Workers are numbered per instance across groups, so two groups of
    // one device never share a name (a timeline row each).
    let groups = &s.hardware.cluster.workers;
    let mut totals: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    for g in groups {
        *totals.entry(g.instance.as_str()).or_insert(0) += g.count;
    }
    let mut seen: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    for (i, g) in groups.iter().enumerate() {
        let total = totals.get(g.instance.as_str()).copied().unwrap_or(0);
        match processor_of(s, g, i) {
            Ok(p) => {
                for _ in 0..g.count {
                    let k = seen.entry(g.instance.as_str()).or_insert(0);
                    *k += 1;
                    let name = if total > 1 {
                        format!("{} #{}", g.instance, k)
                    } else {
                        g.instance.clone()
                    };
                    out.push(WorkerInput {
                        name,
                        processor: p.clone(),
                        batch_size: g.batch_size,
                    });
                }
            }
            Err(e) => errs.push(e),
        }
    }
    if errs.is_empty() {
        Ok(out)
    } else {
        Err(errs)
    }
}

/// A sweep's point; its speedup is over `baseline` [samples/s], one
/// baseline for every sweep (`speedup_baseline`), so lines compare.
fn point(
    x: f64,
    net: &NetworkFigures,
    workers: &[WorkerInput],
    link: &Link,
    baseline: f64,
) -> SweepPoint {
    let q = simulate(net, workers, link);
    let r = regime(&q, workers);
    let samples_per_s = throughput(&q).samples_per_s;
    SweepPoint {
        x,
        iteration_s: q.iteration_s,
        speedup: if baseline > 0.0 {
            samples_per_s / baseline
        } else {
            0.0
        },
        communication_bound: r.communication_bound,
        cost_per_1000_usd: None,
    }
}

/// The speedup charts' one baseline [samples/s]: one worker of the
/// cluster's fastest device (most samples/s alone, Eq. 28/33 with its
/// batch), as the headline speedup has it; 0 without one.
pub fn speedup_baseline(q: &QueueResult) -> f64 {
    q.workers
        .iter()
        .filter(|w| w.standalone_s > 0.0)
        .map(|w| f64::from(w.batch_size) / w.standalone_s)
        .fold(0.0, f64::max)
}

/// Log-spaced PS bandwidths from 0.1 to 100 Gb/s (ten per decade), in
/// bytes/s: `0.1e9 / 8 · 10^(k/10)`. Written out because `powf` rounds
/// differently natively and in wasm, and both builds must agree to the bit.
/// How many PS bandwidths the bandwidth chart draws.
pub const BANDWIDTH_POINTS: usize = 31;
const BANDWIDTH_GRID: [f64; BANDWIDTH_POINTS] = [
    12500000.0,
    15736567.647427091,
    19811164.90576392,
    24940778.937110994,
    31398580.39386975,
    39528470.752104744,
    49763396.31918715,
    62648404.20340902,
    78869668.06002417,
    99291029.3405352,
    125000000.0,
    157365676.47427094,
    198111649.05763915,
    249407789.37110996,
    313985803.93869746,
    395284707.5210474,
    497633963.1918717,
    626484042.0340903,
    788696680.6002417,
    992910293.4053518,
    1250000000.0,
    1573656764.7427094,
    1981116490.5763927,
    2494077893.711098,
    3139858039.386975,
    3952847075.2104745,
    4976339631.918716,
    6264840420.340906,
    7886966806.002413,
    9929102934.053516,
    12500000000.0,
];

/// The PS bandwidths of the bandwidth chart, bytes/s.
pub fn bandwidth_grid() -> Vec<f64> {
    BANDWIDTH_GRID.to_vec()
}

/// Validates what Zeng reads, then evaluates.
pub fn evaluate_zeng(s: &Scenario) -> Result<ZengEvaluation, Vec<FieldError>> {
    let errs = crate::models::validate_for(&super::Zeng, s);
    if !errs.is_empty() {
        return Err(errs);
    }
    evaluate_validated(s)
}

/// The evaluation of a scenario that passed `validate_for(&Zeng)` (the
/// registry validates before it asks for a report).
pub fn evaluate_validated(s: &Scenario) -> Result<ZengEvaluation, Vec<FieldError>> {
    evaluate_with(s, Sweeps::All)
}

/// `evaluate_validated` without the sweeps (no worker or bandwidth
/// lines): the headline's figures, for an uncertainty band's samples.
pub fn evaluate_headline(s: &Scenario) -> Result<ZengEvaluation, Vec<FieldError>> {
    evaluate_with(s, Sweeps::None)
}

/// `evaluate_validated` without the bandwidth line: the worker sweeps'
/// figures, for the samples of the cost and time curves' bands.
pub fn evaluate_worker_sweeps(s: &Scenario) -> Result<ZengEvaluation, Vec<FieldError>> {
    evaluate_with(s, Sweeps::Workers)
}

/// Which sweeps to compute.
#[derive(Clone, Copy, PartialEq)]
enum Sweeps {
    None,
    Workers,
    All,
}

fn evaluate_with(s: &Scenario, sweeps: Sweeps) -> Result<ZengEvaluation, Vec<FieldError>> {
    let workers = worker_inputs(s)?;
    let (summary, net) = network_figures(s);
    let ps = &s.hardware.cluster.ps;
    let Some(bandwidth) = ps.total_bandwidth(&s.hardware.catalog) else {
        return Err(vec![FieldError {
            field: "hardware.cluster.ps.link".into(),
            message: "the Zeng model needs the PS link: type its bandwidth, or pick a PS instance that has a network bandwidth".into(),
        }]);
    };
    // Calibrated (`factors`): the effective bandwidth and start-up time.
    let applied = super::factors::applied(s);
    let link = Link {
        bandwidth_bytes_per_s: bandwidth * applied.link,
        latency_s: ps.latency_s + applied.latency_s,
    };

    let groups = s
        .hardware
        .cluster
        .workers
        .iter()
        .enumerate()
        .filter_map(|(i, g)| {
            let p = processor_of(s, g, i).ok()?;
            Some(GroupFigures {
                instance: g.instance.clone(),
                kind: p.kind_label(),
                count: g.count,
                batch_size: g.batch_size,
                flops: p.flops(),
                iteration_flop: iteration_flop(&net, g.batch_size),
            })
        })
        .collect();

    let queue = simulate(&net, &workers, &link);
    let regime = regime(&queue, &workers);
    let throughput = throughput(&queue);

    let settings = section::settings(s);
    let (worker_prices, ps_price, missing_prices) = prices(s);
    // Prices only when every instance in use has one.
    let priced: Option<(Vec<f64>, f64)> = worker_prices
        .iter()
        .copied()
        .collect::<Option<Vec<f64>>>()
        .zip(ps_price)
        .filter(|_| missing_prices.is_empty());
    let with_cost = |mut p: SweepPoint, usd_per_hour: Option<f64>| {
        p.cost_per_1000_usd = usd_per_hour.map(|c| cost_per_1000_usd(c, p.iteration_s));
        p
    };

    let max_n = if sweeps != Sweeps::None {
        settings.sweep_max_workers as usize
    } else {
        0
    };
    // Every sweep's speedup over the same worker, so the lines compare.
    let baseline = speedup_baseline(&queue);
    let mut worker_sweeps = Vec::new();
    // One line per device and batch (and price: two catalog entries of
    // one processor at different prices cost differently).
    let mut seen: Vec<(&Processor, u32, Option<u64>)> = Vec::new();
    for (k, w) in workers.iter().enumerate() {
        let price = priced.as_ref().map(|(p, _)| p[k]);
        let id = (&w.processor, w.batch_size, price.map(f64::to_bits));
        if seen.contains(&id) {
            continue;
        }
        seen.push(id);
        let label = w.name.split(" #").next().unwrap_or(&w.name).to_string();
        let points = (1..=max_n)
            .map(|n| {
                let usd = priced
                    .as_ref()
                    .zip(price)
                    .map(|((_, ps), p)| n as f64 * p + ps);
                with_cost(
                    point(n as f64, &net, &vec![w.clone(); n], &link, baseline),
                    usd,
                )
            })
            .collect();
        worker_sweeps.push(Sweep {
            label: format!("{label} only (bs {})", w.batch_size),
            points,
        });
    }
    if seen.len() > 1 {
        let points = (1..=max_n)
            .map(|n| {
                let mix: Vec<WorkerInput> = workers.iter().cycle().take(n).cloned().collect();
                let usd = priced
                    .as_ref()
                    .map(|(p, ps)| p.iter().cycle().take(n).sum::<f64>() + ps);
                with_cost(point(n as f64, &net, &mix, &link, baseline), usd)
            })
            .collect();
        worker_sweeps.push(Sweep {
            label: "this cluster's mix, repeated".into(),
            points,
        });
    }
    let bandwidth_sweep = Sweep {
        label: "this cluster".into(),
        points: bandwidth_grid()
            .into_iter()
            .filter(|_| sweeps == Sweeps::All)
            .map(|b| {
                point(
                    b,
                    &net,
                    &workers,
                    &Link {
                        bandwidth_bytes_per_s: b * applied.link,
                        ..link
                    },
                    baseline,
                )
            })
            .collect(),
    };

    let epoch = settings.epoch_samples.map(|samples| {
        let global_batch: u64 = s
            .hardware
            .cluster
            .workers
            .iter()
            .map(|g| u64::from(g.count) * u64::from(g.batch_size))
            .sum();
        let iterations = iterations_per_epoch(samples, global_batch);
        Epoch {
            samples,
            global_batch,
            iterations,
            time_s: iterations as f64 * queue.iteration_s,
        }
    });
    let cost = priced.map(|(p, ps)| {
        let workers_usd_per_hour: f64 = p.iter().sum();
        let per_iteration_usd = (workers_usd_per_hour + ps) * queue.iteration_s / 3600.0;
        Cost {
            pricing: s.hardware.pricing,
            workers_usd_per_hour,
            ps_usd_per_hour: ps,
            per_iteration_usd,
            per_1000_iterations_usd: cost_per_1000_usd(
                workers_usd_per_hour + ps,
                queue.iteration_s,
            ),
            per_epoch_usd: epoch.map(|e| e.iterations as f64 * per_iteration_usd),
        }
    });

    Ok(ZengEvaluation {
        network_name: s.workload.network.name.clone(),
        summary,
        backward_flop: net.backward_flop,
        pushes: net.pushes,
        transfer_bytes: net.transfer_bytes,
        pull_bytes: net.pull_bytes,
        bandwidth_bytes_per_s: bandwidth,
        groups,
        queue,
        regime,
        throughput,
        worker_sweeps,
        bandwidth_sweep,
        cost,
        missing_prices,
        ps_has_instance: ps.instance.is_some(),
        epoch,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_bandwidth_grid_is_ten_per_decade() {
        let g = super::bandwidth_grid();
        assert_eq!((g[0], g[10], g[20], g[30]), (12.5e6, 125e6, 1.25e9, 12.5e9));
        for (k, b) in g.iter().enumerate() {
            let want = 0.1e9 / 8.0 * 10f64.powf(k as f64 / 10.0);
            assert!((b / want - 1.0).abs() < 1e-15, "{k}: {b} vs {want}");
        }
    }
}
