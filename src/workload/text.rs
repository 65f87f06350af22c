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

/// A comma-separated reader (`csv_rows`, the runs file): rows of any
/// length, fields trimmed, `#` lines skipped, no header assumed.
pub(crate) fn csv_reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(text.as_bytes())
}

/// The rows of `text` (CSV, `#` comments allowed), each with `min` to
/// `max` fields, with their line numbers; a first row whose last required
/// field (`min`-th) is not a number is a header and skipped.
pub(crate) fn csv_rows(
    text: &str,
    min: usize,
    max: usize,
) -> Result<Vec<(usize, Vec<String>)>, String> {
    let mut rdr = csv_reader(text);
    let mut out = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| format!("row {}: {e}", i + 1))?;
        let line = rec.position().map_or(i + 1, |p| p.line() as usize);
        let fields: Vec<String> = rec.iter().map(str::to_string).collect();
        if fields.iter().all(String::is_empty) {
            continue;
        }
        let is_header = out.is_empty()
            && fields
                .get(min.saturating_sub(1))
                .is_some_and(|f| f.parse::<f64>().is_err() && f.chars().any(char::is_alphabetic));
        if is_header {
            continue;
        }
        if fields.len() < min || fields.len() > max {
            let expected = if min == max {
                format!("{min}")
            } else {
                format!("{min} to {max}")
            };
            return Err(format!(
                "line {line}: {} fields, expected {expected}",
                fields.len()
            ));
        }
        out.push((line, fields));
    }
    Ok(out)
}

/// A finite number in a CSV field, or a message naming its line.
pub(crate) fn csv_number(line: usize, what: &str, s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("line {line}: the {what} \"{s}\" is not a number"))
}
