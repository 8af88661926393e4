//! Sessions: the spec a session is rebuilt from (names only), the live session, and the store
//! that keeps specs across processes.
//!
//! A [`SessionSpec`] carries a session's identity, workspace, tool names, executor and
//! subagent profiles, so any process with the registry can rebuild the session from it; a
//! [`ChildSessionFactory`](crate::services::ChildSessionFactory) turns specs into live [`Session`]s.

mod execution;
pub(crate) mod live;
mod mcp_server;
pub(crate) mod spec;
mod spec_store;
mod subagent;

// At the root: `Session`, `SessionSpec`.
pub use execution::{ExecutorSpec, WorkspaceHost};
pub(crate) use live::Session;
pub use mcp_server::{DEFAULT_MCP_CALL_TIMEOUT, DEFAULT_MCP_STARTUP_TIMEOUT, McpServerSpec};
pub(crate) use spec::SessionSpec;
pub use spec::{NO_HOOKS, SpecDefaults};
pub use spec_store::SpecStore;
pub use subagent::{ModelProvider, ModelSpec, SubagentLimits, SubagentProfile};
