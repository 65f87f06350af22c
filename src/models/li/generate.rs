//! A profile from the workload's layer table, for users without a trace
//! (this product's addition: the paper profiles a real run). The op graph
//! follows Fig. 6: downlinks of the variables; forward computes chained
//! layer by layer, each after its variables arrive; backward computes in
//! reverse, each followed by the uplinks of its gradients and their PS
//! updates.
//!
//! Per layer (`Granularity::Layer`) a layer is one tensor and one op of
//! each kind. Per op (`Granularity::Op`) it is split as TensorFlow's
//! timeline shows a PS job: weights and biases (or BatchNorm's β, moving
//! mean and moving variance) are separate tensors, and a convolution, its
//! BatchNorm and its ReLU are separate forward and backward ops. Inception
//! v3 that way has 378 tensors and 1,512 ops per step.

use super::profile::{Op, Profile, Resource, BYTES_PER_VALUE};
use super::section::{Generate, Granularity};
use super::sim::draw;
use crate::workload::{LayerKind, Network};

/// Passes over a layer's output a forward BatchNorm makes (mean, variance,
/// normalise) and a forward ReLU makes (read, write); backward takes twice
/// the forward, as for the convolutions.
pub const BN_PASSES: f64 = 3.0;
pub const RELU_PASSES: f64 = 2.0;

/// The profile of `net` on a worker of `rate` FLOP/s at `batch` samples.
/// Backward takes twice the forward FLOP. Compute times of the profiled
/// steps differ by a factor in `1 ± jitter`, drawn from `seed`.
pub fn from_layers(net: &Network, rate: f64, batch: u32, g: &Generate, seed: u64) -> Profile {
    let mut b = Builder::default();
    let layers: Vec<_> = net.layers.iter().filter(|l| l.weights() > 0).collect();
    let batch_f = f64::from(batch);
    let conv_s = |flop: f64| batch_f * flop / (rate * g.achieved);
    let mem_s = |passes: f64, elems: u64| {
        batch_f * passes * elems as f64 * BYTES_PER_VALUE / g.memory_bytes_per_s
    };
    let bytes = |values: u64| values as f64 * BYTES_PER_VALUE;
    let split = g.granularity == Granularity::Op;
    // Each layer's variables: (name, bytes, read by the forward pass).
    let vars: Vec<Vec<(String, f64, bool)>> = layers
        .iter()
        .map(|x| {
            let name = &x.name;
            if !split {
                return vec![(name.clone(), bytes(x.weights() + x.biases()), true)];
            }
            let mut v = vec![(format!("{name}/weights"), bytes(x.weights()), true)];
            if g.batch_norm && x.kind == LayerKind::Conv {
                v.push((format!("{name}/beta"), bytes(x.outn), true));
                v.push((format!("{name}/moving_mean"), bytes(x.outn), false));
                v.push((format!("{name}/moving_variance"), bytes(x.outn), false));
            } else {
                v.push((format!("{name}/biases"), bytes(x.biases()), true));
            }
            v
        })
        .collect();
    // Downlinks first, in creation order (as a PS job's recv ops are).
    let recv: Vec<Vec<u32>> = vars
        .iter()
        .map(|vs| {
            vs.iter()
                .filter(|v| v.2)
                .map(|(name, size, _)| {
                    b.op(
                        format!("recv {name}"),
                        Resource::Downlink,
                        vec![],
                        Some(name),
                        *size,
                    )
                })
                .collect()
        })
        .collect();
    // Forward: each layer's ops after its variables and the layer before.
    let mut prev: Option<u32> = None;
    let mut bn_fwd: Vec<Option<u32>> = vec![None; layers.len()];
    for (i, x) in layers.iter().enumerate() {
        let mut deps = recv[i].clone();
        deps.extend(prev);
        let conv = x.kind == LayerKind::Conv;
        let what = if split && conv { "conv" } else { "fwd" };
        let mut last = b.op(
            format!("{what} {}", x.name),
            Resource::Worker,
            deps,
            None,
            conv_s(x.forward_flop()),
        );
        if split && conv {
            if g.batch_norm {
                last = b.op(
                    format!("batchnorm {}", x.name),
                    Resource::Worker,
                    vec![last],
                    None,
                    mem_s(BN_PASSES, x.output_elements()),
                );
                bn_fwd[i] = Some(last);
            }
            last = b.op(
                format!("relu {}", x.name),
                Resource::Worker,
                vec![last],
                None,
                mem_s(RELU_PASSES, x.output_elements()),
            );
        }
        prev = Some(last);
    }
    // Backward in reverse: each gradient's uplink and PS update as soon as
    // it exists; the moving statistics once the forward BatchNorm has them.
    for (i, x) in layers.iter().enumerate().rev() {
        let conv = x.kind == LayerKind::Conv;
        let mut last = prev.map_or_else(Vec::new, |p| vec![p]);
        if split && conv {
            let r = b.op(
                format!("relu grad {}", x.name),
                Resource::Worker,
                last,
                None,
                2.0 * mem_s(RELU_PASSES, x.output_elements()),
            );
            last = vec![r];
            if g.batch_norm {
                let n = b.op(
                    format!("batchnorm grad {}", x.name),
                    Resource::Worker,
                    last,
                    None,
                    2.0 * mem_s(BN_PASSES, x.output_elements()),
                );
                last = vec![n];
            }
        }
        let what = if split && conv { "conv grad" } else { "bwd" };
        let bwd = b.op(
            format!("{what} {}", x.name),
            Resource::Worker,
            last.clone(),
            None,
            2.0 * conv_s(x.forward_flop()),
        );
        for (name, size, read) in &vars[i] {
            let after = match (read, bn_fwd[i]) {
                (false, Some(f)) => f,
                // β's gradient comes from the BatchNorm's backward.
                _ if name.ends_with("/beta") => last.first().copied().unwrap_or(bwd),
                _ => bwd,
            };
            let send = b.op(
                format!("send {name}"),
                Resource::Uplink,
                vec![after],
                Some(name),
                *size,
            );
            b.op(
                format!("apply {name}"),
                Resource::Ps,
                vec![send],
                Some(name),
                size / g.ps_bytes_per_s,
            );
        }
        prev = Some(bwd);
    }
    let steps = (0..g.profiled_steps.max(1))
        .map(|k| {
            // A factor in [1 − jitter, 1 + jitter] per profiled step.
            let u = (draw(seed, u32::MAX - 1, k) >> 11) as f64 / (1u64 << 53) as f64;
            let f = 1.0 + g.jitter * (2.0 * u - 1.0);
            b.ops
                .iter()
                .zip(&b.amounts)
                .map(|(op, a)| {
                    if op.resource == Resource::Worker {
                        a * f
                    } else {
                        *a
                    }
                })
                .collect()
        })
        .collect();
    Profile {
        name: format!("{} (generated from its layer table)", net.name),
        batch,
        ops: b.ops,
        steps,
    }
}

