//! The shared instance catalog and the cluster built from it.
//!
//! Units inside: Hz, FLOP/s, bytes/s, USD per hour. The UI converts at the
//! edges (GHz, Gb/s).

pub mod aws;
pub mod cluster_text;
pub mod current;
pub mod presets;

use serde::{Deserialize, Serialize};

use crate::bounds::Bounds;

/// How a device's peak rate is described at clock level (Zeng Sec. 5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", try_from = "ProcessorRepr")]
pub enum Processor {
    /// Eq. 28: rate = `hz · simd`; `simd` is an effective, calibrated factor.
    Cpu { hz: f64, simd: f64 },
    /// Eq. 33: rate = `hz · stream_processors · fc`, `fc = 2` with FMA.
    Gpu {
        hz: f64,
        stream_processors: u32,
        fma: bool,
    },
}

/// `Processor` as read (see `crate::tagged`).
#[derive(Deserialize)]
struct ProcessorRepr {
    #[serde(rename = "type")]
    kind: ProcessorKind,
    hz: f64,
    simd: Option<f64>,
    stream_processors: Option<u32>,
    fma: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum ProcessorKind {
    Cpu,
    Gpu,
}

impl TryFrom<ProcessorRepr> for Processor {
    type Error = crate::tagged::MissingField;
    fn try_from(r: ProcessorRepr) -> Result<Self, Self::Error> {
        use crate::tagged::need;
        let hz = r.hz;
        Ok(match r.kind {
            ProcessorKind::Cpu => Processor::Cpu {
                hz,
                simd: need(r.simd, "cpu", "simd")?,
            },
            ProcessorKind::Gpu => Processor::Gpu {
                hz,
                stream_processors: need(r.stream_processors, "gpu", "stream_processors")?,
                fma: need(r.fma, "gpu", "fma")?,
            },
        })
    }
}

impl Processor {
    /// Peak FLOP/s as the paper's equations use it.
    pub fn flops(&self) -> f64 {
        match *self {
            Processor::Cpu { hz, simd } => hz * simd,
            Processor::Gpu {
                hz,
                stream_processors,
                fma,
            } => hz * f64::from(stream_processors) * if fma { 2.0 } else { 1.0 },
        }
    }

    pub fn is_gpu(&self) -> bool {
        matches!(self, Processor::Gpu { .. })
    }

    pub fn kind_label(&self) -> &'static str {
        match self {
            Processor::Cpu { .. } => "CPU",
            Processor::Gpu { .. } => "GPU",
        }
    }

    /// Checks of every figure, each as (field under `processor`, message
    /// naming `owner`), e.g. `("hz", "X: clock must be between …")`.
    pub fn validate(&self, owner: &str) -> Vec<(&'static str, String)> {
        let mut errs = Vec::new();
        let mut check = |field: &'static str, what: &str, b: Bounds, v: f64| {
            if let Some(m) = b.check(what, v) {
                errs.push((field, format!("{owner}: {m}")));
            }
        };
        match *self {
            Processor::Cpu { hz, simd } => {
                check("hz", "clock", CLOCK, hz);
                check("simd", "SIMD factor", SIMD, simd);
            }
            Processor::Gpu {
                hz,
                stream_processors,
                ..
            } => {
                check("hz", "clock", CLOCK, hz);
                check(
                    "stream_processors",
                    "stream processors",
                    STREAM_PROCESSORS,
                    f64::from(stream_processors),
                );
            }
        }
        errs
    }
}

// Where each figure must lie (SI inside; the bounds say how people type
// them). Wide enough for any real device, narrow enough that no model's
// arithmetic overflows or vanishes (a subnormal clock would give "inf s").

