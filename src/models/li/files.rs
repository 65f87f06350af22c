//! Li et al.'s files as the page reads them, in the import worker
//! (`crate::readers`): an op-graph profile, and a Chrome trace (plain or
//! gzipped) read with the mapping screen's rules. A rule change sends the
//! same file again.

use super::chrome::{import, read_owned, Mapping};
use super::profile::Profile;
use crate::readers::{text, Importer};
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
