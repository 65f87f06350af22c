//! Everything the page shows for a scenario, computed once: the same
//! structure feeds the UI, `ddnn-planner eval` and the CSV export.

pub mod csv_out;
pub mod cynthia_eval;
pub mod cynthia_rows;
pub mod zeng_eval;

pub use cynthia_eval::{evaluate_cynthia, CynthiaEvaluation};
pub use zeng_eval::{evaluate_zeng, ZengEvaluation};
