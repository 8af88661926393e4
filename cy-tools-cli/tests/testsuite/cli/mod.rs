//! The `cy-tools` binary: each subcommand with what it prints and its exit code, the resource
//! limits it gives what a call runs, and how it stops on Ctrl-C and `SIGTERM`.

mod code_mode;
mod commands;
mod hooks;
mod hooks_file;
mod host_files;
mod limits;
pub(crate) mod mcp_servers;
mod narrowing;
mod signals;
mod terminal;
