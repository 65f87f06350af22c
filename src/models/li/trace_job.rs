//! The Chrome-trace import as a job for its own Web Worker: the page posts
//! the uploaded file as it is (a `Blob`, read in the worker), and the
//! worker inflates and reads it off the page's thread. A rule change sends
//! the same file again. Free of web crates, so it is tested natively; the
//! wasm glue only moves strings and bytes.

use serde::{Deserialize, Serialize};

use super::chrome::{import, read_owned, Mapping};
use super::profile::Profile;
use crate::workload::Network;

/// The name the page gives the import worker (the worker's `main` serves
/// this job instead of the models when it sees it).
pub const WORKER_NAME: &str = "ddnn-planner trace import";

/// What the page asks: the file that comes with this message, named
/// `name`, read with these rules. `id` grows with every request, so the
/// page keeps only the newest answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceRequest {
    pub id: u64,
    pub name: String,
    pub mapping: Mapping,
    /// The layer table the transfers are sized from when the trace has
    /// none.
    pub layers: Option<Network>,
}

/// The profile read and the summary's lines, or why not (naming the file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceAnswer {
    pub id: u64,
    pub result: Result<(Profile, Vec<String>), String>,
}

/// The answer to `request`, with `bytes` the file that came with it (none
/// when the browser could not read it). The worker keeps nothing: the
/// page keeps the file and asks again with new rules, and ends the worker
/// after each answer, so the memory a large trace took is given back.
pub fn answer(request: &str, bytes: Option<Vec<u8>>) -> String {
    let answer = match serde_json::from_str::<TraceRequest>(request) {
        Ok(TraceRequest {
            id,
            name,
            mapping,
            layers,
        }) => {
            let result = bytes
                .ok_or_else(|| {
                    "the file could not be read (moved or changed since it was picked?): upload it again"
                        .to_string()
                })
                .and_then(read_owned)
                .and_then(|text| {
                    let layers = layers.as_ref().filter(|n| !n.layers.is_empty());
                    let imported = import(&name, &text, &mapping, layers)?;
                    Ok((imported.profile, imported.summary.lines()))
                })
                .map_err(|e| format!("{name}: {e}"));
            TraceAnswer { id, result }
        }
        Err(e) => TraceAnswer {
            id: 0,
            result: Err(format!("the import worker could not read the request: {e}")),
        },
    };
    serde_json::to_string(&answer).unwrap_or_default()
}
