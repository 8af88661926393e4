//! `CatalogError`: why reading a resource, getting a prompt or completing an argument failed.

use std::fmt;

/// Why a read, a prompt or a completion failed; every message names the problem and the fix.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CatalogError {
    /// No resource of the session answers this URI.
    UnknownResource {
        /// The URI asked for.
        uri: String,
        /// The URIs and templates there are, listed for the message.
        known: String,
    },
    /// The session has no prompt of this name.
    UnknownPrompt {
        /// The name asked for.
        name: String,
        /// The prompts there are, listed for the message.
        known: String,
    },
    /// The arguments (or a URI's variables) do not fit the function's types.
    InvalidArguments {
        /// `resource `...`` or `prompt `...``.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// The function answered an error.
    Failed {
        /// `resource `...`` or `prompt `...``.
        what: String,
        /// Its error.
        message: String,
    },
    /// The request was cancelled before the function finished.
    Cancelled {
        /// `resource `...`` or `prompt `...``.
        what: String,
    },
    /// The function panicked.
    Panicked {
        /// `resource `...`` or `prompt `...``.
        what: String,
        /// The panic's message.
        why: String,
    },
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogError::UnknownResource { uri, known } => write!(
                f,
                "no resource at `{uri}`; this session's resources are {known} (`resources/list` and `resources/templates/list` list them)"
            ),
            CatalogError::UnknownPrompt { name, known } => write!(
                f,
                "unknown prompt `{name}`; this session's prompts are {known}"
            ),
            CatalogError::InvalidArguments { what, message } => {
                write!(f, "invalid arguments for {what}: {message}")
            }
            CatalogError::Failed { what, message } => write!(f, "{what} failed: {message}"),
            CatalogError::Cancelled { what } => write!(
                f,
                "{what} was cancelled before it finished; ask again if it is still needed"
            ),
            CatalogError::Panicked { what, why } => write!(
                f,
                "{what} failed with an internal error ({why}); this is a bug in it, not in the request"
            ),
        }
    }
}

impl std::error::Error for CatalogError {}

/// `` `a`, `b` `` or `none`.
pub(crate) fn listed<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}
