//! A model's numeric inputs, each described once: its scenario path, the
//! label and unit people read, its range, a hint, and how it is read from
//! and written to the model's section. The page's field, the section's
//! check and the input's line in `ddnn-planner models` all come from it.

use serde::Serialize;

use crate::bounds::Bounds;
use crate::errors::{err, FieldError};

/// One numeric input of section `S`.
pub struct NumberInput<S: 'static> {
    /// Dotted scenario path, `models.<id>.<field>`.
    pub path: &'static str,
    /// The field's label, with its unit.
    pub label: &'static str,
    /// What it is, as messages name it ("samples per epoch").
    pub what: &'static str,
    /// Its range, and the unit it is typed in (`Bounds::scale` SI per unit).
    pub bounds: Bounds,
    /// A short hint under the field ("" for none).
    pub help: &'static str,
    /// The page field's `data-testid`.
    pub testid: &'static str,
    /// Whole numbers only.
    pub integer: bool,
    /// May be left empty (the model then does without it).
    pub may_be_empty: bool,
    /// The value as stored (SI); `None` when an optional input is empty.
    pub get: fn(&S) -> Option<f64>,
    /// Stores a value (SI); `None` empties an optional input.
    pub set: fn(&mut S, Option<f64>),
}

impl<S> NumberInput<S> {
    /// The section's id: the path's second part (`zeng` of
    /// `models.zeng.epoch_samples`).
    pub fn section(&self) -> &'static str {
        self.path.split('.').nth(1).unwrap_or("")
    }

    /// A stored (SI) value in the unit it is typed in. A scale below 1
    /// (µs) works with its reciprocal, a whole power of ten, so a typed
    /// 5 µs is stored as 5e-6 exactly (5 / 1e6), not 5 × 1e-6.
    pub fn shown(&self, si: f64) -> f64 {
        match self.per_si() {
            Some(per) => si * per,
            None => si / self.bounds.scale,
        }
    }

    /// A typed value (in the shown unit) as stored, `shown`'s inverse.
    pub fn stored(&self, typed: f64) -> f64 {
        match self.per_si() {
            Some(per) => typed / per,
            None => typed * self.bounds.scale,
        }
    }

    /// Shown units per SI unit, for a scale below 1: a whole number (1e9
    /// for ns), rounded, as `1 / 1e-9` is not 1e9 in floating point.
    fn per_si(&self) -> Option<f64> {
        let scale = self.bounds.scale;
        (scale < 1.0).then(|| scale.recip().round())
    }

    /// The message for the value `section` holds, if out of range.
    pub fn check(&self, section: &S) -> Option<FieldError> {
        let v = (self.get)(section)?;
        let m = self.bounds.check(self.what, v)?;
        Some(err(self.path, m))
    }

    /// As the models listing names it: optional, as a section's absent
    /// input takes its default.
    pub const fn need(&self) -> Need {
        Need {
            field: self.path,
            what: self.label,
            optional: true,
            shown: Some((self.bounds.scale, self.bounds.unit)),
        }
    }
}

/// Every message of `inputs` for `section`, in order.
pub fn check_all<S>(inputs: &[&NumberInput<S>], section: &S) -> Vec<FieldError> {
    inputs.iter().filter_map(|i| i.check(section)).collect()
}

/// One input a model reads.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Need {
    /// Dotted scenario path.
    pub field: &'static str,
    pub what: &'static str,
    /// Whether the model runs without it.
    pub optional: bool,
    /// A number's shown unit and its SI per shown unit (`Bounds`), for
    /// pages that take it typed; `None` for other inputs.
    #[serde(skip)]
    pub shown: Option<(f64, &'static str)>,
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    struct S {
        v: Option<f64>,
    }

    const MICROS: NumberInput<S> = NumberInput {
        path: "models.x.latency_s",
        label: "τ [µs]",
        what: "τ",
        bounds: Bounds::shown(0.0, 1.0, 1e-6, "µs"),
        help: "",
        testid: "x-tau",
        integer: false,
        may_be_empty: true,
        get: |s| s.v,
        set: |s, v| s.v = v,
    };

    #[test]
    fn a_scale_below_one_divides_by_a_whole_power_of_ten() {
        let ns = NumberInput {
            bounds: Bounds::shown(0.0, 1e-6, 1e-9, "ns/B"),
            ..MICROS
        };
        for typed in [1.0, 3.0, 7.5, 123.0] {
            assert_eq!(ns.stored(typed), typed / 1e9, "{typed} ns");
            assert_eq!(ns.shown(typed / 1e9), typed / 1e9 * 1e9, "{typed} ns");
        }
    }

    #[test]
    fn typed_digits_come_back_as_typed() {
        for typed in [0.0, 1.0, 5.0, 12.5, 999.0, 3e5] {
            let si = MICROS.stored(typed);
            assert_eq!(si, typed / 1e6, "{typed} µs stored");
            // Shown to six significant digits: the last bit never shows.
            let back = MICROS.shown(si);
            assert!(
                (back - typed).abs() <= 1e-12 * typed,
                "{typed} µs shown {back}"
            );
        }
    }

    #[test]
    fn a_value_out_of_range_is_named_at_its_path_in_its_unit() {
        assert_eq!(MICROS.section(), "x");
        assert_eq!(MICROS.check(&S { v: None }), None);
        assert_eq!(MICROS.check(&S { v: Some(5e-6) }), None);
        let e = MICROS
            .check(&S { v: Some(2.0) })
            .expect("2 s is out of range");
        assert_eq!(e.field, "models.x.latency_s");
        assert_eq!(
            e.message,
            "τ must be between 0 and 1,000,000 µs (got 2000000 µs)"
        );
    }
}
