//! The shared instance catalog and the cluster built from it.
//!
//! Units inside: Hz, FLOP/s, bytes/s, USD per hour. The UI converts at the
//! edges (GHz, Gb/s).

pub mod aws;
pub mod presets;

use serde::{Deserialize, Serialize};

/// How a device's peak rate is described at clock level (Zeng Sec. 5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
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
/// needs and says which are missing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    /// Unique name that clusters refer to.
    pub name: String,
    /// Where the figures come from (datasheet, paper, assumption).
    #[serde(default)]
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processor: Option<Processor>,
    /// Network bandwidth of the instance, bytes/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_bytes_per_s: Option<f64>,
    /// On-demand price, USD per hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_per_hour: Option<f64>,
    /// Spot price, USD per hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spot_price_per_hour: Option<f64>,
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

/// The parameter-server side of the cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParameterServer {
    /// Bandwidth of the PS link that every push and pull crosses, bytes/s.
    pub bandwidth_bytes_per_s: f64,
    /// Optional start-up time per transfer, seconds (Zeng l.411 mentions ≈0.5 s;
    /// the paper's model leaves it out, so the default is 0).
    #[serde(default)]
    pub latency_s: f64,
    /// Catalog instance of the PS nodes (Cynthia reads their CPU and
    /// bandwidth; Zeng uses `bandwidth_bytes_per_s` above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// Number of PS nodes (Cynthia).
    #[serde(default = "one_ps")]
    pub count: u32,
}

fn one_ps() -> u32 {
    1
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
        if let Some(p) = &inst.processor {
            if let Some(e) = p.validate(&inst.name).into_iter().next() {
                return Err(format!("instance {}: {e}", i + 1));
            }
        }
        for (what, v) in [
            ("network bandwidth", inst.network_bytes_per_s),
            ("price per hour", inst.price_per_hour),
            ("spot price per hour", inst.spot_price_per_hour),
        ] {
            if let Some(v) = v {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(format!(
                        "instance {} ({}): {what} must be ≥ 0 (got {v})",
                        i + 1,
                        inst.name
                    ));
                }
            }
        }
        out.push(inst);
    }
    Ok(out)
}
