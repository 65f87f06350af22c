//! spotDNN's invariants on random small catalogs: the exact optimiser
//! equals brute force and never costs more than Algorithm 1, the
//! frontier's one-search sweep equals brute force goal by goal, every plan
//! keeps to the quotas and meets both goals, a replan never reuses the
//! revoked type, more PS bandwidth never lengthens an iteration, and R
//! lies in [0, 1), 0 for one worker.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;

use ddnn_planner::models::spotdnn::plan::{
    algorithm1, brute_force, exact, fastest, sweep, Problem, Search,
};
use ddnn_planner::models::spotdnn::{
    cluster, convergence_of, InstanceType, LossForm, LossLaw, Workload,
};

fn workload(alpha1: f64, beta1: f64, ps: f64, form: LossForm, gamma4: f64) -> Workload {
    Workload {
        param_bytes: 20e6,
        req_bytes_per_s: 150e6,
        ps_bytes_per_s: ps,
        alpha1,
        beta1,
        loss: LossLaw {
            gamma1: 500.0,
            gamma2: -0.2,
            gamma3: 2500.0,
            gamma4,
            gamma5: 0.5,
            form,
        },
    }
}

prop_compose! {
    fn instance_type(i: usize)(
        gpus in 1u32..=4,
        gpu_batch in prop::sample::select(vec![128.0, 256.0, 512.0, 1024.0]),
        compute in 0.2f64..3.0,
        price in 0.1f64..4.0,
        quota in 0u32..=4,
    ) -> InstanceType {
        InstanceType {
            name: format!("t{i}"),
            gpus,
            batch: f64::from(gpus) * gpu_batch,
            gpu_batch,
            compute_s: compute,
            pcie_s: 2.0 * f64::from(gpus) * 20e6 / 10e9,
            price,
            other_price: Some(price * 3.0),
            quota: Some(quota),
        }
    }
}

fn catalog() -> impl Strategy<Value = Vec<InstanceType>> {
    (1usize..=4).prop_flat_map(|n| (0..n).map(instance_type).collect::<Vec<_>>())
}

fn problem<'a>(types: &'a [InstanceType], w: &'a Workload, loss: f64, time: f64) -> Problem<'a> {
    Problem {
        types,
        workload: w,
        loss_goal: loss,
        loss_from: None,
        time_goal_s: time,
        overhead_s: 0.0,
        existing: vec![0; types.len()],
        available: types.iter().map(|t| t.quota.unwrap_or(0)).collect(),
        max_workers: w.max_workers().unwrap_or(64),
    }
}

fn cost(s: &Search) -> Option<f64> {
    s.best.as_ref().map(|b| b.run.cost)
}

fn same(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
        (None, None) => true,
        _ => false,
    }
}

