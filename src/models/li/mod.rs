//! Li, Yan, Paolieri, Golubchik, "Throughput Prediction of Asynchronous SGD
//! in TensorFlow", ICPE 2020 (seed 004, Sections 2-5, Algorithm 3.1;
//! `shared/models.md` §5): throughput predicted by trace-driven simulation
//! from one-worker profiling.
//!
//! - `profile.rs`: the one-worker, one-PS profile (ops, resources,
//!   dependencies, K profiled steps).
//! - `sim.rs`: GENERATETRACE rebuilt from the prose: W workers sample
//!   steps, share each PS link direction (processor sharing), HTTP/2 WIN
//!   multiplexing or flow control off with an ordering, the parse overhead
//!   `α·size + β`, several PS with greedy placement.
//! - Throughput: samples/s of the steps that end after every worker's
//!   warm-up (1000 steps, 50 left out, l.242) and by the first worker's
//!   last step, over that window; the links' busy shares over the same.
//!
//! Units: seconds, bytes, bytes/s, samples/s.

pub mod chrome;
mod chrome_error;
mod chrome_read;
mod chrome_steps;
mod due;
pub mod eval;
pub mod factors;
pub mod files;
mod fronted;
pub mod generate;
pub mod lin;
mod model;
pub mod parse_fit;
pub mod presets;
pub mod profile;
pub mod ps_links;
pub mod report;
pub mod section;
pub mod share_link;
pub mod sim;
mod slab;
pub mod trace;
mod window;

pub use model::{inputs_key, Li};
