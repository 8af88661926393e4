//! The application crate's integration tests, in one binary: its own `#[tool]` functions beside
//! the built-ins (registry, typed calls, schemas, every dialect), and its own binary,
//! `cy-tools-app`, driven by the official Python MCP client and held to never freezing.
//!
//! The crate's `app` feature (its test tools and the binary) is on for these tests through the
//! crate's dev-dependency on itself.

mod support;

mod catalog;
mod dialect_conformance;
mod dialect_json;
mod host_log;
mod macro_calls;
mod macro_registry;
mod macro_schemas;
mod mcp_ask;
mod mcp_gateway;
mod mcp_http_client;
mod mcp_hundreds;
mod mcp_inspector;
mod mcp_progress_approval;
mod mcp_python_client;
mod output_schema;
mod pydantic_ai;
mod quickstart_items;
mod result_limits;
mod strict_schemas;
mod stuck;
mod tool_names;
