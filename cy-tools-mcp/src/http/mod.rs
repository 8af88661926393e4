//! The MCP server over streamable HTTP (feature `mcp-http`): `POST /mcp`, served by `rmcp`'s
//! transport, behind the checks a server reachable from other machines needs.
//!
//! * **Stateless**: every request is answered on its own, with nothing kept between requests
//!   and no `Mcp-Session-Id` handed out, for 2026-07-28 clients (per-request protocol metadata,
//!   no `initialize`) and for older ones (their `initialize` is answered, then forgotten). So
//!   any number of servers over the same workspace answer the same requests, behind a load
//!   balancer without session affinity. The price for pre-2026 clients: a
//!   `notifications/cancelled` is not routed to the call (another replica may be running it);
//!   a call stops when its HTTP request is dropped instead.
//! * **Token**: the config says which ([`McpHttpAuth`], no default): with
//!   [`McpHttpAuth::Bearer`] every request carries `Authorization: Bearer <token>` (compared
//!   in constant time), or is answered `401`; [`McpHttpAuth::NoToken`] serves anyone who can
//!   connect, and [`McpHttpServer::bind`] accepts it on a loopback address only (where it
//!   still serves every local user).
//! * **`Origin` and `Host`** (the specification's defence against DNS rebinding): a request
//!   whose `Origin` is not allowed ([`McpHttpConfig::allowed_origins`]; by default, on a
//!   loopback address, pages served from `localhost`, `127.0.0.1` or `[::1]`) is answered `403`,
//!   and so, on a loopback address without a token, is one whose `Host` is not a loopback name.
//! * **Bounds**: a body over [`McpHttpConfig::max_body_bytes`] is answered `413`; one that
//!   pauses longer than [`McpHttpConfig::idle_timeout`] `408`; a connection that sends no whole
//!   request head within [`McpHttpConfig::header_timeout`] is closed; at most
//!   [`McpHttpConfig::max_connections`] are open, idle unauthenticated ones evicted first.
//! * **Disconnects**: a client that closes its connection while its call runs cancels the
//!   call, and with it every command the call started.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use cy_tools::{SessionIdentity, ToolContext, ToolRegistry};
//! use cy_tools_sandbox::LocalSandbox;
//! use cy_tools_mcp::McpServer;
//! use cy_tools_mcp::http::{McpHttpAuth, McpHttpConfig, McpHttpServer};
//!
//! let registry = ToolRegistry::linked().expect("tool names are unique");
//! let env = LocalSandbox::new(".").expect("the folder exists").env();
//! let context = ToolContext::new(SessionIdentity::root("s-1", "local"))
//!     .with_env(std::sync::Arc::new(env));
//! let server = McpServer::new(registry.build(&["read_file"], &context)).expect("declarable");
//! let config = McpHttpConfig::new("127.0.0.1:8765".parse().unwrap(), McpHttpAuth::random_token()?);
//! McpHttpServer::bind(config, server).await?.run().await
//! # }
//! ```

mod access;
mod auth;
mod body;
mod poll;
mod service;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use super::McpServer;
use access::Access;
pub use auth::McpHttpAuth;
use cy_tools_http_server::{ConnectionCap, Listening, accept_loop};
use service::HttpState;

/// The path the MCP endpoint is served at.
pub const ENDPOINT: &str = "/mcp";

/// The environment variable `cy-tools mcp --http` reads the token from.
pub const TOKEN_ENV: &str = "CY_TOOLS_MCP_TOKEN";

/// Shortest token the server accepts.
pub const MIN_TOKEN_LEN: usize = 16;

