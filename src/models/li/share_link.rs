//! Links and large profiles: a profile whose JSON is over `LINK_BYTES`
//! leaves the share link, which names it (name, op count, content hash)
//! so the receiver knows which file to attach; the page keeps a copy in
//! this browser and puts it back when such a link is opened here.

use std::borrow::Cow;

use super::profile::Profile;
use super::section::{self, ProfileRef, ID};
use crate::models::LeftOut;
use crate::scenario::Scenario;

/// Largest profile JSON a link carries [B]: a link stays short enough to
/// paste into a chat or a document.
pub const LINK_BYTES: usize = 32 * 1024;

/// Where the page keeps a profile left out of a link.
pub fn storage_key(hash: &str) -> String {
    format!("ddnn-planner.li.profile.{hash}")
}

/// `s` as its link carries it (cloned only when it changes); the profile
/// it left out.
pub fn shrink(s: &mut Cow<'_, Scenario>) -> Vec<LeftOut> {
    if !s.models.contains_key(ID) {
        return Vec::new();
    }
    let mut c = section::settings(s);
    let Some(p) = c.profile.take() else {
        return Vec::new();
    };
    let json = serde_json::to_string(&p).unwrap_or_default();
    if json.len() <= LINK_BYTES {
        if c.profile_ref.is_some() {
            c.profile = Some(p);
            c.profile_ref = None;
            s.to_mut().set_section(ID, &c);
        }
        return Vec::new();
    }
    let hash = p.content_hash();
    c.profile_ref = Some(ProfileRef {
        name: p.name.clone(),
        ops: p.ops.len(),
        hash: hash.clone(),
    });
    s.to_mut().set_section(ID, &c);
    let what = format!(
        "Li et al.'s profile '{}' ({} ops, {} kB of JSON)",
        p.name,
        p.ops.len(),
        json.len() / 1000
    );
    vec![LeftOut {
        key: storage_key(&hash),
        json,
        what,
    }]
}

/// Puts back the profile a link named, if `saved` has it with that hash.
pub fn restore(s: &mut Scenario, saved: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let mut c = section::settings(s);
    if c.profile.is_some() {
        return None;
    }
    let r = c.profile_ref.clone()?;
    let p = Profile::from_json(&saved(&storage_key(&r.hash))?).ok()?;
    if p.content_hash() != r.hash {
        return None;
    }
    c.profile = Some(p);
    c.profile_ref = None;
    s.set_section(ID, &c);
    Some(format!(
        "Li et al.: the profile '{}' ({} ops) was too large for the link; this browser's copy was put back",
        r.name, r.ops
    ))
}

/// What to tell the user when a link named a profile it does not carry.
pub fn attach_message(r: &ProfileRef) -> String {
    format!(
        "this link refers to the profile '{}' ({} ops, content hash {}), too large to travel in a link: upload that profile JSON here",
        r.name, r.ops, r.hash
    )
}

/// What an upload is, next to the profile a link named.
pub fn upload_note(r: Option<&ProfileRef>, p: &Profile) -> Option<String> {
    upload_note_by_hash(r, &p.content_hash())
}

/// `upload_note` of a profile whose content hash is `hash`.
pub fn upload_note_by_hash(r: Option<&ProfileRef>, hash: &str) -> Option<String> {
    let r = r?;
    Some(if hash == r.hash {
        format!("the profile the link refers to (content hash {})", r.hash)
    } else {
        format!(
            "not the profile the link refers to ('{}', content hash {}; this one is {hash}): the results will differ from the sender's",
            r.name, r.hash
        )
    })
}
