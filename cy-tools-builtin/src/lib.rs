//! # cy-tools-builtin
//!
//! The built-in tools of `cy-tools` and the real backends they run on.
//!
//! By default (no features), the crate is what an application needs to give a model a
//! workspace and code to run in it, and nothing that serves or stores:
//!
//! * [`sandbox`]: [`LocalSandbox`] and its [`SessionEnv`] views, a workspace folder on the host
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
//! | feature | adds |
//! |---|---|
//! | `sessions` | [`session`] (sessions built from a spec, resumed in any process, narrowed for children), [`store`] (their SQLite store), and the tools that need a session: `delegate`, `workflow`, `signal`, `send_message` |
//! | `postgres` | `store::PostgresStore`: the sessions' specs, log, chat and signals in one PostgreSQL database shared by any number of workers; [`LocalSessionFactory::connect`](session::LocalSessionFactory::connect) picks the store by URL (implies `sessions`) |
//! | `remote` | [`executor::RemoteExecutor`]: code runs on a control server over HTTP; [`remote_sandbox::RemoteSandbox`]: the session's workspace (files, commands, background processes) lives there too |
//! | `code-mode` | [`code_mode`]: code run by `execute_code` calls the session's tools back |
//! | `control-server` | [`control_server`]: the host end of the remote executor and the remote sandbox (implies `code-mode`) |
//! | `mcp` | [`mcp`]: an MCP server over a session's tools, on stdio |
//! | `mcp-http` | [`mcp::http`](mcp): the same server over streamable HTTP, with a bearer token, stateless (implies `mcp`) |
//! | `agent` | [`agent`]: the model loop over the OpenAI Chat Completions and Anthropic Messages APIs, and the runner `delegate` and `workflow` use when a subagent profile names a model (implies `sessions`) |
//! | `cli` | [`cli`] and the `cy-tools` binary: everything above, from the command line |
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

pub mod executor;
mod random;
pub mod sandbox;
mod shell;
pub mod tools;

pub use executor::LocalExecutor;
#[allow(deprecated)]
pub use executor::RunLimits;
pub use sandbox::{ExecLimits, LocalSandbox, SessionEnv};

#[cfg(feature = "agent")]
pub mod agent;
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "code-mode")]
pub mod code_mode;
#[cfg(feature = "control-server")]
pub mod control_server;
#[cfg(any(feature = "control-server", feature = "mcp-http"))]
mod http_server;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(any(feature = "remote", feature = "control-server"))]
pub mod remote_sandbox;
#[cfg(feature = "sessions")]
pub mod session;
#[cfg(feature = "sessions")]
pub mod store;

#[cfg(feature = "control-server")]
pub use control_server::{ControlServer, ControlServerConfig};
#[cfg(feature = "remote")]
pub use executor::RemoteExecutor;
#[cfg(feature = "sessions")]
pub use session::{LocalSessionFactory, Session, SubagentRunner};
#[cfg(feature = "sessions")]
pub use store::SqliteStore;
#[cfg(feature = "postgres")]
pub use store::{PostgresStore, TenantStore};
