//! Cynthia's stated behaviour (Sec. 2 and 5, Tables 2 and 4) reproduced
//! from Table 4's profiles on the m4.xlarge docker preset.
//!
//! Table 4's rows are not mutually consistent (models.md), so these tests
//! check the paper's findings — who saturates, where, and the trend — not
//! its figures digit by digit.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::hardware::aws::cynthia_catalog;
use ddnn_planner::models::cynthia::eval::instance_type;
use ddnn_planner::models::cynthia::{
    algorithm1, exact, iteration, saturation, Bottleneck, ClusterSpec, Goals, InstanceType,
};
use ddnn_planner::workload::profile::{LossParams, Profile};
use ddnn_planner::workload::profile_presets::profile_presets;

fn types() -> Vec<InstanceType> {
    cynthia_catalog()
        .iter()
        .filter_map(|i| {
            instance_type(
                i,
                ddnn_planner::hardware::Pricing::OnDemand,
                Default::default(),
            )
            .ok()
        })
        .collect()
}

fn m4() -> InstanceType {
    types()
        .into_iter()
        .find(|t| t.name.starts_with("m4.xlarge"))
        .unwrap_or_else(|| panic!("no m4.xlarge"))
}

fn profile(id: &str) -> Profile {
    profile_presets()
        .into_iter()
        .find(|(i, _)| *i == id)
        .map(|(_, p)| p)
        .unwrap_or_else(|| panic!("no {id}"))
}

#[test]
fn mnist_bsp_slows_down_beyond_a_few_workers() {
    let p = profile("mnist-dnn-bsp");
    let t: Vec<f64> = (1..=16)
        .map(|n| iteration(&p, &ClusterSpec::homogeneous(&m4(), n, 1)).t_iter_s)
        .collect();
    let best = (0..t.len())
        .min_by(|&a, &b| t[a].total_cmp(&t[b]))
        .unwrap_or(0)
        + 1;
    assert!(best <= 4, "fastest at {best} workers: {t:?}");
    assert!(
        t[15] > 2.0 * t[best - 1],
        "16 workers should be much slower: {t:?}"
    );
    // The PS is the reason: beyond a few workers its CPU binds.
    let it8 = iteration(&p, &ClusterSpec::homogeneous(&m4(), 8, 1));
    assert_eq!(it8.utilisation.binding, Bottleneck::PsCpu);
}

#[test]
fn worker_utilisation_falls_as_in_table2() {
    // Table 2 (homogeneous): 100%, 100%, 54.0%, 26.2% at 1, 2, 4, 8 workers.
    let p = profile("mnist-dnn-bsp");
    let u: Vec<f64> = [1, 2, 4, 8]
        .iter()
        .map(|&n| {
            iteration(&p, &ClusterSpec::homogeneous(&m4(), n, 1))
                .utilisation
                .u
        })
        .collect();
    assert_eq!(u[0], 1.0);
    assert_eq!(u[1], 1.0);
    assert!(u[2] < 1.0 && u[2] > 0.3, "{u:?}");
    // Doubling the workers halves u once the PS CPU binds (54.0% → 26.2%).
    assert!((u[3] / u[2] - 0.5).abs() < 1e-12, "{u:?}");
}

#[test]
fn vgg19_asp_hits_the_ps_network_near_9_workers() {
    let p = profile("vgg19-asp");
    let sat = saturation(&p, &ClusterSpec::homogeneous(&m4(), 1, 1));
    assert!((8.5..10.0).contains(&sat.network_from_workers), "{sat:?}");
    assert!(sat.cpu_from_workers > sat.network_from_workers, "{sat:?}");
    let at = |n| {
        iteration(&p, &ClusterSpec::homogeneous(&m4(), n, 1))
            .utilisation
            .binding
    };
    assert_eq!(at(8), Bottleneck::None);
    assert_eq!(at(10), Bottleneck::PsNetwork);
}

#[test]
fn a_second_ps_relieves_the_mnist_bottleneck() {
    let p = profile("mnist-dnn-bsp");
    let one = iteration(&p, &ClusterSpec::homogeneous(&m4(), 8, 1));
    let two = iteration(&p, &ClusterSpec::homogeneous(&m4(), 8, 2));
    assert!(two.utilisation.u > one.utilisation.u);
    assert!(
        two.t_iter_s < one.t_iter_s,
        "{} vs {}",
        two.t_iter_s,
        one.t_iter_s
    );
}

