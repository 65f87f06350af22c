//! spotDNN's published setup: Table III's seven EC2 GPU types (spot prices
//! of Jan. 2023, quota 10), the m5.xlarge PS at 1.2 GB/s and PCIe at
//! 10 GB/s (Sec. V-A), and the authors' ResNet-110 profile.
//!
//! The ResNet-110 profile is the authors' published one (their code's
//! constants, mapped as models.md §3 says): `S_param` 11.54 MB (Table IV),
//! `B_req` 142 MB/s, `P = 0.8·√n − 1.92`, the loss fit `γ1, γ2, γ3, γ5 =
//! 876.5, −0.2, 2507.6, 0.5` of the **R-free** form (the R-form's γ's are
//! unpublished), and each type's speed alone: 1885, 750, 1018, 1995 and
//! 2115 samples/s for p3.2xlarge (their "p2.xlarge"), g4dn.4xlarge,
//! g3.8xlarge, g3.16xlarge and p2.8xlarge at per-GPU batches 1024, 1024,
//! 512, 512, 1024. `α2 = 100 samples/GB, β2 = −100` are this product's
//! choice: Eq. 10 then gives exactly those batches from the GPUs' memory
//! (16 GB V100 and T4, 12 GB K80: 1024; 8 GB M60: 512). g4dn.12xlarge and
//! g3.4xlarge were not measured; they take the T4's and the M60's compute
//! time per GPU ("same GPU as").

use super::section::{Measured, PlanFrom, Revocation, SpotDnnSettings};
use super::{LossForm, LossLaw};
use crate::hardware::{Cluster, Instance, ParameterServer, Pricing, WorkerGroup};
use crate::scenario::{Goals, Hardware, Scenario, Workload as ScenarioWorkload, SCENARIO_VERSION};
use crate::workload::Network;

/// The PS of Sec. V-A.
pub const PS_INSTANCE: &str = "m5.xlarge (PS)";
/// Its bandwidth: 1.2 GB/s.
pub const PS_BYTES_PER_S: f64 = 1.2e9;
/// PCIe inside a worker: 10 GB/s.
pub const PCIE_BYTES_PER_S: f64 = 10e9;

const SOURCE: &str = "spotDNN Table III: GPUs, quota 10, spot (Jan. 2023) and on-demand USD/h; GPU memory per AWS; PCIe 10 GB/s (Sec. V-A)";

/// (name, GPUs, GPU memory [GB], spot, on-demand [USD/h], network [Gb/s]).
const TABLE_III: [(&str, u32, f64, f64, f64, f64); 7] = [
    ("p3.2xlarge", 1, 16.0, 1.25, 3.06, 10.0),
    ("p2.8xlarge", 8, 12.0, 2.16, 7.20, 10.0),
    ("g4dn.12xlarge", 4, 16.0, 1.22, 3.91, 50.0),
    ("g4dn.4xlarge", 1, 16.0, 0.36, 1.20, 25.0),
    ("g3.16xlarge", 4, 8.0, 1.37, 4.56, 25.0),
    ("g3.8xlarge", 2, 8.0, 0.69, 2.28, 10.0),
    ("g3.4xlarge", 1, 8.0, 0.34, 1.14, 10.0),
];

/// Table III as catalog entries, plus the PS instance.
pub fn table3_catalog() -> Vec<Instance> {
    let mut v: Vec<Instance> = TABLE_III
        .iter()
        .map(|&(name, gpus, mem_gb, spot, od, net_gbps)| Instance {
            name: name.into(),
            source: SOURCE.into(),
            network_bytes_per_s: Some(net_gbps * 1.25e8),
            price_per_hour: Some(od),
            spot_price_per_hour: Some(spot),
            gpus: Some(gpus),
            gpu_memory_bytes: Some(mem_gb * 1e9),
            interconnect_bytes_per_s: Some(PCIE_BYTES_PER_S),
            quota: Some(10),
            ..Instance::default()
        })
        .collect();
    v.push(ps_instance());
    v
}

