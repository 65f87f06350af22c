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

/// Why a CSV box or file did not read, naming its row or line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CsvError {
    /// The csv reader's own error (a bad quote, bad UTF-8).
    #[error("row {row}: {message}")]
    Unreadable { row: usize, message: String },
    #[error("line {line}: {found} fields, expected {}", expected(*.min, *.max))]
    FieldCount {
        line: usize,
        found: usize,
        min: usize,
        max: usize,
    },
    #[error("line {line}: the {what} \"{value}\" is not a number")]
    NotANumber {
        line: usize,
        what: String,
        value: String,
    },
}

/// "2" or "4 to 5".
fn expected(min: usize, max: usize) -> String {
    if min == max {
        format!("{min}")
    } else {
        format!("{min} to {max}")
    }
}

/// The rows of `text` (CSV, `#` comments allowed), each with `min` to
/// `max` fields, with their line numbers; a first row whose last required
/// field (`min`-th) is not a number is a header and skipped.
pub(crate) fn csv_rows(
    text: &str,
    min: usize,
    max: usize,
) -> Result<Vec<(usize, Vec<String>)>, CsvError> {
    let mut rdr = csv_reader(text);
    let mut out = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| CsvError::Unreadable {
            row: i + 1,
            message: e.to_string(),
        })?;
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
            return Err(CsvError::FieldCount {
                line,
                found: fields.len(),
                min,
                max,
            });
        }
        out.push((line, fields));
    }
    Ok(out)
}

/// A finite number in a CSV field, or an error naming its line.
pub(crate) fn csv_number(line: usize, what: &str, s: &str) -> Result<f64, CsvError> {
    s.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| CsvError::NotANumber {
            line,
            what: what.to_string(),
            value: s.to_string(),
        })
}
