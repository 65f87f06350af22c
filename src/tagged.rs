//! Internally tagged enums (`{"kind": "number", "value": …}`) are read
//! through a flat struct of optional fields instead of serde's derive, which
//! buffers the whole object as `Content` first: that generic code was ~60 KB
//! of the page's wasm, and a report crossing from the worker was read twice.
//! Each enum keeps its derived `Serialize`, so the JSON is unchanged.

/// The field `name` that variant `kind` requires.
pub(crate) fn need<T>(v: Option<T>, kind: &str, name: &str) -> Result<T, String> {
    v.ok_or_else(|| format!("missing field `{name}` (kind `{kind}`)"))
}
