//! The local sandbox: a workspace folder on the host, and session views of it.

mod confine;
mod env;
mod exec;
mod fs_ops;
mod processes;
mod regular;
mod search;
mod walk;

pub use env::{ExecLimits, LocalSandbox, SessionEnv};
pub(crate) use exec::group::kill_every_group;
pub use processes::LocalProcessTable;
