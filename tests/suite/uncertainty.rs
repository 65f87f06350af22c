//! Uncertainty bands (issue 35 item 4): a band holds the deterministic
//! value when the input's range is centred on it; a link-bandwidth range
//! on a communication-bound Zeng cluster worked by hand (T = a + k/B, so
//! the 10th percentile of T is T at the 90th percentile of B); the same
//! seed gives the same bits (exact expected bits, so the wasm32 run of
//! this suite proves native = wasm); bad ranges refused at their field;
//! a band over the work budget refused in one sentence; and no ranges,
//! no change.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::collections::BTreeMap;

use ddnn_planner::models::zeng::eval::network_figures;
use ddnn_planner::models::{by_id, evaluate, evaluate_all, validate};
use ddnn_planner::report::{Marker, Report, SeriesBand, SeriesData};
use ddnn_planner::scenario::Scenario;
use ddnn_planner::uncertainty::{Band, Range, Uncertainty};

/// The landing example (VGG-16, 2× Quadro RTX 4000 + 1× GTX 1060, 1 GbE)
/// with `ranges`.
fn with_ranges(ranges: &[(&str, f64, f64)], samples: u32) -> Scenario {
    let mut s = Scenario::example();
    s.uncertainty = Some(Uncertainty {
        samples,
        ranges: ranges
            .iter()
            .map(|&(p, min, max)| (p.to_string(), Range { min, max }))
            .collect(),
        ..Uncertainty::default()
    });
    s
}

fn zeng(s: &Scenario) -> Report {
    let m = by_id("zeng").expect("zeng is registered");
    evaluate(m, s).expect("the example evaluates")
}

fn band(r: &Report, key: &str) -> Band {
    r.figure(key)
        .and_then(|f| f.band.clone())
        .unwrap_or_else(|| panic!("{} has no band on {key}", r.model))
}

fn number(r: &Report, key: &str) -> f64 {
    r.figure(key)
        .and_then(|f| f.value.number())
        .unwrap_or_else(|| panic!("{} has no number {key}", r.model))
}

/// 1 GbE [B/s], the example's PS link.
const GBE: f64 = 1.25e8;

#[test]
fn bands_hold_the_value_when_the_range_is_centred_on_it() {
    // ±20% on the link around the example's 1 GbE, and 0 to 0.2 s of
    // start-up time around 0.1 s (the example's 0 s is the lowest).
    let mut s = with_ranges(
        &[
            ("hardware.cluster.ps.link", 0.8 * GBE, 1.2 * GBE),
            ("hardware.cluster.ps.latency", 0.0, 0.2),
        ],
        2_000,
    );
    s.hardware.cluster.ps.latency_s = 0.1;
    let mut checked = 0;
    for (m, r) in evaluate_all(&s) {
        let Ok(r) = r else { continue };
        for f in &r.headline {
            let (Some(v), Some(b)) = (f.value.number(), &f.band) else {
                continue;
            };
            // Monotone in both inputs: the centre's value lies between
            // the 10th and 90th percentiles (exactly, no tolerance).
            assert!(
                b.p10 <= v && v <= b.p90,
                "{} {}: {v} outside {} to {}",
                m.id(),
                f.key,
                b.p10,
                b.p90
            );
            assert!(b.p10 <= b.p50 && b.p50 <= b.p90);
            assert_eq!(b.samples, 2_000);
            checked += 1;
        }
    }
    assert!(checked >= 4, "only {checked} bands");
    let r = zeng(&s);
    let b = band(&r, "iteration-time");
    assert!(b.p10 < b.p90, "the link moves the iteration time");
}

