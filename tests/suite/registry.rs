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

/// Every model states the size of its work before it runs, within its
/// budget on every shipped example, and a scenario over a budget is
/// refused at the input to reduce, before anything is computed.
#[test]
fn every_model_states_its_work_within_budget_on_the_examples() {
    let dir = Path::new(ROOT).join("public/examples");
    for f in std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
    {
        let Ok(text) = std::fs::read_to_string(f.path()) else {
            continue;
        };
        let Ok(s) = from_json(&text) else { continue };
        for m in MODELS {
            if !ddnn_planner::models::validate_for(*m, &s).is_empty() {
                continue;
            }
            let work = m.work(&s);
            assert!(!work.is_empty(), "{}: no measure of its work", m.id());
            for w in work {
                assert!(w.units.is_finite() && w.units >= 0.0, "{}: {w:?}", m.id());
                assert!(w.fits(), "{} on {:?}: {w:?}", m.id(), f.file_name());
            }
        }
    }
    // Li et al. over its budget (the shipped example at the largest steps,
    // seeds and workers): refused at its steps, with the limit, unrun.
    let text = read("public/examples/li-vgg16-10gbe.json").unwrap_or_default();
    let mut s = from_json(&text).unwrap_or_else(|e| panic!("{e}"));
    if let Some(li) = s.models.get_mut("li").map(std::sync::Arc::make_mut) {
        li["steps"] = 100_000.into();
        li["seeds"] = 20.into();
        li["max_workers"] = 64.into();
    }
    let m = ddnn_planner::models::by_id("li").unwrap_or_else(|| panic!("li"));
    assert!(m.work(&s).iter().any(|w| !w.fits()), "{:?}", m.work(&s));
    match evaluate(m, &s) {
        Err(u) => assert!(
            u.errors().iter().any(|e| e.field == "models.li.steps"
                && e.message.contains("more than the")
                && e.message.contains("reduce")),
            "{u:?}"
        ),
        Ok(_) => panic!("over its budget, Li et al. ran"),
    }
}
