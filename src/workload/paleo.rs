//! Importer for Paleo network files (the JSON format of TalwalkarLab/paleo
//! `nets/*.json`): a `"layers"` object of named layers, each with `parents`
//! and a `type`, plus `Block` / `ModelParallel` containers.
//!
//! Shapes are inferred through the graph in topological order. Convolutions
//! and inner products become Eq. 4 [`Layer`]s; every other layer is listed in
//! [`Network::ignored`] with a reason. Paleo's own forward FLOP count (which
//! also counts pooling and dropout, per batch) is reported beside Eq. 4's.
//!
//! Units: FLOP per sample (Eq. 4), FLOP per batch (Paleo), counts.
//!
//! Robustness: the input is untrusted (a user's file). Nothing here panics:
//! no `unwrap`, no slice indexing, iterative graph walks only, and every
//! dimension is bounded by [`MAX_DIM`] before it is multiplied.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use serde::Serialize;
use serde_json::{Map, Value};

use super::layer::{Layer, LayerKind, MAX_DIM};
use super::network::{IgnoredLayer, Network, MAX_LAYERS};
use super::text::{json_error_parts, shorten};

/// Largest file accepted (5 MiB); Inception v3 in this format is ~40 KiB.
pub const MAX_INPUT_BYTES: usize = 5 * 1024 * 1024;

/// Largest number of parent links over the whole network. `@all` parents
/// inside a `ModelParallel` block grow as splits², so this is bounded too.
pub const MAX_PARENT_LINKS: usize = 16 * MAX_LAYERS;

/// Network name used when the file has no `"name"` string.
const DEFAULT_NAME: &str = "Paleo network";

/// Why a Paleo file could not be imported; every message names the layer
/// and the field at fault.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum PaleoError {
    #[error("the file is {bytes} bytes, more than the {max} bytes (5 MiB) accepted")]
    TooLarge { bytes: usize, max: usize },
    #[error("not valid JSON at line {line}, column {column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("a Paleo network file is one JSON object with a \"layers\" object, not {found}")]
    NotAnObject { found: String },
    #[error("missing \"layers\": a Paleo network file has a top-level \"layers\" object mapping names to layers")]
    MissingLayers,
    #[error("\"layers\" must be an object mapping layer names to layers, not {found}")]
    LayersNotAnObject { found: String },
    #[error("the network has {count} layers (blocks expanded), more than the {max} accepted")]
    TooManyLayers { count: u64, max: usize },
    #[error("block '{block}' has \"splits\": {splits} of its {subs} layers, more than the {max} layers accepted in a network: reduce \"splits\"")]
    TooManySplits {
        block: String,
        splits: u64,
        subs: u64,
        max: usize,
    },
    #[error("layer '{layer}' is defined twice")]
    DuplicateLayer { layer: String },
    #[error("layer '{layer}': missing \"{field}\"")]
    MissingField { layer: String, field: String },
    #[error("layer '{layer}': \"{field}\" {message}")]
    InvalidField {
        layer: String,
        field: String,
        message: String,
    },
    #[error("layer '{layer}': \"{field}\" has {value}, but sizes must be at least 1")]
    NonPositive {
        layer: String,
        field: String,
        value: i128,
    },
    #[error("layer '{layer}': \"{field}\" gives {value}, larger than {max}, the largest accepted dimension")]
    TooBig {
        layer: String,
        field: String,
        value: u128,
        max: u64,
    },
    #[error("layer '{layer}': unknown parent '{parent}'")]
    UnknownParent { layer: String, parent: String },
    #[error("layer '{layer}': parent '{block}' is a block without an \"endpoint\"; name one of its layers ('{block}/…') or give the block an endpoint")]
    BlockWithoutEndpoint { layer: String, block: String },
    #[error("the layers' parents form a cycle: {}", .layers.join(" → "))]
    Cycle { layers: Vec<String> },
    #[error("no Input layer: a Paleo network starts from an Input layer (usually named 'data') with a \"tensor\" [N, H, W, C]")]
    NoInput,
    #[error("layer '{layer}': {message}")]
    Shape { layer: String, message: String },
}

/// One layer as read from the file, counted or not.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PaleoLayerInfo {
    /// Full name (`block/sub`, `block/sub@split` inside ModelParallel).
    pub name: String,
    /// The Paleo `type` string as written.
    pub paleo_type: String,
    /// Output tensor `[N, H, W, C]`; a 2-D `[N, C]` output is `[N, 1, 1, C]`.
    /// `N = 1` when the Input tensor leaves the batch open.
    pub output_shape: [u64; 4],
    /// Whether Eq. 4 counts it (convolution, inner product).
    pub counted: bool,
    /// Eq. 4 forward FLOP per sample (0 when not counted).
    pub eq4_flop_per_sample: f64,
    /// Paleo's forward FLOP for the whole batch (includes pooling, dropout).
    pub paleo_flop_per_batch: f64,
    /// Paleo's trainable parameters: weights plus biases (batch norm's are
    /// not counted, as in Paleo).
    pub params: u64,
}

/// The result of [`import_paleo`].
#[derive(Clone, Debug, PartialEq)]
pub struct PaleoImport {
    /// Counted layers in topological order, the rest in `ignored`.
    pub network: Network,
    /// `N` of the Input tensor (the layer named `data`, else the first
    /// Input); `None` when the file writes it as `-1` or `null`.
    pub batch_size: Option<u64>,
    /// Paleo's forward FLOP per batch, summed over all layers.
    pub paleo_forward_flop_per_batch: f64,
    /// Every layer in topological order.
    pub layers: Vec<PaleoLayerInfo>,
}

impl PaleoImport {
    /// Paleo's parameter total (weights + biases), for display beside the
    /// Eq. 4 weights, which exclude biases.
    pub fn paleo_params(&self) -> u64 {
        self.layers
            .iter()
            .fold(0u64, |a, l| a.saturating_add(l.params))
    }
}