#[test]
fn a_link_range_on_a_communication_bound_cluster_follows_one_over_b() {
    let (lo, hi) = (1.0e8, 1.5e8);
    let s = with_ranges(&[("hardware.cluster.ps.link", lo, hi)], 10_000);
    let at = |b: f64| {
        let mut d = Scenario::example();
        d.hardware.cluster.ps.link_bytes_per_s = Some(b);
        number(&zeng(&d), "iteration-time")
    };
    // Communication-bound at every bandwidth of the range (Eq. 32): the
    // 3 workers' pushes and pulls of G bytes queue one after another on
    // the link, so T(B) = a + 6·G/B, a the compute before the first push.
    let (_, net) = network_figures(&s);
    assert_eq!(net.transfer_bytes, net.pull_bytes);
    let k = 6.0 * net.transfer_bytes;
    let a = at(hi) - k / hi;
    for b in [lo, 1.25e8] {
        assert!(
            ((a + k / b) / at(b) - 1.0).abs() < 1e-12,
            "T({b}) is not a + 6G/B"
        );
    }
    // B uniform on [lo, hi]: its q quantile is lo + q (hi − lo), and T
    // falls as B rises, so T's 10th percentile is T at B's 90th.
    let t = |q: f64| a + k / (lo + q * (hi - lo));
    let b = band(&zeng(&s), "iteration-time");
    // Tolerance: the sample quantile of 10,000 draws is within about
    // 3 standard errors (√(0.09/10,000) = 0.3% of the range in q) of the
    // true one; 0.5% of T covers it.
    for (got, want, name) in [
        (b.p10, t(0.9), "p10"),
        (b.p50, t(0.5), "p50"),
        (b.p90, t(0.1), "p90"),
    ] {
        assert!(
            (got / want - 1.0).abs() < 5e-3,
            "{name}: {got} s, by hand {want} s"
        );
    }
}

/// Two ranges, 1,000 samples: the scenario whose bands' bits the tests
/// pin, natively and in wasm.
fn pinned() -> Scenario {
    with_ranges(
        &[
            ("hardware.cluster.ps.link", 1.0e8, 1.5e8),
            ("calibration.zeng.link", 0.8, 1.0),
        ],
        1_000,
    )
}

#[test]
fn the_same_seed_gives_the_same_bits_natively_and_in_wasm() {
    let s = pinned();
    let b = band(&zeng(&s), "iteration-time");
    assert_eq!(b, band(&zeng(&s), "iteration-time"));
    // Seed 35, 1,000 samples, as computed natively; the wasm32 run of
    // this suite must give the same bits.
    assert_eq!(
        [b.p10.to_bits(), b.p50.to_bits(), b.p90.to_bits()],
        [
            0x4039_4857_d543_1191,
            0x403d_ec22_bbf2_f345,
            0x4042_69f6_5682_7ed8
        ],
        "{b:?}"
    );
    let mut other = s.clone();
    if let Some(u) = other.uncertainty.as_mut() {
        u.seed = 36;
    }
    assert_ne!(b, band(&zeng(&other), "iteration-time"));
}

#[test]
fn bad_ranges_are_refused_at_their_field() {
    let s = with_ranges(
        &[
            ("hardware.cluster.ps.link", 2.0e8, 1.0e8),
            ("hardware.cluster.ps.bandwidth", 1.0, 2.0),
            ("calibration.zeng.link", 0.01, 1.0),
            ("models.zeng.no_such_input", 1.0, 2.0),
        ],
        1_000,
    );
    let errs: BTreeMap<String, String> = validate(&s)
        .into_iter()
        .map(|e| (e.field, e.message))
        .collect();
    assert_eq!(
        errs.get("uncertainty.ranges.hardware.cluster.ps.link")
            .map(String::as_str),
        Some("the range's min (1.6 Gb/s) is above its max (0.8 Gb/s): swap them")
    );
    let unknown = &errs["uncertainty.ranges.hardware.cluster.ps.bandwidth"];
    assert!(
        unknown.starts_with("this is not an input a range can be given on"),
        "{unknown}"
    );
    assert_eq!(
        errs.get("uncertainty.ranges.calibration.zeng.link").map(String::as_str),
        Some("the range's min: effective fraction of the PS link's bandwidth [×] must be 0.05 to 1.5 ×")
    );
    assert!(errs["uncertainty.ranges.models.zeng.no_such_input"].contains("no number"));
    assert_eq!(errs.len(), 4, "{errs:?}");
    // Refused ranges give no band; the report stands.
    assert!(zeng(&s).headline.iter().all(|f| f.band.is_none()));
    // Too few samples, at its field.
    let few = with_ranges(&[("hardware.cluster.ps.link", 1.0e8, 1.5e8)], 10);
    assert!(validate(&few)
        .iter()
        .any(|e| e.field == "uncertainty.samples"
            && e.message == "the samples must be 100 to 100,000 (got 10)"));
}

