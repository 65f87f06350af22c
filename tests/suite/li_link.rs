//! Li et al.'s large profiles and share links: a profile over the link's
//! limit travels as its name, op count and content hash; the receiver is
//! told which file to attach; this browser's copy (or the file) puts it
//! back with identical results. A link without a later setting keeps its
//! numbers.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::decode_fragment;
use ddnn_planner::models::li::presets::{example, inception_v3_profile};
use ddnn_planner::models::li::section::{settings, LiSettings, OrderedStreams, StreamOrder, ID};
use ddnn_planner::models::li::share_link::{restore, storage_key, upload_note, LINK_BYTES};
use ddnn_planner::models::{encode_share, evaluate, for_link, Unavailable, MODELS};
use ddnn_planner::report::Report;
use ddnn_planner::scenario::Scenario;

fn li(s: &Scenario) -> Result<Report, Unavailable> {
    let m = MODELS
        .iter()
        .find(|m| m.id() == ID)
        .expect("in the registry");
    evaluate(*m, s)
}

fn with_inception() -> Scenario {
    let mut s = example();
    let p = inception_v3_profile().expect("generates");
    s.set_section(
        ID,
        &LiSettings {
            profile: Some(p),
            steps: 60,
            warmup: 10,
            seeds: 1,
            max_workers: 2,
            ..LiSettings::default()
        },
    );
    s
}

