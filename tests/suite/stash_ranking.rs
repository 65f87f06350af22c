//! Stash's measured configurations ranked by time and cost per epoch, with
//! and without stalls, beside the prediction's order (`ranking.rs`; the
//! paper ranks the configurations it measured in Sec. V: Figs. 6, 10, 12
//! and 14, and the words of Sec. V-A and V-B).
//!
//! The paper's figures are charts, not tables: its only table of numbers
//! these rankings use is Table I, the prices. The runs are the shipped
//! example's illustrative P3 runs (`presets::p3_vgg11_runs`) and P2 runs
//! built to show Sec. V-A's statements; every expected value below is
//! worked by hand from them and Table I's rows. Tolerance: 1e-12 relative
//! (the arithmetic is a product and a quotient of exact inputs).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::hardware::{Precision, Pricing};
use ddnn_planner::models::evaluate;
use ddnn_planner::models::stash::eval::evaluate as stash_eval;
use ddnn_planner::models::stash::presets::p3_example;
use ddnn_planner::models::stash::ranking::{
    Basis, Epoch, MeasuredRanking, Metric, Ranked, MEASURED_TIE,
};
use ddnn_planner::models::stash::section::{Run, StashSettings, ID};
use ddnn_planner::models::stash::Stash;
use ddnn_planner::report::{Level, Value};
use ddnn_planner::scenario::Scenario;

fn run(configuration: &str, run: u8, seconds: f64, samples: f64) -> Run {
    Run {
        configuration: configuration.into(),
        run,
        seconds,
        samples,
        reference: None,
    }
}

#[track_caller]
fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} is not {b}");
}

fn ranking(s: &Scenario) -> MeasuredRanking {
    stash_eval(s)
        .unwrap_or_else(|e| panic!("{e:?}"))
        .measured_ranking
        .expect("measured configurations")
}

fn row<'a>(m: &'a MeasuredRanking, name: &str) -> &'a Ranked {
    m.rows
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

fn on(r: &Ranked, b: Basis) -> &Epoch {
    r.on(b)
        .unwrap_or_else(|why| panic!("{} {}: {why}", r.name, b.word()))
}

/// (rank, tied with) of `name` on `b` by `m`.
fn place(rk: &MeasuredRanking, name: &str, b: Basis, m: Metric) -> (usize, Vec<String>) {
    let p = on(row(rk, name), b).place(m).expect("ranked");
    (p.rank, p.tied_with.clone())
}

