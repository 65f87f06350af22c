//! Li, Bruneau, Kuo, Golubchik, Gupta, Kumar, et al.: throughput of
//! asynchronous SGD predicted by trace-driven simulation from one-worker
//! profiling (seed 004, Sections 2-5, Algorithm 3.1; `shared/models.md` §5).
//!
//! - `profile.rs`: the one-worker, one-PS profile (ops, resources,
//!   dependencies, K profiled steps).
//! - `sim.rs`: GENERATETRACE rebuilt from the prose: W workers sample
//!   steps, share each PS link direction (processor sharing), HTTP/2 WIN
//!   multiplexing or flow control off with an ordering, the parse overhead
//!   `α·size + β`, several PS with greedy placement.
//! - Throughput: samples/s over each worker's steps after its warm-up
//!   (1000 steps, 50 left out, l.242), summed over the workers.
//!
//! Units: seconds, bytes, bytes/s, samples/s.

pub mod profile;
pub mod sim;
