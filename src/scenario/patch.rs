//! A report's [`Action`](crate::report::Action) applied to a scenario: an
//! RFC 7386 JSON merge patch of the document (objects merge key by key,
//! `null` removes a key, anything else replaces), then read back and
//! validated like any document.

use serde_json::Value;

use super::Scenario;

/// `patch` merged into `target` (RFC 7386).
pub fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(serde_json::Map::new());
    }
    if let Value::Object(t) = target {
        for (k, v) in p {
            if v.is_null() {
                t.remove(k);
            } else {
                merge(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

/// Why a patch gives no scenario (serde_json's words in each).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PatchError {
    /// The scenario itself did not write as JSON.
    #[error("{0}")]
    Unwritable(String),
    #[error("the change does not fit the scenario: {0}")]
    DoesNotFit(String),
}

/// The scenario with `patch` applied, or why the result is not a scenario.
pub fn apply(s: &Scenario, patch: &Value) -> Result<Scenario, PatchError> {
    let mut doc = serde_json::to_value(s).map_err(|e| PatchError::Unwritable(e.to_string()))?;
    merge(&mut doc, patch);
    serde_json::from_value(doc).map_err(|e| PatchError::DoesNotFit(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_follows_rfc_7386() {
        let mut t = json!({"a": "b", "c": {"d": "e", "f": "g"}, "l": [1, 2]});
        merge(
            &mut t,
            &json!({"a": "z", "c": {"f": null}, "l": [3], "n": {"m": 1}}),
        );
        assert_eq!(
            t,
            json!({"a": "z", "c": {"d": "e"}, "l": [3], "n": {"m": 1}})
        );
    }

    #[test]
    fn a_patch_that_breaks_the_document_says_so() {
        let e = apply(&Scenario::example(), &json!({"goals": 3}))
            .map_err(|e| e.to_string())
            .unwrap_err();
        assert!(
            e.starts_with("the change does not fit the scenario: "),
            "{e}"
        );
    }
}
