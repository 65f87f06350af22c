//! Uploaded files, read off the page's thread. Every kind of file the page
//! reads has an `Importer`: an id, and how the file's bytes (with options
//! the page sends along) become a value. The page posts the file as it is
//! (a `Blob`) to an import worker, which reads it, runs the importer and
//! answers the value as JSON; the page deserialises it and applies it to
//! the scenario. Parsing a 5 MB table never blocks a frame, and the
//! worker, ended after its answer, gives back what the file took.
//!
//! Shared files are listed here; a model lists its own
//! (`Model::file_importers`), so adding one touches nothing shared. Free of web
//! crates: tested natively (`ui::imports` is the wasm glue).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::hardware::{parse_catalog, Instance};
use crate::models::MODELS;
use crate::scenario::import::{fit_loss_curve, import_network, LossImport};
use crate::scenario::{Loaded, Scenario};
use crate::workload::profile::{Profile, SyncMode};
use crate::workload::profile_io::parse_profile_json;
use crate::workload::Network;

/// The name the page gives an import worker (the worker's `main` serves
/// imports instead of the models when it sees it).
pub const WORKER_NAME: &str = "ddnn-planner import";

/// One kind of file: `read` turns the file's name (for messages), its
/// bytes and the page's options `O` into a `T`.
pub struct Importer<T, O = ()> {
    pub id: &'static str,
    pub read: fn(&str, Vec<u8>, O) -> Result<T, String>,
}

/// An importer as the worker runs it: options and answer as JSON.
pub trait AnyImporter: Sync {
    fn id(&self) -> &'static str;
    /// The value read, as JSON; or why not, naming the file.
    fn run(&self, name: &str, bytes: Vec<u8>, options: &str) -> Result<String, String>;
}

impl<T: Serialize, O: DeserializeOwned> AnyImporter for Importer<T, O> {
    fn id(&self) -> &'static str {
        self.id
    }

    fn run(&self, name: &str, bytes: Vec<u8>, options: &str) -> Result<String, String> {
        let options: O = serde_json::from_str(options)
            .map_err(|e| format!("{name}: the import's options did not read: {e}"))?;
        let value = (self.read)(name, bytes, options).map_err(|e| format!("{name}: {e}"))?;
        serde_json::to_string(&value).map_err(|e| format!("{name}: {e}"))
    }
}

/// The file's bytes as text (a byte-order mark dropped), or where they
/// stop being UTF-8.
pub fn text(bytes: Vec<u8>) -> Result<String, String> {
    let mut s = String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (bad byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    if s.starts_with('\u{feff}') {
        s.drain(..'\u{feff}'.len_utf8());
    }
    Ok(s)
}

/// A scenario document (Import scenario JSON).
pub const SCENARIO: Importer<Loaded> = Importer {
    id: "scenario",
    read: |_, bytes, ()| Scenario::read_json(&text(bytes)?).map_err(|e| e.to_string()),
};

/// A layer table (CSV, TSV, JSON) or a Paleo network: the network and a
/// sentence saying what was read.
pub const LAYERS: Importer<(Network, String)> = Importer {
    id: "layers",
    read: |name, bytes, ()| {
        let t = text(bytes)?;
        // `import_network` names the file itself.
        import_network(name, &t).map_err(|e| strip_name(name, e))
    },
};

/// An instance catalog (JSON).
pub const CATALOG: Importer<Vec<Instance>> = Importer {
    id: "catalog",
    read: |_, bytes, ()| parse_catalog(&text(bytes)?),
};

/// Cynthia's job profile (JSON).
pub const PROFILE: Importer<Profile> = Importer {
    id: "profile",
    read: |_, bytes, ()| parse_profile_json(&text(bytes)?),
};

/// A measured loss curve, fitted (Eq. 1) for this synchronisation and
/// cluster size.
pub const LOSS_CURVE: Importer<LossImport, (SyncMode, u32)> = Importer {
    id: "loss_curve",
    read: |_, bytes, (sync, workers)| fit_loss_curve(&text(bytes)?, sync, workers),
};

/// `e` without a leading "name: " (the worker adds it once).
fn strip_name(name: &str, e: String) -> String {
    e.strip_prefix(&format!("{name}: "))
        .map(str::to_string)
        .unwrap_or(e)
}

const SHARED: &[&dyn AnyImporter] = &[&SCENARIO, &LAYERS, &CATALOG, &PROFILE, &LOSS_CURVE];

/// The importer with this id: a shared one or a model's.
pub fn find(id: &str) -> Option<&'static dyn AnyImporter> {
    SHARED
        .iter()
        .copied()
        .chain(
            MODELS
                .iter()
                .flat_map(|m| m.file_importers().iter().copied()),
        )
        .find(|i| i.id() == id)
}

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

/// The worker's answer to `request`, with `bytes` the file that came with
/// it (none when the browser could not read it): `{"Ok": value}` or
/// `{"Err": message}`, as `Result<T, String>` reads.
pub fn answer(request: &str, bytes: Option<Vec<u8>>) -> String {
    let result = serde_json::from_str::<ImportRequest>(request)
        .map_err(|e| format!("the import worker could not read the request: {e}"))
        .and_then(|r| {
            let imp = find(&r.importer)
                .ok_or_else(|| format!("{}: no importer '{}'", r.name, r.importer))?;
            let bytes = bytes.ok_or_else(|| {
                format!(
                    "{}: the file could not be read (moved or changed since it was picked?): pick it again",
                    r.name
                )
            })?;
            imp.run(&r.name, bytes, &r.options)
        });
    match result {
        Ok(json) => format!("{{\"Ok\":{json}}}"),
        Err(e) => serde_json::to_string(&Err::<(), String>(e)).unwrap_or_default(),
    }
}

/// The page's reading of an answer.
pub fn read_answer<T: DeserializeOwned>(answer: &str) -> Result<T, String> {
    serde_json::from_str::<Result<T, String>>(answer)
        .unwrap_or_else(|e| Err(format!("the import worker's answer did not read: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask<T: DeserializeOwned, O: Serialize>(
        imp: &Importer<T, O>,
        name: &str,
        bytes: &[u8],
        options: &O,
    ) -> Result<T, String> {
        let req =
            serde_json::to_string(&ImportRequest::new(imp, name, options)).unwrap_or_default();
        read_answer(&answer(&req, Some(bytes.to_vec())))
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
        let e = read_answer::<Vec<Instance>>(&gone).expect_err("no bytes");
        assert!(e.starts_with("c.json: the file could not be read"), "{e}");
        let e = read_answer::<Vec<Instance>>(&answer("{", None)).expect_err("no request");
        assert!(
            e.starts_with("the import worker could not read the request"),
            "{e}"
        );
    }

    #[test]
    fn every_importer_has_its_own_id() {
        let mut ids: Vec<&str> = SHARED
            .iter()
            .chain(MODELS.iter().flat_map(|m| m.file_importers().iter()))
            .map(|i| i.id())
            .collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "{ids:?}");
        assert!(find("stash.runs").is_some() && find("li.trace").is_some());
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        assert_eq!(
            text("\u{feff}a,b".as_bytes().to_vec()),
            Ok("a,b".to_string())
        );
    }
}