/// Imports a Paleo network JSON file. See `docs/paleo-import.md`.
pub fn import_paleo(json: &str) -> Result<PaleoImport, PaleoError> {
    if json.len() > MAX_INPUT_BYTES {
        return Err(PaleoError::TooLarge {
            bytes: json.len(),
            max: MAX_INPUT_BYTES,
        });
    }
    let root: Value = serde_json::from_str(json).map_err(|e| {
        let (line, column, message) = json_error_parts(&e);
        PaleoError::Json {
            line,
            column,
            message,
        }
    })?;
    let top = root.as_object().ok_or_else(|| PaleoError::NotAnObject {
        found: describe(&root),
    })?;
    let layers_value = top.get("layers").ok_or(PaleoError::MissingLayers)?;
    let layers = layers_value
        .as_object()
        .ok_or_else(|| PaleoError::LayersNotAnObject {
            found: describe(layers_value),
        })?;
    let name = top
        .get("name")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or(DEFAULT_NAME)
        .to_string();

    let (count, widest) = count_layers(layers);
    if count > MAX_LAYERS as u64 {
        // Name the block whose splits did it, when one did.
        return Err(match widest {
            Some((block, splits, subs))
                if splits > 1 && subs.saturating_mul(splits) > count / 2 =>
            {
                PaleoError::TooManySplits {
                    block: block.to_string(),
                    splits,
                    subs,
                    max: MAX_LAYERS,
                }
            }
            _ => PaleoError::TooManyLayers {
                count,
                max: MAX_LAYERS,
            },
        });
    }
    let graph = Graph::expand(layers)?;
    let parents = graph.resolve_all()?;
    let order = topological_order(&graph.nodes, &parents)?;
    infer(&graph, &parents, &order, name)
}

// ---------------------------------------------------------------------------
// Graph expansion and parent resolution

/// A `Block` or `ModelParallel` container (not a layer itself).
struct BlockInfo<'a> {
    name: &'a str,
    spec: &'a Map<String, Value>,
    endpoint: Option<&'a str>,
}

/// One layer after block expansion.
struct Node<'a> {
    name: String,
    spec: &'a Map<String, Value>,
    /// Index into `Graph::blocks` when the layer sits in a block.
    block: Option<usize>,
    /// Split index inside a `ModelParallel` block.
    split: Option<u64>,
    /// Number of splits of its `ModelParallel` block (1 otherwise).
    splits: u64,
}

struct Graph<'a> {
    nodes: Vec<Node<'a>>,
    blocks: Vec<BlockInfo<'a>>,
    block_index: HashMap<&'a str, usize>,
    index: HashMap<String, usize>,
    /// `block/sub` of ModelParallel layers → number of splits; the layers
    /// themselves are `block/sub@0` … `block/sub@{k-1}`.
    split_bases: HashMap<String, u64>,
}

#[derive(Clone, Copy, PartialEq)]
enum Suffix {
    None,
    All,
    Own,
}

fn is_container(spec: &Map<String, Value>) -> Option<bool> {
    match spec.get("type").and_then(Value::as_str) {
        Some("Block") => Some(false),
        Some("ModelParallel") => Some(true),
        _ => None,
    }
}

/// Layers after expansion, computed leniently (errors come later) so the
/// size check runs before anything large is allocated; and the
/// `ModelParallel` block that expands most (name, splits, its layers).
/// `splits` is read as any number (`1.6e7` too), rounded up.
fn count_layers(layers: &Map<String, Value>) -> (u64, Option<(&str, u64, u64)>) {
    let mut widest: Option<(&str, u64, u64)> = None;
    let count = layers.iter().fold(0u64, |acc, (key, v)| {
        let n = match v.as_object() {
            Some(spec) if is_container(spec).is_some() => {
                let subs = spec
                    .get("layers")
                    .and_then(Value::as_object)
                    .map_or(0, Map::len) as u64;
                let splits = match is_container(spec) {
                    Some(true) => spec
                        .get("splits")
                        .and_then(Value::as_f64)
                        // `as` saturates: 1e300 stays huge.
                        .map_or(1, |f| if f > 1.0 { f.ceil() as u64 } else { 1 }),
                    _ => 1,
                };
                let n = subs.saturating_mul(splits);
                if widest.is_none_or(|(_, k, l)| k.saturating_mul(l) < n) {
                    widest = Some((key.as_str(), splits, subs));
                }
                n
            }
            _ => 1,
        };
        acc.saturating_add(n)
    });
    (count, widest)
}

fn layer_object<'a>(name: &str, v: &'a Value) -> Result<&'a Map<String, Value>, PaleoError> {
    v.as_object().ok_or_else(|| PaleoError::InvalidField {
        layer: name.to_string(),
        field: "(layer)".into(),
        message: format!(
            "must be a JSON object with \"type\" and \"parents\", not {}",
            describe(v)
        ),
    })
}

