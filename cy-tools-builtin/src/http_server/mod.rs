//! What the crate's HTTP servers (the control server, MCP over streamable HTTP) share: the
//! accept loop with its header timeout and connection cap, and the bearer-token comparison.

mod accept;
mod authorization_scan;
mod bearer;
mod connection_cap;

pub(crate) use accept::{Listening, accept_loop};
pub(crate) use bearer::bearer_matches;
pub(crate) use connection_cap::ConnectionCap;
#[cfg(feature = "mcp-http")]
pub(crate) use connection_cap::Standing;
