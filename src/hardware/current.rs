//! Today's GPU instance types on AWS, Google Cloud and Azure
//! (`current_gpus.json`, `docs/current-catalog.md`): every figure cites
//! its source and the date it was read; a figure no source gave is left
//! empty. Users edit or extend them like any catalog entry.

use super::Instance;

/// The file as shipped; `tests/suite/current_catalog.rs` checks that it
/// reads, that every figure is cited and that every peak is plausible.
const JSON: &str = include_str!("current_gpus.json");

/// The current catalog (empty only if the shipped file did not read,
/// which its test rules out).
pub fn current_catalog() -> Vec<Instance> {
    serde_json::from_str(JSON).unwrap_or_default()
}

/// The figure fields an instance can cite, as `Cite::fields` names them,
/// each with whether this instance has it.
pub fn cited_fields(i: &Instance) -> Vec<(&'static str, bool)> {
    let peak = i.gpu_peak.unwrap_or_default();
    vec![
        ("network_bytes_per_s", i.network_bytes_per_s.is_some()),
        ("price_per_hour", i.price_per_hour.is_some()),
        ("spot_price_per_hour", i.spot_price_per_hour.is_some()),
        ("memory_bytes", i.memory_bytes.is_some()),
        ("gpus", i.gpus.is_some()),
        ("gpu_memory_bytes", i.gpu_memory_bytes.is_some()),
        (
            "interconnect_bytes_per_s",
            i.interconnect_bytes_per_s.is_some(),
        ),
        ("vcpus", i.vcpus.is_some()),
        ("gpu_model", i.gpu_model.is_some()),
        ("gpu_peak.fp32", peak.fp32.is_some()),
        ("gpu_peak.tf32", peak.tf32.is_some()),
        ("gpu_peak.fp16", peak.fp16.is_some()),
        ("gpu_peak.bf16", peak.bf16.is_some()),
        ("interconnect", i.interconnect.is_some()),
    ]
}
