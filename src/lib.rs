//! ddnn-planner: predict distributed DNN training time and cost, and plan
//! cloud clusters.
//!
//! The model core (everything but `ui`) is pure Rust with no web crates, so
//! it is compiled and tested natively and, unchanged, in the browser.

pub mod bounds;
pub mod calibration;
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
pub mod errors;
pub mod hardware;
pub mod inputs;
#[cfg(all(target_arch = "wasm32", feature = "js"))]
pub mod js;
pub mod models;
pub mod order;
pub mod readers;
pub mod report;
pub mod runs;
pub mod scenario;
pub mod stats;
mod tagged;
pub mod uncertainty;
pub mod worker;
pub mod workload;

#[cfg(all(target_arch = "wasm32", not(feature = "js")))]
pub mod ui;