/// Dense peak of one GPU: 1 GFLOP/s to 10 PFLOP/s.
pub const GPU_PEAK: Bounds = Bounds::shown(1e9, 1e16, 1e12, "TFLOP/s");
/// vCPUs of one instance.
pub const VCPUS: Bounds = Bounds::plain(1.0, 4096.0);
/// Clock: 1 MHz to 100 GHz.
pub const CLOCK: Bounds = Bounds::shown(1e6, 1e11, 1e9, "GHz");
/// Effective SIMD factor (FLOP per cycle).
pub const SIMD: Bounds = Bounds::plain(0.01, 1e4);
/// Stream processors of a GPU.
pub const STREAM_PROCESSORS: Bounds = Bounds::plain(1.0, 1e6);
/// An instance's rate: 1 MFLOP/s to 1 EFLOP/s.
pub const RATE: Bounds = Bounds::shown(1e6, 1e18, 1e9, "GFLOP/s");
/// A network link, bytes/s: 1 kb/s to 10 Tb/s, typed in Gb/s.
pub const NETWORK: Bounds = Bounds::shown(125.0, 1.25e12, 1.25e8, "Gb/s");
/// Bandwidth between the GPUs of one instance, bytes/s: 1 kB/s to 100 TB/s.
pub const INTERCONNECT: Bounds = Bounds::shown(1e3, 1e14, 1e9, "GB/s");
/// Host memory, bytes: 1 MB to 1 PB.
pub const MEMORY: Bounds = Bounds::shown(1e6, 1e15, 1e9, "GB");
/// Memory of one GPU, bytes: 1 MB to 10 TB.
pub const GPU_MEMORY: Bounds = Bounds::shown(1e6, 1e13, 1e9, "GB");
/// A price, USD per hour: free, or from a millionth of a dollar to $10,000.
pub const PRICE: Bounds = Bounds::shown(0.0, 1e4, 1.0, "USD/h").or_zero_from(1e-6);
/// GPUs per instance.
pub const GPUS: Bounds = Bounds::plain(0.0, 1024.0);
/// Most instances of one type an account may run.
pub const QUOTA: Bounds = Bounds::plain(0.0, 1e6);
/// Samples per iteration on one worker.
pub const BATCH: Bounds = Bounds::plain(1.0, MAX_BATCH as f64);
/// Workers in one group.
pub const GROUP_COUNT: Bounds = Bounds::plain(1.0, 1e5);
/// Parameter-server nodes.
pub const PS_COUNT: Bounds = Bounds::plain(1.0, MAX_WORKERS as f64);
/// Start-up time per transfer: 0 to 1 hour.
pub const LATENCY: Bounds = Bounds::shown(0.0, 3600.0, 1.0, "s");

/// One entry of the instance catalog. Every model reads the fields it
/// needs and says which are missing. Units: FLOP/s, bytes, bytes/s, USD/h.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    /// Unique name that clusters refer to.
    pub name: String,
    /// Where the figures come from (datasheet, paper, assumption).
    #[serde(default)]
    pub source: String,
    /// Clock-level description (Zeng Sec. 5). When given, the instance's
    /// rate follows from it (Eq. 28/33) and `flops_per_s` stays empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processor: Option<Processor>,
    /// Peak (or measured) rate of the whole instance, FLOP/s, for an
    /// instance known by its rate rather than its clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flops_per_s: Option<f64>,
    /// Network bandwidth of the instance, bytes/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_bytes_per_s: Option<f64>,
    /// On-demand price, USD per hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_per_hour: Option<f64>,
    /// Spot price, USD per hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spot_price_per_hour: Option<f64>,
    /// Host memory, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<f64>,
    /// GPUs per instance (0 or absent: a CPU instance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<u32>,
    /// Memory of each GPU, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_memory_bytes: Option<f64>,
    /// Bandwidth between the GPUs of one instance (NVLink, PCIe), bytes/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interconnect_bytes_per_s: Option<f64>,
    /// Most instances of this type the account may run at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota: Option<u32>,
    /// CPU cores the instance offers (vCPUs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vcpus: Option<u32>,
    /// The GPU model as its vendor names it ("A100 SXM4 40 GB").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_model: Option<String>,
    /// Dense peak of one GPU at each precision, FLOP/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_peak: Option<GpuPeak>,
    /// How the GPUs of one instance are connected ("NVLink", "PCIe").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interconnect: Option<String>,
    /// Where the figures come from and when they were read, figure by
    /// figure (a catalog of today's clouds must say both).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cites: Vec<Cite>,
}

