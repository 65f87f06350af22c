//! A profile from the workload's layer table, for users without a trace
//! (the "generate one from the layer table and a device"; not the
//! paper's, which profiles a real run). The op graph follows Fig. 6: per
//! layer a downlink of its weights and biases; forward computes chained
//! layer by layer, each after its downlink; backward computes in reverse,
//! each followed by its uplink and the PS update of that layer.

use super::profile::{Op, Profile, Resource};
use super::section::Generate;
use super::sim::draw;
use crate::workload::Network;

/// Bytes per value moved (FP32).
pub const BYTES_PER_VALUE: f64 = 4.0;

/// The profile of `net` on a worker of `rate` FLOP/s at `batch` samples.
/// Backward takes twice the forward FLOP. Compute times of the profiled
/// steps differ by a factor in `1 ± jitter`, drawn from `seed`.
pub fn from_layers(net: &Network, rate: f64, batch: u32, g: &Generate, seed: u64) -> Profile {
    let layers: Vec<_> = net.layers.iter().filter(|l| l.weights() > 0).collect();
    let l = layers.len();
    let mut ops = Vec::with_capacity(5 * l);
    for layer in &layers {
        ops.push(Op {
            name: format!("recv {}", layer.name),
            resource: Resource::Downlink,
            deps: Vec::new(),
            tensor: Some(layer.name.clone()),
        });
    }
    for (i, layer) in layers.iter().enumerate() {
        let mut deps = vec![i as u32];
        if i > 0 {
            deps.push((l + i - 1) as u32);
        }
        ops.push(Op {
            name: format!("fwd {}", layer.name),
            resource: Resource::Worker,
            deps,
            tensor: None,
        });
    }
    let mut prev = (2 * l).saturating_sub(1) as u32;
    for layer in layers.iter().rev() {
        let bwd = ops.len() as u32;
        ops.push(Op {
            name: format!("bwd {}", layer.name),
            resource: Resource::Worker,
            deps: vec![prev],
            tensor: None,
        });
        ops.push(Op {
            name: format!("send {}", layer.name),
            resource: Resource::Uplink,
            deps: vec![bwd],
            tensor: Some(layer.name.clone()),
        });
        ops.push(Op {
            name: format!("apply {}", layer.name),
            resource: Resource::Ps,
            deps: vec![bwd + 1],
            tensor: Some(layer.name.clone()),
        });
        prev = bwd;
    }
    let bytes: Vec<f64> = layers
        .iter()
        .map(|x| (x.weights() + x.biases()) as f64 * BYTES_PER_VALUE)
        .collect();
    let fwd: Vec<f64> = layers
        .iter()
        .map(|x| f64::from(batch) * x.forward_flop() / (rate * g.achieved))
        .collect();
    let steps = (0..g.profiled_steps.max(1))
        .map(|k| {
            // A factor in [1 − jitter, 1 + jitter] per profiled step.
            let u = (draw(seed, u32::MAX - 1, k) >> 11) as f64 / (1u64 << 53) as f64;
            let f = 1.0 + g.jitter * (2.0 * u - 1.0);
            let mut row = bytes.clone();
            row.extend(fwd.iter().map(|t| t * f));
            for i in (0..l).rev() {
                row.extend([2.0 * fwd[i] * f, bytes[i], bytes[i] / g.ps_bytes_per_s]);
            }
            row
        })
        .collect();
    Profile {
        name: format!("{} (generated from its layer table)", net.name),
        batch,
        ops,
        steps,
    }
}
