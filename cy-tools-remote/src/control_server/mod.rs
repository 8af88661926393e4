//! The control server: a remote sandbox host that runs code for [`RemoteExecutor`]s.
//!
//! `cy-tools control-server --bind 127.0.0.1:8700 --root /srv/cy` serves
//! `POST /v1/sessions/{session_id}/execute` (the protocol is in [`wire`]), and
//! `GET /v1/health` (no token; answers `200 {"status":"ok"}`) for readiness probes, and
//! `GET /v1/sessions/{session_id}/code-mode`, an upgrade on which a code-mode run's SDK calls
//! are relayed back to the runtime (see [`cy_tools_code_mode`]), and
//! `POST /v1/sessions/{session_id}/sandbox`, the file, command and background-process
//! operations of a [`RemoteSandbox`] on the same workspace (its protocol is in
//! [`remote_sandbox::wire`]), so a session whose code runs here keeps all its files here. Each
//! session id gets its own workspace folder, `<root>/<session_id>`, created on first use; the
//! code runs there with a [`LocalExecutor`], so with the local sandbox's clean environment,
//! output caps, timeout and process-group kill; the sandbox endpoint's operations go through
//! the same local sandbox, so they are confined, limited and isolated alike, and each counts
//! as a run for the cap below and is logged (a batch of read-only operations counts, and is
//! logged, as one). Several servers can run on different machines; a session's files live on
//! the server that ran its code.
//!
//! * **Token**: every request carries `Authorization: Bearer <token>`; the token is read once at
//!   start from the environment variable named by [`ControlServerConfig::token_env`]
//!   (`CY_CONTROL_TOKEN` by default) and must be at least 16 characters. A missing or wrong
//!   token, a second `Authorization` header, or a space or tab after the token (which the
//!   HTTP parser would otherwise drop unseen), is answered `401`.
//! * **Body size**: a body over [`ControlServerConfig::max_body_bytes`] is answered `413`, at
//!   once when its `Content-Length` says so.
//! * **Limits**: the limits a request carries (a command's or background process's CPU time,
//!   memory, process count and output cap) are held to [`ControlServerConfig::limits`]: a
//!   client may lower each, never raise it or lift it.
//! * **Workspace views**: the sandbox endpoint's views are kept between requests, with their
//!   background processes; one whose processes have ended is released when its session has
//!   made no request for [`ControlServerConfig::view_idle_timeout`], and at most
//!   [`ControlServerConfig::max_views`] are kept (one more is answered `503` when none can make
//!   room). A large write's staging file that gets no part for as long is removed.
//! * **Concurrency**: at most [`ControlServerConfig::max_concurrent_runs`] runs at once, across
//!   all sessions; a request beyond that is answered `429` at once (not queued), and the
//!   caller may retry when a run finishes. A batch of the sandbox endpoint's read-only
//!   operations is one run, which runs at most 4 of its operations at a time.
//! * **Cancellation**: a client that closes its connection stops its run, which is killed
//!   with every process it started.
//! * **Slow or idle clients**: a connection whose next request head is not complete within
//!   [`ControlServerConfig::header_timeout`] is closed, and a request body that pauses longer
//!   than [`ControlServerConfig::idle_timeout`] is answered `408`.
//! * **Connections**: at most [`ControlServerConfig::max_connections`] are open at once; at the
//!   cap, a new one closes the oldest that has not yet made a request with the token (or, when
//!   every open one has, is itself closed at once), so idle sockets cannot crowd out
//!   `/v1/health` or a run.
//! * **Logs**: each run is logged with `tracing` (session, peer, file, exit code, time),
//!   at `info`; refusals at `warn`. The binary installs the subscriber that writes them to
//!   stderr.
//!
//! Plain HTTP: bind to loopback, or reach the server across machines through a tunnel or a
//! TLS-terminating proxy, so the token and the code are not sent in the clear.
//!
//! [`RemoteExecutor`]: crate::executor::RemoteExecutor
//! [`RemoteSandbox`]: crate::sandbox::RemoteSandbox
//! [`remote_sandbox::wire`]: crate::sandbox::wire
//! [`LocalExecutor`]: cy_tools_sandbox::executor::LocalExecutor
//! [`wire`]: crate::executor::wire

