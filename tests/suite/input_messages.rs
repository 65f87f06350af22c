//! Every model's numeric input, out of range: the message is at the
//! input's path, names it, and repeats the number as the user typed it,
//! in the unit the field shows (issue 33, item 4). The shared fields
//! (catalog, cluster, goals) are checked the same way in
//! `validation_ranges.rs`.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde::de::DeserializeOwned;

use ddnn_planner::inputs::NumberInput;
use ddnn_planner::models::{cynthia, from_json, li, spotdnn, stash, zeng};
use ddnn_planner::scenario::ScenarioError;

/// The number in "(got 12.5 µs)", read back: "−" as "-", no thousands
/// separators (a typed value is never written with them).
fn got(message: &str, unit: &str) -> Option<f64> {
    let start = message.rfind("(got ")? + "(got ".len();
    let rest = message[start..].strip_suffix(')')?;
    let number = if unit.is_empty() {
        rest
    } else {
        rest.strip_suffix(unit)?.strip_suffix(' ')?
    };
    number.replace('−', "-").parse().ok()
}

/// Types `typed` (in the shown unit) into `input` of `base` and checks
/// the message it gets.
fn refused_as_typed<S: Clone>(input: &NumberInput<S>, base: &S, typed: f64) -> Result<(), String> {
    let mut section = base.clone();
    (input.set)(&mut section, Some(input.stored(typed)));
    let e = input
        .check(&section)
        .ok_or_else(|| format!("{}: {typed} {} accepted", input.path, input.bounds.unit))?;
    let ok = e.field == input.path
        && e.message.starts_with(input.what)
        && got(&e.message, input.bounds.unit)
            .is_some_and(|g| (g - typed).abs() <= 1e-9 * typed.abs().max(1.0));
    ok.then_some(()).ok_or_else(|| {
        format!(
            "{}: typed {typed} {}, message at {}: {}",
            input.path, input.bounds.unit, e.field, e.message
        )
    })
}

/// Above the top of its range, and below the bottom, each as typed. A
/// whole-number field from 0 has no "below": its text is refused before
/// any check ("not a whole number ≥ 0").
fn audit<S: Clone>(inputs: &[&NumberInput<S>], base: &S) -> Vec<String> {
    let mut problems = Vec::new();
    for input in inputs {
        let b = input.bounds;
        let hi = input.shown(b.hi);
        let above = if input.integer {
            hi.floor() + 1.0
        } else {
            hi * 10.0
        };
        let lo = input.shown(b.lo);
        let below = match (input.integer, lo) {
            (true, lo) if lo <= 0.0 => None,
            (true, lo) => Some(lo.ceil() - 1.0),
            (false, lo) if lo > 0.0 => Some(lo / 10.0),
            (false, lo) if lo < 0.0 => Some(lo * 10.0),
            (false, _) => Some(-1.0),
        };
        for typed in std::iter::once(above).chain(below) {
            if let Err(p) = refused_as_typed(*input, base, typed) {
                problems.push(p);
            }
        }
    }
    problems
}

/// Model `id`'s section of a shipped example.
fn section_of<S: DeserializeOwned + Default>(example: &str, id: &str) -> S {
    from_json(example)
        .and_then(|s| s.section(id).map_err(|e| ScenarioError::Invalid(vec![e])))
        .unwrap_or_else(|e| panic!("{id}: {e}"))
}

#[test]
fn every_section_input_repeats_the_typed_number_in_its_unit() {
    let vgg = include_str!("../../public/examples/vgg16-hetero-1gbe.json");
    let zeng: zeng::section::ZengSettings = section_of(vgg, zeng::section::ID);
    let mut problems = audit(&zeng::section::INPUTS, &zeng);
    let cifar = include_str!("../../public/examples/cifar10-bsp-m4.json");
    let cynthia: cynthia::section::CynthiaSettings = section_of(cifar, cynthia::section::ID);
    problems.extend(audit(&[&cynthia::section::MAX_WORKERS], &cynthia));
    // With a revocation, so that its fields are there.
    let table1 = include_str!("../../public/examples/spotdnn-table1.json");
    let mut spot: spotdnn::section::SpotDnnSettings = section_of(table1, spotdnn::section::ID);
    spot.revocation.get_or_insert(spotdnn::section::Revocation {
        instance: "p3.2xlarge".into(),
        at_s: 100.0,
        loss_now: 1.0,
    });
    let stash: stash::section::StashSettings = section_of(
        include_str!("../../public/examples/stash-p3.json"),
        stash::section::ID,
    );
    let li: li::section::LiSettings = section_of(
        include_str!("../../public/examples/li-vgg16-10gbe.json"),
        li::section::ID,
    );
    for list in [
        &spotdnn::section::WORKLOAD_INPUTS[..],
        &spotdnn::section::PLAN_INPUTS,
        &spotdnn::section::LAW_INPUTS,
        &spotdnn::section::REVOCATION_INPUTS,
    ] {
        problems.extend(audit(list, &spot));
    }
    for list in [
        &stash::section::COMM_INPUTS[..],
        &stash::section::PREDICTION_INPUTS,
    ] {
        problems.extend(audit(list, &stash));
    }
    for list in [
        &li::section::GENERATE_INPUTS[..],
        &li::section::TRANSFER_INPUTS,
        &li::section::SIMULATION_INPUTS,
        &li::section::TRACE_INPUTS,
        &[&li::section::GEN_MEMORY_RATE, &li::section::WINDOW_INPUT],
    ] {
        problems.extend(audit(list, &li));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_reading_of_a_message_is_itself_checked() {
    assert_eq!(
        got("τ must be between 0 and 5 µs (got 12.5 µs)", "µs"),
        Some(12.5)
    );
    assert_eq!(
        got("count must be between 1 and 9 (got −1)", ""),
        Some(-1.0)
    );
    assert_eq!(
        got("τ must be between 0 and 5 µs (got 12.5 ms)", "µs"),
        None
    );
}
