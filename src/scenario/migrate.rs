//! Upgrades older scenario documents to the current version, on the JSON
//! tree before it is typed, so an old file or link reads into the same
//! numbers (tests/v1_documents.rs holds version-1 results bit for bit).
//!
//! Version 1 → 2:
//! - `settings.zeng` → `models.zeng`; `settings.cynthia.max_workers` →
//!   `models.cynthia.max_workers`; `settings.cynthia.spot` →
//!   `hardware.pricing` (`"spot"` or `"on_demand"`), since every priced
//!   model reads it.
//! - The PS: version 1 had a link `bandwidth_bytes_per_s` that only Zeng
//!   read and PS nodes (`instance`, `count`) that only Cynthia read, so the
//!   two could disagree. Version 2 has one definition: `count` nodes of
//!   `instance`, each with the instance's network bandwidth unless
//!   `link_bytes_per_s` overrides it. Without a PS instance (or one with no
//!   network bandwidth) the old link becomes the override `bandwidth /
//!   count`, and nothing changes. With one, the nodes are the more specific
//!   description (the old link was often the page's untouched 1 GbE
//!   default), so they are kept; where they supplied another bandwidth than
//!   the old link, Zeng's figures change and the upgrade says so.

use serde_json::{json, Map, Value};

use super::{ScenarioError, SCENARIO_VERSION};

/// The document as the current version reads it, with a sentence for each
/// change of meaning the upgrade made (none for a plain upgrade).
pub fn to_current(doc: Value) -> Result<(Value, Vec<String>), ScenarioError> {
    let version = match doc.get("version").map(|v| (v, v.as_u64())) {
        None => {
            return Err(ScenarioError::Json(
                "missing \"version\" (a whole number)".into(),
            ))
        }
        Some((v, None)) => {
            let got = match v {
                Value::String(_) => "text",
                Value::Number(_) => "a number that is not a whole number of 0 or more",
                Value::Null => "null",
                Value::Bool(_) => "true or false",
                _ => "a list or an object",
            };
            return Err(ScenarioError::Json(format!(
                "\"version\" must be a whole number such as {SCENARIO_VERSION}, without quotes (got {got}: {})",
                crate::workload::text::shorten(&v.to_string())
            )));
        }
        Some((_, Some(0))) => {
            return Err(ScenarioError::Json("\"version\" must be at least 1".into()))
        }
        Some((_, Some(v))) if v > u64::from(SCENARIO_VERSION) => {
            return Err(ScenarioError::FutureVersion { found: v })
        }
        Some((_, Some(v))) => v,
    };
    let Value::Object(mut doc) = doc else {
        return Err(ScenarioError::Json("expected a JSON object".into()));
    };
    let mut notes = Vec::new();
    if version == 1 {
        v1_to_v2(&mut doc, &mut notes);
    }
    Ok((Value::Object(doc), notes))
}

fn object<'a>(parent: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    parent.get_mut(key).and_then(Value::as_object_mut)
}

