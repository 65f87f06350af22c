//! Small helpers the importers share for their error messages.

/// Keeps messages readable when a value is huge: at most 40 characters.
pub(crate) fn shorten(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{head}…")
    }
}

/// serde_json's error as (line, column, message); the message loses the
/// " at line L column C" serde appends, since callers report it themselves.
pub(crate) fn json_error_parts(e: &serde_json::Error) -> (usize, usize, String) {
    let (line, column) = (e.line(), e.column());
    let full = e.to_string();
    let suffix = format!(" at line {line} column {column}");
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
    (line, column, message)
}