#[test]
fn a_band_over_the_work_budget_is_refused_before_it_starts() {
    // 300 workers × 100,000 samples = 3e7 worker positions, over the 2e7
    // Zeng takes on.
    let mut s = with_ranges(&[("hardware.cluster.ps.link", 1.0e8, 1.5e8)], 100_000);
    s.hardware.cluster.workers.truncate(1);
    s.hardware.cluster.workers[0].count = 300;
    let r = zeng(&s);
    assert!(r.headline.iter().all(|f| f.band.is_none()));
    let note = r
        .notes
        .iter()
        .find(|n| n.field.as_deref() == Some("uncertainty.samples"))
        .expect("the refusal is a note at the samples");
    assert!(
        note.text.contains("reduce the band's samples"),
        "{}",
        note.text
    );
}

#[test]
fn a_model_input_and_a_calibration_factor_take_ranges() {
    let s = with_ranges(
        &[
            ("models.zeng.flops_per_weight", 5.0, 7.0),
            ("calibration.zeng.latency_s", 0.0, 0.5),
        ],
        500,
    );
    assert!(validate(&s).is_empty(), "{:?}", validate(&s));
    let b = band(&zeng(&s), "iteration-time");
    assert!(b.p10 < b.p90);
}

#[test]
fn no_ranges_no_change() {
    let plain = Scenario::example();
    assert!(!plain.to_json().contains("uncertainty"));
    let mut empty = plain.clone();
    empty.uncertainty = Some(Uncertainty::default());
    let a: Vec<_> = evaluate_all(&plain).into_iter().map(|(_, r)| r).collect();
    let b: Vec<_> = evaluate_all(&empty).into_iter().map(|(_, r)| r).collect();
    assert_eq!(a, b);
}

