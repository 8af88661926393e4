//! The local [`CodeExecutor`](cy_tools::services::CodeExecutor) behind the `execute_code` tool.
//!
//! * [`LocalExecutor`]: writes the code into the session's sandbox and runs it there with a
//!   configurable command (`{python} {file}` by default: `uv run --script` where `uv` is
//!   installed, see [`PythonRunner`]).
//! * The remote executor (`cy-tools-remote`) sends the code to a control server, which runs it
//!   with a [`LocalExecutor`] in the workspace it keeps for the session.
//!
//! Both hold runs to the [`ExecLimits`](crate::ExecLimits) of the sandbox the code runs in
//! (the local one, or the control server's) and give the same
//! [`ShellResult`](cy_tools::services::ShellResult) for the same code, so the tool reads alike whichever
//! backend a session gets.

mod bootstrap;
mod local;
mod python;
mod script;
mod scripts;
mod shown;
mod slots;

pub use local::{CANCELLED, DEFAULT_COMMAND, LocalExecutor};
pub use python::{PYTHON, PythonRunner};
pub use slots::RunSlots;
