//! MCP through the binary: input that is not what MCP allows, cancellation reaching a command,
//! stdout carrying only the protocol, the HTTP server's token, signed approval state across
//! replicas, code-only mode (`--code-only`) and tool search (`--tool-search`).

mod approval_state;
mod bad_input;
mod code_only;
mod http;
mod server;
mod tool_search;
