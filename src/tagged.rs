//! Internally tagged enums (`{"kind": "number", "value": …}`) are read
//! through a flat struct of optional fields instead of serde's derive, which
//! buffers the whole object as `Content` first: that generic code was ~60 KB
//! of the page's wasm, and a report crossing from the worker was read twice.
//! Each enum keeps its derived `Serialize`, so the JSON is unchanged.

/// A field the variant read requires is absent; serde reports it as the
/// document's error, worded as serde words its own.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("missing field `{name}` (kind `{kind}`)")]
pub struct MissingField {
    pub kind: &'static str,
    pub name: &'static str,
}

/// The field `name` that variant `kind` requires.
pub(crate) fn need<T>(
    v: Option<T>,
    kind: &'static str,
    name: &'static str,
) -> Result<T, MissingField> {
    v.ok_or(MissingField { kind, name })
}
