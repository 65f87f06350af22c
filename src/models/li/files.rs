//! Li et al.'s files as the page reads them, in the import worker
//! (`crate::readers`): an op-graph profile, and a Chrome trace (plain or
//! gzipped) read with the mapping screen's rules. A rule change sends the
//! same file again. `ddnn-planner eval --import li.trace=FILE` reads a
//! trace the same way (`TRACE_IMPORT`).

use super::chrome::{import, read_owned, Mapping, MAX_TRACE_BYTES};
use super::profile::Profile;
use super::section;
use crate::models::ByteImport;
use crate::readers::{text, Importer};
use crate::scenario::Scenario;
use crate::workload::Network;

/// The product's own profile JSON.
pub const PROFILE: Importer<Profile> = Importer {
    id: "li.profile",
    read: |_, bytes, ()| Profile::from_json(&text(bytes)?),
};

/// A Chrome trace with the mapping's rules; the layer table sizes the
/// transfers when the trace has none. The profile and the summary's lines.
pub const TRACE: Importer<(Profile, Vec<String>), (Mapping, Option<Network>)> = Importer {
    id: "li.trace",
    read: |name, bytes, (mapping, layers)| {
        let text = read_owned(bytes)?;
        let layers = layers.as_ref().filter(|n| !n.layers.is_empty());
        let imported = import(name, &text, &mapping, layers)?;
        Ok((imported.profile, imported.summary.lines()))
    },
};

/// What a trace is read with: the section's rules (the defaults before
/// the first trace) and the workload's layer table, if it has layers.
pub fn trace_options(s: &Scenario) -> (Mapping, Option<Network>) {
    let net = &s.workload.network;
    (
        section::settings(s).trace_mapping.unwrap_or_default(),
        (!net.layers.is_empty()).then(|| net.clone()),
    )
}

/// `--import li.trace=FILE`: `TRACE` with `trace_options`, its profile in
/// place of any other, as the page's upload does; the summary's sentences,
/// one a line.
pub const TRACE_IMPORT: ByteImport = ByteImport {
    key: "trace",
    what: "a one-worker Chrome trace (.json, .json.gz; PyTorch profiler, TensorFlow), read with models.li.trace_mapping and the layer table",
    max_bytes: MAX_TRACE_BYTES,
    apply: |s, name, bytes| {
        let (profile, lines) = (TRACE.read)(name, bytes, trace_options(s))?;
        let mut c = section::settings(s);
        c.use_trace(profile);
        s.set_section(section::ID, &c);
        Ok(lines.join("\n  "))
    },
};
