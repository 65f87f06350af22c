//! Stash's invariants: more bandwidth or less latency never lengthens a
//! predicted all-reduce or iteration; more GPUs never raise the compute
//! per iteration at a fixed global batch; calibrating on a measured
//! iteration reproduces it; consistent runs give stalls that add up to the
//! cold-cache run and never a contradiction.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;

use ddnn_planner::models::stash::comm_time;
use ddnn_planner::models::stash::predict::{
    calibrate, compute_time, predict, Candidate, Link, LinkKind, Setup, Workload,
};
use ddnn_planner::models::stash::presets::table1_catalog;
use ddnn_planner::models::stash::section::{Ring, Run};
use ddnn_planner::models::stash::stalls::{analyse, StallKind};

fn candidate(machines: u32, gpus: u32, intra: f64, net: f64, tau_i: f64, tau_n: f64) -> Candidate {
    Candidate {
        instance: "x".into(),
        machines,
        gpus_per_machine: gpus,
        gpu_peak: 100e12,
        price_per_hour: Some(3.0),
        intra: Some(Link {
            kind: LinkKind::NvLink,
            latency_s: tau_i,
            bytes_per_s: intra,
        }),
        network: Some(Link {
            kind: LinkKind::Network,
            latency_s: tau_n,
            bytes_per_s: net,
        }),
    }
}

fn setup(ring: Ring, overlap: f64, batch: u32) -> Setup {
    Setup {
        batch,
        batch_per_gpu: false,
        overlap,
        ring,
        epoch_samples: 1e6,
        epochs: 1.0,
    }
}

fn ring() -> impl Strategy<Value = Ring> {
    prop_oneof![Just(Ring::Flat), Just(Ring::Hierarchical)]
}

proptest! {
    #[test]
    fn faster_links_never_lengthen_an_iteration(
        machines in 1u32..=4, gpus in 1u32..=8,
        intra in 1e9f64..1e12, net in 1e8f64..1e11,
        tau_i in 0.0f64..1e-4, tau_n in 0.0f64..1e-3,
        more in 1.0f64..10.0, less in 0.0f64..1.0,
        layers in 1.0f64..500.0, bytes in 1e5f64..1e10,
        overlap in 0.0f64..=1.0, r in ring(),
    ) {
        let w = Workload { flop_per_sample: 1e10, layers, gradient_bytes: bytes };
        let s = setup(r, overlap, 512);
        let base = predict(&candidate(machines, gpus, intra, net, tau_i, tau_n), &w, &s, 0.5).unwrap();
        for c in [
            candidate(machines, gpus, intra * more, net, tau_i, tau_n),
            candidate(machines, gpus, intra, net * more, tau_i, tau_n),
            candidate(machines, gpus, intra, net, tau_i * less, tau_n),
            candidate(machines, gpus, intra, net, tau_i, tau_n * less),
        ] {
            let p = predict(&c, &w, &s, 0.5).unwrap();
            prop_assert!(p.comm_s <= base.comm_s * (1.0 + 1e-12));
            prop_assert!(p.iteration_s <= base.iteration_s * (1.0 + 1e-12));
        }
        // The paper's model alone, too.
        let t = comm_time(tau_i, bytes, layers, intra).total_s();
        prop_assert!(comm_time(tau_i * less, bytes, layers, intra * more).total_s() <= t * (1.0 + 1e-12));
    }

    #[test]
    fn more_gpus_never_raise_compute_per_iteration_at_a_fixed_global_batch(
        machines in 1u32..=4, gpus in 1u32..=8, extra in 1u32..=8, batch in 1u32..4096,
    ) {
        let w = Workload { flop_per_sample: 1e10, layers: 50.0, gradient_bytes: 1e8 };
        let s = setup(Ring::Flat, 0.0, batch);
        let few = compute_time(&candidate(machines, gpus, 1e11, 1e10, 1e-5, 1e-4), &w, &s, 0.4);
        let many = compute_time(&candidate(machines, gpus + extra, 1e11, 1e10, 1e-5, 1e-4), &w, &s, 0.4);
        let more_machines = compute_time(&candidate(machines + 1, gpus, 1e11, 1e10, 1e-5, 1e-4), &w, &s, 0.4);
        prop_assert!(many <= few && more_machines <= few);
    }

    #[test]
    fn calibration_reproduces_the_measured_iteration(
        machines in 1u32..=3, gpus in 1u32..=8, measured in 0.01f64..10.0,
        overlap in 0.0f64..=1.0, r in ring(),
    ) {
        let c = candidate(machines, gpus, 1e11, 1e10, 1e-5, 1e-4);
        let w = Workload { flop_per_sample: 1e10, layers: 50.0, gradient_bytes: 1e7 };
        let s = setup(r, overlap, 256);
        if let Ok(a) = calibrate(&c, &w, &s, measured) {
            let p = predict(&c, &w, &s, a).unwrap();
            prop_assert!((p.iteration_s - measured).abs() <= 1e-9 * measured);
        }
    }

    #[test]
    fn consistent_runs_add_up_and_never_contradict(
        t1 in 1.0f64..1000.0, ic in 0.0f64..10.0, cpu in 0.0f64..1.0, disk in 0.0f64..2.0,
        per_gpu in 1.0f64..1e6,
    ) {
        let t2 = t1 * (1.0 + ic);
        let t4 = t2 * (1.0 + cpu);
        let t3 = t4 * (1.0 + disk);
        let runs: Vec<Run> = [(1, t1, per_gpu), (2, t2, 8.0 * per_gpu), (3, t3, 8.0 * per_gpu), (4, t4, 8.0 * per_gpu)]
            .into_iter()
            .map(|(run, seconds, samples)| Run { configuration: "p3.16xlarge".into(), run, seconds, samples, reference: None })
            .collect();
        let a = analyse(&runs, &table1_catalog());
        prop_assert!(a.notes.iter().all(|n| !n.warning));
        let c = &a.configs[0];
        let sum: f64 = [StallKind::Interconnect, StallKind::Cpu, StallKind::Disk]
            .iter()
            .map(|&k| c.stall(k).map(|v| v.seconds).unwrap_or(f64::NAN))
            .sum();
        prop_assert!(((t1 + sum) - t3).abs() <= 1e-9 * t3);
        for k in [StallKind::Interconnect, StallKind::Cpu, StallKind::Disk] {
            prop_assert!(c.stall(k).unwrap().fraction >= 0.0);
        }
    }
}