mod admission;
mod auth;
mod batch;
mod clamp;
mod code_mode;
mod execute;
mod request_body;
mod sandbox;
mod views;

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::routing::{get, post};
use hyper::body::Incoming;
use hyper::service::{Service as _, service_fn};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use auth::Token;
use cy_tools_http_server::{ConnectionCap, Listening, accept_loop};
use cy_tools_sandbox::ExecLimits;
use cy_tools_sandbox::executor::DEFAULT_COMMAND;
use execute::{ServerState, execute, health};

/// The environment variable the token is read from unless the config names another.
pub const DEFAULT_TOKEN_ENV: &str = "CY_CONTROL_TOKEN";

/// Shortest token the server accepts.
pub const MIN_TOKEN_LEN: usize = 16;

/// How a control server is set up; [`ControlServerConfig::new`] fills in the defaults.
///
/// ```
/// use std::time::Duration;
/// use cy_tools_remote::control_server::ControlServerConfig;
///
/// let config = ControlServerConfig::new("127.0.0.1:8700".parse().unwrap(), "/srv/cy");
/// assert_eq!(config.token_env, "CY_CONTROL_TOKEN");
/// assert_eq!(config.command, "{python} {file}");
/// assert_eq!(config.max_concurrent_runs, 8);
/// assert_eq!(config.max_body_bytes, 1024 * 1024);
/// assert_eq!(config.header_timeout, Duration::from_secs(10));
/// assert_eq!(config.idle_timeout, Duration::from_secs(30));
/// assert!((16..=1024).contains(&config.max_connections));
/// assert_eq!(config.view_idle_timeout, Duration::from_secs(600));
/// assert_eq!(config.max_views, 128);
///
/// let embedded = ControlServerConfig { token: Some("a-long-shared-secret".into()), ..config };
/// assert!(!format!("{embedded:?}").contains("a-long-shared-secret"));
/// ```
#[derive(Clone)]
pub struct ControlServerConfig {
    /// Address to listen on; port 0 picks a free one ([`ControlServer::local_addr`] tells it).
    pub bind: SocketAddr,
    /// Folder holding one workspace folder per session id; created if missing.
    pub root: PathBuf,
    /// Name of the environment variable holding the bearer token.
    pub token_env: String,
    /// The token itself, for a server embedded in another program (and tests); when set,
    /// `token_env` is not read.
    pub token: Option<String>,
    /// The run command, with `{file}` where the script's path goes.
    pub command: String,
    /// Timeouts, output caps and resource limits of every run and command; what a request
    /// asks for is held to them (a client may lower a limit, never raise or lift it).
    pub limits: ExecLimits,
    /// Largest request body, in bytes; a larger one is answered `413`.
    pub max_body_bytes: usize,
    /// Most runs at once, across sessions; one more is answered `429`.
    pub max_concurrent_runs: usize,
    /// Longest wait for a request head: from a connection's opening, or from the end of its
    /// previous answer, to the end of its next request's head. A connection that has not sent
    /// a whole head by then is closed without an answer, so this also bounds how long an idle
    /// kept-alive connection stays open. It does not bound a run: the clock stops when the head
    /// is in, and starts again only after the answer. 10 s by default.
    pub header_timeout: Duration,
    /// Longest pause while a request body is read: a body of which nothing more arrives for
    /// this long is answered `408` and its connection closed. A slow body that keeps coming
    /// is read however long it takes in all (its size is bounded by `max_body_bytes`). 30 s by
    /// default.
    pub idle_timeout: Duration,
    /// Most connections open at once, each holding a file descriptor; one more closes the
    /// oldest open connection that has not yet made a request with the token (a code-mode
    /// upgrade counts until its socket closes), or, if every open one has, is closed at once.
    /// By default a quarter of the process's open-file limit (its soft `RLIMIT_NOFILE`), at
    /// least 16 and at most 1024.
    pub max_connections: usize,
    /// How long a workspace view of the sandbox endpoint is kept once its session stops
    /// making requests, if none of its background processes is running; then it is released,
    /// with its descriptors, its private temporary folder and its ended processes' unread
    /// output (a later request opens a fresh view). Also how long a large write's staging
    /// file may wait for its next part. 10 minutes by default.
    pub view_idle_timeout: Duration,
    /// Most workspace views kept at once (each holds a few descriptors and a temporary
    /// folder). At the cap a new view releases the least recently used one that no request
    /// is using and that runs no background process; when there is none, the request is
    /// answered `503`. 128 by default.
    pub max_views: usize,
}

