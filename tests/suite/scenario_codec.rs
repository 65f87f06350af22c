//! The scenario document and its share fragment: examples, bad input.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::decode_fragment;
use ddnn_planner::models::zeng::evaluate_zeng;
use ddnn_planner::scenario::codec::encode_fragment;
use ddnn_planner::scenario::{Scenario, ScenarioError};

#[test]
fn example_round_trips_through_fragment_and_json() {
    let s = Scenario::example();
    let frag = encode_fragment(&s);
    assert!(frag.starts_with("s2."));
    assert!(frag
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.'));
    assert_eq!(decode_fragment(&frag), Ok(s.clone()));
    assert_eq!(
        decode_fragment(&format!("http://127.0.0.1:8080/?embed=1#{frag}")),
        Ok(s.clone())
    );
    assert_eq!(ddnn_planner::models::from_json(&s.to_json()), Ok(s));
}

#[test]
fn example_evaluates_to_table6_setup() {
    // VGG-16, 2 × RTX 4000 + GTX 1060, 1 GbE, bs 32, plain VGG-16 D transfer
    // values of the preset: Table 6 says 26.85 s (typo-corrected).
    let e = evaluate_zeng(&Scenario::example()).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        (e.queue.iteration_s - 26.85).abs() / 26.85 < 0.02,
        "{}",
        e.queue.iteration_s
    );
    assert_eq!(e.queue.workers.len(), 3);
    assert!(e.regime.communication_bound);
}

#[test]
fn shipped_example_files_load() {
    for (name, text) in [
        (
            "vgg16-hetero-1gbe.json",
            include_str!("../../public/examples/vgg16-hetero-1gbe.json"),
        ),
        (
            "alexnet-cpu-2workers.json",
            include_str!("../../public/examples/alexnet-cpu-2workers.json"),
        ),
        (
            "cifar10-bsp-m4.json",
            include_str!("../../public/examples/cifar10-bsp-m4.json"),
        ),
        (
            "resnet50-10gbe.json",
            include_str!("../../public/examples/resnet50-10gbe.json"),
        ),
    ] {
        let s = ddnn_planner::models::from_json(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        evaluate_zeng(&s).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
}

fn fragment_error(frag: &str) -> String {
    match decode_fragment(frag) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{frag} decoded"),
    }
}

#[test]
fn corrupt_fragments_say_why() {
    assert!(fragment_error("").contains("does not carry a scenario"));
    assert!(fragment_error("#hello").contains("does not carry a scenario"));
    assert!(fragment_error("s1.!!!!").contains("characters a link never carries"));
    assert!(fragment_error("s1.AAAA").contains("cannot be unpacked"));
    assert!(fragment_error("s2.AAAA").contains("the link is damaged"));
    assert!(fragment_error("s3.AAAA").contains("newer ddnn-planner"));
    assert!(fragment_error("x9.AAAA").contains("unknown format tag"));
    // A valid fragment cut short, or one character changed near its start:
    // one short sentence, no decoder internals.
    let frag = encode_fragment(&Scenario::example());
    let cut = fragment_error(&frag[..frag.len() / 2]);
    let mut changed = frag.clone().into_bytes();
    changed[10] = if changed[10] == b'A' { b'B' } else { b'A' };
    let changed = fragment_error(&String::from_utf8(changed).unwrap_or_default());
    for m in [cut, changed] {
        assert!(
            m.len() < 160 && !m.contains("0, 0") && !m.contains("Error"),
            "{m}"
        );
        assert!(m.starts_with("the link is damaged"), "{m}");
    }
}

#[test]
fn future_and_invalid_documents_are_refused_by_name() {
    let mut v: serde_json::Value =
        serde_json::from_str(&Scenario::example().to_json()).unwrap_or_default();
    v["version"] = 7.into();
    assert!(matches!(
        ddnn_planner::models::from_json(&v.to_string()),
        Err(ScenarioError::FutureVersion { found: 7 })
    ));

    let mut s = Scenario::example();
    s.hardware.cluster.ps.link_bytes_per_s = Some(0.0);
    let msg = ddnn_planner::models::from_json(&s.to_json())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(msg.contains("hardware.cluster.ps.link"), "{msg}");

    // NaN cannot be written as JSON; a negative clock can.
    let mut s = Scenario::example();
    if let Some(ddnn_planner::hardware::Processor::Gpu { hz, .. }) =
        &mut s.hardware.catalog[2].processor
    {
        *hz = -1.0;
    }
    let msg = ddnn_planner::models::from_json(&s.to_json())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        msg.contains(
            "hardware.catalog[2].processor.hz: Quadro RTX 4000: clock must be a positive number, between 0.001 and 100 GHz (got −1e-9 GHz)"
        ),
        "{msg}"
    );

    let mut s = Scenario::example();
    s.hardware.cluster.workers[0].instance = "TPU v9".into();
    let msg = ddnn_planner::models::from_json(&s.to_json())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        msg.contains("'TPU v9' is not in the instance catalog"),
        "{msg}"
    );

    assert!(ddnn_planner::models::from_json("{").is_err());
    assert!(ddnn_planner::models::from_json("[]")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
        .contains("version"));
}

