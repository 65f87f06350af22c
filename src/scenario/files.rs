//! Files into a scenario, the same way for the page and the CLI: a layer
//! table or Paleo network, a job profile, a loss curve (fitted), a catalog.
//! Every message names the file it came from.

use serde::{Deserialize, Serialize};

use super::Scenario;
use crate::errors::ReadError;
use crate::hardware::{parse_catalog, Instance};
use crate::report::{fmt_count, fmt_sig};
use crate::workload::loss_fit::fit_loss;
use crate::workload::paleo::{import_paleo, PaleoImport};
use crate::workload::profile::{LossCurve, LossParams, SyncMode};
use crate::workload::profile_io::{parse_loss_curve, parse_profile_json};
use crate::workload::table::parse_layer_table;
use crate::workload::Network;

/// What a file looks like, for telling a user how to use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Scenario,
    Paleo,
    LayerTable,
    Profile,
    LossCurve,
    Catalog,
    Unknown,
}

impl FileKind {
    /// How to pass this kind of file to `ddnn-planner eval`.
    pub fn usage(self) -> &'static str {
        match self {
            FileKind::Scenario => "a scenario document: `ddnn-planner eval FILE`",
            FileKind::Paleo => {
                "a Paleo network JSON: `ddnn-planner eval [scenario.json] --network FILE`"
            }
            FileKind::LayerTable => {
                "a layer table: `ddnn-planner eval [scenario.json] --network FILE`"
            }
            FileKind::Profile => {
                "a Cynthia job profile: `ddnn-planner eval [scenario.json] --profile FILE`"
            }
            FileKind::LossCurve => {
                "a loss curve (step, loss): `ddnn-planner eval scenario.json --loss-curve FILE [--loss-workers N]`"
            }
            FileKind::Catalog => {
                "an instance catalog: `ddnn-planner eval [scenario.json] --catalog FILE`"
            }
            FileKind::Unknown => "not a file ddnn-planner reads",
        }
    }
}

fn json_object(text: &str) -> Option<serde_json::Value> {
    serde_json::from_str::<serde_json::Value>(text).ok()
}

/// A Paleo network JSON has a `layers` object (a layer table's JSON form
/// is an array).
pub fn looks_like_paleo(text: &str) -> bool {
    json_object(text).is_some_and(|v| is_paleo(&v))
}

fn is_paleo(v: &serde_json::Value) -> bool {
    v.get("layers").is_some_and(serde_json::Value::is_object)
}

/// Guesses what a file is, cheaply and without side effects.
pub fn sniff(text: &str) -> FileKind {
    if let Some(v) = json_object(text) {
        if v.get("version").is_some() && v.get("workload").is_some() {
            return FileKind::Scenario;
        }
        if is_paleo(&v) {
            return FileKind::Paleo;
        }
        if v.is_array() || v.get("catalog").is_some() {
            if parse_catalog(text).is_ok() {
                return FileKind::Catalog;
            }
            if parse_layer_table(text).is_ok() {
                return FileKind::LayerTable;
            }
        }
        if parse_profile_json(text).is_ok() {
            return FileKind::Profile;
        }
        return FileKind::Unknown;
    }
    if parse_layer_table(text).is_ok() {
        return FileKind::LayerTable;
    }
    if parse_loss_curve(text, SyncMode::Bsp, 1).is_ok() {
        return FileKind::LossCurve;
    }
    FileKind::Unknown
}

/// A layer table (CSV/TSV/JSON) or a Paleo network JSON as the network,
/// with a sentence saying what was imported.
pub fn import_network(source: &str, text: &str) -> Result<(Network, String), ReadError> {
    read_network(source, text).map(|r| (r.network, r.message))
}

/// A network file as read: the network, the sentence, and for a Paleo
/// file the import with Paleo's own figures per layer.
pub struct NetworkRead {
    pub network: Network,
    pub message: String,
    pub paleo: Option<PaleoImport>,
}

