//! `cargo bench --bench calibration [-- ID…]`: calibrating each model
//! with factors (or those named) on 50 measured runs with leave-one-out,
//! as the page's worker does on every edit of a scenario with runs
//! (target < 100 ms in the page).

mod timing;

use std::hint::black_box;

use ddnn_planner::calibration::{calibrate_model, FitOptions};
use ddnn_planner::models::by_id;
use timing::{record_value, time};

#[path = "../suite/calibration_runs50.rs"]
mod runs50;

/// A fifty-run scenario of `runs50`.
type RunSet = fn() -> ddnn_planner::scenario::Scenario;

/// Distinct clusters among `s`'s runs: runs of one cluster share one
/// prediction in a calibration, so the time grows with these.
fn clusters(s: &ddnn_planner::scenario::Scenario) -> usize {
    let mut seen: Vec<(&Vec<_>, &Option<_>)> = Vec::new();
    for r in &s.runs {
        if !seen.contains(&(&r.workers, &r.ps)) {
            seen.push((&r.workers, &r.ps));
        }
    }
    seen.len()
}

fn main() {
    // `cargo bench --bench calibration -- li`: only the models whose id
    // is given (none: every one).
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |id: &str| only.is_empty() || only.iter().any(|o| o == id);
    let sets: [(&str, RunSet); 6] = [
        ("zeng", runs50::scenario),
        ("cynthia", runs50::cynthia),
        ("stash", runs50::stash),
        ("spotdnn", runs50::spotdnn),
        // Each cluster simulated at up to 16 link ratios, each run a few
        // times whole.
        ("li", runs50::li),
        ("li-distinct", runs50::li_distinct),
    ];
    for (id, s) in sets.into_iter().filter(|(id, _)| wanted(id)) {
        let s = s();
        let n = clusters(&s);
        record_value(&format!("calibration.{id}50.clusters"), n as f64);
        let m = by_id(id.strip_suffix("-distinct").unwrap_or(id)).expect("the model is registered");
        time(
            &format!("calibration.{id}50"),
            &format!(
                "calibrate {} on 50 runs ({n} clusters), with leave-one-out",
                m.name()
            ),
            1,
            || {
                black_box(calibrate_model(black_box(&s), m, &FitOptions::default()).ok());
            },
        );
    }
}
