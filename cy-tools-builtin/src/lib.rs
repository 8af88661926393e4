//! # cy-tools-builtin
//!
//! The built-in tools of `cy-tools` and the real backends they run on:
//!
//! * [`LocalSandbox`] and its [`SessionEnv`] views: a workspace folder on the host, with path
//!   confinement that holds against `..`, absolute paths and symlinks (resolved beneath the root
//!   without races), commands run with a clean environment in their own process group, and a
//!   table of background processes that die with the session.
//! * The tools, each written with `#[tool]` and declaring the least it needs (the file tools:
//!   `env` only): `read_file`, `write_file`, `edit_file`, `list_directory`, `find_files`,
//!   `search_text`, `terminal`, `process`.
//!
//! The tools register themselves at link time. An application that uses nothing else from this
//! crate must still name it so the linker keeps it:
//!
//! ```
//! use cy_tools_builtin as _;
//! let registry = cy_tools::ToolRegistry::linked().unwrap();
//! assert!(registry.names().contains(&"read_file"));
//! ```

pub mod sandbox;
pub mod tools;

pub use sandbox::{ExecLimits, LocalSandbox, SessionEnv};
pub mod control_server;
pub mod executor;

pub use control_server::{ControlServer, ControlServerConfig};
pub use executor::{LocalExecutor, RemoteExecutor, RunLimits};
#[doc(hidden)]
pub mod cli;
pub mod mcp;
mod random;
pub mod session;
mod shell;
pub mod store;

pub use session::{LocalSessionFactory, Session, SubagentRunner};
pub use store::SqliteStore;
pub mod code_mode;