impl ControlServerConfig {
    /// A config for a server on `bind` keeping workspaces under `root`, with the defaults:
    /// token from `CY_CONTROL_TOKEN`, command `{python} {file}`, [`ExecLimits::default`],
    /// 1 MiB bodies, 8 concurrent runs, a 10 s header timeout, a 30 s idle timeout for bodies,
    /// connections capped at a quarter of the open-file limit (16 to 1024), and at most 128
    /// workspace views, each released after 10 minutes idle with nothing running.
    pub fn new(bind: SocketAddr, root: impl Into<PathBuf>) -> Self {
        ControlServerConfig {
            bind,
            root: root.into(),
            token_env: DEFAULT_TOKEN_ENV.to_string(),
            token: None,
            command: DEFAULT_COMMAND.to_string(),
            limits: ExecLimits::default(),
            max_body_bytes: 1024 * 1024,
            max_concurrent_runs: 8,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            max_connections: cy_tools_http_server::default_max_connections(),
            view_idle_timeout: Duration::from_secs(600),
            max_views: 128,
        }
    }
}

impl std::fmt::Debug for ControlServerConfig {
    // The token stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControlServerConfig")
            .field("bind", &self.bind)
            .field("root", &self.root)
            .field("token_env", &self.token_env)
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("command", &self.command)
            .field("limits", &self.limits)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_concurrent_runs", &self.max_concurrent_runs)
            .field("header_timeout", &self.header_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_connections", &self.max_connections)
            .field("view_idle_timeout", &self.view_idle_timeout)
            .field("max_views", &self.max_views)
            .finish()
    }
}

/// A control server bound to its address, not yet serving.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use cy_tools_remote::control_server::{ControlServer, ControlServerConfig};
///
/// let root = tempfile::tempdir().unwrap();
/// let mut config = ControlServerConfig::new("127.0.0.1:0".parse().unwrap(), root.path());
/// config.token = Some("a-long-shared-secret".into());
/// let server = ControlServer::bind(config).await.unwrap();
/// let addr = server.local_addr().unwrap();
/// assert!(addr.ip().is_loopback() && addr.port() != 0);
/// tokio::spawn(server.run());
/// # });
/// ```
pub struct ControlServer {
    listener: TcpListener,
    state: Arc<ServerState>,
    header_timeout: Duration,
    max_connections: usize,
}

