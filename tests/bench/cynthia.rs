//! `cargo bench --bench cynthia`: Algorithm 1 over 20 instance types and
//! the exact search up to 64 workers, native, for the README's table (the
//! target: each under a millisecond; the paper reports 13-39 ms
//! for Algorithm 1).

mod timing;

use std::hint::black_box;

use ddnn_planner::models::cynthia::{algorithm1, cost_curves, exact, Goals, InstanceType};
use ddnn_planner::workload::profile::LossParams;
use ddnn_planner::workload::profile_presets::profile_presets;
use timing::time;

/// 20 made-up instance types spanning the presets' range.
fn types() -> Vec<InstanceType> {
    (0..20)
        .map(|i| {
            let f = 1.0 + f64::from(i) * 0.15;
            InstanceType {
                name: format!("type-{i}"),
                c_flops: 2.5e9 * f,
                b_bytes_per_s: 6.25e7 * (1.0 + f64::from(i % 4)),
                price_per_hour: 0.08 * f * (1.0 + 0.1 * f64::from(i % 3)),
            }
        })
        .collect()
}

fn main() {
    let types = types();
    for (id, profile) in profile_presets() {
        let loss = LossParams {
            beta0: 7360.0,
            beta1: 3200.0,
        };
        let goals = Goals {
            time_s: 3.0 * 3600.0,
            loss: 0.6,
            budget_usd: None,
        };
        time(
            &format!("cynthia.algorithm1.{id}"),
            &format!("algorithm1, 20 types, {id}"),
            2000,
            || {
                black_box(algorithm1(black_box(&profile), &loss, &goals, &types).ok());
            },
        );
        time(
            &format!("cynthia.exact.{id}"),
            &format!("exact, 20 types × n_ps ≤ n_wk ≤ 64, {id}"),
            50,
            || {
                black_box(exact(black_box(&profile), &loss, &goals, &types, 64).ok());
            },
        );
        time(
            &format!("cynthia.curves.{id}"),
            &format!("cost curves, 20 types, 64 workers, {id}"),
            50,
            || {
                black_box(cost_curves(black_box(&profile), &loss, &goals, &types, 64).ok());
            },
        );
    }
}