/// The m5.xlarge PS (on demand, USD 0.192/h; the paper's cost counts
/// workers only).
pub fn ps_instance() -> Instance {
    Instance {
        name: PS_INSTANCE.into(),
        source: "spotDNN Sec. V-A: the PS, 1.2 GB/s available; on-demand price per AWS".into(),
        network_bytes_per_s: Some(PS_BYTES_PER_S),
        price_per_hour: Some(0.192),
        quota: Some(1),
        ..Instance::default()
    }
}

/// Per-GPU batch and speed alone of the measured types (authors' code).
const MEASURED: [(&str, f64, u32, f64); 5] = [
    ("p3.2xlarge", 1024.0, 1, 1885.0),
    ("g4dn.4xlarge", 1024.0, 1, 750.0),
    ("g3.8xlarge", 512.0, 2, 1018.0),
    ("g3.16xlarge", 512.0, 4, 1995.0),
    ("p2.8xlarge", 1024.0, 8, 2115.0),
];

/// The authors' ResNet-110 profile on CIFAR-100 (R-free loss form).
pub fn resnet110() -> SpotDnnSettings {
    let mut measured: Vec<Measured> = MEASURED
        .iter()
        .map(|&(name, batch, gpus, speed)| Measured {
            instance: name.into(),
            iteration_s: Some(batch * f64::from(gpus) / speed),
            same_gpu_as: None,
        })
        .collect();
    measured.push(Measured {
        instance: "g4dn.12xlarge".into(),
        iteration_s: None,
        same_gpu_as: Some("g4dn.4xlarge".into()),
    });
    measured.push(Measured {
        instance: "g3.4xlarge".into(),
        iteration_s: None,
        same_gpu_as: Some("g3.8xlarge".into()),
    });
    SpotDnnSettings {
        param_bytes: Some(11.54e6),
        req_bytes_per_s: Some(142e6),
        alpha1: 0.8,
        beta1: -1.92,
        alpha2_per_byte: Some(100.0 / 1e9),
        beta2: -100.0,
        loss: Some(LossLaw {
            gamma1: 876.5,
            gamma2: -0.2,
            gamma3: 2507.6,
            gamma4: 0.0,
            gamma5: 0.5,
            form: LossForm::RFree,
        }),
        measured,
        plan_from: PlanFrom::Empty,
        ..SpotDnnSettings::default()
    }
}

/// Workload presets offered on the page: (id, label, settings).
pub fn workload_presets() -> Vec<(&'static str, &'static str, SpotDnnSettings)> {
    vec![(
        "resnet110",
        "ResNet-110 on CIFAR-100 (authors' profile, R-free loss)",
        resnet110(),
    )]
}

/// Table I's motivating example: ResNet-110 to loss 0.8 in 2,600 s on
/// g4dn.4xlarge, g3.8xlarge, g3.16xlarge and p2.8xlarge, quota 5 each (the
/// other Table III types at 0), spot prices; the cluster is spotDNN's own
/// plan, 5 g3.8xlarge + 3 g3.16xlarge.
pub fn table1_example() -> Scenario {
    let mut catalog = table3_catalog();
    for i in &mut catalog {
        if TABLE_III.iter().any(|t| t.0 == i.name) {
            let in_table1 = ["g4dn.4xlarge", "g3.8xlarge", "g3.16xlarge", "p2.8xlarge"];
            i.quota = Some(if in_table1.contains(&i.name.as_str()) {
                5
            } else {
                0
            });
        }
    }
    let mut s = Scenario {
        version: SCENARIO_VERSION,
        title: String::new(),
        workload: ScenarioWorkload {
            network: Network::from_layers("ResNet-110", Vec::new()),
            profile: None,
            loss: None,
            loss_curve: None,
        },
        hardware: Hardware {
            catalog,
            cluster: Cluster {
                workers: vec![
                    WorkerGroup {
                        instance: "g3.8xlarge".into(),
                        count: 5,
                        batch_size: 1024,
                    },
                    WorkerGroup {
                        instance: "g3.16xlarge".into(),
                        count: 3,
                        batch_size: 2048,
                    },
                ],
                ps: ParameterServer {
                    count: 1,
                    instance: Some(PS_INSTANCE.into()),
                    link_bytes_per_s: None,
                    latency_s: 0.0,
                },
            },
            pricing: Pricing::Spot,
            precision: Default::default(),
        },
        goals: Goals {
            time_s: Some(2600.0),
            loss: Some(0.8),
            budget_usd: None,
        },
        runs: Vec::new(),
        calibration: Default::default(),
        models: Default::default(),
        uncertainty: None,
    };
    s.set_section(super::section::ID, &resnet110());
    s
}