/// `import_network`, keeping what a Paleo file says beyond the network.
pub fn read_network(source: &str, text: &str) -> Result<NetworkRead, ReadError> {
    if looks_like_paleo(text) {
        let imp = import_paleo(text).map_err(|e| format!("{source}: {e}"))?;
        let n = imp.network.layers.len();
        let ignored = imp.network.ignored.len();
        let eq4: f64 = imp.network.layers.iter().map(|l| l.forward_flop()).sum();
        let batch = imp
            .batch_size
            .map_or_else(|| "its batch".to_string(), |b| format!("a batch of {b}"));
        let msg = format!(
            "{source}: Paleo network '{}': {} counted, {ignored} ignored (listed below). \
             Paleo's own count (incl. pooling etc.) is {} FLOP for {batch}; Eq. 4 counts {} FLOP per sample (conv/fc only).",
            imp.network.name,
            plural(n, "conv/fc layer", "conv/fc layers"),
            fmt_sig(imp.paleo_forward_flop_per_batch),
            fmt_sig(eq4)
        );
        return Ok(NetworkRead {
            network: imp.network.clone(),
            message: msg,
            paleo: Some(imp),
        });
    }
    let layers = parse_layer_table(text).map_err(|e| format!("{source}: {e}"))?;
    let file = source.rsplit(['/', '\\']).next().unwrap_or(source);
    let name = file
        .split_once('.')
        .map_or(file, |(stem, _)| stem)
        .to_string();
    let msg = format!(
        "{source}: {} imported",
        plural(layers.len(), "layer", "layers")
    );
    Ok(NetworkRead {
        network: Network::from_layers(name, layers),
        message: msg,
        paleo: None,
    })
}

/// "1 layer", "3 layers".
pub fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Sets the job profile from a profile JSON file.
pub fn apply_profile(s: &mut Scenario, source: &str, text: &str) -> Result<String, ReadError> {
    let p = parse_profile_json(text).map_err(|e| format!("{source}: {e}"))?;
    s.workload.profile = Some(p);
    Ok(format!("{source}: profile loaded"))
}

/// Fits Eq. 1's `β0, β1` to a measured loss curve (the profile's sync
/// mode; an ASP curve needs the run's worker count) and keeps both.
pub fn apply_loss_curve(
    s: &mut Scenario,
    source: &str,
    text: &str,
    workers: u32,
) -> Result<String, ReadError> {
    let sync = s
        .workload
        .profile
        .as_ref()
        .map_or(SyncMode::Bsp, |p| p.sync);
    let read = fit_loss_curve(text, sync, workers).map_err(|e| format!("{source}: {e}"))?;
    s.workload.loss = Some(read.params);
    s.workload.loss_curve = Some(read.curve);
    Ok(format!("{source}: {}", read.message))
}

/// Most points of a loss curve kept in the scenario: a longer one is
/// thinned to every k-th point (first and last kept), so the scenario, its
/// link and every refit stay small. Eq. 1's two coefficients need far
/// fewer.
pub const MAX_KEPT_LOSS_POINTS: usize = 10_000;

/// A loss curve as read and fitted: what goes into the scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LossImport {
    pub curve: LossCurve,
    pub params: LossParams,
    /// "fitted β0 = …, β1 = … from … points, R² = …".
    pub message: String,
}

/// Reads a loss curve, thins it to `MAX_KEPT_LOSS_POINTS`, and fits Eq. 1.
pub fn fit_loss_curve(text: &str, sync: SyncMode, workers: u32) -> Result<LossImport, ReadError> {
    let mut curve = parse_loss_curve(text, sync, workers)?;
    let read = curve.points.len();
    let step = read.div_ceil(MAX_KEPT_LOSS_POINTS).max(1);
    if step > 1 {
        let last = curve.points.last().copied();
        curve.points = curve.points.iter().copied().step_by(step).collect();
        if let Some(l) = last.filter(|l| curve.points.last() != Some(l)) {
            curve.points.push(l);
        }
    }
    let fit = fit_loss(&curve).map_err(|e| e.to_string())?;
    let thinned = if step > 1 {
        format!(
            " ({} read; every {} kept, and the last)",
            fmt_count(read as f64),
            ordinal(step)
        )
    } else {
        String::new()
    };
    let message = format!(
        "fitted β0 = {}, β1 = {} from {} points{thinned}, R² = {:.4}",
        fmt_sig(fit.params.beta0),
        fmt_sig(fit.params.beta1),
        fmt_count(fit.points_used as f64),
        fit.r_squared
    );
    Ok(LossImport {
        curve,
        params: fit.params,
        message,
    })
}

