//! The parse overhead `α·size + β` (Sec. 3.2.1) fitted from measured
//! (bytes, seconds) pairs by least squares, for users who timed the
//! deserialisation of a few tensors rather than knowing α and β.

use super::section::{ALPHA, BETA};
use crate::stats::line;
use crate::workload::text::{csv_number, csv_rows, CsvError};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParseFit {
    /// `α` [s/B] and `β` [s].
    pub alpha: f64,
    pub beta: f64,
    pub r_squared: f64,
    pub pairs: usize,
}

/// Why the pairs give no usable α and β: a row that does not read, or a
/// fit that does not describe an overhead.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseFitError {
    #[error(transparent)]
    Csv(#[from] CsvError),
    #[error("line {line}: sizes and overheads cannot be negative")]
    Negative { line: usize },
    #[error("{pairs} pairs: at least two different sizes are needed to fit α and β")]
    TooFewSizes { pairs: usize },
    #[error("the fit gives α = {alpha:.3e} s/B: the overhead falls as the size grows, so these pairs do not follow α·size + β")]
    Falling { alpha: f64 },
    #[error("the fit gives β = {beta:.3e} s, below zero: type α and β instead, or add pairs at small sizes")]
    NegativeBeta { beta: f64 },
    /// The range's sentence about the fitted α or β.
    #[error("the fitted {0}")]
    OutOfRange(String),
}

/// Fits `seconds = α·bytes + β` to CSV rows `bytes, seconds` (a header
/// row and `#` comments allowed); the error names the line or says why
/// the pairs do not give a usable α and β.
pub fn fit(text: &str) -> Result<ParseFit, ParseFitError> {
    let rows = csv_rows(text, 2, 2)?;
    let mut xs = Vec::with_capacity(rows.len());
    let mut ys = Vec::with_capacity(rows.len());
    for (line, f) in &rows {
        let bytes = csv_number(*line, "size", &f[0])?;
        let secs = csv_number(*line, "overhead", &f[1])?;
        if bytes < 0.0 || secs < 0.0 {
            return Err(ParseFitError::Negative { line: *line });
        }
        xs.push(bytes);
        ys.push(secs);
    }
    let l = line(&xs, &ys).ok_or(ParseFitError::TooFewSizes { pairs: xs.len() })?;
    // A line through pairs that are exact up to rounding may dip below 0.
    let tiny = |v: f64, scale: f64| v < 0.0 && v.abs() <= 1e-9 * scale;
    let max_y = ys.iter().copied().fold(0.0, f64::max);
    let max_x = xs.iter().copied().fold(0.0, f64::max);
    // So may a positive value below the least nonzero the range takes.
    let under = |v: f64, b: crate::bounds::Bounds| v > 0.0 && v < b.floor;
    let alpha = if tiny(l.slope, max_y / max_x.max(1.0)) || under(l.slope, ALPHA) {
        0.0
    } else {
        l.slope
    };
    let beta = if tiny(l.intercept, max_y) || under(l.intercept, BETA) {
        0.0
    } else {
        l.intercept
    };
    if alpha < 0.0 {
        return Err(ParseFitError::Falling { alpha });
    }
    if beta < 0.0 {
        return Err(ParseFitError::NegativeBeta { beta });
    }
    for (what, b, v) in [("α", ALPHA, alpha), ("β", BETA, beta)] {
        if let Some(m) = b.check(what, v) {
            return Err(ParseFitError::OutOfRange(m));
        }
    }
    Ok(ParseFit {
        alpha,
        beta,
        r_squared: l.r_squared,
        pairs: xs.len(),
    })
}