impl<'a> Graph<'a> {
    fn expand(layers: &'a Map<String, Value>) -> Result<Self, PaleoError> {
        let mut g = Graph {
            nodes: Vec::new(),
            blocks: Vec::new(),
            block_index: HashMap::new(),
            index: HashMap::new(),
            split_bases: HashMap::new(),
        };
        for (key, value) in layers {
            let spec = layer_object(key, value)?;
            let Some(model_parallel) = is_container(spec) else {
                g.push(Node {
                    name: key.clone(),
                    spec,
                    block: None,
                    split: None,
                    splits: 1,
                })?;
                continue;
            };
            let splits = if model_parallel {
                match spec.get("splits") {
                    None => 1,
                    Some(v) => check_dim(key, "splits", int_of(key, "splits", v)?)?,
                }
            } else {
                1
            };
            let subs = match spec.get("layers") {
                None => return Err(missing(key, "layers")),
                Some(v) => v.as_object().ok_or_else(|| {
                    invalid(
                        key,
                        "layers",
                        format!(
                            "must be an object of the block's layers, not {}",
                            describe(v)
                        ),
                    )
                })?,
            };
            let endpoint = match spec.get("endpoint") {
                None => None,
                Some(Value::String(e)) if subs.contains_key(e) => Some(e.as_str()),
                Some(Value::String(e)) => {
                    return Err(invalid(
                        key,
                        "endpoint",
                        format!("names '{e}', which is not a layer of this block"),
                    ))
                }
                Some(v) => {
                    return Err(invalid(
                        key,
                        "endpoint",
                        format!("must be a layer name, not {}", describe(v)),
                    ))
                }
            };
            let block = g.blocks.len();
            g.blocks.push(BlockInfo {
                name: key,
                spec,
                endpoint,
            });
            g.block_index.insert(key, block);
            for s in 0..splits {
                for (sub, sv) in subs {
                    let full = if model_parallel {
                        format!("{key}/{sub}@{s}")
                    } else {
                        format!("{key}/{sub}")
                    };
                    let sub_spec = layer_object(&full, sv)?;
                    if is_container(sub_spec).is_some() {
                        return Err(invalid(
                            &full,
                            "type",
                            "is a block inside a block; nested blocks are not supported".into(),
                        ));
                    }
                    g.push(Node {
                        name: full,
                        spec: sub_spec,
                        block: Some(block),
                        split: model_parallel.then_some(s),
                        splits,
                    })?;
                }
            }
            if model_parallel {
                for sub in subs.keys() {
                    g.split_bases.insert(format!("{key}/{sub}"), splits);
                }
            }
        }
        Ok(g)
    }

    fn push(&mut self, node: Node<'a>) -> Result<(), PaleoError> {
        if self.index.contains_key(&node.name) {
            return Err(PaleoError::DuplicateLayer { layer: node.name });
        }
        self.index.insert(node.name.clone(), self.nodes.len());
        self.nodes.push(node);
        Ok(())
    }

    /// Parents of every node, as node indices.
    fn resolve_all(&self) -> Result<Vec<Vec<usize>>, PaleoError> {
        let mut links = 0usize;
        let mut all = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            let ids = self.resolve_node(node, MAX_PARENT_LINKS - links)?;
            links += ids.len();
            all.push(ids);
        }
        Ok(all)
    }

    /// A node's parents, refused as soon as they pass `budget` links (a
    /// long list of `@all` parents is never built whole).
    fn resolve_node(&self, node: &Node<'a>, budget: usize) -> Result<Vec<usize>, PaleoError> {
        let over = |ids: &Vec<usize>| {
            (ids.len() > budget).then(|| {
                invalid(
                    &node.name,
                    "parents",
                    format!("brings the network past {MAX_PARENT_LINKS} parent links, the most accepted"),
                )
            })
        };
        let block = node.block.and_then(|b| self.blocks.get(b));
        let raw = match node.spec.get("parents") {
            // Paleo requires the key; an Input layer without it is harmless.
            None if node.spec.get("type").and_then(Value::as_str) == Some("Input") => {
                return Ok(Vec::new())
            }
            None => return Err(missing(&node.name, "parents")),
            Some(v) => names(&node.name, "parents", v)?,
        };
        let mut ids = Vec::new();
        if raw.is_empty() {
            // An empty list inside a block inherits the block's parents,
            // resolved at top level (Paleo does the same).
            if let Some(b) = block {
                let inherited = match b.spec.get("parents") {
                    None => Vec::new(),
                    Some(v) => names(b.name, "parents", v)?,
                };
                for p in inherited {
                    ids.extend(self.resolve_one(b.name, p, None, None)?);
                    if let Some(e) = over(&ids) {
                        return Err(e);
                    }
                }
            }
            return Ok(ids);
        }
        for p in raw {
            ids.extend(self.resolve_one(&node.name, p, block.map(|b| b.name), node.split)?);
            if let Some(e) = over(&ids) {
                return Err(e);
            }
        }
        Ok(ids)
    }

    /// Resolves one parent name. Inside a block, names are block-local
    /// first (`block/name`, as in Paleo), then global (a lenient extension).
    fn resolve_one(
        &self,
        layer: &str,
        raw: &str,
        block: Option<&str>,
        split: Option<u64>,
    ) -> Result<Vec<usize>, PaleoError> {
        let (base, suffix) = if let Some(b) = raw.strip_suffix("@all") {
            (b, Suffix::All)
        } else if let Some(b) = raw.strip_suffix("@self") {
            (b, Suffix::Own)
        } else {
            (raw, Suffix::None)
        };
        if let Some(block) = block {
            if let Some(ids) = self.lookup(layer, &format!("{block}/{base}"), suffix, split)? {
                return Ok(ids);
            }
        }
        if let Some(ids) = self.lookup(layer, base, suffix, split)? {
            return Ok(ids);
        }
        Err(PaleoError::UnknownParent {
            layer: layer.to_string(),
            parent: raw.to_string(),
        })
    }

    fn lookup(
        &self,
        layer: &str,
        name: &str,
        suffix: Suffix,
        split: Option<u64>,
    ) -> Result<Option<Vec<usize>>, PaleoError> {
        // A parent naming a block means the block's endpoint.
        let mapped: Cow<str> = match self.block_index.get(name).and_then(|&b| self.blocks.get(b)) {
            Some(b) => match b.endpoint {
                Some(e) => Cow::Owned(format!("{name}/{e}")),
                None => {
                    return Err(PaleoError::BlockWithoutEndpoint {
                        layer: layer.to_string(),
                        block: name.to_string(),
                    })
                }
            },
            None => Cow::Borrowed(name),
        };
        if let Some(&i) = self.index.get(mapped.as_ref()) {
            // `@all`/`@self` on an unsplit layer is that layer.
            return Ok(Some(vec![i]));
        }
        let Some(&k) = self.split_bases.get(mapped.as_ref()) else {
            return Ok(None);
        };
        let pick = |s: u64| self.index.get(&format!("{mapped}@{s}")).copied();
        let ids: Vec<usize> = match (suffix, split) {
            (Suffix::All, _) => (0..k).filter_map(pick).collect(),
            (_, Some(s)) => pick(s).into_iter().collect(),
            (Suffix::Own, None) => {
                return Err(invalid(
                    layer,
                    "parents",
                    format!("uses '{name}@self' outside a ModelParallel block; use '{name}@all'"),
                ))
            }
            (Suffix::None, None) => {
                return Err(invalid(
                    layer,
                    "parents",
                    format!("names '{name}', which is split across {k} model-parallel workers; use '{name}@all'"),
                ))
            }
        };
        Ok((!ids.is_empty()).then_some(ids))
    }
}

