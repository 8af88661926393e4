//! # cy-tools-http-server
//!
//! What the HTTP servers of cy-tools (the control server of `cy-tools-remote`, MCP over
//! streamable HTTP in `cy-tools-mcp`) share, so both refuse and bound alike:
//!
//! * [`accept_loop`]: accepts and serves HTTP/1.1 connections with a header timeout, under a
//!   [`ConnectionCap`] at which connections that never showed the token make room first, and
//!   keeps going through accept errors (running out of descriptors included);
//! * [`bearer_matches`]: the bearer token compared in constant time, with a second
//!   `Authorization` header refused, and (with [`Standing::forget_loose_authorization`]) a
//!   token followed by whitespace, which the HTTP parser would otherwise drop unseen.

mod accept;
mod authorization_scan;
mod bearer;
mod connection_cap;
mod standing_timer;

pub use accept::{Listening, accept_loop};
pub use bearer::bearer_matches;
pub use connection_cap::{ConnectionCap, Standing, default_max_connections};
