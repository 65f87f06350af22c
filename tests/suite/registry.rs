//! Every registered model is whole: an input panel, a docs page, a shipped
//! example it reports on, and its entry in `ddnn-planner models`. Reads the
//! repository's files, so native only.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;
use std::process::Command;

use ddnn_planner::models::{evaluate, from_json, MODELS};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(rel: &str) -> Option<String> {
    std::fs::read_to_string(Path::new(ROOT).join(rel)).ok()
}

#[test]
fn every_model_has_an_input_panel() {
    for m in MODELS {
        let id = m.id();
        let panel = read(&format!("src/ui/model_inputs/{id}.rs"))
            .or_else(|| read(&format!("src/ui/model_inputs/{id}/mod.rs")))
            .unwrap_or_else(|| panic!("{id}: no src/ui/model_inputs/{id}.rs"));
        assert!(
            panel.contains("pub fn Panel()"),
            "{id}: its panel file has no `pub fn Panel()` component"
        );
        assert!(
            panel.contains(&format!("data-testid=\"{id}-inputs\"")),
            "{id}: its panel is not marked data-testid=\"{id}-inputs\""
        );
    }
}

#[test]
fn every_model_has_a_docs_page_that_names_it() {
    for m in MODELS {
        let id = m.id();
        let doc = read(&format!("docs/{id}.md")).unwrap_or_else(|| panic!("{id}: no docs/{id}.md"));
        assert!(
            doc.contains(m.name()),
            "docs/{id}.md never names {}",
            m.name()
        );
    }
}

#[test]
fn every_model_reports_on_a_shipped_example() {
    let dir = Path::new(ROOT).join("public/examples");
    let examples: Vec<(String, _)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .filter_map(|f| {
            let name = f.file_name().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(f.path()).ok()?;
            // Only scenario documents (the folder also holds tables,
            // profiles and catalogs).
            Some((name, from_json(&text).ok()?))
        })
        .collect();
    assert!(
        examples.len() >= MODELS.len(),
        "{} scenarios",
        examples.len()
    );
    for m in MODELS {
        let ok = examples.iter().find(|(_, s)| evaluate(*m, s).is_ok());
        assert!(
            ok.is_some(),
            "{}: no scenario in public/examples gives it a report",
            m.id()
        );
    }
}

#[test]
fn every_model_is_listed_by_the_cli() {
    let out = Command::new(env!("CARGO_BIN_EXE_ddnn-planner"))
        .arg("models")
        .output()
        .unwrap_or_else(|e| panic!("ddnn-planner models: {e}"));
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut at = 0;
    for m in MODELS {
        let head = format!("{} — {}", m.id(), m.name());
        let found = text[at..]
            .find(&head)
            .unwrap_or_else(|| panic!("`ddnn-planner models` lacks '{head}' (in order)"));
        at += found + head.len();
        for n in m.needs() {
            assert!(
                text.contains(&format!("    {}", n.field)),
                "{}: need {} not listed",
                m.id(),
                n.field
            );
        }
    }
}
