//! The web page. Built for wasm32 by Trunk; natively it only says so.

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    // The same wasm runs the models in a Web Worker (src/ui/evaluation.rs).
    if !ddnn_planner::ui::serve_if_worker() {
        leptos::mount::mount_to_body(ddnn_planner::ui::App);
        ddnn_planner::ui::mark_first_render();
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the page is built for wasm32 by Trunk: run `make serve`");
}
