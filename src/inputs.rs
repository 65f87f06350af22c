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

    /// The field's name in its section, as the page's `data-testid`
    /// spells it (`epoch-samples`).
    pub fn testid(&self) -> String {
        self.path.rsplit('.').next().unwrap_or("").replace('_', "-")
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
}
