//! A server that fronts other MCP servers (a gateway): which of its tools are theirs, so a
//! refusal can say how to mark a server's tools in the spec.

impl super::McpServer {
    /// The same server, knowing it fronts the MCP servers named `servers` (a gateway: the
    /// session's spec names them in `mcp_servers`, and their tools are `{server}__{tool}`), so
    /// that a call of one of their tools refused for want of a client to ask says how to mark
    /// the server's tools in the spec.
    #[must_use]
    pub fn with_fronted_servers(mut self, servers: impl IntoIterator<Item = String>) -> Self {
        self.fronted = servers.into_iter().collect();
        self
    }

    /// The fronted server whose tool `tool` is, if any.
    pub(super) fn fronted_server(&self, tool: &str) -> Option<&str> {
        let (server, _) = tool.split_once("__")?;
        self.fronted
            .iter()
            .find(|s| *s == server)
            .map(String::as_str)
    }
}