/// "2nd", "3rd", "32nd".
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, r) if r != 11 => "st",
        (2, r) if r != 12 => "nd",
        (3, r) if r != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Merges a catalog file into the scenario's catalog: an entry with the
/// same name is replaced, others are added.
pub fn merge_catalog(s: &mut Scenario, source: &str, text: &str) -> Result<String, ReadError> {
    let list = parse_catalog(text).map_err(|e| format!("{source}: {e}"))?;
    Ok(merge_catalog_read(s, source, list))
}

/// `merge_catalog` of a catalog already read (the page reads it in a
/// worker): what was merged, in one sentence.
pub fn merge_catalog_read(s: &mut Scenario, source: &str, list: Vec<Instance>) -> String {
    let n = list.len();
    let added = merge_instances(&mut s.hardware.catalog, list);
    format!(
        "{source}: {} ({added} new)",
        plural(n, "instance", "instances")
    )
}

/// Adds `list` to `catalog`, replacing same-named entries; returns how
/// many were new.
pub fn merge_instances(catalog: &mut Vec<Instance>, list: Vec<Instance>) -> usize {
    let mut added = 0;
    for inst in list {
        match catalog.iter_mut().find(|i| i.name == inst.name) {
            Some(old) => *old = inst,
            None => {
                catalog.push(inst);
                added += 1;
            }
        }
    }
    added
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn sniffs_the_shipped_examples() {
        let cases = [
            (
                include_str!("../../public/examples/vgg16-hetero-1gbe.json"),
                FileKind::Scenario,
            ),
            (
                include_str!("../../public/examples/alexnet.paleo.json"),
                FileKind::Paleo,
            ),
            (
                include_str!("../../public/examples/vgg16-layers.csv"),
                FileKind::LayerTable,
            ),
            (
                include_str!("../../public/examples/small-net.tsv"),
                FileKind::LayerTable,
            ),
            (
                include_str!("../../public/examples/mnist-profile.json"),
                FileKind::Profile,
            ),
            (
                include_str!("../../public/examples/resnet32-asp-loss.csv"),
                FileKind::LossCurve,
            ),
            (
                include_str!("../../public/examples/cynthia-catalog.json"),
                FileKind::Catalog,
            ),
            ("hello", FileKind::Unknown),
        ];
        for (text, kind) in cases {
            assert_eq!(sniff(text), kind, "{}", &text[..text.len().min(60)]);
        }
    }

    #[test]
    fn one_layer_is_singular() {
        let (_, msg) = import_network(
            "one.csv",
            "name,kind,inch,kh,kw,outn,outh,outw\nfc,fc,10,1,1,5,1,1\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(msg.ends_with("1 layer imported"), "{msg}");
    }

    #[test]
    fn asp_fit_uses_the_run_worker_count() {
        let mut s = Scenario::example();
        s.workload.profile = crate::workload::profile_presets::profile_preset("resnet32-asp");
        let text = include_str!("../../public/examples/resnet32-asp-loss.csv");
        apply_loss_curve(&mut s, "c.csv", text, 4).unwrap_or_else(|e| panic!("{e}"));
        let one = s.workload.loss.clone();
        apply_loss_curve(&mut s, "c.csv", text, 1).unwrap_or_else(|e| panic!("{e}"));
        assert_ne!(one, s.workload.loss, "the worker count changes the ASP fit");
    }
}
