//! The integration tests of `cy-tools-builtin`, in one binary: one link of the crate instead of
//! one per topic. Each topic is a module (a folder where it is big); what several share is in
//! `support`.
//!
//! Every test shares this one process, so a test whose subject is the process itself (peak
//! memory, descriptors, children, threads, an environment variable) runs in a process of its own
//! (`support::alone`). Behaviour the local and remote executors share is written once and run on
//! both (`support::backend::on_each_backend!`).

mod support;

mod agent;
mod annotations;
mod cli;
mod code_mode;
mod concurrent_runs;
mod control_server_connections;
mod control_server_limits;
mod control_server_refusals;
mod control_server_views;
mod exec;
mod execute_code;
mod faults;
mod file_tools;
mod isolation;
mod load;
mod mcp;
mod outliving;
mod path_attacks;
mod postgres;
mod process_tool;
mod processes;
mod remote_sandbox;
mod resource_limits;
mod run_slots;
mod session;
mod special_files;
mod terminal_tool;
