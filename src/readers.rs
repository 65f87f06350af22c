//! Files the page and the CLI read: every kind has an `Importer`, an id
//! and how the file's bytes (with options the page sends along) become a
//! value. The page runs them in an import worker (`worker::imports`), so
//! parsing a 5 MB table never blocks a frame.
//!
//! The shared inputs' files are listed here; a model lists its own
//! (`Model::file_importers`), and the registry finds either by id
//! (`models::importer`), so adding one touches nothing shared.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::errors::ReadError;

use crate::hardware::{parse_catalog, Instance};
use crate::scenario::files::{fit_loss_curve, import_network, LossImport};
use crate::workload::profile::{Profile, SyncMode};
use crate::workload::profile_io::parse_profile_json;
use crate::workload::Network;

/// One kind of file: `read` turns the file's name (for messages), its
/// bytes and the page's options `O` into a `T`.
pub struct Importer<T, O = ()> {
    pub id: &'static str,
    pub read: fn(&str, Vec<u8>, O) -> Result<T, ReadError>,
}

/// An importer as the worker runs it: options and answer as JSON.
pub trait AnyImporter: Sync {
    fn id(&self) -> &'static str;
    /// The value read, as JSON; or why not, naming the file.
    fn run(&self, name: &str, bytes: Vec<u8>, options: &str) -> Result<String, ReadError>;
}

impl<T: Serialize, O: DeserializeOwned> AnyImporter for Importer<T, O> {
    fn id(&self) -> &'static str {
        self.id
    }

    fn run(&self, name: &str, bytes: Vec<u8>, options: &str) -> Result<String, ReadError> {
        let options: O = serde_json::from_str(options)
            .map_err(|e| ReadError::Options(e.to_string()).in_file(name))?;
        let value = (self.read)(name, bytes, options).map_err(|e| e.in_file(name))?;
        serde_json::to_string(&value).map_err(|e| ReadError::Content(e.to_string()).in_file(name))
    }
}

/// The file's bytes as text (a byte-order mark dropped), or where they
/// stop being UTF-8.
pub fn text(bytes: Vec<u8>) -> Result<String, ReadError> {
    let mut s = String::from_utf8(bytes).map_err(|e| ReadError::NotText {
        offset: e.utf8_error().valid_up_to(),
    })?;
    if s.starts_with('\u{feff}') {
        s.drain(..'\u{feff}'.len_utf8());
    }
    Ok(s)
}

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
    read: |_, bytes, ()| Ok(parse_catalog(&text(bytes)?)?),
};

/// Cynthia's job profile (JSON).
pub const PROFILE: Importer<Profile> = Importer {
    id: "profile",
    read: |_, bytes, ()| Ok(parse_profile_json(&text(bytes)?)?),
};

/// A measured loss curve, fitted (Eq. 1) for this synchronisation and
/// cluster size.
pub const LOSS_CURVE: Importer<LossImport, (SyncMode, u32)> = Importer {
    id: "loss_curve",
    read: |_, bytes, (sync, workers)| fit_loss_curve(&text(bytes)?, sync, workers),
};

/// `e` without a leading "name: " (the worker adds it once).
fn strip_name(name: &str, e: ReadError) -> ReadError {
    match e {
        ReadError::In { file, error } if file == name => *error,
        ReadError::Content(m) => match m.strip_prefix(&format!("{name}: ")) {
            Some(rest) => ReadError::Content(rest.to_string()),
            None => ReadError::Content(m),
        },
        e => e,
    }
}

/// The shared inputs' files (the scenario document itself is the
/// registry's: `models::SCENARIO`).
pub const SHARED: &[&dyn AnyImporter] = &[
    &LAYERS,
    &CATALOG,
    &PROFILE,
    &LOSS_CURVE,
    &crate::runs::files::RUNS,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_is_dropped() {
        assert_eq!(
            text("\u{feff}a,b".as_bytes().to_vec()),
            Ok("a,b".to_string())
        );
    }
}