fn tied(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

fn with_runs(mut s: Scenario, runs: Vec<Run>, epoch_samples: f64) -> Scenario {
    let mut set: StashSettings = s.section(ID).unwrap_or_default();
    set.runs = runs;
    set.epoch_samples = epoch_samples;
    s.set_section(ID, &set);
    s
}

#[test]
fn the_shipped_p3_runs_rank_as_sec_v_b_says_hand_worked() {
    // Runs (presets::p3_vgg11_runs), all at 10,000 samples per GPU;
    // Table I rows: p3.8xlarge 4 GPUs USD 12.24/h, p3.16xlarge 8 GPUs
    // USD 24.48/h; 2× p3.8xlarge costs its two members, USD 24.48/h.
    // Epoch S = 1,281,167 samples (the section's default).
    //
    // With stalls, run (3): epoch = t3 / 10,000 × S/n.
    //   p3.16xlarge   150 s × 16.0145875 = 2,402.188125 s; × 24.48/3600 = 16.33487925 USD
    //   p3.8xlarge    135 s × 32.029175  = 4,323.938625 s; × 12.24/3600 = 14.701391325 USD
    //   2× p3.8xlarge 700 s × 16.0145875 = 11,210.21125 s; × 24.48/3600 = 76.2294365 USD
    // Time: 16xlarge 1, 8xlarge 2, 2× 8xlarge 3 (Fig. 10: "16xlarge is the
    // most performant"). Cost: 8xlarge 1, 16xlarge 2, 2× 8xlarge 3 (Sec.
    // V-B: 8xlarge more cost-optimal than 16xlarge; "the network connected
    // instances are the least cost optimal").
    let m = ranking(&p3_example());
    assert_eq!(
        (m.epoch_samples, m.pricing),
        (1_281_167.0, Pricing::OnDemand)
    );
    let w = Basis::WithStalls;
    let (e16, e8, e2) = (
        on(row(&m, "p3.16xlarge"), w),
        on(row(&m, "p3.8xlarge"), w),
        on(row(&m, "2× p3.8xlarge"), w),
    );
    close(e16.epoch_s, 2402.188125);
    close(e8.epoch_s, 4323.938625);
    close(e2.epoch_s, 11210.21125);
    close(e16.epoch_usd.unwrap(), 16.33487925);
    close(e8.epoch_usd.unwrap(), 14.701391325);
    close(e2.epoch_usd.unwrap(), 76.2294365);
    assert_eq!(e16.source, "run (3)");
    let ranks =
        |metric| ["p3.16xlarge", "p3.8xlarge", "2× p3.8xlarge"].map(|n| place(&m, n, w, metric).0);
    assert_eq!(ranks(Metric::Time), [1, 2, 3]);
    assert_eq!(ranks(Metric::Cost), [2, 1, 3]);
    assert!(place(&m, "p3.16xlarge", w, Metric::Time).1.is_empty());
}

#[test]
fn without_stalls_cost_per_epoch_ties_across_the_p3_sizes() {
    // Without stalls, run (1): every run (1) is 100 s over 10,000 samples.
    //   p3.16xlarge, 2× p3.8xlarge: 100 × 16.0145875 = 1,601.45875 s
    //   p3.8xlarge:                 100 × 32.029175  = 3,202.9175 s
    // Cost: 1,601.45875 × 24.48/3600 = 3,202.9175 × 12.24/3600
    //   = 10.8899195 USD for all three: Table I prices P3 at USD 3.06 per
    //   GPU-hour, so with no stalls the cost per epoch does not depend on
    //   the GPU count (Sec. V). A three-way tie, every one named.
    let m = ranking(&p3_example());
    let wo = Basis::WithoutStalls;
    for name in ["p3.16xlarge", "2× p3.8xlarge"] {
        close(on(row(&m, name), wo).epoch_s, 1601.45875);
    }
    close(on(row(&m, "p3.8xlarge"), wo).epoch_s, 3202.9175);
    for name in ["p3.16xlarge", "p3.8xlarge", "2× p3.8xlarge"] {
        close(on(row(&m, name), wo).epoch_usd.unwrap(), 10.8899195);
        assert_eq!(place(&m, name, wo, Metric::Cost).0, 1, "{name}");
    }
    assert_eq!(
        place(&m, "p3.8xlarge", wo, Metric::Cost).1,
        tied(&["p3.16xlarge", "2× p3.8xlarge"])
    );
    // Time: the two 8-GPU configurations tie first; p3.8xlarge is third
    // (competition ranks: 1, 1, 3).
    assert_eq!(
        place(&m, "p3.16xlarge", wo, Metric::Time),
        (1, tied(&["2× p3.8xlarge"]))
    );
    assert_eq!(place(&m, "p3.8xlarge", wo, Metric::Time), (3, vec![]));
    // The report names the ties in the rank cells.
    let r = evaluate(&Stash, &p3_example()).unwrap();
    let t = r
        .table("measured-ranking")
        .expect("the measured ranking table");
    let col = |label: &str| {
        t.columns
            .iter()
            .position(|c| c.header() == label)
            .unwrap_or_else(|| panic!("no column {label}"))
    };
    let first = t
        .rows
        .iter()
        .find(|row| row[0] == Value::text("p3.8xlarge"))
        .unwrap();
    assert_eq!(
        first[col("cost rank, without stalls")],
        Value::text("1 (tied with p3.16xlarge and 2× p3.8xlarge)")
    );
    assert_eq!(first[col("time rank, without stalls")], Value::text("3"));
}

/// Sec. V-A's P2 finding as runs, at 1,000 samples per GPU, an epoch of
/// 160,000 samples, FP32 (the K80 has no FP16 peak).
fn p2() -> Scenario {
    let mut s = p3_example();
    s.hardware.precision = Precision::Fp32;
    s.goals.time_s = None;
    with_runs(
        s,
        vec![
            run("p2.16xlarge", 1, 100.0, 1_000.0),
            run("p2.16xlarge", 2, 400.0, 16_000.0),
            run("p2.16xlarge", 4, 420.0, 16_000.0),
            run("p2.16xlarge", 3, 480.0, 16_000.0),
            run("2× p2.8xlarge", 1, 100.0, 1_000.0),
            run("2× p2.8xlarge", 5, 300.0, 16_000.0),
            run("2× p2.8xlarge", 4, 320.0, 16_000.0),
            run("2× p2.8xlarge", 3, 360.0, 16_000.0),
            run("p2.8xlarge", 1, 100.0, 1_000.0),
            run("p2.8xlarge", 3, 200.0, 8_000.0),
        ],
        160_000.0,
    )
}

#[test]
fn p2_two_8xlarge_beat_one_16xlarge_measured_and_the_prediction_disagrees() {
    // Table I rows: p2.8xlarge 8 GPUs USD 7.20/h, p2.16xlarge 16 GPUs
    // USD 14.40/h; 2× p2.8xlarge USD 14.40/h.
    // With stalls: epoch = t3 / 1,000 × 160,000/n.
    //   2× p2.8xlarge 360 × 10 = 3,600 s; 3,600/3600 × 14.40 = 14.40 USD
    //   p2.8xlarge    200 × 20 = 4,000 s; 4,000/3600 × 7.20  =  8.00 USD
    //   p2.16xlarge   480 × 10 = 4,800 s; 4,800/3600 × 14.40 = 19.20 USD
    // Sec. V-A: two 8xlarge train faster and cheaper than one 16xlarge,
    // which is the least cost-optimal.
    let m = ranking(&p2());
    let w = Basis::WithStalls;
    for (name, s, usd, time_rank, cost_rank) in [
        ("2× p2.8xlarge", 3600.0, 14.4, 1, 2),
        ("p2.8xlarge", 4000.0, 8.0, 2, 1),
        ("p2.16xlarge", 4800.0, 19.2, 3, 3),
    ] {
        let e = on(row(&m, name), w);
        close(e.epoch_s, s);
        close(e.epoch_usd.unwrap(), usd);
        assert_eq!(e.time.rank, time_rank, "{name}");
        assert_eq!(e.cost.as_ref().unwrap().rank, cost_rank, "{name}");
    }
    // Without stalls: 100 × 10 = 1,000 s on 16 GPUs (both), 100 × 20 =
    // 2,000 s on 8; 4.00 USD all three (USD 0.90 per GPU-hour).
    let wo = Basis::WithoutStalls;
    assert_eq!(
        place(&m, "p2.16xlarge", wo, Metric::Time),
        (1, tied(&["2× p2.8xlarge"]))
    );
    for name in ["2× p2.8xlarge", "p2.8xlarge", "p2.16xlarge"] {
        close(on(row(&m, name), wo).epoch_usd.unwrap(), 4.0);
        assert_eq!(place(&m, name, wo, Metric::Cost).0, 1);
    }
    // The prediction's ring over 16 GPUs is bound by the slowest link:
    // the 10 Gb/s network for 2× p2.8xlarge, PCIe (15.75 GB/s) for
    // p2.16xlarge, which it therefore puts ahead; it has no PCIe
    // contention (Fig. 7). The disagreement is named, with stalls, on time
    // and on cost (both configurations cost USD 14.40/h).
    let e16 = on(row(&m, "p2.16xlarge"), Basis::Predicted);
    let e2 = on(row(&m, "2× p2.8xlarge"), Basis::Predicted);
    assert!(e16.epoch_s < e2.epoch_s);
    // Predicted epochs (VGG-11, a = 0.4, FP32 K80 peaks): p2.16xlarge
    // ≈ 301 s, p2.8xlarge ≈ 559 s, 2× p2.8xlarge ≈ 760 s; costs ≈ 1.20,
    // 1.12, 3.04 USD. Against the measured orders above, with stalls:
    let pairs = |metric| {
        m.disagreements
            .iter()
            .find(|d| d.basis == w && d.metric == metric)
            .map(|d| d.pairs.clone())
            .unwrap_or_default()
    };
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        pairs(Metric::Time),
        [
            pair("2× p2.8xlarge", "p2.8xlarge"),
            pair("2× p2.8xlarge", "p2.16xlarge"),
            pair("p2.8xlarge", "p2.16xlarge"),
        ]
    );
    assert_eq!(pairs(Metric::Cost), [pair("2× p2.8xlarge", "p2.16xlarge")]);
    // Ties are no disagreement: without stalls, costs all tie.
    assert!(!m
        .disagreements
        .iter()
        .any(|d| d.basis == wo && d.metric == Metric::Cost));
    // The report says so at the runs' field, naming the pair.
    let r = evaluate(&Stash, &p2()).unwrap();
    let note = r
        .notes
        .iter()
        .find(|n| {
            n.text.contains(
                "measured with stalls order and the predicted order disagree on epoch time [s]",
            )
        })
        .expect("a disagreement note");
    assert_eq!(note.level, Level::Warning);
    assert_eq!(note.field.as_deref(), Some("models.stash.runs"));
    assert!(
        note.text
            .contains("2× p2.8xlarge ahead of p2.16xlarge measured, behind it predicted"),
        "{}",
        note.text
    );
}

