//! The scenario as JSON for every edit the page sends its worker, without
//! writing an unchanged model section again: a section can hold a
//! 100k-op profile (4 MB of JSON, ~30 ms in the page), and most edits are
//! elsewhere.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::Scenario;

/// Each section's JSON, kept while its `Arc` is the scenario's.
#[derive(Default)]
pub struct SectionJson {
    written: BTreeMap<String, (Arc<Value>, Arc<str>)>,
}

impl SectionJson {
    /// `serde_json::to_string(s)` but for the order of keys (`models`
    /// last), which no reader depends on; unchanged sections are not
    /// written again.
    pub fn to_json(&mut self, s: &Scenario) -> String {
        let rest = Scenario {
            models: BTreeMap::new(),
            ..s.clone()
        };
        let mut out = serde_json::to_string(&rest).unwrap_or_default();
        self.written.retain(|id, _| s.models.contains_key(id));
        if s.models.is_empty() || !out.ends_with('}') {
            return out;
        }
        out.pop();
        out.push_str(",\"models\":{");
        for (k, (id, v)) in s.models.iter().enumerate() {
            let json = match self.written.get(id) {
                Some((kept, json)) if Arc::ptr_eq(kept, v) => json.clone(),
                _ => {
                    let json: Arc<str> = serde_json::to_string(v.as_ref())
                        .unwrap_or_else(|_| "null".into())
                        .into();
                    self.written.insert(id.clone(), (v.clone(), json.clone()));
                    json
                }
            };
            if k > 0 {
                out.push(',');
            }
            out.push_str(&serde_json::to_string(id).unwrap_or_default());
            out.push(':');
            out.push_str(&json);
        }
        out.push_str("}}");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_as_the_scenario_and_reuses_unchanged_sections() {
        let mut s = Scenario::example();
        s.set_section(
            "li",
            &serde_json::json!({"steps": 3, "profile": {"ops": [1, 2, 3]}}),
        );
        s.set_section("zeng", &serde_json::json!({"sweep_max_workers": 8}));
        let mut cache = SectionJson::default();
        let first = cache.to_json(&s);
        let back: Scenario = serde_json::from_str(&first).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, s);
        let li = s.models.get("li").cloned();
        s.set_section("zeng", &serde_json::json!({"sweep_max_workers": 9}));
        let second = cache.to_json(&s);
        let back: Scenario = serde_json::from_str(&second).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, s);
        // The li section's JSON is the one written before, by pointer.
        let kept = cache.written.get("li").map(|(v, _)| v.clone());
        assert!(matches!((kept, li), (Some(a), Some(b)) if Arc::ptr_eq(&a, &b)));
        s.models.remove("li");
        let third = cache.to_json(&s);
        assert!(!third.contains("\"li\""));
        assert!(!cache.written.contains_key("li"));
        let empty = Scenario::example();
        let plain = SectionJson::default().to_json(&empty);
        assert_eq!(plain, serde_json::to_string(&empty).unwrap_or_default());
    }
}
