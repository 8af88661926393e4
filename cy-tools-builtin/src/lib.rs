//! # cy-tools-builtin
//!
//! The built-in tools of `cy-tools` and the real backends they run on, behind one dependency:
//! a facade over the domain crates, each of which an application may also depend on alone.
//!
//! By default (no features), the crate is what an application needs to give a model a
//! workspace and code to run in it, and nothing that serves or stores (`cy-tools-sandbox`):
//!
//! * [`sandbox`]: [`LocalSandbox`] and its [`SandboxView`] views, a workspace folder on the host
//!   with path confinement that holds against `..`, absolute paths and symlinks (resolved
//!   beneath the root without races); commands run with a clean environment in their own
//!   process group under [`ExecLimits`], and background processes die with the session.
//! * [`tools`]: the tools, each written with `#[tool]` and declaring the least it needs:
//!   `read_file`, `write_file`, `edit_file`, `list_directory`, `find_files`, `search_text`
//!   (the file tools: `env` only), `terminal`, `process` and `execute_code`.
//! * [`executor`]: [`LocalExecutor`], which runs `execute_code`'s Python in the sandbox, and
//!   [`RunSlots`](executor::RunSlots), a host-wide cap on runs at once.
//!
//! The rest is opt-in, one feature each, so an application compiles only what it uses:
//!
//! | feature | adds | crate |
//! |---|---|---|
//! | `sessions` | `session` (sessions built from a spec, resumed in any process, narrowed for children), `store` (their SQLite store), and the tools that need a session: `delegate`, `workflow`, `signal`, `send_message` | `cy-tools-session` |
//! | `postgres` | `store::PostgresStore`: the sessions' specs, log, chat and signals in one PostgreSQL database shared by any number of workers (implies `sessions`) | `cy-tools-session` |
//! | `remote` | `executor::RemoteExecutor`: code runs on a control server over HTTP; `remote_sandbox::RemoteSandbox`: the session's workspace lives there too | `cy-tools-remote` |
//! | `code-mode` | `code_mode`: code run by `execute_code` calls the session's tools back | `cy-tools-code-mode` |
//! | `control-server` | `control_server`: the host end of the remote executor and the remote sandbox (implies `code-mode`) | `cy-tools-remote` |
//! | `mcp` | `mcp`: an MCP server over a session's tools, on stdio | `cy-tools-mcp` |
//! | `mcp-http` | `mcp::http`: the same server over streamable HTTP, with a bearer token, stateless (implies `mcp`) | `cy-tools-mcp` |
//! | `agent` | `agent`: the model loop over the OpenAI Chat Completions and Anthropic Messages APIs, and `ModelRunner`, the runner of subagents whose profile names a model (implies `sessions`) | `cy-tools-agent` |
//! | `cli` | `cli`: the `cy-tools` command line, with everything above (the binary is `cy-tools-cli`'s) | `cy-tools-cli` |
//!
//! An application that only serves tools of its own over MCP needs none of this: it depends on
//! `cy-tools` and `cy-tools-mcp`, and links no built-in tool.
//!
//! The tools register themselves at link time. An application that uses nothing else from this
//! crate must still name it so the linker keeps it:
//!
//! ```
//! use cy_tools_builtin as _;
//! let registry = cy_tools::ToolRegistry::linked().unwrap();
//! assert!(registry.names().contains(&"read_file"));
//! ```

#![cfg_attr(docsrs, feature(doc_auto_cfg))]

pub use cy_tools_sandbox as sandbox;
pub use cy_tools_sandbox::executor::LocalExecutor;
pub use cy_tools_sandbox::{ExecLimits, LocalSandbox, SandboxView, local_session};

/// The backends behind `execute_code`: the local executor, and with feature `remote` the
/// remote one.
pub mod executor {
    #[cfg(feature = "remote")]
    pub use cy_tools_remote::RemoteExecutor;
    pub use cy_tools_sandbox::executor::*;
}

/// The built-in tools: those that work in the sandbox, and with feature `sessions` those that
/// need a session's factory, coordinator or chat.
pub mod tools {
    pub use cy_tools_sandbox::tools::*;
    #[cfg(feature = "sessions")]
    pub use cy_tools_session::tools::*;
}

#[cfg(feature = "agent")]
pub use cy_tools_agent as agent;
#[cfg(feature = "cli")]
pub use cy_tools_cli as cli;
#[cfg(feature = "code-mode")]
pub use cy_tools_code_mode as code_mode;
#[cfg(feature = "mcp")]
pub use cy_tools_mcp as mcp;
#[cfg(feature = "remote")]
pub use cy_tools_remote::RemoteExecutor;
#[cfg(feature = "control-server")]
pub use cy_tools_remote::control_server;
#[cfg(any(feature = "remote", feature = "control-server"))]
pub use cy_tools_remote::sandbox as remote_sandbox;
#[cfg(feature = "control-server")]
pub use cy_tools_remote::{ControlServer, ControlServerConfig};
#[cfg(feature = "sessions")]
pub use cy_tools_session as session;
#[cfg(feature = "sessions")]
pub use cy_tools_session::store;
#[cfg(feature = "sessions")]
pub use cy_tools_session::store::SqliteStore;
#[cfg(feature = "postgres")]
pub use cy_tools_session::store::{PostgresStore, TenantStore};
#[cfg(feature = "sessions")]
pub use cy_tools_session::{LocalSessionFactory, SubagentRunner};