#[test]
fn measured_ties_are_within_half_a_percent_of_the_least() {
    // p3.8xlarge: run (3) 100 s over 4 × 1,000 samples; p3.2xlarge:
    // run (3) over 1,000 samples. An epoch of 4,000 samples: p3.8xlarge
    // 100/1000 × 1000 = 100 s; p3.2xlarge t/1000 × 4000 = 4t s.
    assert_eq!(MEASURED_TIE, 0.005);
    for (t, tie) in [(25.0, true), (25.1, true), (25.15, false)] {
        // 4 × 25 = 100 s: an exact tie; 4 × 25.1 = 100.4 s: 0.4% above
        // 100 s, a tie; 4 × 25.15 = 100.6 s: 0.6% above, second.
        let s = with_runs(
            p3_example(),
            vec![
                run("p3.8xlarge", 3, 100.0, 4_000.0),
                run("p3.2xlarge", 3, t, 1_000.0),
            ],
            4_000.0,
        );
        let m = ranking(&s);
        close(
            on(row(&m, "p3.2xlarge"), Basis::WithStalls).epoch_s,
            4.0 * t,
        );
        let p = place(&m, "p3.2xlarge", Basis::WithStalls, Metric::Time);
        if tie {
            assert_eq!(p, (1, tied(&["p3.8xlarge"])), "{t}");
        } else {
            assert_eq!(p, (2, vec![]), "{t}");
        }
    }
}