/// How an MCP HTTP server is set up; [`McpHttpConfig::new`] fills in the defaults.
///
/// ```
/// use std::time::Duration;
/// use cy_tools_mcp::http::{McpHttpAuth, McpHttpConfig};
///
/// let config = McpHttpConfig::new("127.0.0.1:8765".parse().unwrap(), McpHttpAuth::NoToken);
/// assert_eq!(config.auth, McpHttpAuth::NoToken);
/// assert_eq!(config.max_body_bytes, 4 * 1024 * 1024);
/// assert_eq!(config.header_timeout, Duration::from_secs(10));
/// assert_eq!(config.idle_timeout, Duration::from_secs(30));
///
/// let with_token = McpHttpConfig { auth: McpHttpAuth::Bearer("a-long-shared-secret".into()), ..config };
/// assert!(!format!("{with_token:?}").contains("a-long-shared-secret"));
/// ```
#[derive(Clone)]
pub struct McpHttpConfig {
    /// Address to listen on; port 0 picks a free one ([`McpHttpServer::local_addr`] tells it).
    pub bind: SocketAddr,
    /// Whether every request must carry a bearer token (at least [`MIN_TOKEN_LEN`]
    /// characters), or none is asked, on a loopback address only.
    pub auth: McpHttpAuth,
    /// Browser origins allowed to call, as `scheme://host[:port]`, with `:*` for any port
    /// (`http://localhost:*`). Empty: on a loopback address, pages from `localhost`,
    /// `127.0.0.1` and `[::1]` on any port; on any other, no page at all. Clients that are not
    /// browsers send no `Origin` and are not affected.
    pub allowed_origins: Vec<String>,
    /// Largest request body, in bytes; a larger one is answered `413`. 4 MiB by default.
    pub max_body_bytes: usize,
    /// Longest wait for a request head, from a connection's opening or the end of its previous
    /// answer; a connection that has not sent a whole head by then is closed. It does not bound
    /// a call. 10 s by default.
    pub header_timeout: Duration,
    /// Longest pause while a request body is read; then the request is answered `408` and its
    /// connection closed. 30 s by default.
    pub idle_timeout: Duration,
    /// Most connections open at once; one more closes the oldest that has not yet made an
    /// authenticated request, or, if every open one has, is closed at once. By default a
    /// quarter of the open-file limit, at least 16 and at most 1024.
    pub max_connections: usize,
    /// The session-bearing mode, for clients of protocol 2025-11-25 and earlier: `initialize`
    /// opens a session (`Mcp-Session-Id`), the client's GET stream carries what the server
    /// sends on its own (a tool's questions to the client's model and user, resource updates),
    /// every event has an id and a dropped stream resumes with `Last-Event-ID`. One replica,
    /// or replicas behind a balancer with session affinity: a session lives in the process
    /// that opened it. Requests of protocol 2026-07-28 are answered statelessly either way.
    /// Off by default (stateless).
    pub sessions: bool,
    /// Most sessions open at once in the session-bearing mode; one more `initialize` is
    /// answered `503`. 256 by default.
    pub max_sessions: usize,
    /// How long a session of the session-bearing mode may go without a request before it is
    /// closed. 5 minutes by default.
    pub session_idle_timeout: Duration,
    /// In the session-bearing mode, how long a call's event stream stays open without its
    /// answer before the server ends it (SEP-1699 polling): the client comes back with
    /// `Last-Event-ID` for the rest, which the session keeps meanwhile, so a long call holds no
    /// connection. `None` (the default): streams stay open until the answer.
    pub poll_after: Option<Duration>,
}

impl McpHttpConfig {
    /// A config for a server on `bind` checking callers as `auth` says, with the defaults:
    /// the loopback origins, 4 MiB bodies, a 10 s header timeout, a 30 s idle timeout for
    /// bodies, and connections capped at a quarter of the open-file limit (16 to 1024).
    pub fn new(bind: SocketAddr, auth: McpHttpAuth) -> Self {
        McpHttpConfig {
            bind,
            auth,
            allowed_origins: Vec::new(),
            max_body_bytes: 4 * 1024 * 1024,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            max_connections: cy_tools_http_server::default_max_connections(),
            sessions: false,
            max_sessions: 256,
            session_idle_timeout: Duration::from_secs(5 * 60),
            poll_after: None,
        }
    }
}

