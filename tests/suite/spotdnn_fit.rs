//! spotDNN's coefficient fits (Sec. IV). The paper publishes no raw
//! measurements, so each fit is checked on data generated from known
//! coefficients (the authors' ResNet-110 profile and Table III's types):
//! noise-free data give the coefficients back to 1e-6 (relative), noisy
//! data within four standard errors, and data that cannot separate a
//! coefficient say so. The fits then reach the report: its table, its
//! chart, the coefficients used where a field is empty, and actions that
//! copy them into their fields.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::evaluate;
use ddnn_planner::models::spotdnn::eval::{prepare, SpotEvaluation};
use ddnn_planner::models::spotdnn::fit::{self, SpeedObservation, Trace};
use ddnn_planner::models::spotdnn::presets::table1_example;
use ddnn_planner::models::spotdnn::section::{
    LossPoint, MemoryPoint, SpeedPoint, SpotDnnSettings, ID,
};
use ddnn_planner::models::spotdnn::{cluster, LossForm, LossLaw, Mix, SpotDnn};
use ddnn_planner::report::Report;
use ddnn_planner::scenario::patch::apply;
use ddnn_planner::scenario::Scenario;

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-12)
}

fn prepared() -> SpotEvaluation {
    prepare(&table1_example()).unwrap_or_else(|e| panic!("{e:?}"))
}

fn counts(e: &SpotEvaluation, plan: &[(&str, u32)]) -> Vec<u32> {
    let mut c = vec![0; e.types.len()];
    for (name, n) in plan {
        let k = e.types.iter().position(|t| t.name == *name).expect(name);
        c[k] += n;
    }
    c
}