#[test]
fn a_configuration_without_a_price_is_ranked_by_time_and_says_why_not_by_cost() {
    // Table I gives on-demand prices only: at spot prices no configuration
    // has a price.
    let mut s = p3_example();
    s.hardware.pricing = Pricing::Spot;
    let m = ranking(&s);
    let r = row(&m, "2× p3.8xlarge");
    assert_eq!(r.price_per_hour, None);
    let why = r.cost_missing.as_deref().expect("a reason");
    assert!(
        why.contains("p3.8xlarge has no spot price in the catalog")
            && why.contains("2× p3.8xlarge is not ranked"),
        "{why}"
    );
    let e = on(r, Basis::WithStalls);
    assert_eq!((e.epoch_usd, e.cost.is_none()), (None, true));
    assert_eq!(e.time.rank, 3);
    // One priced configuration, one not: only the priced one is ranked.
    let mut s = p3_example();
    for i in &mut s.hardware.catalog {
        if i.name == "p3.8xlarge" {
            i.price_per_hour = None;
        }
    }
    let m = ranking(&s);
    assert_eq!(
        place(&m, "p3.16xlarge", Basis::WithStalls, Metric::Cost),
        (1, vec![])
    );
    assert!(on(row(&m, "p3.8xlarge"), Basis::WithStalls).cost.is_none());
    let rep = evaluate(&Stash, &s).unwrap();
    let note = rep
        .notes
        .iter()
        .find(|n| n.text.starts_with("p3.8xlarge has no on-demand price"))
        .expect("a price note");
    assert_eq!(
        (note.level, note.field.as_deref()),
        (Level::Warning, Some("hardware.catalog"))
    );
}

