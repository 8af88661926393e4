//! A spec file's `mcp_servers` on the command line: started in the session's workspace,
//! confined like `terminal`'s commands, their tools (`{server}__{tool}`) served beside the
//! session's own by `call`, `mcp` and `agent`, and killed with the session.

use std::sync::Arc;

use cy_tools::session::McpServerSpec;
use cy_tools::{BoundTool, Session, ToolContext, Toolset};
use cy_tools_mcp_client::McpServers;
use cy_tools_sandbox::SandboxView;
use cy_tools_session::LocalSessionFactory;
use tokio::runtime::Handle;

use super::error::CliError;

/// Whether `name` is a tool of one of `servers` (by its prefix `{server}__`; the server's own
/// list says whether it has that tool once it is started). A server's name holds no `_`, so
/// no built-in tool's name reads as one.
pub(super) fn of_a_server(servers: &[McpServerSpec], name: &str) -> bool {
    name.split_once("__")
        .is_some_and(|(server, _)| servers.iter().any(|s| s.name == server))
}

/// The servers the session needs started: every one when it serves every tool (`requested`
/// is `None`), else those a requested name is a tool of. `call read_file` with a spec naming
/// servers starts none of them; `mcp --tools time__get_current_time` starts `time` alone.
pub(super) fn needed(
    servers: &[McpServerSpec],
    requested: Option<&[String]>,
) -> Vec<McpServerSpec> {
    servers
        .iter()
        .filter(|server| {
            requested.is_none_or(|names| {
                names
                    .iter()
                    .any(|n| n.split_once("__").is_some_and(|(s, _)| s == server.name))
            })
        })
        .cloned()
        .collect()
}

/// Starts `servers` in `view` (the session's workspace) on `runtime`, where their connections
/// then live, and logs what their start reports.
///
/// # Errors
/// A server cannot be started or does not list its tools in time, or its entry is wrong: the
/// error names it and what to do.
pub(super) fn start(
    servers: &[McpServerSpec],
    view: &SandboxView,
    runtime: &Handle,
) -> Result<McpServers, CliError> {
    let started = runtime
        .block_on(McpServers::start(servers, view))
        .map_err(|err| CliError::new(format!("session spec `mcp_servers`: {err}")))?;
    for line in started.report() {
        tracing::info!("{line}");
    }
    Ok(started)
}

/// The servers' tools bound to `context` (which holds `servers` as its state), after `tools`;
/// with `requested`, only those it names of them.
///
/// # Errors
/// A server tool's name is another tool's, or one `requested` name is no tool at all (the
/// error lists the servers' tools).
pub(super) fn bind_after(
    tools: Toolset,
    servers: &McpServers,
    context: &Arc<ToolContext>,
    requested: Option<&[String]>,
) -> Result<Toolset, CliError> {
    let taken: Vec<&str> = tools.names();
    let bound = servers
        .bind(context, &taken)
        .map_err(|err| CliError::new(err.to_string()))?;
    let mut all: Vec<BoundTool> = tools.iter().cloned().collect();
    match requested {
        None => all.extend(bound),
        Some(names) => {
            // In the order asked, each once: the built-ins come first, then these.
            for name in names {
                if let Some(tool) = bound.iter().find(|t| t.name() == name)
                    && !all.iter().any(|t| t.name() == name)
                {
                    all.push(tool.clone());
                }
            }
        }
    }
    Ok(Toolset::new(all))
}

/// `requested` names a server tool its server does not have: the error lists those it has.
pub(super) fn check_requested(
    specs: &[McpServerSpec],
    servers: &McpServers,
    requested: &[String],
) -> Result<(), CliError> {
    let names: Vec<&str> = servers.tool_names().collect();
    match requested
        .iter()
        .find(|name| of_a_server(specs, name) && !names.contains(&name.as_str()))
    {
        None => Ok(()),
        Some(missing) => Err(CliError::new(format!(
            "unknown tool `{missing}`; the MCP servers' tools are {}",
            super::session::listed(&names)
        ))),
    }
}

/// The stored session `id`, resumed with only the tools `allowed` names and its servers'
/// tools (a spec file's `tools` names the session's own; its servers' come with them, as
/// narrowed by each server's `tools`).
///
/// A stored session without servers is built once, narrowed. With servers, their tools'
/// names are known only once they are started: it is resumed whole, and built again narrowed
/// only when it has a tool `allowed` leaves out (a spec file narrower than the stored
/// session), so that in code mode its code reaches no more than it serves.
///
/// # Errors
/// As [`LocalSessionFactory::resume_within`].
pub(super) async fn resume_within(
    factory: &LocalSessionFactory,
    id: &str,
    allowed: &[String],
) -> Result<Session, cy_tools::services::ServiceError> {
    let has_servers = factory
        .specs()
        .load_spec(id)
        .await?
        .is_some_and(|spec| !spec.mcp_servers.is_empty());
    if !has_servers {
        return factory.resume_within(id, allowed).await;
    }
    let session = factory.resume(id).await?;
    let mut only = allowed.to_vec();
    if let Some(servers) = session.context().state::<McpServers>() {
        only.extend(servers.tool_names().map(str::to_string));
    }
    // A code-only session serves `execute_code` alone: what its code reaches is its spec's.
    let stored = session
        .spec()
        .filter(|spec| spec.code_only)
        .map(|spec| spec.tools.as_slice())
        .unwrap_or_default();
    if session
        .tools()
        .names()
        .into_iter()
        .chain(stored.iter().map(String::as_str))
        .all(|name| only.iter().any(|n| n == name))
    {
        return Ok(session);
    }
    drop(session);
    factory.resume_within(id, &only).await
}

/// Keeps what `updates`' server serves in step with `session`'s MCP servers: whenever their
/// tool lists change (a server sent `notifications/tools/list_changed`, or was started again
/// and lists other tools), the servers' tools are bound again beside the session's own (only
/// those `requested` names, when it names some) and put in place, and the server's clients
/// are told. Runs on `runtime` until the servers are dropped.
pub(super) fn follow(
    servers: McpServers,
    session: Session,
    requested: Option<Vec<String>>,
    updates: cy_tools_mcp::ToolUpdates,
    runtime: &Handle,
) {
    runtime.spawn(async move {
        let mut changes = servers.changes();
        while changes.changed().await.is_ok() {
            let own: Vec<BoundTool> = session
                .tools()
                .iter()
                .filter(|t| !servers.owns(t.name()))
                .cloned()
                .collect();
            let rebound = bind_after(
                Toolset::new(own),
                &servers,
                session.context(),
                requested.as_deref(),
            );
            let tools = match rebound {
                Ok(tools) => tools,
                Err(err) => {
                    tracing::warn!("the MCP servers' new tools cannot be served: {err}");
                    continue;
                }
            };
            for line in servers.report() {
                tracing::info!("{line}");
            }
            let names = tools.names().join(", ");
            match updates.replace(session.clone().with_tools(tools)).await {
                Ok(told) => {
                    tracing::info!(tools = %names, clients = told, "the MCP servers' tools changed")
                }
                Err(err) => tracing::warn!("the MCP servers' new tools cannot be served: {err}"),
            }
        }
    });
}