/// `1 ± amp`, uniform, from a fixed xorshift sequence (the
/// same numbers natively and in wasm32).
fn wobble(i: usize, amp: f64) -> f64 {
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ (i as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    for _ in 0..3 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    let u = (x >> 11) as f64 / (1u64 << 53) as f64;
    1.0 + amp * (2.0 * u - 1.0)
}

#[test]
fn memory_fit_gives_alpha2_and_beta2_back() {
    // 20 MB per sample on top of 1.2 GB: α2 = 1/(20 MB) = 50 samples/GB,
    // β2 = −1.2 GB / 20 MB = −60.
    let pts: Vec<MemoryPoint> = [16.0, 32.0, 64.0, 128.0]
        .iter()
        .map(|&b| MemoryPoint {
            batch: b,
            bytes: 1.2e9 + 20e6 * b,
        })
        .collect();
    let f = fit::memory(&pts).unwrap();
    assert!(close(f.value("α2").unwrap(), 5e-8, 1e-9), "{f:?}");
    assert!(close(f.value("β2").unwrap(), -60.0, 1e-9), "{f:?}");
    assert!(f.r_squared > 1.0 - 1e-12 && f.determined());
    assert!(fit::memory(&pts[..1]).is_err());
    let flat: Vec<MemoryPoint> = pts
        .iter()
        .map(|p| MemoryPoint {
            batch: p.batch,
            bytes: 2e9 - p.batch,
        })
        .collect();
    assert!(fit::memory(&flat)
        .unwrap_err()
        .to_string()
        .contains("does not grow"));
}

#[test]
fn contention_fit_gives_eq9_back_from_cluster_speeds() {
    let e = prepared();
    // P(n) = 0.8·√n − 1.92 is in (0, 1) for 9 ≤ n ≤ 13; 4 workers share
    // 1.2 GB/s above B_req (no contention, so no P).
    let plans: Vec<Vec<(&str, u32)>> = vec![
        vec![("g3.8xlarge", 9)],
        vec![("g3.8xlarge", 5), ("g3.16xlarge", 5)],
        vec![("g4dn.4xlarge", 4), ("g3.8xlarge", 3), ("p2.8xlarge", 5)],
        vec![("g3.16xlarge", 13)],
        vec![("g3.8xlarge", 4)],
    ];
    let obs: Vec<SpeedObservation> = plans
        .iter()
        .map(|p| {
            let c = counts(&e, p);
            let m = Mix::of(&e.types, &c, &e.workload).unwrap();
            SpeedObservation {
                label: format!("{p:?}"),
                counts: c,
                steps_per_s: 1.0 / m.expected_iteration_s(),
            }
        })
        .collect();
    let mut w = e.workload;
    w.alpha1 = 0.0;
    w.beta1 = 0.0;
    let (f, points) = fit::contention(&e.types, &w, &obs).unwrap();
    assert!(close(f.value("α1").unwrap(), 0.8, 1e-6), "{f:?}");
    assert!(close(f.value("β1").unwrap(), -1.92, 1e-6), "{f:?}");
    assert_eq!(f.points, 4);
    assert_eq!(points[4].contention, None);
    for p in &points {
        assert!(close(p.predicted, p.measured, 1e-6), "{p:?}");
    }
    // A speed faster than Eq. 6-8 allow for any P is left out, and said.
    let mut fast = obs.clone();
    fast[0].steps_per_s *= 10.0;
    let (f, points) = fit::contention(&e.types, &w, &fast).unwrap();
    assert!(points[0].clamped);
    assert!(f.notes.iter().any(|n| n.contains("outside")), "{f:?}");
    // One size is not enough.
    assert!(fit::contention(&e.types, &w, &obs[..1]).is_err());
}

/// Traces of `plans` under `law`, sampled every 2,000 steps to 40,000,
/// each loss off by up to ±`noise` (uniform, independent).
fn traces(e: &SpotEvaluation, law: LossLaw, plans: &[Vec<(&str, u32)>], noise: f64) -> Vec<Trace> {
    let mut i = 0;
    plans
        .iter()
        .map(|p| {
            let f = cluster(&e.types, &counts(e, p), &e.workload).unwrap();
            let (b, r, n) = (f.wa_batch, f.convergence, f64::from(f.workers));
            let points = (0..=20)
                .map(|k| {
                    i += 1;
                    let j = 2000.0 * f64::from(k);
                    (j, law.loss_at(j, b, r, n) + noise * (wobble(i, 1.0) - 1.0))
                })
                .collect();
            Trace {
                label: format!("{p:?}"),
                wa_batch: b,
                convergence: r,
                workers: n,
                points,
            }
        })
        .collect()
}

fn mixed_plans() -> Vec<Vec<(&'static str, u32)>> {
    vec![
        vec![("g3.8xlarge", 2)],
        vec![("p3.2xlarge", 4)],
        vec![("g4dn.4xlarge", 1), ("g3.16xlarge", 2)],
        vec![("p2.8xlarge", 1), ("g3.8xlarge", 3), ("p3.2xlarge", 1)],
    ]
}

#[test]
fn loss_fit_gives_the_authors_r_free_law_back() {
    let e = prepared();
    let truth = e.workload.loss;
    let t = traces(&e, truth, &mixed_plans(), 0.0);
    let (law, f) = fit::loss(&t, LossForm::RFree).unwrap();
    for (got, want) in law.gammas().iter().zip(truth.gammas()) {
        assert!(close(*got, want, 1e-6), "{law:?}");
    }
    assert!(f.determined() && f.r_squared > 1.0 - 1e-12, "{f:?}");
}

#[test]
fn loss_fit_gives_a_law_with_r_back() {
    let e = prepared();
    let truth = LossLaw {
        gamma1: 1500.0,
        gamma2: -0.15,
        gamma3: 2200.0,
        gamma4: 0.4,
        gamma5: 0.3,
        form: LossForm::WithR,
    };
    let t = traces(&e, truth, &mixed_plans(), 0.0);
    let (law, f) = fit::loss(&t, LossForm::WithR).unwrap();
    for (got, want) in law.gammas().iter().zip(truth.gammas()) {
        assert!(close(*got, want, 1e-5), "{law:?}");
    }
    assert!(f.determined(), "{f:?}");
}

#[test]
fn noisy_traces_give_the_law_within_four_standard_errors() {
    let e = prepared();
    let truth = e.workload.loss;
    let t = traces(&e, truth, &mixed_plans(), 0.005);
    let (_, f) = fit::loss(&t, LossForm::RFree).unwrap();
    assert!(f.r_squared > 0.99, "{f:?}");
    for (c, want) in f.coefficients.iter().zip([876.5, -0.2, 2507.6, 0.5]) {
        assert!(c.std_error > 0.0, "{c:?}");
        assert!(
            (c.value - want).abs() <= 4.0 * c.std_error,
            "{c:?} vs {want}"
        );
    }
}

#[test]
fn one_trace_cannot_separate_the_batch_terms_and_says_so() {
    let e = prepared();
    let truth = e.workload.loss;
    let t = traces(&e, truth, &mixed_plans()[..1], 0.0);
    let (law, f) = fit::loss(&t, LossForm::RFree).unwrap();
    let g2 = f.coefficients.iter().find(|c| c.name == "γ2").unwrap();
    assert!(g2
        .undetermined
        .as_deref()
        .unwrap()
        .contains("different batches"));
    assert!(!f.determined());
    // The trace itself is still followed.
    assert!(f.r_squared > 1.0 - 1e-9, "{f:?}");
    let (b, n) = (t[0].wa_batch, t[0].workers);
    assert!(close(
        law.loss_at(10_000.0, b, 0.0, n),
        truth.loss_at(10_000.0, b, 0.0, n),
        1e-6
    ));
    // With R, one trace leaves γ4 to the scale of γ3 as well.
    let (_, f) = fit::loss(&t, LossForm::WithR).unwrap();
    let g4 = f.coefficients.iter().find(|c| c.name == "γ4").unwrap();
    assert!(g4.undetermined.is_some(), "{f:?}");
}

fn with_fits(edit: impl FnOnce(&mut SpotDnnSettings)) -> Scenario {
    let mut s = table1_example();
    let mut set: SpotDnnSettings = s.section(ID).unwrap();
    edit(&mut set);
    s.set_section(ID, &set);
    s
}

fn report(s: &Scenario) -> Report {
    evaluate(&SpotDnn, s).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn empty_fields_take_the_fits_and_actions_copy_them_in() {
    let e = prepared();
    let truth = e.workload.loss;
    let rows: Vec<LossPoint> = traces(&e, truth, &mixed_plans(), 0.0)
        .iter()
        .zip([
            "2× g3.8xlarge",
            "4× p3.2xlarge",
            "1× g4dn.4xlarge + 2× g3.16xlarge",
            "1× p2.8xlarge + 3× g3.8xlarge + 1× p3.2xlarge",
        ])
        .flat_map(|(t, name)| {
            t.points.iter().map(move |&(j, l)| LossPoint {
                cluster: name.to_string(),
                iteration: j,
                loss: l,
            })
        })
        .collect();
    let s = with_fits(|set| {
        set.loss = None;
        set.alpha2_per_byte = None;
        set.fits.loss = rows;
        set.fits.form = LossForm::RFree;
        // The preset's α2 = 100 samples/GB, β2 = −100.
        set.fits.memory = [64.0, 128.0, 256.0]
            .iter()
            .map(|&b| MemoryPoint {
                batch: b,
                bytes: (b + 100.0) * 1e7,
            })
            .collect();
        set.fits.speeds = vec![SpeedPoint {
            cluster: "9× g3.8xlarge".into(),
            steps_per_s: 5.0,
        }];
    });
    let r = report(&s);
    let fits = r.table("fits").expect("fits table");
    assert_eq!(fits.rows.len(), 6, "α2, β2 and four γ");
    assert!(r.charts.iter().any(|c| c.key == "loss-fit"));
    // With the fitted law and batch the plans are the typed preset's.
    let typed = report(&table1_example());
    let plan = |r: &Report| {
        r.headline
            .iter()
            .find(|f| f.key == "exact-plan")
            .map(|f| f.value.display())
    };
    assert_eq!(plan(&r), plan(&typed));
    assert!(r
        .notes
        .iter()
        .any(|n| n.text.contains("fitted values are used")));
    // One speed is not a fit: said at its field.
    assert!(r
        .notes
        .iter()
        .any(|n| n.field.as_deref() == Some("models.spotdnn.fits.speeds")));
    // Applying the actions types the fits in.
    let mut s2 = s.clone();
    for key in ["use-loss-fit", "use-memory-fit"] {
        let a = r.actions.iter().find(|a| a.key == key).expect(key);
        s2 = apply(&s2, &a.patch).unwrap();
    }
    let set: SpotDnnSettings = s2.section(ID).unwrap();
    let law = set.loss.unwrap();
    assert!(close(law.gamma3, truth.gamma3, 1e-6));
    assert!(close(set.alpha2_per_byte.unwrap(), 1e-7, 1e-9));
    assert!(close(set.beta2, -100.0, 1e-9));
}

#[test]
fn the_plan_action_makes_the_exact_plan_the_cluster() {
    let s = table1_example();
    let r = report(&s);
    let a = r.actions.iter().find(|a| a.key == "use-plan").unwrap();
    let s2 = apply(&s, &a.patch).unwrap();
    let got: Vec<(String, u32)> = s2
        .hardware
        .cluster
        .workers
        .iter()
        .map(|g| (g.instance.clone(), g.count))
        .collect();
    // Table I's Srifty+ plan (spotdnn_paper.rs checks it against the paper).
    assert_eq!(
        got,
        vec![
            ("g4dn.4xlarge".to_string(), 2),
            ("g3.8xlarge".to_string(), 5),
            ("g3.16xlarge".to_string(), 2)
        ]
    );
    assert_eq!(
        report(&s2).subject,
        r.subject.replace(
            "5× g3.8xlarge + 3× g3.16xlarge",
            "2× g4dn.4xlarge + 5× g3.8xlarge + 2× g3.16xlarge"
        )
    );
}