#[test]
fn saturated_bsp_compute_never_exceeds_the_ps_cpu_limit() {
    // models.md: a saturated PS caps BSP compute at w·c_prof/(c_ps·c_base).
    let p = profile("mnist-dnn-bsp");
    let cap = p.w_iter_flop * p.c_prof_flops / (m4().c_flops * p.c_base_flops);
    for n in 4..=32 {
        let it = iteration(&p, &ClusterSpec::homogeneous(&m4(), n, 1));
        assert!(
            (it.t_comp_s - cap).abs() <= cap * 1e-12,
            "n = {n}: {} vs {cap}",
            it.t_comp_s
        );
    }
}

#[test]
fn plans_meet_their_goals_and_exact_is_never_dearer() {
    let p = profile("cifar10-dnn-bsp");
    let loss = LossParams {
        beta0: 200.0,
        beta1: 50.0,
    };
    let goals = Goals {
        time_s: 6.0 * 3600.0,
        loss: 0.5,
        budget_usd: None,
    };
    let paper = algorithm1(&p, &loss, &goals, &types()).unwrap_or_else(|e| panic!("{e}"));
    let best = exact(&p, &loss, &goals, &types(), 64).unwrap_or_else(|e| panic!("{e}"));
    let e = best
        .plan
        .unwrap_or_else(|| panic!("no exact plan: {:?}", best.shortfalls));
    assert!(e.run.train_time_s <= goals.time_s);
    assert!(1 <= e.run.n_ps && e.run.n_ps <= e.run.n_wk && e.run.n_wk <= 64);
    if let Some(a) = paper.plan {
        assert!(a.run.train_time_s < goals.time_s);
        if a.run.n_ps <= a.run.n_wk && a.run.n_wk <= 64 {
            assert!(e.run.cost_usd <= a.run.cost_usd * (1.0 + 1e-12));
        }
    }
}

#[test]
fn impossible_goals_say_which_constraint_fails() {
    let p = profile("vgg19-asp");
    let loss = LossParams {
        beta0: 100.0,
        beta1: 10.0,
    };
    let goals = Goals {
        time_s: 60.0,
        loss: 0.5,
        budget_usd: None,
    };
    let r = exact(&p, &loss, &goals, &types(), 16).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.plan.is_none());
    assert_eq!(r.shortfalls.len(), types().len());
    assert!(
        r.shortfalls
            .iter()
            .all(|s| s.reason.starts_with("time:") && s.reason.contains("over T_g")),
        "{:?}",
        r.shortfalls
    );
    let budget = Goals {
        time_s: 1e9,
        loss: 0.5,
        budget_usd: Some(1e-6),
    };
    let r = exact(&p, &loss, &budget, &types(), 4).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        r.shortfalls.iter().all(|s| s.reason.starts_with("budget:")),
        "{:?}",
        r.shortfalls
    );
}

#[test]
fn algorithm1_says_when_a_type_is_feasible_but_not_cheaper() {
    // The same machine at twice the price: every n_wk that meets T_g on the
    // first type also meets it on the second, at twice the cost.
    let p = profile("cifar10-dnn-bsp");
    let loss = LossParams {
        beta0: 200.0,
        beta1: 50.0,
    };
    let goals = Goals {
        time_s: 6.0 * 3600.0,
        loss: 0.5,
        budget_usd: None,
    };
    let cheap = m4();
    let dear = InstanceType {
        name: "m4.xlarge dear".into(),
        price_per_hour: 2.0 * cheap.price_per_hour,
        ..cheap.clone()
    };
    let r = algorithm1(&p, &loss, &goals, &[cheap.clone(), dear]).unwrap_or_else(|e| panic!("{e}"));
    let kept = r
        .plan
        .unwrap_or_else(|| panic!("no plan: {:?}", r.per_type));
    assert_eq!(kept.instance, cheap.name);
    assert!(
        r.per_type[0].note.starts_with("kept n_wk"),
        "{}",
        r.per_type[0].note
    );
    let note = &r.per_type[1].note;
    assert!(r.per_type[1].found.is_none());
    assert!(note.starts_with("feasible at n_wk = "), "{note}");
    assert!(note.contains("not cheaper than the best so far"), "{note}");
    assert!(!note.contains("meets T_g"), "{note}");
    let best_cost = ddnn_planner::report::Unit::Usd.display(kept.run.cost_usd);
    assert!(note.contains(&best_cost), "{note} should name {best_cost}");
}