/// The optimiser's benchmark: Table III's 7 types, quota 25 each,
/// contention allowing up to 63 workers (≈10⁹ compositions for brute
/// force). That is Table I's example with every GPU type at quota 25,
/// α1 = 0.1, β1 = 0.2 (`P < 1` up to 63 workers), and the goals.
pub fn quota25_example(loss: f64, time_s: f64) -> Scenario {
    let mut s = table1_example();
    for i in &mut s.hardware.catalog {
        if i.gpus.is_some() {
            i.quota = Some(25);
        }
    }
    let mut set: SpotDnnSettings = s.section(super::section::ID).unwrap_or_default();
    set.alpha1 = 0.1;
    set.beta1 = 0.2;
    s.set_section(super::section::ID, &set);
    s.goals.loss = Some(loss);
    s.goals.time_s = Some(time_s);
    s
}

/// Table I's four GPU types in `types` renamed copies (cycling through
/// g4dn.4xlarge, g3.8xlarge, g3.16xlarge, p2.8xlarge; the first four keep
/// their names, the others are "g3.8xlarge #2" and so on, "same GPU as"
/// the original), quota `quota` each, the other Table III types at 0:
/// many interchangeable types, for the scale bench and tests. Table I's
/// goals and cluster, whose g3.8xlarge instances are revoked at 1,788 s
/// (loss 0.9).
pub fn table1_copies_example(types: usize, quota: u32) -> Scenario {
    const TABLE_I: [&str; 4] = ["g4dn.4xlarge", "g3.8xlarge", "g3.16xlarge", "p2.8xlarge"];
    let mut s = table1_example();
    let mut set: SpotDnnSettings = s.section(super::section::ID).unwrap_or_default();
    for i in &mut s.hardware.catalog {
        if let Some(k) = TABLE_I.iter().position(|&t| t == i.name) {
            i.quota = Some(if k < types { quota } else { 0 });
        }
    }
    let mut copies = Vec::new();
    for k in TABLE_I.len()..types {
        let original = TABLE_I[k % TABLE_I.len()];
        let Some(mut inst) = s.instance(original).cloned() else {
            continue;
        };
        inst.name = format!("{original} #{}", k / TABLE_I.len() + 1);
        set.measured.push(Measured {
            instance: inst.name.clone(),
            iteration_s: None,
            same_gpu_as: Some(original.into()),
        });
        copies.push(inst);
    }
    s.hardware.catalog.extend(copies);
    set.revocation = Some(Revocation {
        instance: "g3.8xlarge".into(),
        at_s: 1788.0,
        loss_now: 0.9,
    });
    s.set_section(super::section::ID, &set);
    s
}

