//! The integration tests of `cy-tools-mcp`, in one binary: one link of the crate instead of one per
//! topic. Each topic is a module (a folder where it is big); what the suites of several crates
//! share is in `cy-tools-test-support`, named `support` here.
//!
//! The MCP server over a session's tools in process: the protocol, input that is not what MCP
//! allows (not JSON, invalid requests, lines too long to hold), the cap on calls at once, the
//! spans of a call, and streamable HTTP. The same through the `cy-tools` binary is `cy-tools-cli`'s.

use cy_tools_test_support as support;

mod bad_input;
mod call_cap;
mod hooks;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
mod http_authorization;
mod in_process;
mod log_bounds;
mod search_tools;
mod server;
mod trace;
