//! The Chrome-trace import as a job for its own Web Worker: the page posts
//! the uploaded file as it is (a `Blob`, read in the worker), and the
//! worker inflates and reads it off the page's thread, keeps the text, and
//! reads it again when a mapping rule changes. Free of web crates, so it
//! is tested natively; the wasm glue only moves strings and bytes.

use serde::{Deserialize, Serialize};

use super::chrome::{import, read_bytes, Mapping};
use super::profile::Profile;
use crate::workload::Network;

/// The name the page gives the import worker (the worker's `main` serves
/// this job instead of the models when it sees it).
pub const WORKER_NAME: &str = "ddnn-planner trace import";

/// What the page asks; `id` grows with every request, so the page keeps
/// only the newest answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceRequest {
    /// The file that comes with this message, named `name`.
    Read {
        id: u64,
        name: String,
        mapping: Mapping,
        /// The layer table the transfers are sized from when the trace
        /// has none.
        layers: Option<Network>,
    },
    /// The kept trace again, with other rules.
    Reread {
        id: u64,
        mapping: Mapping,
        layers: Option<Network>,
    },
}

/// The profile read and the summary's lines, or why not (naming the file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceAnswer {
    pub id: u64,
    pub result: Result<(Profile, Vec<String>), String>,
}

/// The worker's state: the last trace read, as (name, text).
#[derive(Default)]
pub struct TraceServer {
    kept: Option<(String, String)>,
}

impl TraceServer {
    /// Answers `request` (with `bytes`, the file of a `Read`).
    pub fn handle(&mut self, request: &str, bytes: Option<&[u8]>) -> String {
        let answer = match serde_json::from_str::<TraceRequest>(request) {
            Ok(TraceRequest::Read {
                id,
                name,
                mapping,
                layers,
            }) => {
                let text = bytes
                    .ok_or_else(|| "no file came with the request".to_string())
                    .and_then(read_bytes)
                    .map_err(|e| format!("{name}: {e}"));
                let result = text.and_then(|text| {
                    // A file that is not a trace leaves the last one kept.
                    let read = Self::read(&name, &text, &mapping, layers.as_ref());
                    if read.is_ok() {
                        self.kept = Some((name, text));
                    }
                    read
                });
                TraceAnswer { id, result }
            }
            Ok(TraceRequest::Reread {
                id,
                mapping,
                layers,
            }) => TraceAnswer {
                id,
                result: match &self.kept {
                    Some((name, text)) => Self::read(name, text, &mapping, layers.as_ref()),
                    None => Err("no trace is loaded here: upload it again".into()),
                },
            },
            Err(e) => TraceAnswer {
                id: 0,
                result: Err(format!("the import worker could not read the request: {e}")),
            },
        };
        serde_json::to_string(&answer).unwrap_or_default()
    }

    fn read(
        name: &str,
        text: &str,
        mapping: &Mapping,
        layers: Option<&Network>,
    ) -> Result<(Profile, Vec<String>), String> {
        let layers = layers.filter(|n| !n.layers.is_empty());
        let imported = import(name, text, mapping, layers).map_err(|e| format!("{name}: {e}"))?;
        Ok((imported.profile, imported.summary.lines()))
    }
}
