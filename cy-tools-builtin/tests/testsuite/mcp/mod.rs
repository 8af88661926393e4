//! The MCP server over a session's tools: the protocol in process and through the binary, and
//! input that is not what MCP allows (not JSON, invalid requests, lines too long to hold), and
//! over streamable HTTP.

mod approval_state;
mod bad_input;
mod call_cap;
mod http;
mod http_authorization;
mod server;
