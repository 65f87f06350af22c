//! The scenario's `runs`: absent from every document without them (old
//! files and links keep their bytes), carried whole by files and links,
//! and each problem a clear message at `runs[i].<field>`.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::hardware::{ParameterServer, WorkerGroup};
use ddnn_planner::models::{decode_fragment, from_json, validate};
use ddnn_planner::runs::{Run, MAX_RUNS};
use ddnn_planner::scenario::codec::encode_link;
use ddnn_planner::scenario::Scenario;

fn run(label: &str, instance: &str) -> Run {
    Run {
        label: label.into(),
        workers: vec![WorkerGroup {
            instance: instance.into(),
            count: 2,
            batch_size: 32,
        }],
        ps: None,
        iteration_s: Some(1.5),
        throughput: None,
        source: "by hand".into(),
        published: None,
        lacks: None,
    }
}

/// The messages about runs, as (field, message).
fn run_errors(s: &Scenario) -> Vec<(String, String)> {
    validate(s)
        .into_iter()
        .filter(|e| e.field.starts_with("runs"))
        .map(|e| (e.field, e.message))
        .collect()
}

#[test]
fn documents_without_runs_keep_their_bytes() {
    // Files written by earlier builds read and write back byte for byte.
    for text in [
        include_str!("../../public/examples/li-vgg16-10gbe.json"),
        include_str!("../../public/examples/spotdnn-table1.json"),
        include_str!("../../public/examples/stash-p3.json"),
    ] {
        let s = from_json(text).unwrap_or_else(|e| panic!("{e}"));
        assert!(s.runs.is_empty());
        assert_eq!(s.to_json(), text.trim_end());
    }
    let json = Scenario::example().to_json();
    assert!(!json.contains("\"runs\""), "{json}");
}

#[test]
fn runs_travel_in_files_and_links() {
    let mut s = Scenario::example();
    let mut r = run("two RTX", "Quadro RTX 4000");
    r.ps = Some(ParameterServer {
        count: 1,
        instance: None,
        link_bytes_per_s: Some(1.25e9),
        latency_s: 0.0,
    });
    s.runs = vec![r, {
        let mut t = run("one RTX", "Quadro RTX 4000");
        t.iteration_s = None;
        t.throughput = Some(40.0);
        t.source = String::new();
        t
    }];
    let back = from_json(&s.to_json()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, s);
    let link = encode_link(&s).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(decode_fragment(&link).unwrap_or_else(|e| panic!("{e}")), s);
    // Optional parts stay out of the document when not given.
    let json = s.to_json();
    assert_eq!(
        json.matches("\"ps\"").count(),
        2,
        "the cluster's and one run's"
    );
    assert_eq!(
        json.matches("\"source\"").count(),
        1 + s.hardware.catalog.len()
    );
}

#[test]
fn a_run_naming_an_instance_the_catalog_lacks_is_refused_at_its_field() {
    let mut s = Scenario::example();
    s.runs = vec![run("ok", "Quadro RTX 4000"), run("typo", "Quadro RTX 400")];
    let errs = run_errors(&s);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].0, "runs[1].workers[0].instance");
    assert_eq!(
        errs[0].1,
        "run 'typo': 'Quadro RTX 400' is not in the instance catalog"
    );
    // The whole document is refused as read, naming the field.
    let e = from_json(&s.to_json())
        .err()
        .unwrap_or_else(|| panic!("refused"));
    assert!(e.to_string().contains("runs[1].workers[0].instance"), "{e}");
}

