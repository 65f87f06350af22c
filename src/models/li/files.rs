//! Li et al.'s files as the page reads them, in the import worker
//! (`crate::readers`): an op-graph profile, and a Chrome trace (plain or
//! gzipped) read with the mapping screen's rules. A rule change sends the
//! same file again. `ddnn-planner eval --import li.trace=FILE` reads a
//! trace the same way (`TRACE_IMPORT`).

use super::chrome::{import_file, Mapping, MAX_TRACE_BYTES};
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

/// A profile as the page's upload takes it: read, checked and, when too
/// large for a share link, written and hashed here in the import worker, so
/// the page keeps its JSON aside (named in the section as a link names
/// it) without reading it again.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProfileUpload {
    /// Small enough to travel in a link: kept in the section.
    Inline(Profile),
    /// Named in the section; `json` is what `share_link::shrink` leaves
    /// out for it (the page keeps it under `share_link::storage_key`),
    /// carried as it is: escaped inside a string, 4.7 MB took the page
    /// 100 ms to read back.
    Named {
        named: super::section::ProfileRef,
        steps: usize,
        batch: u32,
        json: Box<serde_json::value::RawValue>,
    },
}

/// `PROFILE` for the page's upload (`ProfileUpload`).
pub const PROFILE_UPLOAD: Importer<ProfileUpload> = Importer {
    id: "li.profile.upload",
    read: |_, bytes, ()| {
        let p = Profile::from_json(&text(bytes)?)?;
        let json = serde_json::to_string(&p).unwrap_or_default();
        if json.len() <= super::share_link::LINK_BYTES {
            return Ok(ProfileUpload::Inline(p));
        }
        let json = serde_json::value::RawValue::from_string(json)
            .map_err(|e| crate::errors::ReadError::Content(e.to_string()))?;
        Ok(ProfileUpload::Named {
            named: super::section::ProfileRef {
                name: p.name.clone(),
                ops: p.ops.len(),
                hash: p.content_hash(),
            },
            steps: p.steps.len(),
            batch: p.batch,
            json,
        })
    },
};

/// A Chrome trace with the mapping's rules; the layer table sizes the
/// transfers when the trace has none. The profile and the summary's lines.
/// The file's text is held once at most: docs/li-traces.md, "Memory".
pub const TRACE: Importer<(Profile, Vec<String>), (Mapping, Option<Network>)> = Importer {
    id: "li.trace",
    read: |name, bytes, (mapping, layers)| {
        let layers = layers.as_ref().filter(|n| !n.layers.is_empty());
        let imported = import_file(name, bytes, &mapping, layers)?;
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
