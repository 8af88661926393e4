//! The integration tests of `cy-tools-cli`, in one binary: one link of the crate instead of one per
//! topic. Each topic is a module (a folder where it is big); what the suites of several crates
//! share is in `cy-tools-test-support`, named `support` here.
//!
//! The `cy-tools` binary: its commands, a stored session narrowed by its spec, signals, the
//! terminal's approval question, `cy-tools agent` against a fake provider, MCP through the
//! binary (bad input, HTTP tokens, approval state across replicas, code-only mode, tool
//! search), control-server processes
//! (attacks, connections, faults, another user swapping the code-mode package), concurrent
//! runs, and workers sharing a PostgreSQL store.

use cy_tools_test_support as support;

mod agent;
mod cli;
mod code_mode;
mod concurrent_runs;
mod control_server_connections;
mod faults;
mod mcp;
mod postgres;