/// The arithmetic precision a model takes a GPU's peak at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    /// FP32 on the CUDA cores (no tensor cores).
    #[default]
    Fp32,
    /// TF32 on tensor cores.
    Tf32,
    Fp16,
    Bf16,
}

impl Precision {
    pub const ALL: [Precision; 4] = [
        Precision::Fp32,
        Precision::Tf32,
        Precision::Fp16,
        Precision::Bf16,
    ];

    /// How vendors write it: "FP32", "TF32".
    pub fn word(self) -> &'static str {
        match self {
            Precision::Fp32 => "FP32",
            Precision::Tf32 => "TF32",
            Precision::Fp16 => "FP16",
            Precision::Bf16 => "BF16",
        }
    }

    /// The scenario's spelling ("fp32"), for selects and the CLI.
    pub fn key(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Tf32 => "tf32",
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
        }
    }

    pub fn from_key(k: &str) -> Option<Precision> {
        Precision::ALL.into_iter().find(|p| p.key() == k)
    }

    pub fn is_default(&self) -> bool {
        *self == Precision::Fp32
    }
}

/// A GPU's dense peak (no 2:4 sparsity) at each precision, FLOP/s; a
/// precision the GPU lacks, or no source gives, stays empty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuPeak {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp32: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tf32: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp16: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bf16: Option<f64>,
}

impl GpuPeak {
    pub fn at(&self, p: Precision) -> Option<f64> {
        match p {
            Precision::Fp32 => self.fp32,
            Precision::Tf32 => self.tf32,
            Precision::Fp16 => self.fp16,
            Precision::Bf16 => self.bf16,
        }
    }
}

/// Where some of an instance's figures come from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cite {
    /// The instance fields it supports (`price_per_hour`, `gpu_peak.fp16`).
    pub fields: Vec<String>,
    /// The page or document (a URL, or a paper and its table).
    pub source: String,
    /// When the figures were read from it, `YYYY-MM-DD`.
    pub date: String,
}

impl Instance {
    /// The instance's rate, FLOP/s: from its clock-level description, or
    /// as given.
    pub fn flops(&self) -> Option<f64> {
        self.processor
            .as_ref()
            .map(Processor::flops)
            .or(self.flops_per_s)
    }

    /// The instance's rate at precision `p`, FLOP/s: its own rate when
    /// given, else its GPUs' dense peak at `p` (all GPUs of the instance).
    pub fn flops_at(&self, p: Precision) -> Option<f64> {
        self.flops().or_else(|| {
            let gpus = self.gpus.filter(|&g| g > 0)?;
            Some(f64::from(gpus) * self.gpu_peak?.at(p)?)
        })
    }

    /// The price per hour under `pricing`.
    pub fn price(&self, pricing: Pricing) -> Option<f64> {
        match pricing {
            Pricing::OnDemand => self.price_per_hour,
            Pricing::Spot => self.spot_price_per_hour,
        }
    }

