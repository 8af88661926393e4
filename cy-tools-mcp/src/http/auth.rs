//! Who may call an MCP HTTP server: whoever sends the bearer token, or, on a loopback address
//! and only when asked for by name, anyone who can connect.
//!
//! Why a choice with no default: a server without a token on 127.0.0.1 serves every account
//! on the machine (any local user can connect to loopback), so an open server must be asked
//! for, never arrived at by leaving a field out.

use std::io;

use super::MIN_TOKEN_LEN;

/// How an MCP HTTP server checks its callers, given to [`McpHttpConfig::new`](super::McpHttpConfig::new).
///
/// ```
/// use cy_tools_mcp::http::McpHttpAuth;
///
/// let made = McpHttpAuth::random_token().unwrap();
/// assert_eq!(made.token().unwrap().len(), 64);
/// assert_ne!(made, McpHttpAuth::random_token().unwrap());
/// assert!(!format!("{made:?}").contains(made.token().unwrap()));
/// assert_eq!(McpHttpAuth::NoToken.token(), None);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub enum McpHttpAuth {
    /// Every request must carry `Authorization: Bearer <token>` (compared in constant time), at
    /// least [`MIN_TOKEN_LEN`] printable ASCII characters; others are answered `401`, as are
    /// requests with a second `Authorization` header or a space or tab after the token.
    Bearer(String),
    /// No token: anyone who can connect may call the tools. Accepted on a loopback address
    /// only, where that still means every local user of this machine; for a client that
    /// cannot send a header (the MCP conformance suite's `server` command, say).
    NoToken,
}

impl McpHttpAuth {
    /// A bearer token of 32 random bytes from the kernel's generator, as 64 hex digits: what
    /// `cy-tools mcp --http` makes when no token is given (and prints, as Jupyter does).
    ///
    /// # Errors
    /// `/dev/urandom` cannot be read.
    pub fn random_token() -> io::Result<Self> {
        cy_tools::services::random_hex(32)
            .map(McpHttpAuth::Bearer)
            .map_err(|err| io::Error::other(err.to_string()))
    }

    /// The token, when there is one.
    pub fn token(&self) -> Option<&str> {
        match self {
            McpHttpAuth::Bearer(token) => Some(token),
            McpHttpAuth::NoToken => None,
        }
    }
}

impl std::fmt::Debug for McpHttpAuth {
    // The token stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            McpHttpAuth::Bearer(_) => f.write_str("Bearer(<set>)"),
            McpHttpAuth::NoToken => f.write_str("NoToken"),
        }
    }
}

const _: () = assert!(MIN_TOKEN_LEN <= 64, "a random token must be long enough");
