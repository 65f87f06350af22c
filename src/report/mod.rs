//! Everything the page shows for a scenario, computed once: the same
//! structure feeds the UI, `ddnn-planner eval` and the CSV export.

pub mod csv_out;
pub mod zeng_eval;

pub use zeng_eval::{evaluate_zeng, ZengEvaluation};
