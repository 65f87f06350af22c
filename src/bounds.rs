//! Ranges of input numbers and their messages, shared by every part of
//! the scenario (catalog, cluster, workload, model sections).

use crate::report::fmt_count;

/// Finite and above zero.
pub fn positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// Where a number must lie, and how people type it: `lo..=hi` in SI
/// units, shown divided by `scale` with `unit` ("GHz": `scale` 1e9).
/// Messages say the range and the value in the shown unit, so a clock of
/// 1e-320 Hz reads "clock must be between 0.001 and 100 GHz (got 1e-329 GHz)".
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub lo: f64,
    pub hi: f64,
    /// SI units per shown unit.
    pub scale: f64,
    /// The shown unit ("" for plain numbers and counts).
    pub unit: &'static str,
    /// Smallest magnitude accepted other than 0, for ranges that start at
    /// 0 (a price of 1e-320 USD/h is no price a provider charges, and
    /// ratios of such costs overflow); 0 for none.
    pub floor: f64,
}

impl Bounds {
    /// A plain number or count, shown as stored.
    pub const fn plain(lo: f64, hi: f64) -> Self {
        Bounds {
            lo,
            hi,
            scale: 1.0,
            unit: "",
            floor: 0.0,
        }
    }

    /// A quantity stored in SI and shown in `unit` (`scale` SI per unit).
    pub const fn shown(lo: f64, hi: f64, scale: f64, unit: &'static str) -> Self {
        Bounds {
            lo,
            hi,
            scale,
            unit,
            floor: 0.0,
        }
    }

    /// The same range, with 0 or at least `floor` accepted.
    pub const fn or_zero_from(self, floor: f64) -> Self {
        Bounds { floor, ..self }
    }

    /// Finite and within `lo..=hi` (and 0 or at least `floor`).
    pub fn contains(&self, v: f64) -> bool {
        v.is_finite() && v >= self.lo && v <= self.hi && (v == 0.0 || v.abs() >= self.floor)
    }

    /// `None` when `v` is in range, else "what must be between … (got …)".
    pub fn check(&self, what: &str, v: f64) -> Option<String> {
        (!self.contains(v)).then(|| self.message(what, v))
    }

    /// "clock must be between 0.001 and 100 GHz (got 1e-329 GHz)".
    pub fn message(&self, what: &str, v: f64) -> String {
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", self.unit)
        };
        let lo = if self.floor > 0.0 && self.lo == 0.0 {
            format!("0 or between {}", fmt_bound(self.floor / self.scale))
        } else if self.lo > 0.0 && (v.is_nan() || v <= 0.0) {
            // Zero, negative or not a number where only a positive makes
            // sense: say that first.
            format!(
                "a positive number, between {}",
                fmt_bound(self.lo / self.scale)
            )
        } else {
            format!("between {}", fmt_bound(self.lo / self.scale))
        };
        // A value typed near f64's limit overflows when converted to SI
        // (1e308 Gb/s is 1.25e316 B/s): what was typed is gone, say so.
        let got = if v.is_infinite() {
            "a number too large to compute with".to_string()
        } else {
            format!("{}{unit}", fmt_typed(v, self.scale))
        };
        format!(
            "{what} must be {lo} and {}{unit} (got {got})",
            fmt_bound(self.hi / self.scale),
        )
    }
}

/// A range's end as people read it: "1,000,000", "0.001", "1e-6".
fn fmt_bound(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        fmt_count(v)
    } else {
        fmt_typed(v, 1.0)
    }
}

/// `v / scale` as the user would have typed it: the shortest form that
/// reads back (after rounding off float noise to 12 digits), scientific
/// outside 1e-6..1e15, "−" for negatives. A subnormal that would vanish in
/// the division keeps its digits: 1e-320 Hz in GHz is "1e-329".
pub fn fmt_typed(v: f64, scale: f64) -> String {
    if v.is_nan() {
        return "not a number".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "infinity" } else { "−infinity" }.into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let sign = if v < 0.0 { "−" } else { "" };
    let a = v.abs();
    // Mantissa and exponent of `a / scale`, worked out apart so that
    // neither an underflow nor an overflow of the quotient loses them.
    let (am, ae) = split10(a);
    let (sm, se) = split10(scale.abs());
    let mut m = am / sm;
    let mut e = ae - se;
    while m >= 10.0 {
        m /= 10.0;
        e += 1;
    }
    while m < 1.0 {
        m *= 10.0;
        e -= 1;
    }
    // Float noise off: 12 significant digits.
    let m: f64 = format!("{m:.11}").parse().unwrap_or(m);
    let (m, e) = if m >= 10.0 { (m / 10.0, e + 1) } else { (m, e) };
    if (-6..15).contains(&e) {
        let shown: f64 = format!("{m}e{e}").parse().unwrap_or(f64::NAN);
        if shown.is_finite() && shown != 0.0 {
            let shown: f64 = format!("{shown:.12e}").parse().unwrap_or(shown);
            return format!("{sign}{shown}");
        }
    }
    format!("{sign}{m}e{e}")
}

/// `a = m · 10^e` with `1 <= m < 10`, for finite `a > 0` (subnormals too).
fn split10(a: f64) -> (f64, i32) {
    let s = format!("{a:e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    (m.parse().unwrap_or(1.0), e.parse().unwrap_or(0))
}
