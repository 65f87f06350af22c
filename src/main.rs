//! The native CLI; the page is `src/bin/app.rs`.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    ddnn_planner::cli::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}