/// The shipped current catalog (`hardware::current`, 31 GPU types), quota
/// `quota` each, with the m5.xlarge PS and the ResNet-110 loss law, for
/// the scale bench and tests: loss 0.8 in 500 s (where the cheapest plans
/// change from a few fast 8-GPU instances to many cheap ones, the hardest
/// goals for the exact search), running 4 p5.48xlarge and 5
/// Standard_NV36ads_A10_v5, the latter revoked at 200 s (loss 1.2).
/// Contention allows up to 63 workers (`α1 = 0.1`, `β1 = 0.2`, as
/// `quota25_example`); `α2 = 10 samples/GB, β2 = 0` keeps worker batches
/// (128 to 8192) where the loss law stays positive. The catalog's gaps
/// are filled by one rule each, none a published figure: a GPU memory
/// absent is read from the GPU model's name ("V100 16 GB"); PCIe absent is
/// Sec. V-A's 10 GB/s; a price absent is the mean per-GPU price of the
/// other entries with the same GPU model (spot: else 35% of on-demand);
/// each type's iteration alone is its Eq. 10 batch at the authors' V100
/// speed (1885 samples/s per GPU) scaled by FP32 peak (A10/A10G, absent:
/// 31.2 TFLOP/s), plus Eq. 6-7's transfers alone.
pub fn current_catalog_example(quota: u32) -> Scenario {
    let mut s = table1_example();
    let catalog = crate::hardware::current::current_catalog();
    let model = |i: &Instance| i.gpu_model.clone().unwrap_or_default();
    let per_gpu = |name: &str, price: fn(&Instance) -> Option<f64>| -> Option<f64> {
        let same: Vec<f64> = catalog
            .iter()
            .filter(|j| model(j) == name)
            .filter_map(|j| Some(price(j)? / f64::from(j.gpus?.max(1))))
            .collect();
        (!same.is_empty()).then(|| same.iter().sum::<f64>() / same.len() as f64)
    };
    let fp32 = |i: &Instance| -> Option<f64> {
        i.gpu_peak.and_then(|p| p.fp32).or_else(|| {
            let same = catalog
                .iter()
                .filter(|j| model(j) == model(i))
                .find_map(|j| j.gpu_peak.and_then(|p| p.fp32));
            same.or_else(|| model(i).starts_with("A10").then_some(31.2e12))
        })
    };
    let (alpha2, beta2) = (10.0 / 1e9, 0.0);
    let mut set = resnet110();
    set.alpha1 = 0.1;
    set.beta1 = 0.2;
    set.alpha2_per_byte = Some(alpha2);
    set.beta2 = beta2;
    set.measured.clear();
    let (param, req) = (
        set.param_bytes.unwrap_or(0.0),
        set.req_bytes_per_s.unwrap_or(1.0),
    );
    let mut types = Vec::new();
    for mut i in catalog.iter().cloned() {
        let gpus = f64::from(i.gpus.unwrap_or(1).max(1));
        let name = model(&i);
        if i.gpu_memory_bytes.is_none() {
            i.gpu_memory_bytes = name
                .split_whitespace()
                .collect::<Vec<_>>()
                .windows(2)
                .find(|w| w[1] == "GB")
                .and_then(|w| w[0].parse::<f64>().ok())
                .map(|gb| gb * 1e9);
        }
        let pcie = *i.interconnect_bytes_per_s.get_or_insert(PCIE_BYTES_PER_S);
        if i.price_per_hour.is_none() {
            i.price_per_hour = per_gpu(&name, |j| j.price_per_hour).map(|p| p * gpus);
        }
        if i.spot_price_per_hour.is_none() {
            i.spot_price_per_hour = per_gpu(&name, |j| j.spot_price_per_hour)
                .map(|p| p * gpus)
                .or(i.price_per_hour.map(|p| 0.35 * p));
        }
        i.quota = Some(quota);
        let batch = i
            .gpu_memory_bytes
            .and_then(|m| super::gpu_batch(alpha2, beta2, m));
        if let (Some(b), Some(peak)) = (batch, fp32(&i)) {
            let transfers = 2.0 * param / req + 2.0 * gpus * param / pcie;
            set.measured.push(Measured {
                instance: i.name.clone(),
                iteration_s: Some(b / (1885.0 * peak / 15.7e12) + transfers),
                same_gpu_as: None,
            });
        }
        types.push(i);
    }
    types.push(ps_instance());
    s.hardware.catalog = types;
    s.hardware.cluster.workers = vec![
        WorkerGroup {
            instance: "p5.48xlarge".into(),
            count: 4,
            batch_size: 8 * 512,
        },
        WorkerGroup {
            instance: "Standard_NV36ads_A10_v5".into(),
            count: 5,
            batch_size: 128,
        },
    ];
    set.revocation = Some(Revocation {
        instance: "Standard_NV36ads_A10_v5".into(),
        at_s: 200.0,
        loss_now: 1.2,
    });
    s.goals.loss = Some(0.8);
    s.goals.time_s = Some(500.0);
    s.set_section(super::section::ID, &set);
    s
}
