//! The Zeng model applied to a scenario: network figures, the queue and its
//! timeline, the regime, and the scaling sweeps behind the charts.

use serde::Serialize;

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
        backward_flop: s.settings.zeng.flops_per_weight * summary.weights,
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
    inst.processor.clone().ok_or_else(|| FieldError {
        field,
        message: format!(
            "the Zeng model needs a clock-level description (CPU: GHz and SIMD; GPU: GHz, stream processors, FMA) of '{}'",
            g.instance
        ),
    })
}

/// The cluster expanded into one entry per worker.
pub fn worker_inputs(s: &Scenario) -> Result<Vec<WorkerInput>, Vec<FieldError>> {
    let mut out = Vec::new();
    let mut errs = Vec::new();
    for (i, g) in s.hardware.cluster.workers.iter().enumerate() {
        match processor_of(s, g, i) {
            Ok(p) => {
                for k in 0..g.count {
                    let name = if g.count > 1 {
                        format!("{} #{}", g.instance, k + 1)
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

/// Log-spaced PS bandwidths from 0.1 to 100 Gb/s, in bytes/s.
pub fn bandwidth_grid() -> Vec<f64> {
    (0..=30)
        .map(|k| 0.1e9 / 8.0 * 10f64.powf(f64::from(k) / 10.0))
        .collect()
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
    let link = Link {
        bandwidth_bytes_per_s: ps.bandwidth_bytes_per_s,
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

    let max_n = s.settings.zeng.sweep_max_workers as usize;
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
