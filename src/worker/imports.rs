//! The import worker's protocol: the page posts a picked file as it is (a
//! `Blob`) with an `ImportRequest`; the worker runs the importer the
//! registry names (`models::importer`) and answers the value as JSON; the
//! page reads the answer and applies it to the scenario. The worker, ended
//! after its answer, gives back what the file took. Free of web crates:
//! tested natively (`ui::uploads` is the wasm glue).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::models::importer;
use crate::readers::Importer;

/// The name the page gives an import worker (the worker's `main` serves
/// imports instead of the models when it sees it).
pub const WORKER_NAME: &str = "ddnn-planner import";

/// What the page asks the import worker (the file comes beside it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportRequest {
    pub importer: String,
    pub name: String,
    /// The options, as JSON.
    pub options: String,
}

impl ImportRequest {
    pub fn new<T, O: Serialize>(imp: &Importer<T, O>, name: &str, options: &O) -> Self {
        ImportRequest {
            importer: imp.id.to_string(),
            name: name.to_string(),
            options: serde_json::to_string(options).unwrap_or_default(),
        }
    }
}

/// Why an upload was not read; the scenario keeps what it had.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum ImportError {
    /// Over the page's upload limit, refused before reading.
    #[error("{file}: {mb:.1} MB is larger than the {limit_mb:.0} MB this page reads")]
    TooLarge {
        file: String,
        mb: f64,
        limit_mb: f64,
    },
    /// The importer refused the file, in its own words (`ReadError`).
    #[error("{0}")]
    Refused(String),
    #[error(
        "{file}: the file could not be read (moved or changed since it was picked?): pick it again"
    )]
    Unreadable { file: String },
    /// The worker ran out of memory or was stopped by the browser.
    #[error("{file}: the import stopped (too large for this browser's memory?)")]
    Stopped { file: String },
    #[error("this browser cannot start the import worker")]
    NoWorker,
    /// The page and the worker disagree (a bug, not the file).
    #[error("{file}: no importer '{importer}'")]
    NoImporter { file: String, importer: String },
    #[error("the import worker could not read the request: {detail}")]
    Request { detail: String },
    #[error("the import worker's answer did not read: {detail}")]
    Answer { detail: String },
}

/// The worker's answer to `request`, with `bytes` the file that came with
/// it (none when the browser could not read it): `{"Ok": value}` or
/// `{"Err": ImportError}`, as `Result<T, ImportError>` reads.
pub fn answer(request: &str, bytes: Option<Vec<u8>>) -> String {
    let result = serde_json::from_str::<ImportRequest>(request)
        .map_err(|e| ImportError::Request {
            detail: e.to_string(),
        })
        .and_then(|r| {
            let imp = importer(&r.importer).ok_or_else(|| ImportError::NoImporter {
                file: r.name.clone(),
                importer: r.importer.clone(),
            })?;
            let bytes = bytes.ok_or_else(|| ImportError::Unreadable {
                file: r.name.clone(),
            })?;
            imp.run(&r.name, bytes, &r.options)
                .map_err(|e| ImportError::Refused(e.to_string()))
        });
    match result {
        Ok(json) => format!("{{\"Ok\":{json}}}"),
        Err(e) => failed(&e),
    }
}

/// An answer that carries `e`.
pub fn failed(e: &ImportError) -> String {
    serde_json::to_string(&Err::<(), &ImportError>(e)).unwrap_or_default()
}

/// The page's reading of an answer.
pub fn read_answer<T: DeserializeOwned>(answer: &str) -> Result<T, ImportError> {
    serde_json::from_str::<Result<T, ImportError>>(answer).unwrap_or_else(|e| {
        Err(ImportError::Answer {
            detail: e.to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::Instance;
    use crate::models::{MODELS, SCENARIO};
    use crate::readers::{AnyImporter, CATALOG, LAYERS, SHARED};
    use crate::scenario::files::import_network;

    fn ask<T: DeserializeOwned, O: Serialize>(
        imp: &Importer<T, O>,
        name: &str,
        bytes: &[u8],
        options: &O,
    ) -> Result<T, String> {
        let req =
            serde_json::to_string(&ImportRequest::new(imp, name, options)).unwrap_or_default();
        read_answer(&answer(&req, Some(bytes.to_vec()))).map_err(|e| e.to_string())
    }

    #[test]
    fn a_layer_table_reads_through_the_worker_as_directly() {
        let csv =
            "name,kind,inch,kh,kw,outn,outh,outw\nc1,conv,3,3,3,8,32,32\nfc,fc,8192,1,1,10,1,1\n";
        let (net, msg) = ask(&LAYERS, "small.csv", csv.as_bytes(), &()).expect("reads");
        let direct = import_network("small.csv", csv).expect("reads");
        assert_eq!((net, msg), direct);
    }

    #[test]
    fn problems_name_the_file_once() {
        let e = ask(&LAYERS, "bad.csv", b"name,kind\nx,conv\n", &()).expect_err("bad");
        assert!(
            e.starts_with("bad.csv: ") && !e.starts_with("bad.csv: bad.csv"),
            "{e}"
        );
        let e = ask(&CATALOG, "c.json", &[b'[', 0xff], &()).expect_err("not text");
        assert_eq!(e, "c.json: not UTF-8 text (bad byte at offset 1)");
        let gone = answer(
            &serde_json::to_string(&ImportRequest::new(&CATALOG, "c.json", &()))
                .unwrap_or_default(),
            None,
        );
        let e = read_answer::<Vec<Instance>>(&gone)
            .expect_err("no bytes")
            .to_string();
        assert!(e.starts_with("c.json: the file could not be read"), "{e}");
        let e = read_answer::<Vec<Instance>>(&answer("{", None))
            .expect_err("no request")
            .to_string();
        assert!(
            e.starts_with("the import worker could not read the request"),
            "{e}"
        );
    }

    #[test]
    fn every_importer_has_its_own_id() {
        let mut ids: Vec<&str> = SHARED
            .iter()
            .chain([&SCENARIO as &dyn AnyImporter].iter())
            .chain(MODELS.iter().flat_map(|m| m.file_importers().iter()))
            .map(|i| i.id())
            .collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "{ids:?}");
        assert!(importer("stash.runs").is_some() && importer("li.trace").is_some());
        assert!(importer("scenario").is_some() && importer("layers").is_some());
    }
}
