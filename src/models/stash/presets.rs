//! Stash's Table I (AWS P2, P3 and P4 in N. Virginia) as catalog entries,
//! and the shipped example: VGG-11 on P3 with illustrative runs.
//!
//! Table I gives GPUs, vCPUs, the interconnect's kind, GPU and main
//! memory, network and price. The GPUs' peaks and the interconnects'
//! bandwidths are not in the paper: they come from the sources cited per
//! figure. Table I's "p3.24xlarge" is AWS's p3dn.24xlarge; its P4 row names
//! no instance, and its figures (8× A100, 96 vCPUs, 1,152 GB, 400 Gb/s,
//! USD 32.7726/h) are AWS's p4d.24xlarge, the name used here.

use super::section::{Run, StashSettings};
use crate::hardware::{Cite, GpuPeak, Instance, WorkerGroup};
use crate::scenario::Scenario;
use crate::workload::presets::network_preset;

const TABLE_I: &str = "Stash Table I (AWS, N. Virginia)";
const READ: &str = "2026-11-24";

const K80_SRC: &str = "https://www.anandtech.com/show/8729/nvidia-launches-tesla-k80-gk210-gpu (Tesla K80 board: 8.74 TFLOPS FP32 at boost over two GK210 GPUs; one AWS K80 GPU is one GK210, so half)";
const V100_SRC: &str = "https://huggingface.co/datasets/lukeleeai/kernelbench-rag-content/blob/main/V100.md (V100 SXM2: FP32 15.7 TFLOPS, FP16 tensor 125 TFLOPS dense, NVLink 300 GB/s)";
const A100_SRC: &str = "https://glennklockwood.com/garden/processors/A100 (from NVIDIA's A100 datasheet: FP32 19.5, TF32 156, FP16/BF16 312 TFLOPS dense; NVLink 300+300 GB/s)";
const PCIE3_SRC: &str =
    "https://hpc-notes.pages.dev/reference/pcie (PCIe 3.0 ×16: 15.75 GB/s per direction)";

/// One GPU's dense peaks.
const K80: GpuPeak = GpuPeak {
    fp32: Some(4.37e12),
    tf32: None,
    fp16: None,
    bf16: None,
};
const V100: GpuPeak = GpuPeak {
    fp32: Some(15.7e12),
    tf32: None,
    fp16: Some(125e12),
    bf16: None,
};
const A100: GpuPeak = GpuPeak {
    fp32: Some(19.5e12),
    tf32: Some(156e12),
    fp16: Some(312e12),
    bf16: Some(312e12),
};

struct Row {
    name: &'static str,
    gpus: u32,
    gpu: &'static str,
    vcpus: u32,
    interconnect: &'static str,
    /// GPU memory of the whole instance [GB], as Table I gives it.
    gpu_memory_gb: f64,
    memory_gb: f64,
    network_gbps: f64,
    price: f64,
}

const ROWS: [Row; 8] = [
    Row {
        name: "p4d.24xlarge",
        gpus: 8,
        gpu: "A100 SXM4 40 GB",
        vcpus: 96,
        interconnect: "NVSwitch",
        gpu_memory_gb: 320.0,
        memory_gb: 1152.0,
        network_gbps: 400.0,
        price: 32.7726,
    },
    Row {
        name: "p3.2xlarge",
        gpus: 1,
        gpu: "Tesla V100 SXM2 16 GB",
        vcpus: 8,
        interconnect: "PCIe",
        gpu_memory_gb: 16.0,
        memory_gb: 61.0,
        network_gbps: 10.0,
        price: 3.06,
    },
    Row {
        name: "p3.8xlarge",
        gpus: 4,
        gpu: "Tesla V100 SXM2 16 GB",
        vcpus: 32,
        interconnect: "PCIe + NVLink",
        gpu_memory_gb: 64.0,
        memory_gb: 244.0,
        network_gbps: 10.0,
        price: 12.24,
    },
    Row {
        name: "p3.16xlarge",
        gpus: 8,
        gpu: "Tesla V100 SXM2 16 GB",
        vcpus: 64,
        interconnect: "PCIe + NVLink",
        gpu_memory_gb: 128.0,
        memory_gb: 488.0,
        network_gbps: 25.0,
        price: 24.48,
    },
    Row {
        name: "p3dn.24xlarge",
        gpus: 8,
        gpu: "Tesla V100 SXM2 32 GB",
        vcpus: 96,
        interconnect: "PCIe + NVLink",
        gpu_memory_gb: 256.0,
        memory_gb: 768.0,
        network_gbps: 100.0,
        price: 31.218,
    },
    Row {
        name: "p2.xlarge",
        gpus: 1,
        gpu: "Tesla K80 (one GK210)",
        vcpus: 4,
        interconnect: "PCIe",
        gpu_memory_gb: 12.0,
        memory_gb: 61.0,
        network_gbps: 10.0,
        price: 0.90,
    },
    Row {
        name: "p2.8xlarge",
        gpus: 8,
        gpu: "Tesla K80 (one GK210)",
        vcpus: 32,
        interconnect: "PCIe",
        gpu_memory_gb: 96.0,
        memory_gb: 488.0,
        network_gbps: 10.0,
        price: 7.20,
    },
    Row {
        name: "p2.16xlarge",
        gpus: 16,
        gpu: "Tesla K80 (one GK210)",
        vcpus: 64,
        interconnect: "PCIe",
        gpu_memory_gb: 192.0,
        memory_gb: 732.0,
        network_gbps: 25.0,
        price: 14.40,
    },
];

