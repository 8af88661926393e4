//! A session whose tools come from MCP servers, and where the tests find the servers.

use std::path::PathBuf;
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
    let workspace = tempfile::tempdir().unwrap();
    let view = LocalSandbox::new(workspace.path()).unwrap().env();
    let servers = McpServers::start(specs, &view)
        .await
        .unwrap_or_else(|err| panic!("{err}"));
    let context = Arc::new(
        ToolContext::new(SessionIdentity::root("s-mcp", "acme"))
            .with_env(Arc::new(view))
            .with_state(servers.clone()),
    );
    let tools = servers.bind(&context, &[]).unwrap();
    Fixture {
        session: Session::new(context, Toolset::new(tools)),
        servers,
        workspace,
    }
}

/// A folder from the environment variable `var`, set by `.ci/run`: `None` (the test skips)
/// when it is unset, unless `CY_MCP_SERVERS_REQUIRE` is set (then it fails).
pub fn installed(var: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(path) => Some(PathBuf::from(path)),
        None if std::env::var_os("CY_MCP_SERVERS_REQUIRE").is_some() => {
            panic!("{var} is not set: `.ci/run` installs the MCP servers these tests use")
        }
        None => {
            eprintln!("skipped: {var} is not set (`.ci/run` sets it)");
            None
        }
    }
}

/// The fault server's entry, named `name`, reading its script from this crate's folder.
pub fn fault_server(name: &str) -> McpServerSpec {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/testsuite");
    McpServerSpec {
        name: name.into(),
        command: "python3".into(),
        args: vec![dir.join("fault_server.py").to_string_lossy().into_owned()],
        read_only: vec![dir.to_string_lossy().into_owned()],
        ..McpServerSpec::default()
    }
}
