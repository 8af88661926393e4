//! cy-tools measured against rmcp on the same 16 tools, and how binding scales with the size of
//! the toolset and the number of sessions.
//!
//! * [`tools`]: the 16 tools' parameter types and bodies, shared by both frameworks.
//! * [`ours`]: the tools with cy-tools' `#[tool]`; [`peer_rmcp`]: with rmcp's `#[tool]` and
//!   `#[tool_router]`.
//! * [`paired`]: two closures timed in alternating rounds, for ratios that a change of load
//!   between criterion's sequential measurements would skew.
//! * [`everything`]: the reference `server-everything` as a session's MCP server.
//! * [`generated`]: toolsets of 1 to 1,000 tools generated at run time, with small or large
//!   schemas, for the scaling measurements.
//!
//! The benchmarks are `benches/peers.rs` and `benches/scaling.rs`; heap bytes per session come
//! from the `session_memory` binary, which counts allocations. `scripts/bench-peers` and
//! `scripts/bench-scaling` run them and print the figures BENCHMARKS.md quotes.
//!
//! MCP over the wire has two binaries, run by `scripts/bench-http`: `rmcp_http`, rmcp's
//! streamable HTTP server as rmcp documents one, and `mcp_load`, the one client that drives it,
//! `cy-tools mcp --http`, FastMCP (`http/fastmcp_server.py`), and over stdio `cy-tools mcp` and
//! the reference filesystem server.

#![forbid(unsafe_code)]

pub mod everything;
pub mod generated;
pub mod ours;
#[path = "../../cy-tools/benches/support/paired.rs"]
pub mod paired;
pub mod peer_rmcp;
pub mod tools;
