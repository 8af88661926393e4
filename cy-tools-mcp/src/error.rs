//! What can stop the MCP server.

use std::fmt;

/// Why [`serve_stdio`](super::serve_stdio) or [`serve_io`](super::serve_io) stopped, or
/// [`McpServer::new`](super::McpServer::new) could not make a server.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// A tool's MCP declaration could not be made.
    Declaration {
        /// The tool.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// The client's `initialize` (or discovery) exchange failed.
    Initialize(String),
    /// The connection broke after initialization.
    Connection(String),
    /// A setting of the server is wrong (its message says which, and the fix).
    Configuration {
        /// What is wrong and what to do.
        message: String,
    },
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Declaration { tool, message } => {
                write!(f, "cannot declare tool `{tool}` for MCP: {message}")
            }
            ServeError::Initialize(message) => {
                write!(f, "MCP client did not complete initialization: {message}")
            }
            ServeError::Connection(message) => write!(f, "MCP connection failed: {message}"),
            ServeError::Configuration { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for ServeError {}
