//! What the integration suites of the cy-tools crates share. A helper only one suite uses
//! lives with that suite. Each suite names this crate `support` (`use cy_tools_test_support as
//! support;` in its `main.rs`), so its tests read `crate::support::process::running`.
//!
//! It depends only on the crates below the ones whose suites use it, with the features those
//! suites need anyway, so no suite's crate gets a feature through it.

// Helpers of test suites, not an API: each says what it is for where that is not plain.
#![allow(missing_docs)]

pub mod alone;
pub mod backend;
pub mod code_session;
pub mod connect_proxy;
pub mod corpus;
pub mod fake_model;
pub mod loopback_server;
pub mod mcp_client;
pub mod mcp_servers;
pub mod outcome;
pub mod postgres;
pub mod process;
pub mod raw_http;
pub mod reaper;
pub mod test_ca;
pub mod workspace;
