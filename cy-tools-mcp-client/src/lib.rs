//! A cy-tools session uses other MCP servers' tools.
//!
//! A session spec names its MCP servers ([`McpServerSpec`](cy_tools::session::McpServerSpec):
//! a program spoken to over its stdin and stdout, the host variables it receives by name,
//! which of its tools the session gets, what it may read, whether it may use the network; or a
//! streamable HTTP endpoint, reached through `cy-tools-http-client`, with the host variable
//! holding its bearer token).
//! [`McpServers::start`] starts them all at once, each confined in the session's sandbox like
//! `terminal`'s commands (the workspace, a private temporary folder, the system folders and
//! its own read-only folders; no network unless its entry allows it; memory and processes
//! capped, no CPU seconds cap), and lists their tools. [`McpServers::bind`] makes them the
//! session's tools, named `{server}__{tool}` ([`session_name`]), bound like any other: their
//! arguments checked by the session's validator against the server's schema (a schema it
//! cannot compile is passed on unchecked, and [`McpServers::report`] says which and why),
//! under the session's hooks, approval policy (a server's tools count as destructive unless
//! its entry trusts their annotations), result limits, cancellation (sent to the server as
//! `notifications/cancelled`) and a per-call timeout (300 s unless the entry says otherwise).
//! A server that died, or stopped answering its pings while a call ran, is started again (or
//! reconnected) for the next call, with backoff, and the calls it dropped answer an error
//! naming it; over HTTP, a request answered 404 (the session lost) is sent again on a new
//! session. What a server asks while it runs a call (sampling, elicitation) goes to whoever
//! the call's host asks, and its progress notifications to the call's progress listener. A
//! server whose tool list changes (`notifications/tools/list_changed`) is listed again; calls
//! take the new list at once, and hosts that show the tools learn of it from
//! [`McpServers::changes`] and bind again. A `lazy` server starts at its first call once its
//! tools are known in the process. The servers are killed with the session.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use cy_tools::prelude::*;
//! use cy_tools::session::McpServerSpec;
//! use cy_tools::{Session, Toolset};
//! use cy_tools_mcp_client::McpServers;
//! use cy_tools_sandbox::LocalSandbox;
//!
//! let view = LocalSandbox::new("workspace")?.env();
//! let spec: McpServerSpec = serde_json::from_value(serde_json::json!({
//!     "name": "time", "command": "python3", "args": ["-m", "mcp_server_time"],
//! }))?;
//! let servers = McpServers::start(&[spec], &view).await?;
//! let context = Arc::new(
//!     ToolContext::new(SessionIdentity::root("s-1", "acme"))
//!         .with_env(Arc::new(view))
//!         .with_state(servers.clone()),
//! );
//! let session = Session::new(Arc::clone(&context), Toolset::new(servers.bind(&context, &[])?));
//! let now = session.call("time__get_current_time", serde_json::json!({"timezone": "UTC"})).await;
//! println!("{now}");
//! # Ok(()) }
//! ```

mod call_guards;
mod connection;
mod definition;
mod error;
mod names;
mod result;
mod servers;
mod upstream;

pub use error::McpClientError;
pub use names::session_name;
pub use servers::McpServers;
