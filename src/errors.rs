//! The errors the core's boundaries return: a message tied to a scenario
//! field, why a model has no report, and why a file could not be read. At the bottom of the crate, so
//! every layer (readers, scenario, models, report text) can name them.

use serde::{Deserialize, Serialize};

/// A message about one input, tied to the field it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FieldError {
    /// Dotted path into the scenario, e.g. `hardware.cluster.ps.bandwidth`.
    pub field: String,
    pub message: String,
}

pub fn err(field: impl Into<String>, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

/// Why a model has no report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", try_from = "UnavailableRepr")]
pub enum Unavailable {
    /// Inputs this model needs are not in the scenario (no profile, no
    /// worker): nothing to show, not an error in what the user typed.
    Missing { needs: Vec<FieldError> },
    /// Inputs are there but wrong: the last good result stays, marked.
    Invalid { errors: Vec<FieldError> },
}

/// `Unavailable` as read (see `crate::tagged`).
#[derive(Deserialize)]
struct UnavailableRepr {
    kind: UnavailableKind,
    needs: Option<Vec<FieldError>>,
    errors: Option<Vec<FieldError>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum UnavailableKind {
    Missing,
    Invalid,
}

impl TryFrom<UnavailableRepr> for Unavailable {
    type Error = crate::tagged::MissingField;
    fn try_from(r: UnavailableRepr) -> Result<Self, Self::Error> {
        Ok(match r.kind {
            UnavailableKind::Missing => Unavailable::Missing {
                needs: crate::tagged::need(r.needs, "missing", "needs")?,
            },
            UnavailableKind::Invalid => Unavailable::Invalid {
                errors: crate::tagged::need(r.errors, "invalid", "errors")?,
            },
        })
    }
}

impl Unavailable {
    pub fn errors(&self) -> &[FieldError] {
        match self {
            Unavailable::Missing { needs } => needs,
            Unavailable::Invalid { errors } => errors,
        }
    }

    pub fn is_missing(&self) -> bool {
        matches!(self, Unavailable::Missing { .. })
    }

    pub fn invalid(errors: Vec<FieldError>) -> Self {
        Unavailable::Invalid { errors }
    }

    pub fn missing(field: &str, message: impl Into<String>) -> Self {
        Unavailable::Missing {
            needs: vec![FieldError {
                field: field.into(),
                message: message.into(),
            }],
        }
    }
}

/// Why a file could not be read, in the words its reader found.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReadError {
    /// Its bytes stop being UTF-8 at `offset`.
    #[error("not UTF-8 text (bad byte at offset {offset})")]
    NotText { offset: usize },
    /// The options the page sent with the file did not read.
    #[error("the import's options did not read: {0}")]
    Options(String),
    /// What its reader found wrong with its content.
    #[error("{0}")]
    Content(String),
    /// One of the above, named by the file it came from.
    #[error("{file}: {error}")]
    In { file: String, error: Box<ReadError> },
}

impl ReadError {
    /// The error, named by `file` (once: an error already named is kept).
    pub fn in_file(self, file: &str) -> Self {
        match self {
            named @ ReadError::In { .. } => named,
            error => ReadError::In {
                file: file.to_string(),
                error: Box::new(error),
            },
        }
    }
}

/// A reader's sentence about the content.
impl From<String> for ReadError {
    fn from(m: String) -> Self {
        ReadError::Content(m)
    }
}
