//! The four EC2 instance types of Cynthia's testbed (Sec. 2 and 5; l.86,
//! l.273-289), as the dockers the paper schedules: one docker per physical
//! core of an xlarge instance (4 vCPUs = 2 cores), so every figure here is
//! per docker, i.e. half an instance.
//!
//! The paper publishes no capability, bandwidth or price (`shared/models.md`
//! §2): every value below is derived or assumed, and each entry's `source`
//! says how.
//!
//! The network figure is the instance's whole link, assumed available to
//! one docker (a PS docker's neighbour is idle or another worker).
//!
//! Units: Hz, FLOP/s, bytes/s, USD per hour.

use super::{gbit_per_s_to_bytes, Instance};

/// CPU capability of one m4.xlarge docker, FLOP/s, derived from Table 2
/// and Table 4: with one worker the PS (an m4.xlarge docker) ran at 32.6%
/// CPU while profiling the mnist DNN, and Table 4 gives that load as
/// `c_prof = 1.13` GFLOP/s, so the whole docker is 1.13e9 / 0.326 ≈
/// 3.466e9 FLOP/s. This is also the baseline `c_base` of Table 4, which
/// was profiled on an m4.xlarge worker.
pub const M4_XLARGE_DOCKER_FLOPS: f64 = 1.13e9 / 0.326;

/// Base clock of the Xeon E5-2686 v4 in m4.xlarge (AWS instance-type page:
/// "2.3 GHz Intel Xeon E5-2686 v4").
pub const M4_HZ: f64 = 2.3e9;
/// Xeon E5-2651 v2 (m1.xlarge in the paper's testbed, l.86): 1.8 GHz base
/// (Intel ARK).
pub const M1_HZ: f64 = 1.8e9;
/// Xeon E5-2680 v2 (c3.xlarge; AWS and Intel ARK): 2.8 GHz base.
pub const C3_HZ: f64 = 2.8e9;
/// Xeon E5-2670 v2 (r3.xlarge, l.273-289; AWS and Intel ARK): 2.5 GHz base.
pub const R3_HZ: f64 = 2.5e9;

/// Effective FLOP per cycle of one docker: the m4 capability over its
/// clock (≈1.507). The other types reuse it, i.e. capability scales with
/// clock only (an assumption: it ignores Broadwell vs Ivy Bridge IPC).
pub const DOCKER_FLOP_PER_CYCLE: f64 = M4_XLARGE_DOCKER_FLOPS / M4_HZ;

/// Spot price as a fraction of on-demand (an assumption, not the paper's).
pub const SPOT_FRACTION: f64 = 0.3;

pub const M4_XLARGE: &str = "m4.xlarge docker";
pub const M1_XLARGE: &str = "m1.xlarge docker";
pub const C3_XLARGE: &str = "c3.xlarge docker";
pub const R3_XLARGE: &str = "r3.xlarge docker";

const CAPABILITY_NOTE: &str = "rate = clock × 1.507, the effective FLOP per cycle of one docker \
     (not a SIMD width), derived on m4.xlarge from Cynthia Table 2 \
     (PS at 32.6% CPU with one worker) and Table 4 (mnist c_prof = 1.13 GFLOP/s): \
     1.13e9 / 0.326 ≈ 3.466e9 FLOP/s";

const PRICE_NOTE: &str = "price = half of the historical us-east-1 Linux on-demand price of the \
     instance, since a docker is half an xlarge instance (Cynthia l.289); spot = 30% of on-demand; \
     both are assumptions, the paper gives no prices";

struct Row {
    name: &'static str,
    hz: f64,
    cpu: &'static str,
    gbps: f64,
    network: &'static str,
    instance_price: f64,
}

fn docker(row: &Row) -> Instance {
    let price = row.instance_price / 2.0;
    let capability = if row.name == M4_XLARGE {
        "the m4 figure itself".to_string()
    } else {
        format!(
            "scaled from m4.xlarge by clock, {:.1}/2.3 GHz → {:.3e} FLOP/s",
            row.hz / 1e9,
            row.hz * DOCKER_FLOP_PER_CYCLE
        )
    };
    Instance {
        name: row.name.to_string(),
        source: format!(
            "One docker (one physical core, half an xlarge instance) as in Cynthia Sec. 5. \
             CPU: {cpu}, {ghz:.1} GHz base clock (Intel ARK / AWS instance-type pages); \
             {CAPABILITY_NOTE}; here {capability}. Network: {gbps} Gb/s, assumed from AWS's \
             \"{network}\" rating for the instance. {PRICE_NOTE}: ${instance:.3}/h per instance \
             → ${price:.4}/h per docker.",
            cpu = row.cpu,
            ghz = row.hz / 1e9,
            gbps = row.gbps,
            network = row.network,
            instance = row.instance_price,
        ),
        flops_per_s: Some(row.hz * DOCKER_FLOP_PER_CYCLE),
        network_bytes_per_s: Some(gbit_per_s_to_bytes(row.gbps)),
        price_per_hour: Some(price),
        spot_price_per_hour: Some(price * SPOT_FRACTION),
        ..Instance::default()
    }
}

/// The four docker types of Cynthia's evaluation (m4, m1, c3, r3 xlarge).
///
/// m4's 1 Gb/s matches the paper: VGG-19 under ASP (`b_prof` = 13.49 MB/s)
/// then saturates one PS at 125 / 13.49 ≈ 9.3 workers, and Sec. 5.1 reports
/// saturation at 9 workers near 110 MB/s.
pub fn cynthia_catalog() -> Vec<Instance> {
    let rows = [
        Row {
            name: M4_XLARGE,
            hz: M4_HZ,
            cpu: "Xeon E5-2686 v4",
            gbps: 1.0,
            network: "High",
            instance_price: 0.20,
        },
        Row {
            name: M1_XLARGE,
            hz: M1_HZ,
            cpu: "Xeon E5-2651 v2",
            gbps: 1.0,
            network: "High",
            instance_price: 0.35,
        },
        Row {
            name: C3_XLARGE,
            hz: C3_HZ,
            cpu: "Xeon E5-2680 v2",
            gbps: 0.5,
            network: "Moderate",
            instance_price: 0.21,
        },
        Row {
            name: R3_XLARGE,
            hz: R3_HZ,
            cpu: "Xeon E5-2670 v2",
            gbps: 0.5,
            network: "Moderate",
            instance_price: 0.333,
        },
    ];
    rows.iter().map(docker).collect()
}
