//! # cy-tools-sandbox
//!
//! The local sandbox of `cy-tools` and the built-in tools that work in it: what an application
//! needs to give a model a workspace and code to run in it, and nothing that serves or stores.
//!
//! * [`LocalSandbox`] and its [`SandboxView`]s: a workspace folder on the host with path
//!   confinement that holds against `..`, absolute paths and symlinks (resolved beneath the root
//!   without races); commands run with a clean environment in their own process group under
//!   [`ExecLimits`], confined by the kernel ([`Isolation`]), and background processes die with
//!   the session.
//! * [`tools`]: the tools, each written with `#[tool]` and declaring the least it needs:
//!   `read_file`, `write_file`, `edit_file`, `list_directory`, `find_files`, `search_text`
//!   (the file tools: `env` only), `terminal`, `process` and `execute_code`.
//! * [`local_session`]: a session over a folder with the tools named, in one call.
//! * [`executor`]: [`LocalExecutor`](executor::LocalExecutor), which runs `execute_code`'s
//!   Python in the sandbox, and [`RunSlots`](executor::RunSlots), a host-wide cap on runs at
//!   once.
//!
//! The crate depends on the core (`cy-tools`) only. The tools register themselves at link
//! time; an application that uses nothing else from this crate must still name it so the linker
//! keeps it:
//!
//! ```
//! use cy_tools_sandbox as _;
//! let registry = cy_tools::ToolRegistry::linked().unwrap();
//! assert!(registry.names().contains(&"read_file"));
//! ```

#![cfg_attr(docsrs, feature(doc_auto_cfg))]

pub mod confine;
mod exec;
pub mod executor;
mod fs_ops;
mod isolation;
mod limits;
mod local_session;
mod processes;
mod regular;
mod search;
mod server_process;
mod shell;
pub mod tools;
mod view;
mod walk;

pub use exec::group::kill_every_group;
pub use isolation::Isolation;
pub use limits::ExecLimits;
pub use local_session::local_session;
pub use processes::LocalProcessTable;
pub use server_process::{
    DEFAULT_SERVER_MEMORY, DEFAULT_SERVER_PROCESSES, ServerOptions, ServerProcess,
};
pub use view::{LocalSandbox, SandboxView};
