//! Catalog presets for the hardware of Zeng et al. Sec. 6.1.
//!
//! Clocks are the ones the paper states. Stream-processor counts are
//! NVIDIA's published CUDA-core counts (Quadro RTX 4000: 2304; GTX 1060
//! 6 GB: 1280). The CPUs' SIMD factor defaults to Algorithm 1's `simd = 2`;
//! Tables 2 and 4 need an effective, per-network value (≈2.1-2.6) that the
//! user calibrates from one measured iteration.

use super::{gbit_per_s_to_bytes, Instance, Processor};

fn device(name: &str, source: &str, processor: Processor) -> Instance {
    Instance {
        name: name.to_string(),
        source: source.to_string(),
        processor: Some(processor),
        network_bytes_per_s: Some(gbit_per_s_to_bytes(1.0)),
        ..Instance::default()
    }
}

pub const XEON_E5_2620: &str = "Xeon E5-2620 @ 2.0 GHz";
pub const XEON_E5_2660: &str = "Xeon E5-2660 @ 2.2 GHz";
pub const QUADRO_RTX_4000: &str = "Quadro RTX 4000";
pub const GTX_1060: &str = "GeForce GTX 1060 6GB";

/// The paper's four devices.
pub fn zeng_devices() -> Vec<Instance> {
    vec![
        device(
            XEON_E5_2620,
            "Zeng et al. Sec. 6.1 (clock); simd = 2 from Algorithm 1",
            Processor::Cpu { hz: 2.0e9, simd: 2.0 },
        ),
        device(
            XEON_E5_2660,
            "Zeng et al. Sec. 6.1 (clock); simd = 2 from Algorithm 1",
            Processor::Cpu { hz: 2.2e9, simd: 2.0 },
        ),
        device(
            QUADRO_RTX_4000,
            "Zeng et al. Sec. 6.1 (1.545 GHz); 2304 CUDA cores (NVIDIA datasheet); no FMA as in the paper",
            Processor::Gpu { hz: 1.545e9, stream_processors: 2304, fma: false },
        ),
        device(
            GTX_1060,
            "Zeng et al. Sec. 6.1 (1.506 GHz); 1280 CUDA cores (NVIDIA datasheet); no FMA as in the paper",
            Processor::Gpu { hz: 1.506e9, stream_processors: 1280, fma: false },
        ),
    ]
}

/// PS link presets: (label, bytes/s).
pub fn link_presets() -> Vec<(&'static str, f64)> {
    vec![
        ("1 GbE", gbit_per_s_to_bytes(1.0)),
        ("10 GbE", gbit_per_s_to_bytes(10.0)),
        ("25 GbE", gbit_per_s_to_bytes(25.0)),
        ("100 GbE", gbit_per_s_to_bytes(100.0)),
    ]
}
