//! How a stored SI value is shown. Each variant names the stored unit and
//! the shown one; the conversion lives here and nowhere else.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Words or a dimensionless number with no unit (a loss, β0).
    #[default]
    None,
    /// A whole number of things (workers, iterations, layers).
    Count,
    /// Stored s, shown s.
    Seconds,
    /// Stored s, shown h.
    Hours,
    /// Stored USD.
    Usd,
    /// Stored USD per hour.
    UsdPerHour,
    /// Stored FLOP, shown FLOP (exact counts).
    Flop,
    /// Stored FLOP, shown GFLOP.
    Gflop,
    /// Stored FLOP/s, shown GFLOP/s.
    GflopPerS,
    /// Stored bytes, shown MB (10⁶ B).
    Megabytes,
    /// Stored bytes/s, shown Gb/s (10⁹ bit/s, as links are sold).
    GbitPerS,
    /// Stored bytes/s, shown MB/s.
    MegabytesPerS,
    /// Stored as a fraction (0.54), shown as a percentage (54%).
    Percent,
    /// A ratio, shown with ×.
    Times,
    /// Samples per second.
    SamplesPerS,
    /// Workers (a count that may be fractional, e.g. "binds beyond 9.27").
    Workers,
}

impl Unit {
    /// The stored (SI) unit, as CSV and JSON name it.
    pub fn si(self) -> &'static str {
        match self {
            Unit::None => "",
            Unit::Count => "count",
            Unit::Seconds | Unit::Hours => "s",
            Unit::Usd => "USD",
            Unit::UsdPerHour => "USD/h",
            Unit::Flop | Unit::Gflop => "FLOP",
            Unit::GflopPerS => "FLOP/s",
            Unit::Megabytes => "B",
            Unit::GbitPerS | Unit::MegabytesPerS => "B/s",
            Unit::Percent => "fraction",
            Unit::Times => "×",
            Unit::SamplesPerS => "samples/s",
            Unit::Workers => "workers",
        }
    }

    /// The shown unit, for column headers and axis titles.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::None | Unit::Count => "",
            Unit::Seconds => "s",
            Unit::Hours => "h",
            Unit::Usd => "USD",
            Unit::UsdPerHour => "USD/h",
            Unit::Flop => "FLOP",
            Unit::Gflop => "GFLOP",
            Unit::GflopPerS => "GFLOP/s",
            Unit::Megabytes => "MB",
            Unit::GbitPerS => "Gb/s",
            Unit::MegabytesPerS => "MB/s",
            Unit::Percent => "%",
            Unit::Times => "×",
            Unit::SamplesPerS => "samples/s",
            Unit::Workers => "workers",
        }
    }

    /// Stored value → shown value.
    pub fn scale(self, v: f64) -> f64 {
        match self {
            Unit::Hours => v / 3600.0,
            Unit::Gflop | Unit::GflopPerS => v / 1e9,
            Unit::Megabytes | Unit::MegabytesPerS => v / 1e6,
            Unit::GbitPerS => v * 8.0 / 1e9,
            Unit::Percent => v * 100.0,
            _ => v,
        }
    }

    /// The shown number without its unit: four significant digits, whole
    /// numbers for counts, two decimals for dollars.
    pub fn format(self, v: f64) -> String {
        let shown = self.scale(v);
        match self {
            Unit::Count => fmt_count(shown),
            Unit::Usd | Unit::UsdPerHour if shown.is_finite() && shown.abs() >= 1.0 => {
                fmt_grouped(shown, 2)
            }
            // Fractions of a cent stay in plain decimals: "$0.0004842".
            Unit::Usd | Unit::UsdPerHour if shown.abs() >= 1e-6 && shown.abs() < 1e-3 => {
                let mag = shown.abs().log10().floor() as i32;
                let decimals = (3 - mag).max(0) as usize;
                format!("{shown:.decimals$}")
            }
            Unit::Percent if shown.is_finite() && shown.abs() >= 10.0 => format!("{shown:.1}"),
            _ => fmt_sig(shown),
        }
    }

    /// The shown number with its unit: "26.84 s", "$12.40", "54.0%".
    pub fn display(self, v: f64) -> String {
        let n = self.format(v);
        match self {
            Unit::None | Unit::Count => n,
            Unit::Usd => format!("${n}"),
            Unit::UsdPerHour => format!("${n}/h"),
            Unit::Percent => format!("{n}%"),
            Unit::Times => format!("{n}×"),
            _ => format!("{n} {}", self.symbol()),
        }
    }
}

/// Four significant digits; scientific notation outside 0.001..10⁶.
pub fn fmt_sig(v: f64) -> String {
    // −0 (an empty sum of negated terms) reads as 0.
    if v == 0.0 {
        return "0".into();
    }
    if !v.is_finite() {
        return format!("{v}");
    }
    let mag = v.abs().log10().floor() as i32;
    if !(-3..6).contains(&mag) {
        return format!("{v:.3e}");
    }
    let decimals = (3 - mag).max(0) as usize;
    format!("{v:.decimals$}")
}

/// A whole number with thousands separators: 12,345.
pub fn fmt_count(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v.fract() != 0.0 {
        return fmt_sig(v);
    }
    fmt_grouped(v, 0)
}

fn fmt_grouped(v: f64, decimals: usize) -> String {
    let s = format!("{:.decimals$}", v.abs());
    let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    if v < 0.0 {
        out.insert(0, '-');
    }
    out
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn people_read_units() {
        assert_eq!(Unit::Seconds.display(26.843674), "26.84 s");
        assert_eq!(Unit::Hours.display(5400.0), "1.500 h");
        assert_eq!(Unit::Usd.display(1234.5), "$1,234.50");
        assert_eq!(Unit::Usd.display(0.0123), "$0.01230");
        assert_eq!(Unit::Usd.display(4.8416e-4), "$0.0004842");
        assert_eq!(Unit::Usd.display(2.5e-6), "$0.000002500");
        assert_eq!(Unit::UsdPerHour.display(1e-9), "$1.000e-9/h");
        assert_eq!(Unit::Count.display(4096.0), "4,096");
        assert_eq!(Unit::Count.display(7.0), "7");
        assert_eq!(Unit::Percent.display(0.54), "54.0%");
        assert_eq!(Unit::Percent.display(0.05), "5.000%");
        assert_eq!(Unit::GbitPerS.display(1.25e8), "1.000 Gb/s");
        assert_eq!(Unit::Gflop.display(3.0947e10), "30.95 GFLOP");
        assert_eq!(Unit::Megabytes.display(-5.5e8), "-550.0 MB");
        assert_eq!(Unit::Times.display(0.0315), "0.03150×");
        assert_eq!(Unit::None.display(1e-9), "1.000e-9");
    }
}