impl std::fmt::Debug for McpHttpConfig {
    // The token stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpConfig")
            .field("bind", &self.bind)
            .field("auth", &self.auth)
            .field("allowed_origins", &self.allowed_origins)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("header_timeout", &self.header_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_connections", &self.max_connections)
            .field("sessions", &self.sessions)
            .field("max_sessions", &self.max_sessions)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("poll_after", &self.poll_after)
            .finish()
    }
}

/// An MCP server bound to its address, not yet serving.
pub struct McpHttpServer {
    listener: TcpListener,
    state: Arc<HttpState>,
    header_timeout: Duration,
    max_connections: usize,
}

impl McpHttpServer {
    /// Checks the config and binds its address, to serve `server`'s tools.
    ///
    /// # Errors
    /// A token shorter than [`MIN_TOKEN_LEN`], [`McpHttpAuth::NoToken`] on an address that is
    /// not loopback, an allowed origin that does not parse, a limit of zero, or an address that
    /// cannot be bound; each message says what to change.
    pub async fn bind(config: McpHttpConfig, server: McpServer) -> io::Result<Self> {
        let invalid = |message: String| io::Error::new(io::ErrorKind::InvalidInput, message);
        if config.max_body_bytes == 0 || config.max_connections == 0 || config.max_sessions == 0 {
            return Err(invalid(
                "`max_body_bytes`, `max_connections` and `max_sessions` must be at least 1"
                    .to_string(),
            ));
        }
        if config.header_timeout.is_zero()
            || config.idle_timeout.is_zero()
            || config.session_idle_timeout.is_zero()
        {
            return Err(invalid(
                "`header_timeout`, `idle_timeout` and `session_idle_timeout` must be longer than zero; give each a few seconds"
                    .to_string(),
            ));
        }
        let access = Access::new(
            config.bind.ip(),
            config.auth.token(),
            &config.allowed_origins,
        )
        .map_err(invalid)?;
        let listener = TcpListener::bind(config.bind).await.map_err(|err| {
            io::Error::new(
                err.kind(),
                format!(
                    "cannot listen on {}: {err}; pick a free port, or 0 for any",
                    config.bind
                ),
            )
        })?;
        let server = if config.sessions {
            server
        } else {
            server.stateless()
        };
        let server = if config.auth.token().is_some() {
            // Only token holders may see the list, so no cache may hand it to anyone else.
            server.with_private_tool_list()
        } else {
            server
        };
        Ok(McpHttpServer {
            listener,
            state: Arc::new(HttpState::new(server, access, &config)),
            header_timeout: config.header_timeout,
            max_connections: config.max_connections,
        })
    }

    /// The address the server listens on.
    ///
    /// # Errors
    /// The socket cannot tell (it practically always can).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves requests until the future is dropped.
    ///
    /// Dropping it stops accepting; connections already open and their calls are tasks of the
    /// runtime and go on until they end or the runtime is dropped, which drops the calls and
    /// kills their commands.
    ///
    /// # Errors
    /// Only if the listening address cannot be read at start; errors after that are logged
    /// and retried.
    pub async fn run(self) -> io::Result<()> {
        let addr = self.local_addr()?;
        if !addr.ip().is_loopback() {
            tracing::warn!(
                %addr,
                "MCP over plain HTTP: reach it through a TLS-terminating proxy or a tunnel so the token and the tools' data are not sent in the clear"
            );
        }
        tracing::info!(
            url = %format!("http://{addr}{ENDPOINT}"),
            token = self.state.has_token(),
            max_connections = self.max_connections,
            sessions = self.state.sessions(),
            "serving MCP over streamable HTTP"
        );
        let listening = Listening {
            header_timeout: self.header_timeout,
            cap: ConnectionCap::new(self.max_connections),
        };
        let state = self.state;
        accept_loop(self.listener, listening, move |_peer, standing| {
            service::ConnectionService::new(Arc::clone(&state), standing)
        })
        .await
    }
}

impl std::fmt::Debug for McpHttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpServer")
            .field("addr", &self.local_addr().ok())
            .finish_non_exhaustive()
    }
}