    /// Checks of every field, each as (field of the instance, e.g.
    /// `processor.hz` or `price_per_hour`, message naming the instance).
    pub fn validate(&self) -> Vec<(&'static str, String)> {
        let name = &self.name;
        let mut errs: Vec<(&'static str, String)> = Vec::new();
        if let Some(p) = &self.processor {
            for (field, m) in p.validate(name) {
                errs.push((
                    match field {
                        "hz" => "processor.hz",
                        "simd" => "processor.simd",
                        _ => "processor.stream_processors",
                    },
                    m,
                ));
            }
            if self.flops_per_s.is_some() {
                errs.push((
                    "flops_per_s",
                    format!(
                        "{name}: give the rate either by clock (processor) or as FLOP/s, not both"
                    ),
                ));
            }
        }
        let checks: [(&'static str, &str, Bounds, Option<f64>); 9] = [
            ("flops_per_s", "rate", RATE, self.flops_per_s),
            (
                "network_bytes_per_s",
                "network bandwidth",
                NETWORK,
                self.network_bytes_per_s,
            ),
            (
                "gpu_memory_bytes",
                "GPU memory",
                GPU_MEMORY,
                self.gpu_memory_bytes,
            ),
            ("memory_bytes", "memory", MEMORY, self.memory_bytes),
            (
                "interconnect_bytes_per_s",
                "interconnect bandwidth",
                INTERCONNECT,
                self.interconnect_bytes_per_s,
            ),
            (
                "price_per_hour",
                "price per hour",
                PRICE,
                self.price_per_hour,
            ),
            (
                "spot_price_per_hour",
                "spot price per hour",
                PRICE,
                self.spot_price_per_hour,
            ),
            ("gpus", "GPUs per instance", GPUS, self.gpus.map(f64::from)),
            ("quota", "quota", QUOTA, self.quota.map(f64::from)),
        ];
        for (field, what, bounds, v) in checks {
            if let Some(m) = v.and_then(|v| bounds.check(what, v)) {
                errs.push((field, format!("{name}: {m}")));
            }
        }
        if let Some(m) = self.vcpus.and_then(|v| VCPUS.check("vCPUs", f64::from(v))) {
            errs.push(("vcpus", format!("{name}: {m}")));
        }
        if let Some(peak) = &self.gpu_peak {
            let fields = [
                "gpu_peak.fp32",
                "gpu_peak.tf32",
                "gpu_peak.fp16",
                "gpu_peak.bf16",
            ];
            for (p, field) in Precision::ALL.into_iter().zip(fields) {
                let what = format!("{} peak per GPU", p.word());
                if let Some(m) = peak.at(p).and_then(|v| GPU_PEAK.check(&what, v)) {
                    errs.push((field, format!("{name}: {m}")));
                }
            }
        }
        errs
    }
}

/// Which price plans and costs use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pricing {
    #[default]
    OnDemand,
    Spot,
}

impl Pricing {
    /// The other one (a plan's cost at the prices not chosen).
    pub fn other(self) -> Pricing {
        match self {
            Pricing::OnDemand => Pricing::Spot,
            Pricing::Spot => Pricing::OnDemand,
        }
    }

    /// How people say it: "on-demand", "spot".
    pub fn word(self) -> &'static str {
        match self {
            Pricing::OnDemand => "on-demand",
            Pricing::Spot => "spot",
        }
    }
}

/// `count` identical workers of one catalog instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkerGroup {
    /// Name of a catalog instance.
    pub instance: String,
    pub count: u32,
    /// Samples per iteration on each worker of the group.
    pub batch_size: u32,
}

/// The parameter servers: `count` nodes of one catalog instance, each
/// with a link of `link_bytes_per_s` (or the instance's network bandwidth).
/// Every model reads them the same way: the PS side supplies
/// `count × per-node bandwidth`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParameterServer {
    /// Number of PS nodes.
    #[serde(default = "one_ps")]
    pub count: u32,
    /// Catalog instance of the PS nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// Link bandwidth of each PS node, bytes/s; overrides the instance's
    /// network bandwidth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_bytes_per_s: Option<f64>,
    /// Start-up time per transfer, seconds (Zeng l.411 mentions ≈0.5 s;
    /// the paper's model leaves it out, so the default is 0).
    #[serde(default)]
    pub latency_s: f64,
}

fn one_ps() -> u32 {
    1
}

impl ParameterServer {
    /// One node's link, bytes/s: the override, else the PS instance's
    /// network bandwidth.
    pub fn node_bandwidth(&self, catalog: &[Instance]) -> Option<f64> {
        self.link_bytes_per_s.or_else(|| {
            let name = self.instance.as_ref()?;
            catalog
                .iter()
                .find(|i| &i.name == name)?
                .network_bytes_per_s
        })
    }

