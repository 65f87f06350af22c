//! libFuzzer's entry: one binary for every target of `checks`, chosen by
//! `FUZZ_TARGET` (one build and link for all of them); `tests/fuzz/run.sh`
//! builds it and runs each target (docs/reliability.md).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

#[path = "checks.rs"]
mod checks;

use checks::Target;

fn target() -> Target {
    static CHOSEN: OnceLock<Target> = OnceLock::new();
    *CHOSEN.get_or_init(|| {
        let name = std::env::var("FUZZ_TARGET").unwrap_or_default();
        match checks::TARGETS.iter().find(|(n, _)| *n == name) {
            Some((_, t)) => *t,
            None => {
                let names: Vec<&str> = checks::TARGETS.iter().map(|(n, _)| *n).collect();
                eprintln!("set FUZZ_TARGET to one of: {}", names.join(" "));
                std::process::exit(2);
            }
        }
    })
}

fuzz_target!(|data: &[u8]| target()(data));