#[test]
fn instance_without_a_rate_is_named_as_missing() {
    let mut s = Scenario::example();
    s.hardware.catalog[2].processor = None;
    let errs = evaluate_zeng(&s).err().unwrap_or_default();
    assert!(
        errs.iter()
            .any(|e| e.message.contains("needs the rate of 'Quadro RTX 4000'")),
        "{errs:?}"
    );
}

#[test]
fn a_rate_and_a_clock_for_one_instance_is_refused() {
    let mut s = Scenario::example();
    s.hardware.catalog[2].flops_per_s = Some(7e12);
    let msg = ddnn_planner::models::from_json(&s.to_json())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(msg.contains("not both"), "{msg}");
}

#[test]
fn an_instance_known_by_its_rate_runs_zeng_exactly() {
    // The Quadro by rate (GPU) gives the same iteration as by its clock.
    let by_clock = evaluate_zeng(&Scenario::example()).unwrap_or_else(|e| panic!("{e:?}"));
    let mut s = Scenario::example();
    let q = &mut s.hardware.catalog[2];
    q.flops_per_s = q.processor.take().map(|p| p.flops());
    q.gpus = Some(1);
    let by_rate = evaluate_zeng(&s).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(by_rate.queue.iteration_s, by_clock.queue.iteration_s);
}

#[test]
fn the_ps_is_one_definition_for_every_model() {
    use ddnn_planner::hardware::gbit_per_s_to_bytes;
    // Two PS nodes of 1 Gb/s: Zeng's link is their sum, 2 Gb/s.
    let mut s = Scenario::example();
    s.hardware.cluster.ps.count = 2;
    let two = evaluate_zeng(&s).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(two.bandwidth_bytes_per_s, gbit_per_s_to_bytes(2.0));
    // Without a typed link the PS instance's network bandwidth is used.
    s.hardware.cluster.ps.link_bytes_per_s = None;
    s.hardware.cluster.ps.instance = Some(s.hardware.catalog[0].name.clone());
    let by_instance = evaluate_zeng(&s).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(by_instance.bandwidth_bytes_per_s, two.bandwidth_bytes_per_s);
    // With neither, Zeng says what it needs.
    s.hardware.cluster.ps.instance = None;
    let r = ddnn_planner::models::evaluate(&ddnn_planner::models::zeng::Zeng, &s);
    assert!(matches!(r, Err(u) if u.is_missing()));
}

/// Every link made by this build is intact or refused: each one-character
/// change, drop or addition of the landing example's link says it is
/// damaged (the checksum), never opens as another plan. Natively every
/// position; compiled to wasm32 every 7th (the same code, fewer cases).
#[test]
fn every_one_character_change_of_a_link_is_refused() {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
    let frag = encode_fragment(&Scenario::example());
    let bytes = frag.as_bytes();
    let step = if cfg!(target_arch = "wasm32") { 7 } else { 1 };
    let refused = |v: Vec<u8>, what: &str| {
        let text = String::from_utf8(v).unwrap_or_default();
        if text == frag {
            return 0;
        }
        match decode_fragment(&text) {
            Ok(_) => panic!("{what} opened as a scenario"),
            Err(e) => {
                let m = e.to_string();
                assert!(
                    ["damaged", "does not carry", "format tag", "newer"]
                        .iter()
                        .any(|w| m.contains(w)),
                    "{what}: {m}"
                );
                1
            }
        }
    };
    let mut cases = 0;
    for i in (0..bytes.len()).step_by(step) {
        let mut dropped = bytes.to_vec();
        dropped.remove(i);
        cases += refused(dropped, &format!("dropping {i}"));
        for &c in ALPHABET {
            let mut changed = bytes.to_vec();
            changed[i] = c;
            cases += refused(changed, &format!("{} at {i}", c as char));
            let mut added = bytes.to_vec();
            added.insert(i, c);
            cases += refused(added, &format!("adding {} at {i}", c as char));
        }
    }
    for &c in ALPHABET {
        let mut added = bytes.to_vec();
        added.push(c);
        cases += refused(added, &format!("adding {} at the end", c as char));
    }
    assert!(cases > 1000 * ALPHABET.len() / step, "{cases}");
}

#[test]
fn links_made_before_the_checksum_open_unchanged() {
    // An `s1` link (no checksum) of the example opens as the example.
    let s = Scenario::example();
    let json = serde_json::to_vec(&s).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    use base64::Engine;
    let old = format!(
        "s1.{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(packed)
    );
    assert_eq!(decode_fragment(&old), Ok(s));
}

#[test]
fn a_page_link_with_its_view_decodes() {
    let s = Scenario::example();
    let frag = encode_fragment(&s);
    for link in [
        format!("https://example.org/planner/#{frag}&view=cynthia"),
        format!("#{frag}&view=zeng"),
        format!("  {frag}\n"),
    ] {
        assert_eq!(decode_fragment(&link), Ok(s.clone()), "{link}");
    }
}

/// An `s1` link (no checksum) whose scenario is not readable JSON says the
/// link is damaged, not where a parser stopped in text the user never saw.
#[test]
fn an_unchecked_link_with_broken_json_is_damaged() {
    use base64::Engine;
    let mut json = serde_json::to_vec(&Scenario::example()).unwrap_or_default();
    json.truncate(json.len() / 2);
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    let frag = format!(
        "s1.{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&packed)
    );
    let m = fragment_error(&frag);
    assert!(m.contains("the link is damaged"), "{m}");
    assert!(!m.contains("column"), "{m}");
}