fn cite(fields: &[&str], source: &str) -> Cite {
    Cite {
        fields: fields.iter().map(|f| f.to_string()).collect(),
        source: source.into(),
        date: READ.into(),
    }
}

fn entry(r: &Row) -> Instance {
    let (peak, peak_src, peak_fields): (GpuPeak, &str, &[&str]) = if r.gpu.starts_with("A100") {
        (
            A100,
            A100_SRC,
            &[
                "gpu_peak.fp32",
                "gpu_peak.tf32",
                "gpu_peak.fp16",
                "gpu_peak.bf16",
            ],
        )
    } else if r.gpu.contains("V100") {
        (V100, V100_SRC, &["gpu_peak.fp32", "gpu_peak.fp16"])
    } else {
        (K80, K80_SRC, &["gpu_peak.fp32"])
    };
    // Between the GPUs: NVLink where Table I lists it, else PCIe 3.0 ×16.
    let (link, link_src) = if r.interconnect.contains("NVSwitch") {
        (600e9, A100_SRC)
    } else if r.interconnect.contains("NVLink") {
        (300e9, V100_SRC)
    } else {
        (15.75e9, PCIE3_SRC)
    };
    let mut cites = vec![
        cite(
            &[
                "gpus",
                "gpu_model",
                "vcpus",
                "interconnect",
                "gpu_memory_bytes",
                "memory_bytes",
                "network_bytes_per_s",
                "price_per_hour",
            ],
            &format!(
                "{TABLE_I}; GPU memory per GPU = Table I's instance total / GPUs; network {}",
                if r.name == "p3.2xlarge" {
                    "\"up to 10\" Gb/s taken as 10"
                } else {
                    "as listed"
                }
            ),
        ),
        cite(peak_fields, peak_src),
    ];
    if r.gpus > 1 {
        cites.push(cite(&["interconnect_bytes_per_s"], link_src));
    }
    Instance {
        name: r.name.into(),
        source: format!(
            "{TABLE_I}{}; GPU peaks and interconnect bandwidth from the cited vendor figures",
            match r.name {
                "p3dn.24xlarge" => " (the paper's \"p3.24xlarge\")",
                "p4d.24xlarge" => " (the paper's unnamed P4 row)",
                _ => "",
            }
        ),
        network_bytes_per_s: Some(r.network_gbps * 1.25e8),
        price_per_hour: Some(r.price),
        memory_bytes: Some(r.memory_gb * 1e9),
        gpus: Some(r.gpus),
        gpu_memory_bytes: Some(r.gpu_memory_gb / f64::from(r.gpus) * 1e9),
        interconnect_bytes_per_s: (r.gpus > 1).then_some(link),
        vcpus: Some(r.vcpus),
        gpu_model: Some(r.gpu.into()),
        gpu_peak: Some(peak),
        interconnect: Some(r.interconnect.into()),
        cites,
        ..Instance::default()
    }
}

/// Table I's eight instance types.
pub fn table1_catalog() -> Vec<Instance> {
    ROWS.iter().map(entry).collect()
}

/// Illustrative runs of VGG-11 on P3 at 10,000 samples per GPU, made up
/// to show the paper's findings (its figures are charts, not tables):
/// a small interconnect stall on p3.16xlarge, a larger one on p3.8xlarge
/// (its NVLink crossbar not whole, Sec. V-B), a 500% network stall on
/// 2× p3.8xlarge (Fig. 13), negligible CPU and noticeable disk stalls.
pub fn p3_vgg11_runs() -> Vec<Run> {
    let run = |configuration: &str, run: u8, seconds: f64, samples: f64| Run {
        configuration: configuration.into(),
        run,
        seconds,
        samples,
        reference: None,
    };
    vec![
        run("p3.16xlarge", 1, 100.0, 10_000.0),
        run("p3.16xlarge", 2, 112.0, 80_000.0),
        run("p3.16xlarge", 3, 150.0, 80_000.0),
        run("p3.16xlarge", 4, 113.0, 80_000.0),
        run("p3.8xlarge", 1, 100.0, 10_000.0),
        run("p3.8xlarge", 2, 118.0, 40_000.0),
        run("p3.8xlarge", 3, 135.0, 40_000.0),
        run("p3.8xlarge", 4, 119.0, 40_000.0),
        run("2× p3.8xlarge", 1, 100.0, 10_000.0),
        run("2× p3.8xlarge", 3, 700.0, 80_000.0),
        run("2× p3.8xlarge", 4, 675.0, 80_000.0),
        run("2× p3.8xlarge", 5, 672.0, 80_000.0),
    ]
}

/// The shipped example: VGG-11 (Table II's NLP/large row), Table I's
/// catalog at on-demand prices, the illustrative P3 runs, 90 epochs of
/// ImageNet-1k at a global batch of 256, FP16 peaks (mixed precision).
pub fn p3_example() -> Scenario {
    let mut s = Scenario::example();
    if let Some(net) = network_preset("vgg11") {
        s.workload.network = net;
    }
    s.hardware.catalog = table1_catalog();
    s.hardware.cluster.workers = vec![WorkerGroup {
        instance: "p3.16xlarge".into(),
        count: 1,
        batch_size: 256,
    }];
    s.hardware.cluster.ps.link_bytes_per_s = Some(25.0 * 1.25e8);
    s.hardware.precision = crate::hardware::Precision::Fp16;
    s.goals.time_s = Some(48.0 * 3600.0);
    s.set_section(
        super::section::ID,
        &StashSettings {
            runs: p3_vgg11_runs(),
            ..StashSettings::default()
        },
    );
    s
}