impl ControlServer {
    /// Reads the token, creates the root folder and binds the address.
    ///
    /// # Errors
    /// The token is missing or shorter than [`MIN_TOKEN_LEN`], the root cannot be created, a
    /// limit is zero, or the address cannot be bound; each message says what to change.
    pub async fn bind(config: ControlServerConfig) -> io::Result<Self> {
        let token = match &config.token {
            Some(token) => Token::new(token.clone(), "the configured token")?,
            None => Token::from_env(&config.token_env)?,
        };
        if config.max_concurrent_runs == 0 || config.max_body_bytes == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "`max_concurrent_runs` and `max_body_bytes` must be at least 1",
            ));
        }
        if config.max_connections == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "`max_connections` must be at least 1; a server with no connections could not be reached",
            ));
        }
        if config.header_timeout.is_zero()
            || config.idle_timeout.is_zero()
            || config.view_idle_timeout.is_zero()
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "`header_timeout`, `idle_timeout` and `view_idle_timeout` must be longer than zero; give each a few seconds",
            ));
        }
        if config.max_views == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "`max_views` must be at least 1; a server keeping no workspace view could run no background process",
            ));
        }
        if !config.command.contains("{file}") {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "the run command `{}` has no `{{file}}`: write where the script's path goes, as in `python3 {{file}}`",
                    config.command
                ),
            ));
        }
        std::fs::create_dir_all(&config.root).map_err(|err| {
            io::Error::new(
                err.kind(),
                format!(
                    "cannot create the workspace root {}: {err}",
                    config.root.display()
                ),
            )
        })?;
        let root = config.root.canonicalize()?;
        let listener = TcpListener::bind(config.bind).await.map_err(|err| {
            io::Error::new(
                err.kind(),
                format!("cannot listen on {}: {err}", config.bind),
            )
        })?;
        Ok(ControlServer {
            listener,
            state: Arc::new(ServerState {
                root,
                token,
                token_env: config.token_env,
                command: config.command,
                limits: config.limits,
                max_body_bytes: config.max_body_bytes,
                idle_timeout: config.idle_timeout,
                max_concurrent_runs: config.max_concurrent_runs,
                runs: Arc::new(Semaphore::new(config.max_concurrent_runs)),
                views: views::Views::new(config.view_idle_timeout, config.max_views),
            }),
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

    /// Serves requests until the process ends or the future is dropped.
    ///
    /// Dropping the future stops accepting; connections already open (and their runs) are
    /// tasks of the runtime and go on until they end or the runtime is dropped, which kills
    /// their runs. So a binary that stops on a signal should return from `main` (dropping the
    /// runtime) rather than call `std::process::exit`, which would leave runs behind.
    ///
    /// Failing to accept a connection does not end it: the error is logged and accepting
    /// resumes shortly after (having first closed the oldest unauthenticated connection, if
    /// the process ran out of file descriptors).
    ///
    /// # Errors
    /// Only if the listening address cannot be read at start, which practically never
    /// happens; errors after that are logged and retried.
    pub async fn run(self) -> io::Result<()> {
        let addr = self.local_addr()?;
        if !addr.ip().is_loopback() {
            tracing::warn!(
                %addr,
                "the control server speaks plain HTTP: reach it through a tunnel or a TLS proxy so the token and code are not sent in the clear"
            );
        }
        tracing::info!(
            %addr,
            root = %self.state.root.display(),
            max_concurrent_runs = self.state.max_concurrent_runs,
            max_connections = self.max_connections,
            "control server listening"
        );
        let router = Router::new()
            .route("/v1/sessions/{session_id}/execute", post(execute))
            .route("/v1/sessions/{session_id}/sandbox", post(sandbox::sandbox))
            .route(
                "/v1/sessions/{session_id}/code-mode",
                get(code_mode::code_mode),
            )
            .route("/v1/health", get(health))
            .with_state(Arc::clone(&self.state));
        let listening = Listening {
            header_timeout: self.header_timeout,
            cap: ConnectionCap::new(self.max_connections),
        };
        let state = self.state;
        // Stops by itself once the server (every connection holding its state) is gone.
        tokio::spawn(views::sweep_while(Arc::downgrade(&state)));
        accept_loop(self.listener, listening, move |peer, standing| {
            let router = TowerToHyperService::new(router.clone());
            let state = Arc::clone(&state);
            service_fn(move |mut request: hyper::Request<Incoming>| {
                // Whitespace after the token is dropped by the parser; such a request is
                // treated as one without a token, so every endpoint answers it `401`.
                standing.forget_loose_authorization(request.headers_mut());
                // The same check each endpoint makes before anything else; passing it here is
                // what protects this connection from eviction.
                if state.token.admits(request.headers()) {
                    standing.authenticate();
                }
                request.extensions_mut().insert(ConnectInfo(peer));
                router.call(request)
            })
        })
        .await
    }
}

/// Binds with `config` and serves until the process ends: what `cy-tools control-server` runs.
///
/// # Errors
/// As [`ControlServer::bind`] and [`ControlServer::run`].
pub async fn serve(config: ControlServerConfig) -> io::Result<()> {
    ControlServer::bind(config).await?.run().await
}