#[test]
fn measurements_must_be_one_positive_finite_number() {
    let mut s = Scenario::example();
    let mut bad = Vec::new();
    for (i, (t, x)) in [
        (Some(0.0), None),
        (Some(-2.0), None),
        (Some(f64::NAN), None),
        (Some(f64::INFINITY), None),
        (None, Some(0.0)),
        (None, Some(-1.0)),
        (None, None),
        (Some(1.0), Some(10.0)),
    ]
    .into_iter()
    .enumerate()
    {
        let mut r = run(&format!("r{i}"), "Quadro RTX 4000");
        r.iteration_s = t;
        r.throughput = x;
        bad.push(r);
    }
    s.runs = bad;
    let errs = run_errors(&s);
    let at = |i: usize| {
        errs.iter()
            .find(|(f, _)| f.starts_with(&format!("runs[{i}].")))
            .unwrap_or_else(|| panic!("run {i}: {errs:?}"))
            .clone()
    };
    assert_eq!(errs.len(), 8, "{errs:?}");
    let (f, m) = at(0);
    assert_eq!(f, "runs[0].iteration_s");
    assert_eq!(
        m,
        "run 'r0': the measured iteration time must be a positive number, between 0.000001 and 10,000,000 s (got 0 s)"
    );
    assert!(at(1).1.contains("(got −2 s)"), "{:?}", at(1));
    assert!(at(2).1.contains("not a number"), "{:?}", at(2));
    assert!(at(3).1.contains("too large"), "{:?}", at(3));
    assert_eq!(at(4).0, "runs[4].throughput");
    assert!(at(4).1.contains("samples/s"), "{:?}", at(4));
    assert_eq!(at(5).0, "runs[5].throughput");
    assert_eq!(at(6).0, "runs[6].iteration_s");
    assert!(
        at(6).1.contains("give the measured iteration time"),
        "{:?}",
        at(6)
    );
    assert_eq!(at(7).0, "runs[7].throughput");
    assert!(at(7).1.contains("not both"), "{:?}", at(7));
}

#[test]
fn a_run_needs_workers_a_unique_label_and_a_sane_cluster() {
    let mut s = Scenario::example();
    let mut empty = run("empty", "Quadro RTX 4000");
    empty.workers.clear();
    let mut zero = run("zero", "Quadro RTX 4000");
    zero.workers[0].count = 0;
    zero.ps = Some(ParameterServer {
        count: 1,
        instance: Some("no such PS".into()),
        link_bytes_per_s: Some(-1.0),
        latency_s: 0.0,
    });
    s.runs = vec![
        empty,
        run("", "Quadro RTX 4000"),
        zero,
        run("zero", "Quadro RTX 4000"),
    ];
    let errs = run_errors(&s);
    let fields: Vec<&str> = errs.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(
        fields,
        [
            "runs[0].workers",
            "runs[1].label",
            "runs[2].workers[0].count",
            "runs[2].ps.link",
            "runs[2].ps.instance",
            "runs[3].label",
        ],
        "{errs:?}"
    );
    assert!(errs[0].1.contains("no worker groups"), "{:?}", errs[0]);
    assert_eq!(errs[1].1, "run 2 needs a label");
    assert!(
        errs[2]
            .1
            .starts_with("run 'zero': Quadro RTX 4000 workers: count"),
        "{:?}",
        errs[2]
    );
    assert!(errs[5].1.contains("used by two runs"), "{:?}", errs[5]);
}

#[test]
fn too_many_runs_is_one_message() {
    let mut s = Scenario::example();
    s.runs = (0..=MAX_RUNS)
        .map(|i| run(&format!("r{i}"), "Quadro RTX 4000"))
        .collect();
    let errs = run_errors(&s);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].0, "runs");
    assert_eq!(
        errs[0].1,
        "10,001 measured runs is more than the 10,000 accepted: remove some"
    );
    s.runs.pop();
    assert!(run_errors(&s).is_empty());
}

#[test]
fn a_bad_run_does_not_stop_the_models() {
    let mut s = Scenario::example();
    s.runs = vec![run("typo", "nope")];
    for m in ddnn_planner::models::MODELS {
        assert!(
            ddnn_planner::models::validate_for(*m, &s)
                .iter()
                .all(|e| !e.field.starts_with("runs")),
            "{}",
            m.id()
        );
    }
}
