//! The reference `server-everything` as a session's MCP server, for the benches that measure the
//! MCP client (`benches/mcp_client.rs`) and the gateway (`benches/gateway.rs`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cy_tools::session::McpServerSpec;
use cy_tools::{Session, SessionIdentity, ToolContext, Toolset};
use cy_tools_mcp_client::McpServers;
use cy_tools_sandbox::LocalSandbox;

/// The reference servers' `node_modules`, from `CY_MCP_SERVERS`, which `script` installs.
pub fn modules(script: &str) -> PathBuf {
    let Some(modules) = std::env::var_os("CY_MCP_SERVERS") else {
        panic!("CY_MCP_SERVERS: the reference servers' node_modules ({script} installs them)");
    };
    PathBuf::from(modules)
}

/// `server-everything`'s entry point in `modules`, started plainly by the baselines.
pub fn script(modules: &Path) -> PathBuf {
    modules.join("@modelcontextprotocol/server-everything/dist/index.js")
}

/// A session in `workspace` (made if absent) whose tools are `server-everything`'s, the server
/// confined in the session's sandbox.
pub fn session(runtime: &tokio::runtime::Runtime, modules: &Path, workspace: &Path) -> Session {
    std::fs::create_dir_all(workspace).unwrap();
    let view = LocalSandbox::new(workspace).unwrap().env();
    let spec = McpServerSpec {
        name: "everything".into(),
        command: "node".into(),
        args: vec![
            script(modules).to_string_lossy().into_owned(),
            "stdio".into(),
        ],
        read_only: vec![modules.to_string_lossy().into_owned()],
        ..McpServerSpec::default()
    };
    let servers = runtime.block_on(McpServers::start(&[spec], &view)).unwrap();
    let context = Arc::new(
        ToolContext::new(SessionIdentity::root("bench", "acme"))
            .with_env(Arc::new(view))
            .with_state(servers.clone()),
    );
    Session::new(
        Arc::clone(&context),
        Toolset::new(servers.bind(&context, &[]).unwrap()),
    )
}
