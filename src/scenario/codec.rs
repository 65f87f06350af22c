//! The share fragment: `s1.` + base64url(deflate(scenario JSON)).
//!
//! `s1` tags this encoding (not the document version, which lives inside
//! the JSON). Decoding is bounded: a hostile fragment cannot make the page
//! inflate more than `MAX_SCENARIO_BYTES`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use super::{Loaded, Scenario, ScenarioError, MAX_SCENARIO_BYTES};

/// The codec tag this build writes.
pub const FRAGMENT_TAG: &str = "s1";
/// Longest fragment accepted (characters).
pub const MAX_FRAGMENT_CHARS: usize = 2 * 1024 * 1024;

/// Encodes a scenario as a URL fragment (without the leading `#`).
pub fn encode_fragment(scenario: &Scenario) -> String {
    let json = serde_json::to_vec(scenario).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    format!("{FRAGMENT_TAG}.{}", URL_SAFE_NO_PAD.encode(packed))
}

/// `encode_fragment`, refusing a scenario that `parse_fragment` would not
/// accept back (a link that cannot be opened is never handed out).
pub fn encode_link(scenario: &Scenario) -> Result<String, ScenarioError> {
    let json_len = serde_json::to_vec(scenario).map_or(0, |v| v.len());
    if json_len > MAX_SCENARIO_BYTES {
        return Err(ScenarioError::TooLarge { bytes: json_len });
    }
    let frag = encode_fragment(scenario);
    if frag.len() > MAX_FRAGMENT_CHARS {
        return Err(ScenarioError::Fragment(format!(
            "the link would be {} characters long; links are limited to {MAX_FRAGMENT_CHARS}",
            frag.len()
        )));
    }
    Ok(frag)
}

/// The scenario a link carries, as `Scenario::parse_json` reads it (its
/// fields unchecked: `models::read_fragment` checks them). Accepts a bare
/// fragment, one starting with `#`, or a whole URL.
pub fn parse_fragment(input: &str) -> Result<Loaded, ScenarioError> {
    let input = input.trim();
    let frag = match input.find('#') {
        Some(i) => &input[i + 1..],
        None => input,
    };
    if frag.len() > MAX_FRAGMENT_CHARS {
        return Err(ScenarioError::Fragment(format!(
            "the link's scenario is {} characters long; the limit is {MAX_FRAGMENT_CHARS}",
            frag.len()
        )));
    }
    let Some((tag, body)) = frag.split_once('.') else {
        return Err(ScenarioError::Fragment(
            "the link does not carry a scenario (expected '#s1.…')".into(),
        ));
    };
    if tag != FRAGMENT_TAG {
        let newer = tag
            .strip_prefix('s')
            .and_then(|v| v.parse::<u32>().ok())
            .is_some_and(|v| v > 1);
        return Err(ScenarioError::Fragment(if newer {
            format!("the link was made by a newer ddnn-planner (format '{tag}'); this page reads '{FRAGMENT_TAG}'")
        } else {
            format!(
                "the link's scenario has an unknown format tag '{tag}' (expected '{FRAGMENT_TAG}')"
            )
        }));
    }
    // One sentence each, in words: the decoders' own errors (positions,
    // their output buffers) mean nothing to someone holding a link.
    let packed = URL_SAFE_NO_PAD.decode(body.as_bytes()).map_err(|_| {
        ScenarioError::Fragment(
            "the link's scenario is damaged: it has characters a link never carries, or it was cut short".into(),
        )
    })?;
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
    Scenario::parse_json(&text)
}