/// Ops per step of a profile, and of them downlinks and uplinks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCount {
    pub ops: usize,
    pub downlinks: usize,
    pub uplinks: usize,
}

impl OpCount {
    /// The ops of `p`, counted.
    pub fn of(p: &Profile) -> OpCount {
        let on = |r: Resource| p.ops.iter().filter(|o| o.resource == r).count();
        OpCount {
            ops: p.ops.len(),
            downlinks: on(Resource::Downlink),
            uplinks: on(Resource::Uplink),
        }
    }

    pub fn transfers(&self) -> usize {
        self.downlinks + self.uplinks
    }
}

/// What `from_layers` makes of `net` with `g`, counted layer by layer
/// without making it (its amounts are `profiled_steps` × ops numbers).
pub fn count(net: &Network, g: &Generate) -> OpCount {
    let split = g.granularity == Granularity::Op;
    let mut c = OpCount::default();
    for x in net.layers.iter().filter(|l| l.weights() > 0) {
        let conv = x.kind == LayerKind::Conv;
        // Its variables, and of them those the forward pass reads (and
        // so come down): one per layer; per op, weights and biases, or
        // weights, β and the two moving statistics.
        let (vars, read) = match (split, g.batch_norm && conv) {
            (false, _) => (1, 1),
            (true, true) => (4, 2),
            (true, false) => (2, 2),
        };
        // Forward ops, as many backward: per op a convolution, its
        // BatchNorm and its ReLU.
        let compute = if split && conv {
            2 + usize::from(g.batch_norm)
        } else {
            1
        };
        // Downlinks, forward and backward, an uplink and an update each.
        c.ops += read + 2 * compute + 2 * vars;
        c.downlinks += read;
        c.uplinks += vars;
    }
    c
}

/// The ops so far and each one's amount before jitter.
#[derive(Default)]
struct Builder {
    ops: Vec<Op>,
    amounts: Vec<f64>,
}

impl Builder {
    fn op(
        &mut self,
        name: String,
        resource: Resource,
        deps: Vec<u32>,
        tensor: Option<&String>,
        amount: f64,
    ) -> u32 {
        self.ops.push(Op {
            name,
            resource,
            deps,
            tensor: tensor.cloned(),
        });
        self.amounts.push(amount);
        (self.ops.len() - 1) as u32
    }
}
