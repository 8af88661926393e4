//! What can stop the MCP server.

use std::error::Error;
use std::fmt;

/// A boxed error of another crate (`rmcp`'s, `serde_json`'s), kept as the cause.
type Cause = Box<dyn Error + Send + Sync>;

/// Why serving ([`serve_stdio`](super::serve_stdio), [`serve`](super::serve)) stopped, or
/// [`McpServer::new`](super::McpServer::new) could not make a server. The error of another
/// crate that caused it is its [`source`](Error::source).
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// A tool's MCP declaration could not be made.
    Declaration {
        /// The tool.
        tool: String,
        /// What went wrong.
        message: String,
        /// The error it came from.
        source: Cause,
    },
    /// The client's `initialize` (or discovery) exchange failed.
    Initialize {
        /// The error it came from.
        source: Cause,
    },
    /// The connection broke after initialization.
    Connection {
        /// The error it came from.
        source: Cause,
    },
    /// A setting of the server is wrong (its message says which, and the fix).
    Configuration {
        /// What is wrong and what to do.
        message: String,
    },
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Declaration { tool, message, .. } => {
                write!(f, "cannot declare tool `{tool}` for MCP: {message}")
            }
            ServeError::Initialize { source } => {
                write!(f, "MCP client did not complete initialization: {source}")
            }
            ServeError::Connection { source } => write!(f, "MCP connection failed: {source}"),
            ServeError::Configuration { message } => f.write_str(message),
        }
    }
}

impl Error for ServeError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            ServeError::Declaration { source, .. }
            | ServeError::Initialize { source }
            | ServeError::Connection { source } => Some(&**source),
            ServeError::Configuration { .. } => None,
        }
    }
}