fn keeps_rules(p: &Problem, s: &Search) {
    if let Some(b) = &s.best {
        for (k, &c) in b.counts.iter().enumerate() {
            assert!(c >= p.existing[k] && c - p.existing[k] <= p.available[k]);
        }
        assert!(b.time_s <= p.time_goal_s);
        assert!(b.counts.iter().sum::<u32>() <= p.max_workers);
        let (bw, r, n) = (
            b.cluster.wa_batch,
            b.cluster.convergence,
            f64::from(b.cluster.workers),
        );
        // A replan's run counts from the loss reached so far.
        let done = p
            .loss_from
            .and_then(|l| p.workload.loss.iterations(l, bw, r, n))
            .unwrap_or(0.0);
        let l = p.workload.loss.loss_at(done + b.run.iterations, bw, r, n);
        assert!((l - p.loss_goal).abs() < 1e-9, "loss {l}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn exact_equals_brute_force_and_beats_algorithm_1(
        types in catalog(),
        alpha1 in 0.05f64..1.0,
        beta1 in -2.0f64..0.5,
        ps in 2e8f64..2e9,
        with_r in any::<bool>(),
        gamma4 in 0.0f64..1.0,
        loss in 0.6f64..1.5,
        time in 300.0f64..20_000.0,
    ) {
        let form = if with_r { LossForm::WithR } else { LossForm::RFree };
        let w = workload(alpha1, beta1, ps, form, gamma4);
        let p = problem(&types, &w, loss, time);
        let x = exact(&p, |_| {});
        let b = brute_force(&p);
        let a = algorithm1(&p);
        prop_assert!(x.complete);
        prop_assert!(same(cost(&x), cost(&b)), "exact {:?} brute {:?}", x.best, b.best);
        if let (Some(xc), Some(ac)) = (cost(&x), cost(&a)) {
            prop_assert!(xc <= ac * (1.0 + 1e-12));
        }
        if a.best.is_some() {
            prop_assert!(x.best.is_some());
        }
        keeps_rules(&p, &x);
        keeps_rules(&p, &a);
    }

    /// The frontier's sweep gives, for each time goal, the cost brute force
    /// finds for that goal alone, from any seeds (plans it may start from).
    #[test]
    fn sweep_equals_brute_force_goal_by_goal(
        types in catalog(),
        alpha1 in 0.05f64..1.0,
        beta1 in -2.0f64..0.5,
        with_r in any::<bool>(),
        loss in 0.6f64..1.5,
        goals in prop::collection::vec(300.0f64..20_000.0, 1..6),
        seed_goal in 300.0f64..20_000.0,
    ) {
        let form = if with_r { LossForm::WithR } else { LossForm::RFree };
        let w = workload(alpha1, beta1, 1e9, form, 0.3);
        let mut goals = goals;
        goals.sort_by(f64::total_cmp);
        let p = problem(&types, &w, loss, f64::INFINITY);
        let seed = brute_force(&Problem { time_goal_s: seed_goal, ..p.clone() }).best;
        let frontier = sweep(&p, &goals, &seed.iter().collect::<Vec<_>>());
        prop_assert!(frontier.complete);
        let plans = frontier.plans;
        prop_assert_eq!(plans.len(), goals.len());
        for (g, plan) in goals.iter().zip(&plans) {
            let q = Problem { time_goal_s: *g, ..p.clone() };
            let b = brute_force(&q);
            let got = plan.as_ref().map(|c| c.run.cost);
            prop_assert!(same(got, cost(&b)), "goal {} sweep {:?} brute {:?}", g, got, cost(&b));
            keeps_rules(&q, &Search { best: plan.clone(), evaluated: 0, workers_from: 0, workers_to: 0, complete: true });
        }
    }

    /// `fastest` is the least time any composition reaches: brute force
    /// finds a plan within that time and none just under it.
    #[test]
    fn fastest_is_the_least_time_brute_force_reaches(
        types in catalog(),
        alpha1 in 0.05f64..1.0,
        beta1 in -2.0f64..0.5,
        with_r in any::<bool>(),
        loss in 0.6f64..1.5,
    ) {
        let form = if with_r { LossForm::WithR } else { LossForm::RFree };
        let w = workload(alpha1, beta1, 1e9, form, 0.3);
        let p = problem(&types, &w, loss, f64::INFINITY);
        let f = fastest(&p);
        let in_time = |t: f64| brute_force(&Problem { time_goal_s: t, ..p.clone() }).best.is_some();
        match &f.best {
            Some(c) => {
                prop_assert!(in_time(c.time_s * (1.0 + 1e-9)));
                prop_assert!(!in_time(c.time_s * (1.0 - 1e-6)));
            }
            None => prop_assert!(!in_time(f64::INFINITY)),
        }
    }

    #[test]
    fn a_replan_keeps_survivors_and_never_reuses_the_revoked_type(
        types in catalog(),
        survivors in prop::collection::vec(0u32..=2, 4),
        revoked in 0usize..4,
        time in 200.0f64..5_000.0,
        with_r in any::<bool>(),
    ) {
        let form = if with_r { LossForm::WithR } else { LossForm::RFree };
        let w = workload(0.3, -0.5, 1e9, form, 0.4);
        let m = types.len();
        let revoked = revoked % m;
        let mut existing: Vec<u32> = survivors[..m].to_vec();
        existing[revoked] = 0;
        let mut available: Vec<u32> = types.iter().map(|t| t.quota.unwrap_or(0)).collect();
        available[revoked] = 0;
        let p = Problem {
            loss_from: Some(1.2),
            overhead_s: 30.0,
            existing: existing.clone(),
            available,
            ..problem(&types, &w, 0.8, time)
        };
        let x = exact(&p, |_| {});
        prop_assert!(same(cost(&x), cost(&brute_force(&p))));
        if let Some(b) = &x.best {
            prop_assert_eq!(b.counts[revoked], 0);
            for (c, e) in b.counts.iter().zip(&existing) {
                prop_assert!(c >= e);
            }
            prop_assert!(b.time_s >= 30.0);
        }
        keeps_rules(&p, &x);
    }

    #[test]
    fn more_ps_bandwidth_never_lengthens_an_iteration(
        types in catalog(),
        n in 1u32..64,
        alpha1 in 0.0f64..1.0,
        beta1 in -2.0f64..1.0,
        ps in 1e7f64..1e10,
        more in 1.0f64..10.0,
    ) {
        let a = workload(alpha1, beta1, ps, LossForm::RFree, 0.0);
        let b = workload(alpha1, beta1, ps * more, LossForm::RFree, 0.0);
        for t in &types {
            let ta = t.iteration(&a, f64::from(n)).total();
            let tb = t.iteration(&b, f64::from(n)).total();
            prop_assert!(tb <= ta * (1.0 + 1e-12), "{tb} > {ta}");
        }
    }

    #[test]
    fn convergence_is_in_0_1_and_0_for_one_worker(
        types in catalog(),
        counts in prop::collection::vec(0u32..=5, 4),
    ) {
        let w = workload(0.3, -0.5, 1e9, LossForm::WithR, 0.1);
        let counts = &counts[..types.len()];
        if let Some(c) = cluster(&types, counts, &w) {
            prop_assert!((0.0..1.0).contains(&c.convergence), "{}", c.convergence);
            if c.workers == 1 {
                prop_assert!(c.convergence.abs() < 1e-12);
            }
        }
    }
}

prop_compose! {
    /// A catalog whose later types may be copies of earlier ones at
    /// another price (the search fills such copies cheapest first).
    fn catalog_with_copies()(
        types in catalog(),
        copies in prop::collection::vec((0usize..4, 0.1f64..4.0, 0u32..=3), 0..3),
    ) -> Vec<InstanceType> {
        let mut types = types;
        let n = types.len();
        for (i, (of, price, quota)) in copies.into_iter().enumerate() {
            let mut t = types[of % n].clone();
            t.name = format!("copy{i}");
            t.price = price;
            t.quota = Some(quota);
            types.push(t);
        }
        types
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// Random types (with copies), quotas, running instances kept, goals,
    /// overhead, both loss forms and either sign of γ2: the exact plan,
    /// the fastest cluster and the frontier equal brute force's.
    #[test]
    fn every_search_equals_brute_force_with_running_instances(
        types in catalog_with_copies(),
        running in prop::collection::vec(0u32..=2, 7),
        alpha1 in 0.05f64..1.0,
        beta1 in -2.0f64..0.5,
        with_r in any::<bool>(),
        gamma2 in -0.3f64..0.05,
        gamma4 in 0.0f64..1.0,
        loss in 0.6f64..1.5,
        time in 300.0f64..20_000.0,
        overhead in prop::sample::select(vec![0.0, 30.0]),
        goals in prop::collection::vec(300.0f64..20_000.0, 1..4),
    ) {
        let form = if with_r { LossForm::WithR } else { LossForm::RFree };
        let mut w = workload(alpha1, beta1, 1e9, form, gamma4);
        w.loss.gamma2 = gamma2;
        let m = types.len();
        let existing: Vec<u32> = running[..m].to_vec();
        let available: Vec<u32> = types
            .iter()
            .zip(&existing)
            .map(|(t, &e)| t.quota.unwrap_or(0).saturating_sub(e))
            .collect();
        let p = Problem {
            overhead_s: overhead,
            existing,
            available,
            ..problem(&types, &w, loss, time)
        };
        let x = exact(&p, |_| {});
        let b = brute_force(&p);
        prop_assert!(x.complete);
        prop_assert!(same(cost(&x), cost(&b)), "exact {:?} brute {:?}", x.best, b.best);
        keeps_rules(&p, &x);
        let open = Problem { time_goal_s: f64::INFINITY, ..p.clone() };
        let f = fastest(&open);
        prop_assert!(f.complete);
        let least = brute_force(&open).best.map(|_| {
            // The least time brute force reaches: every composition's.
            let mut t = f64::INFINITY;
            let mut counts = p.existing.clone();
            each_composition(&open, 0, &mut counts, &mut |c| {
                if let Some(k) = open.candidate(c) {
                    if k.run.time_s.is_finite() {
                        t = t.min(k.time_s);
                    }
                }
            });
            t
        });
        match (&f.best, least) {
            (Some(c), Some(t)) => prop_assert!((c.time_s - t).abs() <= 1e-9 * t, "{} vs {}", c.time_s, t),
            (None, None) => {}
            (a, b) => prop_assert!(false, "fastest {:?} brute {:?}", a.as_ref().map(|c| c.time_s), b),
        }
        let mut goals = goals;
        goals.sort_by(f64::total_cmp);
        let frontier = sweep(&open, &goals, &[]);
        prop_assert!(frontier.complete);
        for (g, plan) in goals.iter().zip(&frontier.plans) {
            let q = Problem { time_goal_s: *g, ..p.clone() };
            let got = plan.as_ref().map(|c| c.run.cost);
            prop_assert!(same(got, cost(&brute_force(&q))), "goal {} sweep {:?}", g, got);
        }
    }
}

/// Every composition within the quotas and the worker limit, running
/// instances kept (brute force's, with the counts handed out).
fn each_composition(p: &Problem, k: usize, counts: &mut Vec<u32>, f: &mut impl FnMut(&[u32])) {
    if k == p.types.len() {
        let total: u32 = counts.iter().sum();
        if total > 0 && total <= p.max_workers {
            f(counts);
        }
        return;
    }
    let base = p.existing[k];
    for extra in 0..=p.available[k] {
        counts[k] = base + extra;
        each_composition(p, k + 1, counts, f);
    }
    counts[k] = base;
}

#[test]
fn one_worker_has_no_spread() {
    assert_eq!(convergence_of(&[1.0]), 0.0);
}

/// The shrunk case of issue 32's finding: copy0 (t0's copy, cheaper, at
/// its quota with one running) and t0 are one class, so the running copy
/// is in every bound's fixed part, whose WA batch (`V/I`) is 384 but for
/// rounding. Its price line to t0's point (batch 384) was near-vertical
/// (λ ≈ 7e15): evaluated, it bounded 3 × t0's class above the plan
/// [2, 0, 1, 0] itself ($14.17 against $7.73), and the frontier, with no
/// seed, returned [1, 0, 1, 1] ($13.79).
#[test]
fn a_running_copy_does_not_cut_off_the_frontiers_plan() {
    let ty = |name: &str, gpus: u32, compute: f64, price: f64, quota: u32| {
        let gpu_batch = if gpus == 3 { 128.0 } else { 256.0 };
        InstanceType {
            name: name.into(),
            gpus,
            batch: f64::from(gpus) * gpu_batch,
            gpu_batch,
            compute_s: compute,
            pcie_s: 2.0 * f64::from(gpus) * 20e6 / 10e9,
            price,
            other_price: Some(price * 3.0),
            quota: Some(quota),
        }
    };
    let types = [
        ty("t0", 3, 1.9264436122527715, 0.9040001644581216, 2),
        ty("t1", 2, 2.1847320980834404, 0.1, 0),
        ty("copy0", 3, 1.9264436122527715, 0.4167098817009849, 0),
        ty("copy1", 2, 2.1847320980834404, 2.512099116265526, 1),
    ];
    let mut w = workload(0.05, 0.0, 1e9, LossForm::RFree, 0.0);
    w.loss.gamma2 = 0.0;
    let goal = 15_199.540092753188;
    let p = Problem {
        existing: vec![0, 0, 1, 0],
        available: vec![2, 0, 0, 1],
        ..problem(&types, &w, 0.7472950169119272, goal)
    };
    let brute = brute_force(&p);
    let best = brute.best.as_ref().map(|c| c.counts.clone());
    assert_eq!(best, Some(vec![2, 0, 1, 0]));
    let open = Problem {
        time_goal_s: f64::INFINITY,
        ..p.clone()
    };
    let frontier = sweep(&open, &[goal], &[]);
    assert!(frontier.complete);
    let got = frontier.plans[0].as_ref().map(|c| c.run.cost);
    // Tolerance: `same`'s 1e-9 relative.
    assert!(
        same(got, cost(&brute)),
        "sweep {got:?} brute {:?}",
        cost(&brute)
    );
}
