//! The integration tests, as one test binary: each file below is a module,
//! so the crate and its dependencies link once per target, not once per
//! file (a debug wasm32 test binary links the whole UI crate). Every module
//! runs natively and in headless Chromium unless it says otherwise.

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod calibrate_cli;
mod calibrate_cynthia;
mod calibrate_li;
mod calibrate_spotdnn;
mod calibrate_stash;
mod calibrate_zeng;
mod calibration_runs50;
mod calibration_wasm_bench;
mod chart_tables;
mod cli;
mod current_catalog;
mod cynthia_asp_fit;
mod cynthia_loss;
mod cynthia_model;
mod cynthia_presets;
mod cynthia_properties;
mod finite_reports;
mod fuzz_replay;
mod golden;
mod input_messages;
mod layer_table_import;
mod li_budget;
mod li_chrome;
mod li_generate;
mod li_link;
mod li_parse_fit;
mod li_properties;
mod li_sim;
mod li_ties;
mod li_trace_cli;
mod li_trace_steps;
mod li_wasm_bench;
mod network_listing_cli;
mod paleo_import;
mod paper_check;
mod properties;
mod registry;
mod report_caps;
mod runs_cli;
mod runs_compare;
mod runs_import;
mod runs_scenario;
mod runs_zeng_tables;
mod scenario_codec;
mod spotdnn_fit;
mod spotdnn_paper;
mod spotdnn_properties;
mod spotdnn_replan;
mod spotdnn_scale;
mod spotdnn_wasm_bench;
mod stash_paper;
mod stash_properties;
mod stash_ranking;
mod uncertainty;
mod uncertainty_wasm_bench;
mod v1_documents;
mod validation_ranges;
mod zeng_cost;
mod zeng_paper_tables;
mod zeng_queue;
mod zeng_table1;