#[test]
fn a_large_profile_travels_as_its_name_and_hash() {
    let s = with_inception();
    let p = settings(&s).profile.expect("has one");
    let (shared, left_out) = for_link(&s);
    assert_eq!(left_out.len(), 1);
    assert_eq!(left_out[0].key, storage_key(&p.content_hash()));
    assert!(left_out[0].json.len() > LINK_BYTES);
    assert!(
        left_out[0].what.contains("1512 ops"),
        "{}",
        left_out[0].what
    );
    let frag = encode_share(&s).expect("encodes");
    assert!(frag.len() < 4_000, "{} characters", frag.len());
    let opened = decode_fragment(&frag).expect("decodes");
    assert_eq!(&opened, &*shared);
    let c = settings(&opened);
    assert!(c.profile.is_none());
    let r = c.profile_ref.expect("named");
    assert_eq!((r.ops, r.hash.len()), (1512, 16));
    // Opened elsewhere: Li et al. says which file to attach, at the field.
    match li(&opened) {
        Err(Unavailable::Missing { needs }) => {
            assert_eq!(needs[0].field, "models.li.profile");
            assert!(needs[0].message.contains(&r.hash), "{}", needs[0].message);
            assert!(needs[0].message.contains("upload"), "{}", needs[0].message);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn this_browsers_copy_puts_it_back_with_the_same_results() {
    let s = with_inception();
    let (opened, left_out) = for_link(&s);
    let mut opened = opened.into_owned();
    let copy = left_out[0].clone();
    // A copy under another key, or a different profile, is not used.
    assert!(restore(&mut opened.clone(), &|_| None).is_none());
    let note = restore(&mut opened, &|k| (k == copy.key).then(|| copy.json.clone()));
    assert!(note.expect("restored").contains("put back"));
    assert_eq!(settings(&opened).profile, settings(&s).profile);
    assert!(settings(&opened).profile_ref.is_none());
    assert_eq!(li(&opened), li(&s));
}

#[test]
fn small_profiles_stay_in_the_link_and_uploads_are_compared() {
    let mut s = example();
    let small = ddnn_planner::models::li::profile::Profile {
        name: "tiny".into(),
        batch: 4,
        ops: vec![ddnn_planner::models::li::profile::Op {
            name: "step".into(),
            resource: ddnn_planner::models::li::profile::Resource::Worker,
            deps: vec![],
            tensor: None,
        }],
        steps: vec![vec![0.01]],
    };
    let mut c = settings(&s);
    c.profile = Some(small.clone());
    s.set_section(ID, &c);
    let (shared, left_out) = for_link(&s);
    assert!(left_out.is_empty());
    // Nothing to leave out: the scenario is not even copied.
    assert!(matches!(shared, std::borrow::Cow::Borrowed(_)));
    assert_eq!(settings(&shared).profile, Some(small.clone()));
    // An upload after a link: the same file, or a different one, said so.
    let big = with_inception();
    let r = settings(&for_link(&big).0).profile_ref.expect("named");
    let same = settings(&big).profile.expect("has one");
    assert!(upload_note(Some(&r), &same)
        .expect("note")
        .starts_with("the profile the link refers to"));
    assert!(upload_note(Some(&r), &small)
        .expect("note")
        .contains("will differ"));
    assert!(upload_note(None, &small).is_none());
}

#[test]
fn an_inception_sized_timeline_draws_few_bars_and_covers_every_op() {
    use ddnn_planner::report::SeriesData;
    let s = with_inception();
    let r = li(&s).expect("runs");
    let chart = r
        .charts
        .iter()
        .find(|c| c.key == "timeline")
        .expect("drawn");
    let (mut bars, mut ops, mut rows) = (0usize, 0usize, std::collections::BTreeSet::new());
    for series in &chart.series {
        let SeriesData::Segments { rows: r, .. } = &series.data else {
            panic!("segments");
        };
        bars += r.len();
        rows.extend(r.iter().cloned());
        ops += series
            .hover
            .iter()
            .map(|h| {
                // "w1 worker, step 1: 12 ops, conv a … relu b, 0.002 s"
                h.split(": ")
                    .nth(1)
                    .and_then(|w| w.split(" ops, ").next())
                    .and_then(|n| n.parse::<usize>().ok())
                    .unwrap_or(1)
            })
            .sum::<usize>();
    }
    // Two workers, three steps of 1,512 ops: 9,072 ops in service, drawn
    // as at most ~2 × 120 bars per row.
    assert_eq!(ops, 2 * 3 * 1512);
    assert!(
        bars <= rows.len() * 240,
        "{bars} bars over {} rows",
        rows.len()
    );
    assert!(bars < 1000, "{bars} bars");
    assert!(
        chart.title.contains("nearby ops as one bar"),
        "{}",
        chart.title
    );
    assert!(r.notes.iter().any(|n| n.text.contains("1/120 of its span")
        && n.text.contains("the Perfetto download has every op")));
}

/// The example with flow control off and the order reversed, its section
/// with `ordered_streams` as given (`None`: left out, as in a link made
/// before the setting).
fn reversed(ordered: Option<&str>) -> Scenario {
    let mut s = example();
    let c = LiSettings {
        flow_control: false,
        order: StreamOrder::Reverse,
        steps: 40,
        warmup: 4,
        seeds: 1,
        max_workers: 3,
        ..settings(&s)
    };
    let mut v = serde_json::to_value(&c).expect("writes");
    let o = v.as_object_mut().expect("an object");
    match ordered {
        Some(word) => o.insert("ordered_streams".into(), word.into()),
        None => o.remove("ordered_streams"),
    };
    s.models.insert(ID.into(), std::sync::Arc::new(v));
    s
}

#[test]
fn a_link_without_ordered_streams_orders_every_stream_as_before() {
    // A new scenario orders the downlinks alone; a section without the
    // setting ranks every stream, and opens from a link with the same
    // report as one that says so.
    assert_eq!(
        LiSettings::default().ordered_streams,
        OrderedStreams::Downlinks
    );
    let old = reversed(None);
    let opened = decode_fragment(&encode_share(&old).expect("encodes")).expect("decodes");
    assert_eq!(settings(&opened).ordered_streams, OrderedStreams::All);
    let all = li(&reversed(Some("all"))).expect("runs");
    assert_eq!(li(&opened).expect("runs"), all);
    // VGG-16's uplinks queue behind each other: ranked in reverse, or
    // first come, the throughput differs.
    let downlinks = li(&reversed(Some("downlinks"))).expect("runs");
    assert_ne!(
        downlinks.figure("throughput-max"),
        all.figure("throughput-max")
    );
    let streams = |r: &Report| format!("{:?}", r.figure("flow").map(|f| &f.value));
    assert!(
        streams(&downlinks).contains("first come"),
        "{}",
        streams(&downlinks)
    );
    assert!(streams(&all).contains("every stream"), "{}", streams(&all));
}

#[test]
fn an_unknown_stream_choice_is_named_at_its_field() {
    let s = reversed(Some("uplinks"));
    let errs = ddnn_planner::models::validate(&s);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].field, "models.li.ordered_streams");
    assert_eq!(
        errs[0].message,
        "the streams the order ranks must be \"downlinks\" or \"all\" (got \"uplinks\")"
    );
    let frag = ddnn_planner::scenario::codec::encode_fragment(&s);
    let refused = decode_fragment(&frag).expect_err("refused");
    assert!(refused.to_string().contains("ordered_streams"), "{refused}");
}
