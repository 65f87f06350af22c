//! `ddnn-planner eval|url|decode|example`: the page's results in a
//! terminal. It reads and writes exactly the scenario document the page
//! carries in its URL.

use std::io::Read;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::report::csv_out::{to_csv, to_table};
use crate::report::cynthia_rows::{cynthia_csv, cynthia_table};
use crate::report::{evaluate_cynthia, evaluate_zeng};
use crate::scenario::codec::{decode_fragment, encode_fragment};
use crate::scenario::Scenario;
use crate::workload::presets::{network_preset, network_presets};

#[derive(Parser)]
#[command(
    name = "ddnn-planner",
    version,
    about = "Predict distributed DNN training iteration time and cost"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print every result the page shows for a scenario.
    Eval {
        /// Scenario JSON file, or `-` for standard input.
        scenario: String,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Print the share fragment (or a whole link with --base).
    Url {
        scenario: String,
        /// Page address to prefix, e.g. https://example.org/ddnn-planner/
        #[arg(long)]
        base: Option<String>,
    },
    /// Print the scenario JSON carried by a fragment or link.
    Decode { fragment: String },
    /// Print the page's landing example scenario, optionally with another
    /// preset network (alexnet, vgg11, vgg16, vgg19, resnet50, …).
    Example {
        #[arg(long)]
        network: Option<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Json,
    Csv,
    Table,
}

fn read_scenario(path: &str) -> Result<Scenario, String> {
    let mut text = String::new();
    if path == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("reading standard input: {e}"))?;
    } else {
        text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    }
    Scenario::from_json(&text).map_err(|e| format!("{path}: {e}"))
}

fn run(cli: Cli) -> Result<String, String> {
    match cli.command {
        Command::Eval { scenario, format } => {
            let s = read_scenario(&scenario)?;
            let e = evaluate_zeng(&s).map_err(|errs| {
                errs.iter()
                    .map(|e| format!("{scenario}: {e}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            })?;
            // Cynthia runs only when the scenario carries a job profile.
            let c = s.workload.profile.as_ref().map(|_| evaluate_cynthia(&s));
            Ok(match format {
                Format::Json => {
                    let mut v = serde_json::json!({ "zeng": e });
                    match &c {
                        Some(Ok(c)) => {
                            v["cynthia"] = serde_json::to_value(c).map_err(|e| e.to_string())?
                        }
                        Some(Err(errs)) => {
                            v["cynthia_errors"] =
                                serde_json::to_value(errs).map_err(|e| e.to_string())?
                        }
                        None => {}
                    }
                    serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
                }
                Format::Csv => {
                    let mut out = to_csv(&e);
                    if let Some(Ok(c)) = &c {
                        out.push_str(&cynthia_csv(c));
                    }
                    out
                }
                Format::Table => {
                    let mut out = format!("{}\n{}", s.summary_line(), to_table(&e));
                    match &c {
                        Some(Ok(c)) => out.push_str(&cynthia_table(c)),
                        Some(Err(errs)) => {
                            out.push_str("\nCynthia: not evaluated\n");
                            for e in errs {
                                out.push_str(&format!("  {e}\n"));
                            }
                        }
                        None => {}
                    }
                    out
                }
            })
        }
        Command::Url { scenario, base } => {
            let s = read_scenario(&scenario)?;
            let frag = encode_fragment(&s);
            Ok(match base {
                Some(b) => format!("{b}#{frag}"),
                None => frag,
            })
        }
        Command::Decode { fragment } => decode_fragment(&fragment)
            .map(|s| s.to_json())
            .map_err(|e| e.to_string()),
        Command::Example { network } => {
            let mut s = Scenario::example();
            if let Some(id) = network {
                let ids = || {
                    network_presets()
                        .iter()
                        .map(|p| p.id)
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                s.workload.network = network_preset(&id)
                    .ok_or_else(|| format!("no preset '{id}'; presets: {}", ids()))?;
                s.title = format!(
                    "{} on 2× Quadro RTX 4000 + 1× GTX 1060, 1 GbE",
                    s.workload.network.name
                );
            }
            Ok(s.to_json())
        }
    }
}

pub fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(out) => {
            println!("{}", out.trim_end());
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}
