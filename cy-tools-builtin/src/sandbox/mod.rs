//! The local sandbox: a workspace folder on the host, and session views of it.

pub(crate) mod confine;
mod env;
mod exec;
pub(crate) mod fs_ops;
mod isolation;
mod limits;
mod processes;
mod regular;
mod search;
mod walk;

pub use env::{LocalSandbox, SessionEnv};
#[cfg(feature = "cli")]
pub(crate) use exec::group::kill_every_group;
pub use isolation::Isolation;
pub use limits::ExecLimits;
pub use processes::LocalProcessTable;
