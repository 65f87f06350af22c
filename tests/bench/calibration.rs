//! `cargo bench --bench calibration`: calibrating each model with factors
//! on 50 measured runs with leave-one-out, as the page's worker does on
//! every edit of a scenario with runs (target < 100 ms in the page).

mod timing;

use std::hint::black_box;

use ddnn_planner::calibration::{calibrate_model, FitOptions};
use ddnn_planner::models::by_id;
use timing::time;

#[path = "../suite/calibration_runs50.rs"]
mod runs50;

fn main() {
    let s = runs50::scenario();
    let zeng = by_id("zeng").expect("zeng is registered");
    time(
        "calibration.zeng50",
        "calibrate Zeng et al. on 50 runs, with leave-one-out",
        1,
        || {
            black_box(calibrate_model(black_box(&s), zeng, &FitOptions::default()).ok());
        },
    );
    for (id, s) in [
        ("cynthia", runs50::cynthia()),
        ("stash", runs50::stash()),
        ("spotdnn", runs50::spotdnn()),
    ] {
        let m = by_id(id).expect("the model is registered");
        time(
            &format!("calibration.{id}50"),
            &format!("calibrate {} on 50 runs, with leave-one-out", m.name()),
            1,
            || {
                black_box(calibrate_model(black_box(&s), m, &FitOptions::default()).ok());
            },
        );
    }
}
