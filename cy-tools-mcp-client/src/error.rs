//! `McpClientError`: why a session's MCP servers could not be started or bound.

/// Why a session's MCP servers could not be started or bound: a message naming the server and
/// what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpClientError {
    message: String,
}

impl McpClientError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        McpClientError {
            message: message.into(),
        }
    }
}

impl std::fmt::Display for McpClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for McpClientError {}