    /// What the PS side supplies in all, `count ×` one node's link, bytes/s.
    pub fn total_bandwidth(&self, catalog: &[Instance]) -> Option<f64> {
        self.node_bandwidth(catalog)
            .map(|b| f64::from(self.count) * b)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    pub workers: Vec<WorkerGroup>,
    pub ps: ParameterServer,
}

/// Largest total worker count accepted.
pub const MAX_WORKERS: u32 = 4096;
/// Largest per-worker batch accepted.
pub const MAX_BATCH: u32 = 1_000_000;

impl Cluster {
    pub fn total_workers(&self) -> u32 {
        self.workers.iter().map(|g| g.count).sum()
    }
}

/// Converts Gb/s (decimal, as links are sold) to bytes/s.
pub fn gbit_per_s_to_bytes(gbps: f64) -> f64 {
    gbps * 1e9 / 8.0
}

/// Converts bytes/s to Gb/s.
pub fn bytes_to_gbit_per_s(bytes_per_s: f64) -> f64 {
    bytes_per_s * 8.0 / 1e9
}

/// Largest catalog accepted, from a file or inside a scenario.
pub const MAX_CATALOG_ENTRIES: usize = 1000;
/// Longest name accepted (instance types, worker groups, the title): a
/// name is repeated in every row and label of a report.
pub const MAX_NAME_CHARS: usize = 200;

/// Why a catalog file does not read; an entry's error names it (from 1).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CatalogError {
    #[error("the file is larger than 5 MB")]
    TooLarge,
    /// serde_json's message.
    #[error("not JSON: {0}")]
    NotJson(String),
    #[error("expected a JSON array of instances, or {{\"catalog\": [...]}}")]
    NoCatalogArray,
    #[error("expected a JSON array of instances")]
    NotAnArray,
    #[error("the catalog is empty")]
    Empty,
    #[error("{count} instances is more than the {MAX_CATALOG_ENTRIES} accepted")]
    TooMany { count: usize },
    #[error("instance {index}: needs a name")]
    Unnamed { index: usize },
    /// The entry does not read as an instance, or a value is out of range.
    #[error("instance {index}: {message}")]
    Entry { index: usize, message: String },
}

/// A catalog file read in the import worker (`crate::readers`) says its
/// error as the file's content.
impl From<CatalogError> for crate::errors::ReadError {
    fn from(e: CatalogError) -> Self {
        crate::errors::ReadError::Content(e.to_string())
    }
}

/// Reads a catalog file: a JSON array of instances (or `{"catalog": [...]}`),
/// each checked; errors name the entry.
pub fn parse_catalog(text: &str) -> Result<Vec<Instance>, CatalogError> {
    if text.len() > 5 * 1024 * 1024 {
        return Err(CatalogError::TooLarge);
    }
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| CatalogError::NotJson(e.to_string()))?;
    let list = match v {
        serde_json::Value::Array(a) => a,
        serde_json::Value::Object(mut o) => match o.remove("catalog") {
            Some(serde_json::Value::Array(a)) => a,
            _ => return Err(CatalogError::NoCatalogArray),
        },
        _ => return Err(CatalogError::NotAnArray),
    };
    if list.is_empty() {
        return Err(CatalogError::Empty);
    }
    if list.len() > MAX_CATALOG_ENTRIES {
        return Err(CatalogError::TooMany { count: list.len() });
    }
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.into_iter().enumerate() {
        let index = i + 1;
        let inst: Instance = serde_json::from_value(item).map_err(|e| CatalogError::Entry {
            index,
            message: e.to_string(),
        })?;
        if inst.name.trim().is_empty() {
            return Err(CatalogError::Unnamed { index });
        }
        if let Some((_, message)) = inst.validate().into_iter().next() {
            return Err(CatalogError::Entry { index, message });
        }
        out.push(inst);
    }
    Ok(out)
}