fn v1_to_v2(doc: &mut Map<String, Value>, notes: &mut Vec<String>) {
    doc.insert("version".into(), json!(2));

    let mut models = Map::new();
    let mut spot = None;
    if let Some(Value::Object(mut settings)) = doc.remove("settings") {
        if let Some(z) = settings.remove("zeng") {
            models.insert("zeng".into(), z);
        }
        if let Some(Value::Object(mut c)) = settings.remove("cynthia") {
            spot = c.remove("spot").and_then(|v| v.as_bool());
            models.insert("cynthia".into(), Value::Object(c));
        }
    }
    if !models.is_empty() {
        doc.insert("models".into(), Value::Object(models));
    }

    let Some(hardware) = object(doc, "hardware") else {
        return;
    };
    if let Some(spot) = spot {
        let pricing = if spot { "spot" } else { "on_demand" };
        hardware.insert("pricing".into(), json!(pricing));
    }
    // The PS nodes' own bandwidth, for the comparison below.
    let catalog_bandwidth = |name: &str, hw: &Map<String, Value>| -> Option<f64> {
        hw.get("catalog")?
            .as_array()?
            .iter()
            .find(|i| i.get("name").and_then(Value::as_str) == Some(name))?
            .get("network_bytes_per_s")?
            .as_f64()
    };
    let instance = hardware
        .get("cluster")
        .and_then(|c| c.get("ps"))
        .and_then(|p| p.get("instance"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let node_bw = instance
        .as_deref()
        .and_then(|name| catalog_bandwidth(name, hardware));
    let Some(ps) = object(hardware, "cluster").and_then(|c| object(c, "ps")) else {
        return;
    };
    let count = ps.get("count").and_then(Value::as_u64).unwrap_or(1).max(1);
    let Some(link) = ps.remove("bandwidth_bytes_per_s") else {
        return;
    };
    let Some(link_bps) = link.as_f64() else {
        // Not a number: keep it where validation will name it.
        ps.insert("link_bytes_per_s".into(), link);
        return;
    };
    match (instance, node_bw) {
        (Some(name), Some(b)) => {
            // Counts fit f64 exactly; the product is what Zeng now reads.
            let supply = count as f64 * b;
            if supply != link_bps {
                notes.push(format!(
                    "This version-1 scenario gave Zeng's PS link as {} Gb/s while its {count} PS node(s) of {name} supply {} Gb/s. The PS is now one definition for every model, the nodes: Zeng's figures now use {} Gb/s.",
                    link_bps * 8.0 / 1e9,
                    supply * 8.0 / 1e9,
                    supply * 8.0 / 1e9,
                ));
            }
        }
        _ => {
            ps.insert("link_bytes_per_s".into(), json!(link_bps / count as f64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v1(ps: Value, settings: Value) -> Value {
        json!({
            "version": 1,
            "hardware": {
                "catalog": [{"name": "m4", "network_bytes_per_s": 125e6}],
                "cluster": {"workers": [], "ps": ps}
            },
            "settings": settings
        })
    }

    #[test]
    fn settings_move_to_sections_and_pricing() {
        let (doc, notes) = to_current(v1(
            json!({"bandwidth_bytes_per_s": 125e6}),
            json!({"zeng": {"flops_per_weight": 90.0}, "cynthia": {"max_workers": 8, "spot": true}}),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(doc["version"], 2);
        assert_eq!(doc["models"]["zeng"]["flops_per_weight"], 90.0);
        assert_eq!(doc["models"]["cynthia"], json!({"max_workers": 8}));
        assert_eq!(doc["hardware"]["pricing"], "spot");
        assert_eq!(doc["hardware"]["cluster"]["ps"]["link_bytes_per_s"], 125e6);
        assert!(doc.get("settings").is_none());
        assert!(notes.is_empty());
    }

    #[test]
    fn nodes_that_supply_the_link_need_no_override() {
        let (doc, notes) = to_current(v1(
            json!({"bandwidth_bytes_per_s": 250e6, "instance": "m4", "count": 2}),
            json!({}),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let ps = &doc["hardware"]["cluster"]["ps"];
        assert!(ps.get("link_bytes_per_s").is_none(), "{ps}");
        assert!(ps.get("bandwidth_bytes_per_s").is_none());
        assert!(notes.is_empty());
    }

    #[test]
    fn disagreeing_nodes_win_and_say_so() {
        let (doc, notes) = to_current(v1(
            json!({"bandwidth_bytes_per_s": 1.25e9, "instance": "m4", "count": 2}),
            json!({}),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(doc["hardware"]["cluster"]["ps"]
            .get("link_bytes_per_s")
            .is_none());
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("as 10 Gb/s"), "{}", notes[0]);
        assert!(notes[0].contains("now use 2 Gb/s"), "{}", notes[0]);
    }

    #[test]
    fn several_nodes_without_an_instance_keep_the_link() {
        let (doc, notes) = to_current(v1(
            json!({"bandwidth_bytes_per_s": 1e9, "count": 4}),
            json!({}),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(doc["hardware"]["cluster"]["ps"]["link_bytes_per_s"], 2.5e8);
        assert!(notes.is_empty());
    }

    #[test]
    fn newer_and_versionless_documents_are_refused() {
        assert!(matches!(
            to_current(json!({"version": 3})),
            Err(ScenarioError::FutureVersion { found: 3 })
        ));
        assert!(to_current(json!({"title": "x"})).is_err());
        assert!(to_current(json!({"version": 0})).is_err());
        for (v, says) in [
            (json!("2"), "(got text: \"2\")"),
            (
                json!(1.5),
                "(got a number that is not a whole number of 0 or more: 1.5)",
            ),
            (json!(null), "(got null: null)"),
        ] {
            let e = to_current(json!({ "version": v }))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                e.contains("must be a whole number such as 2") && e.contains(says),
                "{e}"
            );
        }
    }
}
