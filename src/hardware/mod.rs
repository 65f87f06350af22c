//! The shared instance catalog and the cluster built from it.
//!
//! Units inside: Hz, FLOP/s, bytes/s, USD per hour. The UI converts at the
//! edges (GHz, Gb/s).

pub mod aws;
pub mod presets;

use serde::{Deserialize, Serialize};

use crate::report::fmt_count;

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
    type Error = String;
    fn try_from(r: ProcessorRepr) -> Result<Self, String> {
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

    pub fn validate(&self, owner: &str) -> Vec<String> {
        let mut errs = Vec::new();
        let hz = match *self {
            Processor::Cpu { hz, simd } => {
                if !(simd.is_finite() && simd > 0.0) {
                    errs.push(format!(
                        "{owner}: SIMD width must be a positive number (got {simd})"
                    ));
                }
                hz
            }
            Processor::Gpu {
                hz,
                stream_processors,
                ..
            } => {
                if stream_processors == 0 {
                    errs.push(format!("{owner}: stream processors must be at least 1"));
                }
                hz
            }
        };
        if !(hz.is_finite() && hz > 0.0) {
            errs.push(format!(
                "{owner}: clock must be a positive number of GHz (got {})",
                hz / 1e9
            ));
        } else if hz > 1e11 {
            errs.push(format!(
                "{owner}: clock of {} GHz is not a real device",
                hz / 1e9
            ));
        }
        errs
    }
}

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

    /// The price per hour under `pricing`.
    pub fn price(&self, pricing: Pricing) -> Option<f64> {
        match pricing {
            Pricing::OnDemand => self.price_per_hour,
            Pricing::Spot => self.spot_price_per_hour,
        }
    }

    /// Checks of every field, each message naming the instance.
    pub fn validate(&self) -> Vec<String> {
        let name = &self.name;
        let mut errs = Vec::new();
        if let Some(p) = &self.processor {
            errs.extend(p.validate(name));
            if self.flops_per_s.is_some() {
                errs.push(format!(
                    "{name}: give the rate either by clock (processor) or as FLOP/s, not both"
                ));
            }
        }
        // (what, value, display scale, display unit, largest accepted).
        let checks: [(&str, Option<f64>, f64, &str, f64); 7] = [
            ("rate", self.flops_per_s, 1e9, "GFLOP/s", 1e21),
            (
                "network bandwidth",
                self.network_bytes_per_s,
                1e9 / 8.0,
                "Gb/s",
                1e15,
            ),
            ("GPU memory", self.gpu_memory_bytes, 1e9, "GB", 1e15),
            ("memory", self.memory_bytes, 1e9, "GB", 1e18),
            (
                "interconnect bandwidth",
                self.interconnect_bytes_per_s,
                1e9,
                "GB/s",
                1e15,
            ),
            ("price per hour", self.price_per_hour, 1.0, "USD/h", 1e6),
            (
                "spot price per hour",
                self.spot_price_per_hour,
                1.0,
                "USD/h",
                1e6,
            ),
        ];
        for (what, v, scale, unit, max) in checks {
            let Some(v) = v else { continue };
            let prices = what.contains("price");
            let ok = v.is_finite() && v <= max && if prices { v >= 0.0 } else { v > 0.0 };
            if ok {
                continue;
            }
            let top = if max / scale < 1e12 {
                fmt_count(max / scale)
            } else {
                format!("{:e}", max / scale)
            };
            let got = v / scale;
            errs.push(if prices {
                format!("{name}: {what} must be ≥ 0 and at most {top} {unit} (got {got})")
            } else {
                format!(
                    "{name}: {what} must be a positive number of {unit}, at most {top} (got {got})"
                )
            });
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
pub const MAX_BATCH: u32 = 1 << 20;

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

/// Largest catalog accepted from a file.
pub const MAX_CATALOG_ENTRIES: usize = 1000;

/// Reads a catalog file: a JSON array of instances (or `{"catalog": [...]}`),
/// each checked; messages name the entry.
pub fn parse_catalog(text: &str) -> Result<Vec<Instance>, String> {
    if text.len() > 5 * 1024 * 1024 {
        return Err("the file is larger than 5 MB".into());
    }
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let list = match v {
        serde_json::Value::Array(a) => a,
        serde_json::Value::Object(mut o) => match o.remove("catalog") {
            Some(serde_json::Value::Array(a)) => a,
            _ => return Err("expected a JSON array of instances, or {\"catalog\": [...]}".into()),
        },
        _ => return Err("expected a JSON array of instances".into()),
    };
    if list.is_empty() {
        return Err("the catalog is empty".into());
    }
    if list.len() > MAX_CATALOG_ENTRIES {
        return Err(format!(
            "{} instances is more than the {MAX_CATALOG_ENTRIES} accepted",
            list.len()
        ));
    }
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.into_iter().enumerate() {
        let inst: Instance =
            serde_json::from_value(item).map_err(|e| format!("instance {}: {e}", i + 1))?;
        if inst.name.trim().is_empty() {
            return Err(format!("instance {}: needs a name", i + 1));
        }
        if let Some(e) = inst.validate().into_iter().next() {
            return Err(format!("instance {}: {e}", i + 1));
        }
        out.push(inst);
    }
    Ok(out)
}