#[test]
fn missing_runs_are_named_and_a_member_gives_its_run_1() {
    // 2× p3.8xlarge has no run (1) of its own: p3.8xlarge's (the same
    // GPU) gives the epoch without stalls, 100/10,000 × 8,000/8 = 10 s.
    // p3.16xlarge has no run (3): not ranked with stalls, and said so.
    let s = with_runs(
        p3_example(),
        vec![
            run("p3.8xlarge", 1, 100.0, 10_000.0),
            run("p3.8xlarge", 3, 135.0, 40_000.0),
            run("2× p3.8xlarge", 3, 700.0, 80_000.0),
            run("p3.16xlarge", 1, 100.0, 10_000.0),
            run("p3.16xlarge", 2, 112.0, 80_000.0),
        ],
        8_000.0,
    );
    let m = ranking(&s);
    let two = on(row(&m, "2× p3.8xlarge"), Basis::WithoutStalls);
    assert_eq!(two.source, "run (1) of p3.8xlarge");
    close(two.epoch_s, 10.0);
    let why = row(&m, "p3.16xlarge")
        .with_stalls
        .as_ref()
        .unwrap_err()
        .to_string();
    assert!(why.starts_with("no run (3) of p3.16xlarge"), "{why}");
    // With stalls, only the two measured ones: 135/10,000 × 2,000 = 27 s,
    // 700/10,000 × 1,000 = 70 s.
    assert_eq!(
        place(&m, "p3.8xlarge", Basis::WithStalls, Metric::Time).0,
        1
    );
    assert_eq!(
        place(&m, "2× p3.8xlarge", Basis::WithStalls, Metric::Time).0,
        2
    );
    let r = evaluate(&Stash, &s).unwrap();
    assert!(r.notes.iter().any(|n| n.text
        == "Not ranked measured with stalls: p3.16xlarge (the ranking table's last column says why)."
        && n.field.as_deref() == Some("models.stash.runs")));
    let t = r.table("measured-ranking").unwrap();
    let last = t.columns.len() - 1;
    let p16 = t
        .rows
        .iter()
        .find(|row| row[0] == Value::text("p3.16xlarge"))
        .unwrap();
    assert!(p16[last].display().contains("no run (3)"));
    // Rows ranked with stalls come first, in rank order.
    assert_eq!(t.rows[0][0], Value::text("p3.8xlarge"));
}

#[test]
fn the_table_has_units_in_its_headers_and_the_json_carries_the_ranking() {
    let s = p3_example();
    let r = evaluate(&Stash, &s).unwrap();
    let t = r.table("measured-ranking").unwrap();
    let headers: Vec<String> = t.columns.iter().map(|c| c.header()).collect();
    for h in [
        "price [USD/h]",
        "epoch with stalls (run 3) [s]",
        "epoch cost with stalls [USD]",
        "epoch without stalls (run 1) [s]",
        "epoch cost without stalls [USD]",
        "predicted epoch (extension) [s]",
        "predicted epoch cost [USD]",
    ] {
        assert!(headers.iter().any(|x| x == h), "{h} not in {headers:?}");
    }
    assert_eq!(t.rows.len(), 3);
    assert!(t.rows.iter().all(|row| row.len() == t.columns.len()));
    assert!(r.non_finite().is_none(), "{:?}", r.non_finite());
    // The shipped runs: measured with stalls and predicted agree.
    assert!(r.notes.iter().any(|n| n
        .text
        .starts_with("The measured order with stalls and the predicted order agree")));
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.contains("\"measured-ranking\""));
    let e = serde_json::to_value(stash_eval(&s).unwrap()).unwrap();
    let rows = &e["measured_ranking"]["rows"];
    assert_eq!(rows[0]["name"], "p3.16xlarge");
    assert_eq!(rows[0]["with_stalls"]["Ok"]["time"]["rank"], 1);
}

#[test]
fn forty_configurations_tie_on_cost_without_stalls_and_stay_readable() {
    // k× p3.2xlarge, k = 1 … 40, each run (1) 100 s over 1,000 samples;
    // an epoch of 40,000 samples. Without stalls: 100/1,000 × 40,000/k =
    // 4,000/k s at k × USD 3.06/h (Table I, p3.2xlarge):
    // 4,000/3600 × 3.06 = 3.40 USD for every k, a 40-way tie. The rank
    // cell names ten and counts the other 29.
    let runs = (1..=40)
        .map(|k| {
            let name = if k == 1 {
                "p3.2xlarge".to_string()
            } else {
                format!("{k}× p3.2xlarge")
            };
            run(&name, 1, 100.0, 1_000.0)
        })
        .collect();
    let m = ranking(&with_runs(p3_example(), runs, 40_000.0));
    assert_eq!(m.rows.len(), 40);
    let wo = Basis::WithoutStalls;
    let last = row(&m, "40× p3.2xlarge");
    close(on(last, wo).epoch_s, 100.0);
    close(on(last, wo).epoch_usd.unwrap(), 3.4);
    assert_eq!(on(last, wo).time.rank, 1);
    let cost = on(row(&m, "p3.2xlarge"), wo).cost.clone().unwrap();
    assert_eq!((cost.rank, cost.ties, cost.tied_with.len()), (1, 39, 10));
    assert!(
        cost.words().ends_with(", … and 29 more)"),
        "{}",
        cost.words()
    );
    // Beyond the prediction's machines (2 by default): said per row.
    let why = last.predicted.as_ref().unwrap_err().to_string();
    assert!(
        why.contains("40 machines is more than the most machines per configuration (2)"),
        "{why}"
    );
}
