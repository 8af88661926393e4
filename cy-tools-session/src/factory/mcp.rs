//! A session's MCP servers (its spec's `mcp_servers`): started when the session is built
//! (created, resumed, narrowed or spawned as a child), their tools placed after the spec's,
//! the servers held by the session's context and killed with it.

use cy_tools::SessionSpec;
use cy_tools::services::{ServiceError, ServiceErrorKind};

use super::LocalSessionFactory;
use crate::compose::Extras;

impl LocalSessionFactory {
    /// `extras` and, when `spec` names MCP servers, their tools after the extras' and the
    /// servers as the session's state.
    ///
    /// # Errors
    /// [`Unavailable`](ServiceErrorKind::Unavailable) when a server cannot be started or
    /// listed (naming it), or this build has no MCP client;
    /// [`InvalidInput`](ServiceErrorKind::InvalidInput) for a session whose workspace is on an
    /// execution host.
    pub(crate) async fn with_mcp_servers(
        &self,
        spec: &SessionSpec,
        extras: Extras,
    ) -> Result<Extras, ServiceError> {
        if spec.mcp_servers.is_empty() {
            return Ok(extras);
        }
        if spec.workspace_host.is_some() {
            return Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!(
                    "session `{}` names MCP servers and keeps its workspace on an execution host; servers run beside a local workspace only, so remove `mcp_servers` or `workspace_host`",
                    spec.id()
                ),
            ));
        }
        self.start_servers(spec, extras).await
    }

    #[cfg(feature = "mcp-client")]
    async fn start_servers(
        &self,
        spec: &SessionSpec,
        extras: Extras,
    ) -> Result<Extras, ServiceError> {
        let view = cy_tools_sandbox::LocalSandbox::new(&spec.workspace)
            .map_err(|err| {
                ServiceError::new(
                    ServiceErrorKind::Other,
                    format!(
                        "cannot open the workspace folder `{}` for the session's MCP servers: {err}",
                        spec.workspace
                    ),
                )
            })?
            .with_limits(self.host.exec_limits.clone())
            .env();
        let servers = cy_tools_mcp_client::McpServers::start(&spec.mcp_servers, &view)
            .await
            .map_err(|err| {
                ServiceError::new(
                    ServiceErrorKind::Unavailable,
                    format!("session `{}`: {err}", spec.id()),
                )
            })?;
        for line in servers.report() {
            tracing::info!(session = spec.id(), "{line}");
        }
        let mut extras = extras.with_state(servers.clone());
        for definition in servers.definitions() {
            extras = extras.with_tool(definition);
        }
        Ok(extras)
    }

    #[cfg(not(feature = "mcp-client"))]
    #[allow(clippy::unused_async)] // the same signature as with the feature
    async fn start_servers(
        &self,
        spec: &SessionSpec,
        _extras: Extras,
    ) -> Result<Extras, ServiceError> {
        Err(ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "session `{}` names MCP servers, but this build has no MCP client; build `cy-tools-session` with its `mcp-client` feature",
                spec.id()
            ),
        ))
    }
}
