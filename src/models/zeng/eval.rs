//! The Zeng model applied to a scenario: network figures, the queue and its
//! timeline, the regime, and the scaling sweeps behind the charts.

use serde::Serialize;

use super::section;
use super::{
    iteration_flop, regime, simulate, throughput, Link, NetworkFigures, QueueResult, Regime,
    Throughput, WorkerInput, BYTES_PER_VALUE,
};
use crate::hardware::{Processor, WorkerGroup};
use crate::scenario::{FieldError, Scenario};
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
    pub speedup: f64,
    pub communication_bound: bool,
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
    /// The PS link this evaluation used, bytes/s.
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
    };
    (summary, figures)
}

fn processor_of(s: &Scenario, g: &WorkerGroup, i: usize) -> Result<Processor, FieldError> {
    let field = format!("hardware.cluster.workers[{i}]");
    let inst = s.instance(&g.instance).ok_or_else(|| FieldError {
        field: field.clone(),
        message: format!("'{}' is not in the instance catalog", g.instance),
    })?;
    if let Some(p) = &inst.processor {
        return Ok(p.clone());
    }
    // An instance known only by its rate: Eq. 28 (CPU) or Eq. 33 (GPU)
    // with the rate as the clock term, so `flops()` returns it exactly.
    match (inst.flops_per_s, inst.gpus.unwrap_or(0)) {
        (Some(rate), 0) => Ok(Processor::Cpu { hz: rate, simd: 1.0 }),
        (Some(rate), _) => Ok(Processor::Gpu {
            hz: rate,
            stream_processors: 1,
            fma: false,
        }),
        (None, _) => Err(FieldError {
            field,
            message: format!(
                "the Zeng model needs the rate of '{}': FLOP/s, or a clock-level description (CPU: GHz and SIMD; GPU: GHz, stream processors, FMA)",
                g.instance
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

fn point(x: f64, net: &NetworkFigures, workers: &[WorkerInput], link: &Link) -> SweepPoint {
    let q = simulate(net, workers, link);
    let r = regime(&q, workers);
    SweepPoint {
        x,
        iteration_s: q.iteration_s,
        speedup: throughput(&q).speedup,
        communication_bound: r.communication_bound,
    }
}

/// Log-spaced PS bandwidths from 0.1 to 100 Gb/s (ten per decade), in
/// bytes/s: `0.1e9 / 8 · 10^(k/10)`. Written out because `powf` rounds
/// differently natively and in wasm, and both builds must agree to the bit.
const BANDWIDTH_GRID: [f64; 31] = [
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
    let errs = s.validate_for(&super::Zeng);
    if !errs.is_empty() {
        return Err(errs);
    }
    evaluate_validated(s)
}

/// The evaluation of a scenario that passed `validate_for(&Zeng)` (the
/// registry validates before it asks for a report).
pub fn evaluate_validated(s: &Scenario) -> Result<ZengEvaluation, Vec<FieldError>> {
    let workers = worker_inputs(s)?;
    let (summary, net) = network_figures(s);
    let ps = &s.hardware.cluster.ps;
    let Some(bandwidth) = ps.total_bandwidth(&s.hardware.catalog) else {
        return Err(vec![FieldError {
            field: "hardware.cluster.ps.link".into(),
            message: "the Zeng model needs the PS link: type its bandwidth, or pick a PS instance that has a network bandwidth".into(),
        }]);
    };
    let link = Link {
        bandwidth_bytes_per_s: bandwidth,
        latency_s: ps.latency_s,
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

    let max_n = section::settings(s).sweep_max_workers as usize;
    let mut worker_sweeps = Vec::new();
    let mut seen: Vec<(&Processor, u32)> = Vec::new();
    for w in &workers {
        if seen
            .iter()
            .any(|(p, b)| *p == &w.processor && *b == w.batch_size)
        {
            continue;
        }
        seen.push((&w.processor, w.batch_size));
        let label = w.name.split(" #").next().unwrap_or(&w.name).to_string();
        let points = (1..=max_n)
            .map(|n| point(n as f64, &net, &vec![w.clone(); n], &link))
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
                point(n as f64, &net, &mix, &link)
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
            .map(|b| {
                point(
                    b,
                    &net,
                    &workers,
                    &Link {
                        bandwidth_bytes_per_s: b,
                        ..link
                    },
                )
            })
            .collect(),
    };

    Ok(ZengEvaluation {
        network_name: s.workload.network.name.clone(),
        summary,
        backward_flop: net.backward_flop,
        pushes: net.pushes,
        transfer_bytes: net.transfer_bytes,
        bandwidth_bytes_per_s: link.bandwidth_bytes_per_s,
        groups,
        queue,
        regime,
        throughput,
        worker_sweeps,
        bandwidth_sweep,
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
