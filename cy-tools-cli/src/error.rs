//! A command-line error: one line for stderr.

use std::error::Error;
use std::fmt;

/// What went wrong, and what to do about it; printed as `error: {message}`. The error it came
/// from, when another part of the crates raised it, is its [`source`](Error::source) (for a
/// debugger or a future `--verbose`; the line says all a person needs).
#[derive(Debug)]
pub(crate) struct CliError {
    message: String,
    source: Option<Box<dyn Error + Send + Sync>>,
}

impl CliError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            source: None,
        }
    }
}

/// A session service's error, its message as it is, kept as the source.
impl From<cy_tools::services::ServiceError> for CliError {
    fn from(err: cy_tools::services::ServiceError) -> Self {
        CliError {
            message: err.to_string(),
            source: Some(Box::new(err)),
        }
    }
}

/// The MCP server's error, its message as it is, kept as the source.
impl From<cy_tools_mcp::ServeError> for CliError {
    fn from(err: cy_tools_mcp::ServeError) -> Self {
        CliError {
            message: err.to_string(),
            source: Some(Box::new(err)),
        }
    }
}

impl Error for CliError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, whatever the parts it was made of said.
        f.write_str(&self.message.replace('\n', " "))
    }
}
