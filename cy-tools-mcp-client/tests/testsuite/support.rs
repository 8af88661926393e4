//! A session whose tools come from MCP servers, and where the tests find the servers.

use std::sync::Arc;

use cy_tools::prelude::*;
use cy_tools::session::McpServerSpec;
use cy_tools::{Session, Toolset};
use cy_tools_mcp_client::McpServers;
use cy_tools_sandbox::LocalSandbox;

/// A session with the tools of `specs`' servers, and its workspace.
pub struct Fixture {
    pub session: Session,
    pub servers: McpServers,
    pub workspace: tempfile::TempDir,
}

pub async fn session(specs: &[McpServerSpec]) -> Fixture {
    session_in(tempfile::tempdir().unwrap(), specs).await
}

/// The same in `workspace`.
pub async fn session_in(workspace: tempfile::TempDir, specs: &[McpServerSpec]) -> Fixture {
    let (session, servers) = session_at(workspace.path(), specs).await;
    Fixture {
        session,
        servers,
        workspace,
    }
}

/// A session with the tools of `specs`' servers in the folder `workspace`.
pub async fn session_at(
    workspace: &std::path::Path,
    specs: &[McpServerSpec],
) -> (Session, McpServers) {
    let view = LocalSandbox::new(workspace).unwrap().env();
    let servers = McpServers::start(specs, &view)
        .await
        .unwrap_or_else(|err| panic!("{err}"));
    let context = Arc::new(
        ToolContext::new(SessionIdentity::root("s-mcp", "acme"))
            .with_env(Arc::new(view))
            .with_state(servers.clone()),
    );
    let tools = servers.bind(&context, &[]).unwrap();
    (Session::new(context, Toolset::new(tools)), servers)
}

pub use cy_tools_test_support::mcp_servers::installed;

/// The fault server's entry, named `name`.
pub fn fault_server(name: &str) -> McpServerSpec {
    let (script, dir) = cy_tools_test_support::mcp_servers::fault_server();
    McpServerSpec {
        name: name.into(),
        command: "python3".into(),
        args: vec![script],
        read_only: vec![dir],
        ..McpServerSpec::default()
    }
}