/// `ddnn-planner eval` shows the bands where ranges are given, in text and
/// JSON, and refuses a bad range naming its field.
#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use super::*;
    use crate::cli::{run, EX};

    fn file(name: &str, s: &Scenario) -> String {
        let dir = std::env::temp_dir().join(format!("ddnn-uncertainty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let path = dir.join(name);
        std::fs::write(&path, s.to_json()).unwrap_or_else(|e| panic!("{e}"));
        path.to_string_lossy().into_owned()
    }

    #[test]
    fn eval_shows_bands_in_text_and_json() {
        let text = std::fs::read_to_string(format!("{EX}cifar10-bsp-m4.json"))
            .unwrap_or_else(|e| panic!("{e}"));
        let mut s = ddnn_planner::models::from_json(&text).unwrap_or_else(|e| panic!("{e}"));
        s.uncertainty = Some(Uncertainty {
            samples: 1_000,
            ranges: [(
                "hardware.catalog[0].flops_per_s".to_string(),
                Range {
                    min: 3.0e9,
                    max: 4.0e9,
                },
            )]
            .into(),
            ..Uncertainty::default()
        });
        let path = file("bands.json", &s);
        let (code, out, err) = run(&["eval", &path, "--model", "cynthia"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("p10–p90 "), "{out}");
        assert!(out.contains("within the time goal"), "{out}");
        assert!(
            out.contains("Bands: 10th–90th percentile of 1,000 seeded samples"),
            "{out}"
        );
        assert!(
            out.contains("chart cost: ") && out.contains(", with its 10th-90th percentile band"),
            "{out}"
        );
        let (code, json, _) = run(&["eval", &path, "--format", "json"]);
        assert_eq!(code, 0);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        let train = v["models"]["cynthia"]["report"]["headline"]
            .as_array()
            .and_then(|h| h.iter().find(|f| f["key"] == "train-time"))
            .cloned()
            .unwrap_or_default();
        let (p10, p90) = (train["band"]["p10"].as_f64(), train["band"]["p90"].as_f64());
        assert!(matches!((p10, p90), (Some(a), Some(b)) if a < b), "{train}");
        assert!(train["band"]["goal"]["probability"].is_number(), "{train}");
        let cost = v["models"]["cynthia"]["report"]["charts"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["key"] == "cost"))
            .cloned()
            .unwrap_or_default();
        assert!(cost["series"][0]["band"]["p10"].is_array(), "{cost}");

        if let Some(u) = s.uncertainty.as_mut() {
            u.ranges.insert(
                "hardware.cluster.ps.link".into(),
                Range { min: 2.0, max: 1.0 },
            );
        }
        let (code, _, err) = run(&["eval", &file("bad.json", &s)]);
        assert_ne!(code, 0);
        assert!(
            err.contains("uncertainty.ranges.hardware.cluster.ps.link: the range's min (1.6e-8 Gb/s) is above its max (8e-9 Gb/s): swap them"),
            "{err}"
        );
    }
}

#[test]
fn the_calibration_offers_the_runs_spread_as_bands() {
    let s = ddnn_planner::models::from_json(include_str!(
        "../../public/examples/zeng-tables6-7-vgg16-runs.json"
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let r = evaluate(&ddnn_planner::calibration::analysis::CALIBRATE, &s)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let action = r
        .actions
        .iter()
        .find(|a| a.key == "zeng-bands")
        .unwrap_or_else(|| panic!("no bands action: {:?}", r.actions));
    let banded =
        ddnn_planner::scenario::patch::apply(&s, &action.patch).unwrap_or_else(|e| panic!("{e}"));
    assert!(validate(&banded).is_empty(), "{:?}", validate(&banded));
    let u = banded.uncertainty.as_ref().expect("ranges stored");
    assert!(!u.ranges.is_empty());
    for (path, range) in &u.ranges {
        // Each range holds the calibrated value it is the spread of.
        let name = path
            .strip_prefix("calibration.zeng.")
            .unwrap_or_else(|| panic!("{path}"));
        let v = banded
            .calibration
            .get("zeng", name)
            .unwrap_or_else(|| panic!("{name} calibrated"));
        assert!(
            range.min <= v && v <= range.max,
            "{path}: {v} outside {range:?}"
        );
        assert!(range.min < range.max);
    }
    let b = band(&zeng(&banded), "iteration-time");
    assert!(b.p10 < b.p90, "{b:?}");
}

#[test]
fn the_csv_export_carries_the_bands() {
    let s = with_ranges(&[("hardware.cluster.ps.link", 1.0e8, 1.5e8)], 200);
    let r = zeng(&s);
    let b = band(&r, "iteration-time");
    let csv = ddnn_planner::report::csv::csv(std::slice::from_ref(&r));
    let row = csv
        .lines()
        .find(|l| l.starts_with("zeng,band,iteration-time.p90,"))
        .unwrap_or_else(|| panic!("no p90 row: {csv}"));
    assert!(row.ends_with(&format!(",{},s", b.p90)), "{row}");
    // The charts' bands, one row per point, and the timeline's total.
    let (_, name, _, lb) = banded_lines(&r)
        .into_iter()
        .find(|l| l.0 == "workers-iteration")
        .expect("the iteration-time curve is banded");
    let first = format!(
        "zeng,workers-iteration,{name},1,count,{},{},s,200",
        lb.p10[0], lb.p90[0]
    );
    assert!(csv.lines().any(|l| l == first), "no row {first}: {csv}");
    let (_, _, x0, x1) = spans(&r)[0].clone();
    assert!(
        csv.lines()
            .any(|l| l.starts_with("zeng,timeline,") && l.ends_with(&format!(",{x0},{x1},s,"))),
        "{csv}"
    );
    let plain = ddnn_planner::report::csv::csv(&[zeng(&Scenario::example())]);
    assert!(!plain.contains(",band,"));
    assert!(!plain.contains("chart_band"));
}

/// Bands are on the models' figures only: the runs comparison and the
/// calibration would redo all their work once per sample.
#[test]
fn the_analyses_get_no_bands() {
    let mut s = ddnn_planner::models::from_json(include_str!(
        "../../public/examples/zeng-tables6-7-vgg16-runs.json"
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    s.uncertainty = with_ranges(&[("hardware.cluster.ps.link", 1.1e8, 1.4e8)], 1000).uncertainty;
    for a in ddnn_planner::worker::ANALYSES {
        if let Ok(r) = evaluate(*a, &s) {
            assert!(
                r.headline.iter().all(|f| f.band.is_none()),
                "{} has bands",
                a.id()
            );
        }
    }
    assert!(zeng(&s).headline.iter().any(|f| f.band.is_some()));
}

/// The lines of every banded chart of every model, with their bands.
fn banded_lines(r: &Report) -> Vec<(String, String, Vec<f64>, SeriesBand)> {
    r.charts
        .iter()
        .flat_map(|c| {
            c.series.iter().filter_map(|s| match (&s.data, &s.band) {
                (SeriesData::Xy { y, .. }, Some(b)) => {
                    Some((c.key.clone(), s.name.clone(), y.clone(), b.clone()))
                }
                _ => None,
            })
        })
        .collect()
}

/// Each of a line's values `y` lies between its band's percentiles
/// (exactly, no tolerance).
fn inside_band(line: &str, y: &[f64], b: &SeriesBand) {
    for (i, v) in y.iter().enumerate() {
        assert!(
            b.p10[i] <= *v && *v <= b.p90[i],
            "{line} point {i}: {v} outside {} to {}",
            b.p10[i],
            b.p90[i]
        );
    }
}

/// A timeline's total and its span: (vertical marker's x, x0, x1).
fn spans(r: &Report) -> Vec<(String, f64, f64, f64)> {
    r.charts
        .iter()
        .filter_map(|c| {
            let total = c.markers.iter().find_map(|m| match m {
                Marker::Vertical { x, .. } => Some(*x),
                _ => None,
            })?;
            c.markers.iter().find_map(|m| match m {
                Marker::Span { x0, x1, .. } => Some((c.key.clone(), total, *x0, *x1)),
                _ => None,
            })
        })
        .collect()
}

/// Ranges centred on the example's link and on a 0.1 s start-up time:
/// every figure the charts band is monotone in both.
fn centred(samples: u32) -> Scenario {
    let mut s = with_ranges(
        &[
            ("hardware.cluster.ps.link", 0.8 * GBE, 1.2 * GBE),
            ("hardware.cluster.ps.latency", 0.0, 0.2),
        ],
        samples,
    );
    s.hardware.cluster.ps.latency_s = 0.1;
    s
}

#[test]
fn curve_bands_contain_the_curve_and_the_timeline_its_total() {
    let mut s = centred(500);
    // Prices, so Zeng draws its cost curve (illustrative, not a paper's).
    for (i, inst) in s.hardware.catalog.iter_mut().enumerate() {
        inst.price_per_hour = Some(0.5 + i as f64);
    }
    let r = zeng(&s);
    let lines = banded_lines(&r);
    let charts: Vec<&str> = lines.iter().map(|l| l.0.as_str()).collect();
    assert!(charts.contains(&"workers-iteration"), "{charts:?}");
    assert!(charts.contains(&"cost"), "{charts:?}");
    for (chart, name, y, b) in &lines {
        assert_eq!((b.p10.len(), b.p90.len()), (y.len(), y.len()));
        assert_eq!(b.samples, 500);
        // Monotone in both inputs: the centre's value lies between the
        // percentiles (exactly, no tolerance).
        inside_band(&format!("{chart} {name}"), y, b);
        assert!(
            b.p10.iter().zip(&b.p90).any(|(a, z)| a < z),
            "{chart} {name}: the link moves it"
        );
    }
    let t = spans(&r);
    assert_eq!(t.len(), 1, "{t:?}");
    let (chart, total, x0, x1) = &t[0];
    assert_eq!(chart, "timeline");
    assert!(x0 <= total && total <= x1 && x0 < x1, "{t:?}");
    // The timeline's total is the headline's iteration time: the same
    // samples give the same band.
    let it = band(&r, "iteration-time");
    assert_eq!((it.p10, it.p90), (*x0, *x1));
    // spotDNN's timeline total, T_exp, on its own example.
    let mut sp =
        ddnn_planner::models::from_json(include_str!("../../public/examples/spotdnn-table1.json"))
            .unwrap_or_else(|e| panic!("{e}"));
    // ±10% on the model's size S_param: each type's push and pull grow
    // with it, so T_exp does.
    let param = sp
        .models
        .get("spotdnn")
        .and_then(|v| v["param_bytes"].as_f64())
        .expect("the example gives S_param");
    sp.uncertainty = with_ranges(
        &[("models.spotdnn.param_bytes", 0.9 * param, 1.1 * param)],
        300,
    )
    .uncertainty;
    let m = by_id("spotdnn").expect("spotdnn is registered");
    let r = evaluate(m, &sp).unwrap_or_else(|e| panic!("{e:?}"));
    let t = spans(&r);
    assert_eq!(t.len(), 1, "spotDNN: {t:?} {:?}", r.notes);
    let (_, total, x0, x1) = &t[0];
    assert!(x0 <= total && total <= x1, "{t:?}");
}

#[test]
fn cynthia_cost_curves_get_bands_from_a_price_range() {
    let mut s =
        ddnn_planner::models::from_json(include_str!("../../public/examples/cifar10-bsp-m4.json"))
            .unwrap_or_else(|e| panic!("{e}"));
    let b0 = s.workload.loss.as_ref().map_or(1.0, |l| l.beta0);
    s.uncertainty = Some(Uncertainty {
        samples: 300,
        ranges: [(
            "workload.loss.beta0".to_string(),
            Range {
                min: 0.9 * b0,
                max: 1.1 * b0,
            },
        )]
        .into(),
        ..Uncertainty::default()
    });
    let m = by_id("cynthia").expect("cynthia is registered");
    let r = evaluate(m, &s).unwrap_or_else(|e| panic!("{e:?}"));
    let lines = banded_lines(&r);
    for key in ["cost", "time"] {
        assert!(lines.iter().any(|l| l.0 == key), "{key}: {:?}", r.notes);
    }
    for (chart, name, y, b) in &lines {
        inside_band(&format!("{chart} {name}"), y, b);
    }
}

#[test]
fn curve_bands_same_seed_same_bits() {
    let s = pinned();
    let a = zeng(&s);
    let lines = banded_lines(&a);
    assert_eq!(lines, banded_lines(&zeng(&s)));
    assert_eq!(spans(&a), spans(&zeng(&s)));
    let (_, _, _, b) = lines
        .iter()
        .find(|l| l.0 == "workers-iteration")
        .expect("the iteration-time curve is banded");
    // Seed 35, 1,000 samples, as computed natively; the wasm32 run of
    // this suite must give the same bits.
    let last = b.p10.len() - 1;
    assert_eq!(
        [b.p10[last].to_bits(), b.p90[last].to_bits()],
        [0x4060_b450_194b_fdd5, 0x4068_66b3_53cd_45e9],
        "{b:?}"
    );
    let mut other = s.clone();
    if let Some(u) = other.uncertainty.as_mut() {
        u.seed = 36;
    }
    assert_ne!(lines, banded_lines(&zeng(&other)));
}

#[test]
fn without_ranges_the_charts_are_unchanged() {
    let plain = Scenario::example();
    let r = zeng(&plain);
    assert!(banded_lines(&r).is_empty() && spans(&r).is_empty());
    for c in &r.charts {
        let f = ddnn_planner::report::plotly::figure(c).to_string();
        assert!(!f.contains("percentile"), "{}", c.key);
    }
    // With ranges, the charts are the same but for their bands.
    let mut banded = zeng(&centred(200));
    assert!(!banded_lines(&banded).is_empty());
    let mut unbanded = zeng(&{
        let mut s = centred(200);
        s.uncertainty = None;
        s
    });
    for c in banded.charts.iter_mut().chain(unbanded.charts.iter_mut()) {
        c.markers.retain(|m| !matches!(m, Marker::Span { .. }));
        for s in &mut c.series {
            s.band = None;
        }
    }
    assert_eq!(banded.charts, unbanded.charts);
}

#[test]
fn curve_bands_over_the_work_budget_are_thinned_then_refused() {
    // Zeng's charts: one evaluation queues 3 workers at each of the
    // bandwidth chart's points and each sweep line's 1..=N workers.
    let mut s = centred(100_000);
    let r = zeng(&s);
    let thinned = r
        .notes
        .iter()
        .find(|n| n.text.starts_with("The charts' bands take the first"))
        .unwrap_or_else(|| panic!("no thinning note: {:?}", r.notes));
    assert_eq!(thinned.field.as_deref(), Some("uncertainty.samples"));
    let lines = banded_lines(&r);
    assert!(!lines.is_empty());
    assert!(lines
        .iter()
        .all(|l| l.3.samples < 100_000 && l.3.samples >= 100));
    // The headline keeps all of its samples.
    assert_eq!(band(&r, "iteration-time").samples, 100_000);
    // Sweeps so long that even 100 samples are over: 8 lines (7 device
    // and batch kinds, and the mix) × 256·257/2 worker positions each =
    // 263,168 a sample, and 100 × that is over the 2e7 Zeng takes on. No
    // chart bands, one sentence at the samples.
    s.models.insert(
        "zeng".into(),
        std::sync::Arc::new(serde_json::json!({ "sweep_max_workers": 256 })),
    );
    let first = s.hardware.cluster.workers[0].clone();
    for bs in 1..=5 {
        let mut g = first.clone();
        g.batch_size = bs;
        g.count = 1;
        s.hardware.cluster.workers.push(g);
    }
    if let Some(u) = s.uncertainty.as_mut() {
        u.samples = 100;
    }
    let r = zeng(&s);
    assert!(banded_lines(&r).is_empty());
    let refused = r
        .notes
        .iter()
        .find(|n| n.text.starts_with("No bands on the charts:"))
        .unwrap_or_else(|| panic!("no refusal: {:?}", r.notes));
    assert_eq!(refused.field.as_deref(), Some("uncertainty.samples"));
    assert!(
        refused.text.contains("reduce the band's samples"),
        "{}",
        refused.text
    );
}

/// Li et al.'s shipped VGG-16 example cut to a short sweep (W = 1..2, 40
/// steps, one seed), its PS link given a range: 100 samples of the
/// simulation, each a whole sweep.
fn li_small() -> Scenario {
    let mut s =
        ddnn_planner::models::from_json(include_str!("../../public/examples/li-vgg16-10gbe.json"))
            .unwrap_or_else(|e| panic!("{e}"));
    if let Some(li) = s.models.get_mut("li") {
        let li = std::sync::Arc::make_mut(li);
        li["steps"] = 40.into();
        li["warmup"] = 5.into();
        li["seeds"] = 1.into();
        li["max_workers"] = 2.into();
    }
    s.uncertainty = with_ranges(&[("hardware.cluster.ps.link", 1.0e8, 1.5e8)], 100).uncertainty;
    s
}

/// A clock that moves `step` ms at every reading: the stream's timing
/// without timing anything.
fn ticking(step: f64) -> impl Fn() -> f64 {
    let t = std::cell::Cell::new(0.0);
    move || {
        t.set(t.get() + step);
        t.get()
    }
}

#[test]
fn li_bands_stream_in_chunks_and_end_as_computed_whole() {
    let s = li_small();
    let m = by_id("li").expect("li is registered");
    let whole = evaluate(m, &s).unwrap_or_else(|e| panic!("{e:?}"));
    let b = band(&whole, "throughput-max");
    assert_eq!(b.samples, 100);
    assert!(b.p10 < b.p90, "{b:?}");
    // 40 ms a clock reading: a chunk "takes" 40 ms, so the job passes
    // 100 ms after a few samples and shows its bands every 100 ms.
    let mut seen: Vec<(u32, u32, u32)> = Vec::new();
    let streamed = ddnn_planner::models::evaluate_progressive(
        m,
        &s,
        &mut |_, _, _| {},
        &mut |r, drawn, total| {
            let so_far = band(&r, "throughput-max");
            assert!(r.notes.iter().any(|n| n.text.contains("so far")));
            seen.push((drawn, total, so_far.samples));
        },
        &ticking(40.0),
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(seen.len() >= 2, "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "{seen:?}");
    for &(drawn, total, samples) in &seen {
        assert_eq!((total, samples), (100, drawn));
        assert!(drawn < 100);
    }
    // However it was chunked, the same bits as computed whole.
    assert_eq!(streamed, whole);
    // A clock that never moves: nothing streams.
    let mut none = 0;
    let still = ddnn_planner::models::evaluate_progressive(
        m,
        &s,
        &mut |_, _, _| {},
        &mut |_, _, _| none += 1,
        &|| 0.0,
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!((none, &still), (0, &whole));
}

#[test]
fn the_worker_posts_li_bands_as_they_grow() {
    use ddnn_planner::worker::{Counted, FromWorker, Server};
    let s = li_small();
    let request = ddnn_planner::worker::evaluate_request(7, &s.to_json(), false, &[], &[]);
    let mut posted: Vec<FromWorker> = Vec::new();
    Server::default().handle(
        &request,
        &mut |m| {
            if let Ok(msg) = serde_json::from_str(&m) {
                posted.push(msg);
            }
        },
        &ticking(40.0),
    );
    let samples: Vec<u32> = posted
        .iter()
        .filter_map(|m| match m {
            FromWorker::Partial {
                model, done, of, ..
            } if model == "li" && *of == Counted::Samples => Some(*done),
            _ => None,
        })
        .collect();
    assert!(!samples.is_empty(), "no band progress");
    let last = posted.iter().rev().find_map(|m| match m {
        FromWorker::Result { model, outcome, .. } if model == "li" => {
            outcome.clone().into_result().ok()
        }
        _ => None,
    });
    let last = last.expect("li's result is posted");
    assert_eq!(band(&last, "throughput-max").samples, 100);
}

#[test]
fn li_bands_over_the_budget_are_refused_in_one_sentence() {
    // The example's whole sweep (W = 1..8, 1,000 steps, 3 seeds) 100
    // times is far over the ops Li et al. simulates at most.
    let mut s =
        ddnn_planner::models::from_json(include_str!("../../public/examples/li-vgg16-10gbe.json"))
            .unwrap_or_else(|e| panic!("{e}"));
    s.uncertainty = with_ranges(&[("hardware.cluster.ps.link", 1.0e8, 1.5e8)], 100).uncertainty;
    let m = by_id("li").expect("li is registered");
    let r = evaluate(m, &s).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(r.headline.iter().all(|f| f.band.is_none()));
    let note = r
        .notes
        .iter()
        .find(|n| n.text.starts_with("No bands:"))
        .unwrap_or_else(|| panic!("no refusal: {:?}", r.notes));
    assert_eq!(note.field.as_deref(), Some("uncertainty.samples"));
    let sentence = note.text.replace("et al.", "et al");
    assert!(
        sentence.ends_with('.') && !sentence.contains(". "),
        "one sentence: {}",
        note.text
    );
    assert!(note.text.contains("reduce the band's samples"));
}

/// The bands' note names each range in the unit its input is typed in
/// (issue 33 item 4): 9e7 to 1.5e8 B/s of the PS link as 0.72 to 1.2 Gb/s.
#[test]
fn the_bands_note_gives_each_range_in_its_inputs_unit() {
    let s = with_ranges(&[("hardware.cluster.ps.link", 0.9e8, 1.5e8)], 200);
    let r = zeng(&s);
    assert!(
        r.notes.iter().any(|n| n
            .text
            .contains("within its range: hardware.cluster.ps.link 0.72 Gb/s to 1.2 Gb/s")),
        "{:?}",
        r.notes
    );
}

/// spotDNN's frontier: each time goal's plan, searched once on the
/// inputs as given, costed under every sample (as a cost curve's band
/// costs each worker count). ±10% on every type's spot price: each
/// plan's cost grows with each, so the as-given cost lies inside each
/// point's band, and every point has a spread.
#[test]
fn spotdnn_frontier_plans_are_costed_per_sample() {
    let mut s =
        ddnn_planner::models::from_json(include_str!("../../public/examples/spotdnn-table1.json"))
            .unwrap_or_else(|e| panic!("{e}"));
    let prices: Vec<(String, f64, f64)> = s
        .hardware
        .catalog
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let p = t.spot_price_per_hour?;
            Some((
                format!("hardware.catalog[{i}].spot_price_per_hour"),
                0.9 * p,
                1.1 * p,
            ))
        })
        .collect();
    let ranges: Vec<(&str, f64, f64)> = prices
        .iter()
        .map(|(k, a, b)| (k.as_str(), *a, *b))
        .collect();
    s.uncertainty = with_ranges(&ranges, 300).uncertainty;
    let m = by_id("spotdnn").expect("spotdnn is registered");
    let r = evaluate(m, &s).unwrap_or_else(|e| panic!("{e:?}"));
    let lines = banded_lines(&r);
    let (_, _, y, b) = lines
        .iter()
        .find(|l| l.0 == "frontier")
        .unwrap_or_else(|| panic!("no frontier band: {:?}", r.notes));
    assert!(y.len() > 1, "{y:?}");
    assert_eq!(b.samples, 300);
    inside_band("frontier", y, b);
    assert!(b.p10.iter().zip(&b.p90).all(|(a, z)| a < z), "{b:?}");
    // The same seed, the same bits; without ranges, no band.
    assert_eq!(
        lines,
        banded_lines(&evaluate(m, &s).unwrap_or_else(|e| panic!("{e:?}")))
    );
    s.uncertainty = None;
    let plain = evaluate(m, &s).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(banded_lines(&plain).is_empty());
    let line = |r: &Report| {
        r.charts
            .iter()
            .find(|c| c.key == "frontier")
            .map(|c| c.series[0].data.clone())
    };
    assert_eq!(line(&plain), line(&r), "the frontier itself is unchanged");
}