/// Kahn's algorithm; among ready layers the earliest in the file goes first,
/// so a file already in order keeps its order.
fn topological_order(nodes: &[Node], parents: &[Vec<usize>]) -> Result<Vec<usize>, PaleoError> {
    let n = nodes.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indegree: Vec<usize> = parents.iter().map(Vec::len).collect();
    for (child, ps) in parents.iter().enumerate() {
        for &p in ps {
            if let Some(c) = children.get_mut(p) {
                c.push(child);
            }
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = indegree
        .iter()
        .enumerate()
        .filter(|(_, d)| **d == 0)
        .map(|(i, _)| Reverse(i))
        .collect();
    let mut order = Vec::with_capacity(n);
    let mut done = vec![false; n];
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        if let Some(d) = done.get_mut(i) {
            *d = true;
        }
        for &c in children.get(i).map(Vec::as_slice).unwrap_or_default() {
            if let Some(d) = indegree.get_mut(c) {
                *d = d.saturating_sub(1);
                if *d == 0 {
                    ready.push(Reverse(c));
                }
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    let cycle = find_cycle(parents, &done);
    Err(PaleoError::Cycle {
        layers: cycle
            .iter()
            .filter_map(|&i| nodes.get(i).map(|n| n.name.clone()))
            .collect(),
    })
}

/// Every layer left after Kahn's algorithm has a parent that is also left,
/// so walking up parents must revisit a layer within `n` steps. Returns the
/// cycle from parent to child, closed (first name repeated at the end).
fn find_cycle(parents: &[Vec<usize>], done: &[bool]) -> Vec<usize> {
    let left = |i: &usize| !done.get(*i).copied().unwrap_or(true);
    let Some(mut cur) = (0..done.len()).find(left) else {
        return Vec::new();
    };
    let mut seen_at: Vec<Option<usize>> = vec![None; done.len()];
    let mut path: Vec<usize> = Vec::new();
    loop {
        if let Some(Some(at)) = seen_at.get(cur) {
            let mut cycle: Vec<usize> = path.get(*at..).map(<[usize]>::to_vec).unwrap_or_default();
            cycle.reverse();
            if let Some(&first) = cycle.first() {
                cycle.push(first);
            }
            return cycle;
        }
        if let Some(slot) = seen_at.get_mut(cur) {
            *slot = Some(path.len());
        }
        path.push(cur);
        match parents
            .get(cur)
            .and_then(|ps| ps.iter().copied().find(left))
        {
            Some(p) => cur = p,
            None => return path,
        }
    }
}

// ---------------------------------------------------------------------------
// Shape inference

/// Per-sample tensor shape with batch `n`; rank-2 `[N, C]` tensors are kept
/// as `[N, 1, 1, C]` with `rank = 2` (for Concatenate's `dim`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Shape {
    n: u64,
    h: u64,
    w: u64,
    c: u64,
    rank: u8,
}

impl Shape {
    fn dims(self) -> [u64; 4] {
        [self.n, self.h, self.w, self.c]
    }

    fn from_dims([n, h, w, c]: [u64; 4], rank: u8) -> Self {
        Shape { n, h, w, c, rank }
    }

    fn per_sample(self) -> u128 {
        u128::from(self.h) * u128::from(self.w) * u128::from(self.c)
    }
}

/// What one layer contributes.
struct Outcome {
    shape: Shape,
    counted: Option<Layer>,
    paleo_flop: f64,
    params: u64,
    /// Why it is not counted (None when counted).
    reason: Option<String>,
}

impl Outcome {
    fn ignored(shape: Shape, paleo_flop: f64, reason: &str) -> Self {
        Outcome {
            shape,
            counted: None,
            paleo_flop,
            params: 0,
            reason: Some(reason.to_string()),
        }
    }
}

fn infer(
    graph: &Graph,
    parents: &[Vec<usize>],
    order: &[usize],
    name: String,
) -> Result<PaleoImport, PaleoError> {
    let mut shapes: Vec<Option<Shape>> = vec![None; graph.nodes.len()];
    let mut network = Network::from_layers(name, Vec::new());
    let mut infos = Vec::with_capacity(order.len());
    let mut paleo_total = 0.0;
    // (is named `data`, file position, N) of the Input that sets the batch.
    let mut batch: Option<(bool, usize, Option<u64>)> = None;

    for &i in order {
        let Some(node) = graph.nodes.get(i) else {
            continue;
        };
        let layer = node.name.as_str();
        let ty = match node.spec.get("type") {
            None => return Err(missing(layer, "type")),
            Some(Value::String(t)) => t.as_str(),
            Some(v) => {
                return Err(invalid(
                    layer,
                    "type",
                    format!("must be a string, not {}", describe(v)),
                ))
            }
        };
        let ps = parents.get(i).map(Vec::as_slice).unwrap_or_default();
        let inputs: Vec<Shape> = ps
            .iter()
            .map(|&p| shapes.get(p).copied().flatten())
            .collect::<Option<_>>()
            .ok_or_else(|| shape_err(layer, "a parent's shape is unknown".into()))?;
        if ty == "Input" {
            if !inputs.is_empty() {
                return Err(invalid(
                    layer,
                    "parents",
                    "must be empty for an Input layer".into(),
                ));
            }
        } else if inputs.is_empty() {
            return Err(invalid(
                layer,
                "parents",
                "is empty, so the input shape is unknown: only an Input layer has no parents"
                    .into(),
            ));
        }
        let out = match ty {
            "Input" => {
                let (shape, n) = input(node.spec, layer)?;
                let key = (layer == "data", i);
                let better = match batch {
                    None => true,
                    Some((is_data, pos, _)) => (key.0 && !is_data) || (key.0 == is_data && key.1 < pos),
                };
                if better {
                    batch = Some((key.0, key.1, n));
                }
                Outcome::ignored(shape, 0.0, "input tensor: no computation")
            }
            "Convolution" => conv(node, one(layer, ty, &inputs)?)?,
            "InnerProduct" | "FullyConnected" => fully_connected(node.spec, layer, one(layer, ty, &inputs)?)?,
            "Pooling" | "AvgPool" => pool(node.spec, layer, one(layer, ty, &inputs)?)?,
            "Dropout" => {
                let x = one(layer, ty, &inputs)?;
                // Paleo: one FLOP per input element.
                let flop = x.n as f64 * x.per_sample() as f64;
                Outcome::ignored(x, flop, "dropout: not counted by Eq. 4 (Paleo counts 1 FLOP per element)")
            }
            "Concatenate" => Outcome::ignored(
                concat(node.spec, layer, &inputs)?,
                0.0,
                "concatenation: data movement only, no FLOPs",
            ),
            "Elementwise" => Outcome::ignored(
                same_shape(layer, ty, &inputs)?,
                0.0,
                "elementwise operation: not counted by Eq. 4 or Paleo",
            ),
            "Softmax" => {
                let x = one(layer, ty, &inputs)?;
                let classes = match node.spec.get("num_classes") {
                    None | Some(Value::Null) => x.c,
                    Some(v) => check_dim(layer, "num_classes", int_of(layer, "num_classes", v)?)?,
                };
                let shape = Shape::from_dims([x.n, 1, 1, classes], 2);
                Outcome::ignored(shape, 0.0, "softmax: not counted by Eq. 4 or Paleo")
            }
            "Sigmoid" => {
                let x = one(layer, ty, &inputs)?;
                let shape = Shape::from_dims([x.n, 1, 1, 1], 2);
                Outcome::ignored(shape, 0.0, "sigmoid: not counted by Eq. 4 or Paleo")
            }
            "Reshape" => Outcome::ignored(
                reshape(node.spec, layer, one(layer, ty, &inputs)?)?,
                0.0,
                "reshape: no computation",
            ),
            "UpSampling2D" => Outcome::ignored(
                upsample(node.spec, layer, one(layer, ty, &inputs)?)?,
                0.0,
                "upsampling: not counted by Eq. 4 or Paleo",
            ),
            "Deconvolution" => Outcome::ignored(
                deconv_shape(node.spec, layer, one(layer, ty, &inputs)?)?,
                0.0,
                "transposed convolution: Eq. 4 does not define it; its FLOPs are left out of both totals",
            ),
            other => {
                // Paleo's Generic layer: the output is the input.
                let shape = same_shape(layer, ty, &inputs).map_err(|_| {
                    shape_err(
                        layer,
                        format!("unknown Paleo layer type '{other}' with parents of different shapes: its output shape cannot be inferred"),
                    )
                })?;
                Outcome::ignored(shape, 0.0, &format!("unknown Paleo layer type '{other}'"))
            }
        };

        if let Some(slot) = shapes.get_mut(i) {
            *slot = Some(out.shape);
        }
        paleo_total += out.paleo_flop;
        let eq4 = out.counted.as_ref().map_or(0.0, Layer::forward_flop);
        infos.push(PaleoLayerInfo {
            name: node.name.clone(),
            paleo_type: ty.to_string(),
            output_shape: out.shape.dims(),
            counted: out.counted.is_some(),
            eq4_flop_per_sample: eq4,
            paleo_flop_per_batch: out.paleo_flop,
            params: out.params,
        });
        if let Some(l) = out.counted {
            network.layers.push(l);
        }
        if let Some(reason) = out.reason {
            network.ignored.push(IgnoredLayer {
                name: node.name.clone(),
                kind: ty.to_string(),
                reason,
            });
        }
    }

    let Some((_, _, batch_size)) = batch else {
        return Err(PaleoError::NoInput);
    };
    Ok(PaleoImport {
        network,
        batch_size,
        paleo_forward_flop_per_batch: paleo_total,
        layers: infos,
    })
}

fn one(layer: &str, ty: &str, inputs: &[Shape]) -> Result<Shape, PaleoError> {
    match inputs {
        [x] => Ok(*x),
        _ => Err(invalid(
            layer,
            "parents",
            format!(
                "has {} layers, but a {ty} layer takes exactly one",
                inputs.len()
            ),
        )),
    }
}

fn same_shape(layer: &str, ty: &str, inputs: &[Shape]) -> Result<Shape, PaleoError> {
    let first = inputs.first().copied().ok_or_else(|| {
        invalid(
            layer,
            "parents",
            format!("is empty, but a {ty} layer needs an input"),
        )
    })?;
    match inputs.iter().find(|s| s.dims() != first.dims()) {
        None => Ok(first),
        Some(other) => Err(shape_err(
            layer,
            format!(
                "a {ty} layer needs inputs of one shape, got {:?} and {:?}",
                first.dims(),
                other.dims()
            ),
        )),
    }
}

/// `tensor`: `[N, H, W, C]` or `[N, C]`; `N` may be `-1`/`null` (open).
fn input(spec: &Map<String, Value>, layer: &str) -> Result<(Shape, Option<u64>), PaleoError> {
    let v = spec.get("tensor").ok_or_else(|| missing(layer, "tensor"))?;
    let items = v
        .as_array()
        .filter(|a| a.len() == 4 || a.len() == 2)
        .ok_or_else(|| {
            invalid(
                layer,
                "tensor",
                format!("must be a list [N, H, W, C], not {}", describe(v)),
            )
        })?;
    let (first, rest) = items
        .split_first()
        .ok_or_else(|| invalid(layer, "tensor", "must be a list [N, H, W, C]".into()))?;
    let n = match first {
        Value::Null => None,
        v if v.as_i64() == Some(-1) => None,
        v => Some(check_dim(layer, "tensor", int_of(layer, "tensor", v)?)?),
    };
    let rest: Vec<u64> = rest
        .iter()
        .map(|v| check_dim(layer, "tensor", int_of(layer, "tensor", v)?))
        .collect::<Result<_, _>>()?;
    let shape = match rest.as_slice() {
        [h, w, c] => Shape::from_dims([n.unwrap_or(1), *h, *w, *c], 4),
        [c] => Shape::from_dims([n.unwrap_or(1), 1, 1, *c], 2),
        _ => {
            return Err(invalid(
                layer,
                "tensor",
                "must be a list [N, H, W, C]".into(),
            ))
        }
    };
    Ok((shape, n))
}

#[derive(Clone, Copy)]
enum Pad {
    Valid,
    Same,
    Explicit(u64, u64),
}

fn padding(spec: &Map<String, Value>, layer: &str, explicit_ok: bool) -> Result<Pad, PaleoError> {
    let v = spec
        .get("padding")
        .ok_or_else(|| missing(layer, "padding"))?;
    if let Some(s) = v.as_str() {
        return match s.to_ascii_uppercase().as_str() {
            "VALID" => Ok(Pad::Valid),
            "SAME" => Ok(Pad::Same),
            _ => Err(invalid(
                layer,
                "padding",
                format!("must be \"VALID\" or \"SAME\", not \"{}\"", shorten(s)),
            )),
        };
    }
    if let Some(items) = v.as_array() {
        if !explicit_ok {
            return Err(invalid(
                layer,
                "padding",
                "gives explicit pads, which Paleo accepts on convolutions only; use \"VALID\" or \"SAME\"".into(),
            ));
        }
        let pads: Vec<u64> = items
            .iter()
            .map(|x| {
                let p = int_of(layer, "padding", x)?;
                if p < 0 {
                    return Err(invalid(
                        layer,
                        "padding",
                        format!("has {p}; pads must be 0 or more"),
                    ));
                }
                // 0 is a valid pad; otherwise the usual bounds apply.
                if p == 0 {
                    Ok(0)
                } else {
                    check_dim(layer, "padding", p)
                }
            })
            .collect::<Result<_, _>>()?;
        return match pads.as_slice() {
            [ph, pw] => Ok(Pad::Explicit(*ph, *pw)),
            _ => Err(invalid(
                layer,
                "padding",
                format!("must be [pad_h, pad_w], not {}", describe(v)),
            )),
        };
    }
    Err(invalid(
        layer,
        "padding",
        format!(
            "must be \"VALID\", \"SAME\" or [pad_h, pad_w], not {}",
            describe(v)
        ),
    ))
}

/// Output size along one axis, TensorFlow's rules as Paleo applies them.
fn out_dim(
    layer: &str,
    field: &str,
    input: u64,
    k: u64,
    s: u64,
    pad: Pad,
    along_h: bool,
) -> Result<u64, PaleoError> {
    let axis = if along_h { "height" } else { "width" };
    let out = match pad {
        Pad::Valid => {
            if k > input {
                return Err(shape_err(
                    layer,
                    format!("\"{field}\" {axis} {k} is larger than the input {axis} {input} with VALID padding"),
                ));
            }
            // ceil((H − k + 1) / s)
            (input - k + 1).div_ceil(s)
        }
        // ceil(H / s)
        Pad::Same => input.div_ceil(s),
        Pad::Explicit(ph, pw) => {
            let p = if along_h { ph } else { pw };
            // Both ≤ MAX_DIM = 2^24, so this cannot overflow.
            let padded = input.saturating_add(p.saturating_mul(2));
            if k > padded {
                return Err(shape_err(
                    layer,
                    format!(
                        "\"{field}\" {axis} {k} is larger than the padded input {axis} {padded}"
                    ),
                ));
            }
            (padded - k) / s + 1
        }
    };
    check_computed(layer, field, u128::from(out))
}

/// `[1, h, w, 1]` windows (`strides`, `ksize`) → `(h, w)`.
fn window(spec: &Map<String, Value>, layer: &str, field: &str) -> Result<(u64, u64), PaleoError> {
    let [a, h, w, b] = int_array::<4>(spec, layer, field)?;
    if a != 1 || b != 1 {
        let what = if field == "strides" {
            "stride"
        } else {
            "kernel"
        };
        return Err(invalid(
            layer,
            field,
            format!("must be [1, {what}_h, {what}_w, 1] (NHWC), not [{a}, {h}, {w}, {b}]"),
        ));
    }
    Ok((check_dim(layer, field, h)?, check_dim(layer, field, w)?))
}

fn conv(node: &Node, x: Shape) -> Result<Outcome, PaleoError> {
    let (spec, layer) = (node.spec, node.name.as_str());
    let [kh, kw, cin, cout] = int_array::<4>(spec, layer, "filter")?;
    let kh = check_dim(layer, "filter", kh)?;
    let kw = check_dim(layer, "filter", kw)?;
    // Paleo: an input-channel count of -1 means "whatever comes in".
    let cin = if cin == -1 {
        x.c
    } else {
        let c = check_dim(layer, "filter", cin)?;
        if c != x.c {
            return Err(shape_err(
                layer,
                format!(
                    "\"filter\" expects {c} input channels, but the input has {}",
                    x.c
                ),
            ));
        }
        c
    };
    let mut cout = check_dim(layer, "filter", cout)?;
    if node.splits > 1 {
        // ModelParallel: each split holds 1/k of the filters (as in Paleo).
        cout /= node.splits;
        if cout == 0 {
            return Err(shape_err(
                layer,
                format!(
                    "\"filter\" has fewer output channels than the block's {} splits",
                    node.splits
                ),
            ));
        }
    }
    let (sh, sw) = window(spec, layer, "strides")?;
    let pad = padding(spec, layer, true)?;
    let oh = out_dim(layer, "filter", x.h, kh, sh, pad, true)?;
    let ow = out_dim(layer, "filter", x.w, kw, sw, pad, false)?;
    let counted = Layer {
        name: layer.to_string(),
        kind: LayerKind::Conv,
        inch: cin,
        kh,
        kw,
        outn: cout,
        outh: oh,
        outw: ow,
        params: None,
    };
    // Paleo's conv FLOPs are Eq. 4 times the batch; bias is a parameter.
    let paleo_flop = counted.forward_flop() * x.n as f64;
    let params = counted.weights().saturating_add(cout);
    Ok(Outcome {
        shape: Shape::from_dims([x.n, oh, ow, cout], 4),
        counted: Some(counted),
        paleo_flop,
        params,
        reason: None,
    })
}

fn fully_connected(
    spec: &Map<String, Value>,
    layer: &str,
    x: Shape,
) -> Result<Outcome, PaleoError> {
    let v = spec
        .get("num_outputs")
        .ok_or_else(|| missing(layer, "num_outputs"))?;
    let outputs = check_dim(layer, "num_outputs", int_of(layer, "num_outputs", v)?)?;
    // Paleo flattens a 4-D input to [N, H·W·C].
    let inputs = check_computed(layer, "flattened input", x.per_sample())?;
    let counted = Layer::fc(layer, inputs, outputs);
    let paleo_flop = counted.forward_flop() * x.n as f64;
    let params = counted.weights().saturating_add(outputs);
    Ok(Outcome {
        shape: Shape::from_dims([x.n, 1, 1, outputs], 2),
        counted: Some(counted),
        paleo_flop,
        params,
        reason: None,
    })
}

fn pool(spec: &Map<String, Value>, layer: &str, x: Shape) -> Result<Outcome, PaleoError> {
    let (kh, kw) = window(spec, layer, "ksize")?;
    let (sh, sw) = window(spec, layer, "strides")?;
    let pad = padding(spec, layer, false)?;
    let oh = out_dim(layer, "ksize", x.h, kh, sh, pad, true)?;
    let ow = out_dim(layer, "ksize", x.w, kw, sw, pad, false)?;
    // Paleo: 2 · kh · kw · C FLOP per output pixel, times the batch.
    let flop = 2.0 * kh as f64 * kw as f64 * x.c as f64 * oh as f64 * ow as f64 * x.n as f64;
    Ok(Outcome::ignored(
        Shape::from_dims([x.n, oh, ow, x.c], 4),
        flop,
        "pooling: Eq. 4 counts convolution and fully connected layers only (Paleo counts it)",
    ))
}

fn concat(spec: &Map<String, Value>, layer: &str, inputs: &[Shape]) -> Result<Shape, PaleoError> {
    let first = inputs.first().copied().ok_or_else(|| {
        invalid(
            layer,
            "parents",
            "is empty, but a Concatenate layer needs inputs".into(),
        )
    })?;
    let rank = i128::from(first.rank);
    let dim = match spec.get("dim") {
        // Every Paleo net concatenates channels.
        None => rank - 1,
        Some(v) => int_of(layer, "dim", v)?,
    };
    if !(-rank..rank).contains(&dim) {
        return Err(invalid(
            layer,
            "dim",
            format!("is {dim}, outside the input's {rank} dimensions"),
        ));
    }
    let dim = if dim < 0 { dim + rank } else { dim };
    // Map the axis of a rank-2 [N, C] tensor onto [N, 1, 1, C].
    let axis = match (first.rank, dim) {
        (2, 0) => 0,
        (2, _) => 3,
        (_, d) => usize::try_from(d).unwrap_or(3),
    };
    let mut out = first.dims();
    let mut total: u128 = 0;
    for s in inputs {
        let dims = s.dims();
        let differs = dims
            .iter()
            .zip(out.iter())
            .enumerate()
            .any(|(j, (a, b))| j != axis && a != b);
        if differs {
            return Err(shape_err(
                layer,
                format!(
                    "concatenated inputs must match except along dim {dim}: got {:?} and {:?}",
                    first.dims(),
                    dims
                ),
            ));
        }
        total += u128::from(dims.get(axis).copied().unwrap_or(0));
    }
    let total = check_computed(layer, "dim", total)?;
    if let Some(slot) = out.get_mut(axis) {
        *slot = total;
    }
    Ok(Shape::from_dims(out, first.rank))
}

fn reshape(spec: &Map<String, Value>, layer: &str, x: Shape) -> Result<Shape, PaleoError> {
    let v = spec
        .get("output_shape")
        .ok_or_else(|| missing(layer, "output_shape"))?;
    let items = v
        .as_array()
        .filter(|a| a.len() == 4 || a.len() == 2)
        .ok_or_else(|| {
            invalid(
                layer,
                "output_shape",
                format!("must be [N, H, W, C] or [N, C], not {}", describe(v)),
            )
        })?;
    let raw: Vec<i128> = items
        .iter()
        .map(|x| int_of(layer, "output_shape", x))
        .collect::<Result<_, _>>()?;
    let total = u128::from(x.n) * x.per_sample();
    let mut known: u128 = 1;
    let mut open = 0;
    for &d in &raw {
        if d == -1 {
            open += 1;
        } else {
            known = known.saturating_mul(u128::from(check_dim(layer, "output_shape", d)?));
        }
    }
    if open > 1 {
        return Err(invalid(
            layer,
            "output_shape",
            "may leave only one dimension open (-1)".into(),
        ));
    }
    let fill = if open == 1 {
        if !total.is_multiple_of(known) {
            return Err(shape_err(
                layer,
                format!("cannot reshape {total} elements into \"output_shape\" {raw:?}"),
            ));
        }
        check_computed(layer, "output_shape", total / known)?
    } else {
        if known != total {
            return Err(shape_err(
                layer,
                format!(
                    "\"output_shape\" {raw:?} holds {known} elements, but the input has {total}"
                ),
            ));
        }
        1
    };
    let dims: Vec<u64> = raw
        .iter()
        .map(|&d| {
            if d == -1 {
                fill
            } else {
                u64::try_from(d).unwrap_or(1)
            }
        })
        .collect();
    match dims.as_slice() {
        [n, h, w, c] => Ok(Shape::from_dims([*n, *h, *w, *c], 4)),
        [n, c] => Ok(Shape::from_dims([*n, 1, 1, *c], 2)),
        _ => Err(invalid(
            layer,
            "output_shape",
            "must be [N, H, W, C] or [N, C]".into(),
        )),
    }
}

fn upsample(spec: &Map<String, Value>, layer: &str, x: Shape) -> Result<Shape, PaleoError> {
    let (kh, kw) = window(spec, layer, "ksize")?;
    let h = check_computed(layer, "ksize", u128::from(x.h) * u128::from(kh))?;
    let w = check_computed(layer, "ksize", u128::from(x.w) * u128::from(kw))?;
    Ok(Shape::from_dims([x.n, h, w, x.c], 4))
}

fn deconv_shape(spec: &Map<String, Value>, layer: &str, x: Shape) -> Result<Shape, PaleoError> {
    let [n, h, w, c] = int_array::<4>(spec, layer, "output_shape")?;
    let n = if n == -1 {
        x.n
    } else {
        check_dim(layer, "output_shape", n)?
    };
    Ok(Shape::from_dims(
        [
            n,
            check_dim(layer, "output_shape", h)?,
            check_dim(layer, "output_shape", w)?,
            check_dim(layer, "output_shape", c)?,
        ],
        4,
    ))
}

// ---------------------------------------------------------------------------
// Field helpers

fn missing(layer: &str, field: &str) -> PaleoError {
    PaleoError::MissingField {
        layer: layer.to_string(),
        field: field.to_string(),
    }
}

fn invalid(layer: &str, field: &str, message: String) -> PaleoError {
    PaleoError::InvalidField {
        layer: layer.to_string(),
        field: field.to_string(),
        message,
    }
}

fn shape_err(layer: &str, message: String) -> PaleoError {
    PaleoError::Shape {
        layer: layer.to_string(),
        message,
    }
}

/// A whole number from JSON. `3.0` and `1e30` count as whole (the bounds
/// checks then apply); a fraction is a typo worth reporting.
fn int_of(layer: &str, field: &str, v: &Value) -> Result<i128, PaleoError> {
    if let Some(i) = v.as_i64() {
        return Ok(i128::from(i));
    }
    if let Some(u) = v.as_u64() {
        return Ok(i128::from(u));
    }
    match v.as_f64() {
        // `as` saturates, so a huge value stays huge and fails the bounds.
        Some(f) if f.is_finite() && f.fract() == 0.0 => Ok(f as i128),
        _ => Err(invalid(
            layer,
            field,
            format!("must hold whole numbers, not {}", describe(v)),
        )),
    }
}

fn int_array<const N: usize>(
    spec: &Map<String, Value>,
    layer: &str,
    field: &str,
) -> Result<[i128; N], PaleoError> {
    let v = spec.get(field).ok_or_else(|| missing(layer, field))?;
    let items = v.as_array().ok_or_else(|| {
        invalid(
            layer,
            field,
            format!("must be a list of {N} whole numbers, not {}", describe(v)),
        )
    })?;
    let nums: Vec<i128> = items
        .iter()
        .map(|x| int_of(layer, field, x))
        .collect::<Result<_, _>>()?;
    <[i128; N]>::try_from(nums).map_err(|got| {
        invalid(
            layer,
            field,
            format!(
                "must be a list of {N} whole numbers, not {} of them",
                got.len()
            ),
        )
    })
}

/// A size from the file: at least 1 and at most [`MAX_DIM`].
fn check_dim(layer: &str, field: &str, v: i128) -> Result<u64, PaleoError> {
    if v < 1 {
        return Err(PaleoError::NonPositive {
            layer: layer.to_string(),
            field: field.to_string(),
            value: v,
        });
    }
    match u64::try_from(v) {
        Ok(d) if d <= MAX_DIM => Ok(d),
        _ => Err(PaleoError::TooBig {
            layer: layer.to_string(),
            field: field.to_string(),
            value: u128::try_from(v).unwrap_or(u128::MAX),
            max: MAX_DIM,
        }),
    }
}

/// A size computed from the file (concatenation, flattening, …).
fn check_computed(layer: &str, field: &str, v: u128) -> Result<u64, PaleoError> {
    if v == 0 {
        return Err(shape_err(
            layer,
            format!("\"{field}\" leaves an empty output"),
        ));
    }
    match u64::try_from(v) {
        Ok(d) if d <= MAX_DIM => Ok(d),
        _ => Err(PaleoError::TooBig {
            layer: layer.to_string(),
            field: field.to_string(),
            value: v,
            max: MAX_DIM,
        }),
    }
}

/// A list of layer names (`parents`).
fn names<'v>(layer: &str, field: &str, v: &'v Value) -> Result<Vec<&'v str>, PaleoError> {
    let items = v.as_array().ok_or_else(|| {
        invalid(
            layer,
            field,
            format!("must be a list of layer names, not {}", describe(v)),
        )
    })?;
    items
        .iter()
        .map(|x| {
            x.as_str().ok_or_else(|| {
                invalid(
                    layer,
                    field,
                    format!("must hold layer names, not {}", describe(x)),
                )
            })
        })
        .collect()
}

/// A short rendering of a JSON value for messages.
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("the string \"{}\"", shorten(s)),
        Value::Array(a) => format!("a list of {} items", a.len()),
        Value::Object(_) => "an object".into(),
    }
}
