//! `McpServers`: the MCP servers of one session, started together, and their tools bound to it.

use std::sync::Arc;

use cy_tools::binding::bind_tool;
use cy_tools::definition::Definition;
use cy_tools::session::McpServerSpec;
use cy_tools::{BoundTool, ToolContext};
use cy_tools_sandbox::SandboxView;

use crate::connection::Server;
use crate::definition::{Made, McpToolDefinition, definition};
use crate::error::McpClientError;
use crate::names::{Taken, session_name};

/// The MCP servers of one session and the tools it takes from them. Cloning shares them; the
/// servers are killed when the last clone is dropped (with the session's context, which holds
/// one as its state).
#[derive(Clone)]
pub struct McpServers {
    inner: Arc<Inner>,
}

struct Inner {
    servers: Vec<Arc<Server>>,
    tools: Vec<&'static McpToolDefinition>,
    report: Vec<String>,
}

impl McpServers {
    /// Starts every server of `specs` at once, each confined in `view` (the session's
    /// sandbox), and lists their tools: the session's tools are then known, with their names
    /// (`{server}__{tool}`) and schemas.
    ///
    /// # Errors
    /// A server's entry is wrong, it cannot be started or does not list its tools in time, or
    /// the spec names a tool it does not have: the error names the server and what to do.
    pub async fn start(
        specs: &[McpServerSpec],
        view: &SandboxView,
    ) -> Result<McpServers, McpClientError> {
        for (i, spec) in specs.iter().enumerate() {
            if let Some(problem) = spec.problem() {
                return Err(McpClientError::new(problem));
            }
            if specs[..i].iter().any(|s| s.name == spec.name) {
                return Err(McpClientError::new(format!(
                    "two MCP servers are named `{}`; give each its own name",
                    spec.name
                )));
            }
        }
        let servers: Vec<Arc<Server>> = specs
            .iter()
            .map(|spec| Arc::new(Server::new(spec.clone(), view.clone())))
            .collect();
        // In parallel: a session waits for its slowest server, not for their sum.
        let mut listing = tokio::task::JoinSet::new();
        for (i, server) in servers.iter().enumerate() {
            let server = Arc::clone(server);
            listing.spawn(async move { (i, server.list_tools().await) });
        }
        let mut listed = vec![None; servers.len()];
        while let Some(done) = listing.join_next().await {
            let (i, tools) = done.map_err(|err| {
                McpClientError::new(format!("starting an MCP server failed inside ({err})"))
            })?;
            listed[i] = Some(tools.map_err(McpClientError::new)?);
        }
        let mut tools = Vec::new();
        let mut report = Vec::new();
        let mut taken = Taken::default();
        for (server, listed) in servers.iter().zip(listed) {
            let spec = &server.spec;
            let listed = listed.unwrap_or_default();
            if let Some(wanted) = &spec.tools
                && let Some(missing) = wanted
                    .iter()
                    .find(|w| !listed.iter().any(|t| t.name == **w))
            {
                let known: Vec<String> = listed.iter().map(|t| format!("`{}`", t.name)).collect();
                return Err(McpClientError::new(format!(
                    "MCP server `{}` has no tool `{missing}` (its tools are {}); fix the server's `tools` in the spec",
                    spec.name,
                    known.join(", ")
                )));
            }
            for tool in &listed {
                if spec
                    .tools
                    .as_ref()
                    .is_some_and(|w| !w.iter().any(|n| *n == tool.name))
                {
                    continue;
                }
                let mut name = session_name(&spec.name, &tool.name);
                if taken.holds(&name) {
                    // Two of its tools clean up to one name: the later one gets a digest.
                    name = session_name(&spec.name, &format!("{}\u{0}", tool.name));
                }
                taken.take(name.clone());
                let made = definition(&Made {
                    server: &spec.name,
                    session_name: &name,
                    tool,
                    trust_annotations: spec.trust_annotations,
                    timeout: spec.call_timeout(),
                })
                .map_err(McpClientError::new)?;
                if let Some(why) = &made.unchecked {
                    report.push(format!(
                        "`{name}`: its arguments go to MCP server `{}` unchecked, since its schema cannot be checked here ({why})",
                        spec.name
                    ));
                }
                tools.push(made);
            }
        }
        Ok(McpServers {
            inner: Arc::new(Inner {
                servers,
                tools,
                report,
            }),
        })
    }

    /// The session's names of the servers' tools, in order.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.inner.tools.iter().map(|t| t.meta_name())
    }

    /// The servers' tools as definitions, in order, for a host that binds tools itself (a
    /// session factory's extras): a session's context must hold these servers as its state.
    pub fn definitions(&self) -> impl Iterator<Item = &'static dyn Definition> + '_ {
        self.inner
            .tools
            .iter()
            .copied()
            .map(|tool| -> &'static dyn Definition { tool })
    }

    /// What the session should know about its server tools: those passed on unchecked, and why.
    pub fn report(&self) -> &[String] {
        &self.inner.report
    }

    /// The server named `name`.
    pub(crate) fn server(&self, name: &str) -> Option<&Server> {
        self.inner
            .servers
            .iter()
            .find(|s| s.spec.name == name)
            .map(AsRef::as_ref)
    }

    /// The servers' tools bound to `context`, which must hold these servers as its state
    /// (`ToolContext::with_state(servers.clone())`). `taken` are the session's other tools'
    /// names: a server tool never shadows one.
    ///
    /// # Errors
    /// A server tool's name is taken, or the context lacks the servers.
    pub fn bind(
        &self,
        context: &Arc<ToolContext>,
        taken: &[&str],
    ) -> Result<Vec<BoundTool>, McpClientError> {
        let others = Taken::of(taken.iter().copied());
        let mut bound = Vec::with_capacity(self.inner.tools.len());
        for tool in &self.inner.tools {
            let name = tool.meta_name();
            if others.holds(name) {
                return Err(McpClientError::new(format!(
                    "MCP server `{}`'s tool `{}` would be named `{name}`, which another tool of the session already is; rename the server",
                    tool.server, tool.tool
                )));
            }
            bound.push(bind_tool(*tool, Arc::clone(context)).map_err(|err| {
                McpClientError::new(format!(
                    "`{name}` could not be bound ({err}); build the session's context with `with_state(servers.clone())`"
                ))
            })?);
        }
        Ok(bound)
    }
}

impl std::fmt::Debug for McpServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServers")
            .field(
                "servers",
                &self
                    .inner
                    .servers
                    .iter()
                    .map(|s| &s.spec.name)
                    .collect::<Vec<_>>(),
            )
            .field("tools", &self.tool_names().collect::<Vec<_>>())
            .finish()
    }
}
