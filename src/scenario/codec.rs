//! The share fragment: `s2.` + base64url(deflate(scenario JSON)) + `.` +
//! base64url(CRC-32 of the deflated bytes).
//!
//! `s2` tags this encoding (not the document version, which lives inside
//! the JSON). The checksum makes a link intact or refused: a changed,
//! dropped or added character never opens as another plan. `s1` links
//! (the same without the checksum) still open. Decoding is bounded: a
//! hostile fragment cannot make the page inflate more than
//! `MAX_SCENARIO_BYTES`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use super::{Loaded, Scenario, ScenarioError, MAX_SCENARIO_BYTES};

/// The codec tag this build writes.
pub const FRAGMENT_TAG: &str = "s2";
/// The tag of links made before the checksum; still read.
const UNCHECKED_TAG: &str = "s1";
/// Longest fragment accepted (characters).
pub const MAX_FRAGMENT_CHARS: usize = 2 * 1024 * 1024;

/// The sentence for every link whose characters are not the ones it was
/// made with.
const DAMAGED: &str =
    "the link is damaged: a character was changed, added or dropped, or its end cut off";

/// Encodes a scenario as a URL fragment (without the leading `#`).
pub fn encode_fragment(scenario: &Scenario) -> String {
    fragment_of_json(&serde_json::to_vec(scenario).unwrap_or_default())
}

/// The fragment of a scenario already written as compact JSON.
fn fragment_of_json(json: &[u8]) -> String {
    let packed = miniz_oxide::deflate::compress_to_vec(json, 9);
    let sum = crc32fast::hash(&packed).to_be_bytes();
    format!(
        "{FRAGMENT_TAG}.{}.{}",
        URL_SAFE_NO_PAD.encode(&packed),
        URL_SAFE_NO_PAD.encode(sum)
    )
}

/// `encode_fragment`, refusing a scenario that `parse_fragment` would not
/// accept back (a link that cannot be opened is never handed out).
pub fn encode_link(scenario: &Scenario) -> Result<String, ScenarioError> {
    // Written once: measured, then packed.
    let json = serde_json::to_vec(scenario).unwrap_or_default();
    if json.len() > MAX_SCENARIO_BYTES {
        return Err(ScenarioError::TooLarge { bytes: json.len() });
    }
    let frag = fragment_of_json(&json);
    if frag.len() > MAX_FRAGMENT_CHARS {
        return Err(ScenarioError::Fragment(format!(
            "the link would be {} characters long; links are limited to {MAX_FRAGMENT_CHARS}",
            frag.len()
        )));
    }
    Ok(frag)
}

/// The fragment in `input`: a bare fragment, one starting with `#`, or a
/// whole page link, with the page's own parameters after it (`&view=…`)
/// left out.
pub fn fragment_of(input: &str) -> &str {
    let input = input.trim();
    let frag = match input.find('#') {
        Some(i) => &input[i + 1..],
        None => input,
    };
    // A payload is base64url and dots: `&` only ever starts a parameter.
    frag.split('&').next().unwrap_or(frag)
}

/// The scenario a link carries, as `Scenario::parse_json` reads it (its
/// fields unchecked: `models::read_fragment` checks them). Accepts a bare
/// fragment, one starting with `#`, or a whole page link.
pub fn parse_fragment(input: &str) -> Result<Loaded, ScenarioError> {
    let frag = fragment_of(input);
    if frag.len() > MAX_FRAGMENT_CHARS {
        return Err(ScenarioError::Fragment(format!(
            "the link's scenario is {} characters long; the limit is {MAX_FRAGMENT_CHARS}",
            frag.len()
        )));
    }
    let Some((tag, body)) = frag.split_once('.') else {
        return Err(ScenarioError::Fragment(format!(
            "the link does not carry a scenario (expected '#{FRAGMENT_TAG}.…')"
        )));
    };
    let packed = match tag {
        FRAGMENT_TAG => checked_payload(body)?,
        UNCHECKED_TAG => unchecked_payload(body)?,
        _ => return Err(unknown_tag(tag)),
    };
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_SCENARIO_BYTES)
        .map_err(|e| {
            ScenarioError::Fragment(
                if e.status == miniz_oxide::inflate::TINFLStatus::HasMoreOutput {
                    format!(
                        "the link's scenario unpacks to more than the {} MiB a scenario may have",
                        MAX_SCENARIO_BYTES / (1024 * 1024)
                    )
                } else {
                    "the link's scenario is damaged: it cannot be unpacked (a character changed, or the end cut off)".into()
                },
            )
        })?;
    let text = String::from_utf8(json).map_err(|_| {
        ScenarioError::Fragment("the link's scenario is damaged (not UTF-8 text)".into())
    })?;
    // A link is not a file the user can open at a line and column: an
    // unreadable scenario inside one is a damaged link.
    Scenario::parse_json(&text).map_err(|e| match e {
        ScenarioError::Json(_) => ScenarioError::Fragment(DAMAGED.into()),
        e => e,
    })
}

/// An `s2` body's deflated bytes, once its checksum matches them.
fn checked_payload(body: &str) -> Result<Vec<u8>, ScenarioError> {
    let damaged = || ScenarioError::Fragment(DAMAGED.into());
    let (payload, sum) = body.split_once('.').ok_or_else(damaged)?;
    let packed = URL_SAFE_NO_PAD
        .decode(payload.as_bytes())
        .map_err(|_| damaged())?;
    let sum: [u8; 4] = URL_SAFE_NO_PAD
        .decode(sum.as_bytes())
        .ok()
        .and_then(|s| s.try_into().ok())
        .ok_or_else(damaged)?;
    if crc32fast::hash(&packed) != u32::from_be_bytes(sum) {
        return Err(damaged());
    }
    Ok(packed)
}

/// An `s1` body's deflated bytes (no checksum to compare).
fn unchecked_payload(body: &str) -> Result<Vec<u8>, ScenarioError> {
    // One sentence, in words: the decoder's own errors (positions) mean
    // nothing to someone holding a link.
    URL_SAFE_NO_PAD.decode(body.as_bytes()).map_err(|_| {
        ScenarioError::Fragment(
            "the link's scenario is damaged: it has characters a link never carries, or it was cut short".into(),
        )
    })
}

fn unknown_tag(tag: &str) -> ScenarioError {
    let newer = tag
        .strip_prefix('s')
        .and_then(|v| v.parse::<u32>().ok())
        .is_some_and(|v| v > 2);
    ScenarioError::Fragment(if newer {
        format!("the link was made by a newer ddnn-planner (format '{tag}'); this page reads '{FRAGMENT_TAG}' and '{UNCHECKED_TAG}'")
    } else {
        format!("the link's scenario has an unknown format tag '{tag}' (expected '{FRAGMENT_TAG}')")
    })
}
