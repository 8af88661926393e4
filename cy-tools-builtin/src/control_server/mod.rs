//! The control server: a remote sandbox host that runs code for [`RemoteExecutor`]s.
//!
//! `cy-tools control-server --bind 127.0.0.1:8700 --root /srv/cy` serves
//! `POST /v1/sessions/{session_id}/execute` (the protocol is in [`wire`]), and
//! `GET /v1/health` (no token; answers `200 {"status":"ok"}`) for readiness probes, and
//! `GET /v1/sessions/{session_id}/code-mode`, an upgrade on which a code-mode run's SDK calls
//! are relayed back to the runtime (see [`crate::code_mode`]). Each
//! session id gets its own workspace folder, `<root>/<session_id>`, created on first use; the
//! code runs there with a [`LocalExecutor`], so with the local sandbox's clean environment,
//! output caps, timeout and process-group kill. Several servers can run on different machines; a session's
//! files live on the server that ran its code.
//!
//! * **Token**: every request carries `Authorization: Bearer <token>`; the token is read once at
//!   start from the environment variable named by [`ControlServerConfig::token_env`]
//!   (`CY_CONTROL_TOKEN` by default) and must be at least 16 characters. A missing or wrong
//!   token is answered `401`.
//! * **Body size**: a body over [`ControlServerConfig::max_body_bytes`] is answered `413`.
//! * **Concurrency**: at most [`ControlServerConfig::max_concurrent_runs`] runs at once, across
//!   all sessions; a request beyond that is answered `429` at once (not queued), and the
//!   caller may retry when a run finishes.
//! * **Cancellation**: a client that closes its connection stops its run, which is killed
//!   with every process it started.
//! * **Logs**: each run is logged with `tracing` (session, peer, file, exit code, time),
//!   at `info`; refusals at `warn`. The binary installs the subscriber that writes them to
//!   stderr.
//!
//! Plain HTTP: bind to loopback, or reach the server across machines through a tunnel or a
//! TLS-terminating proxy, so the token and the code are not sent in the clear.
//!
//! [`RemoteExecutor`]: crate::executor::RemoteExecutor
//! [`LocalExecutor`]: crate::executor::LocalExecutor
//! [`wire`]: crate::executor::wire

mod auth;
mod code_mode;
mod execute;

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::executor::{DEFAULT_COMMAND, RunLimits};
use auth::Token;
use execute::{ServerState, execute, health};

/// The environment variable the token is read from unless the config names another.
pub const DEFAULT_TOKEN_ENV: &str = "CY_CONTROL_TOKEN";

/// Shortest token the server accepts.
pub const MIN_TOKEN_LEN: usize = 16;

/// How a control server is set up; [`ControlServerConfig::new`] fills in the defaults.
///
/// ```
/// use cy_tools_builtin::control_server::ControlServerConfig;
///
/// let config = ControlServerConfig::new("127.0.0.1:8700".parse().unwrap(), "/srv/cy");
/// assert_eq!(config.token_env, "CY_CONTROL_TOKEN");
/// assert_eq!(config.command, "python3 {file}");
/// assert_eq!(config.max_concurrent_runs, 8);
/// assert_eq!(config.max_body_bytes, 1024 * 1024);
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
    /// Timeouts and output caps of every run.
    pub limits: RunLimits,
    /// Largest request body, in bytes; a larger one is answered `413`.
    pub max_body_bytes: usize,
    /// Most runs at once, across sessions; one more is answered `429`.
    pub max_concurrent_runs: usize,
}

impl ControlServerConfig {
    /// A config for a server on `bind` keeping workspaces under `root`, with the defaults:
    /// token from `CY_CONTROL_TOKEN`, command `python3 {file}`, [`RunLimits::default`],
    /// 1 MiB bodies, 8 concurrent runs.
    pub fn new(bind: SocketAddr, root: impl Into<PathBuf>) -> Self {
        ControlServerConfig {
            bind,
            root: root.into(),
            token_env: DEFAULT_TOKEN_ENV.to_string(),
            token: None,
            command: DEFAULT_COMMAND.to_string(),
            limits: RunLimits::default(),
            max_body_bytes: 1024 * 1024,
            max_concurrent_runs: 8,
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
            .finish()
    }
}

/// A control server bound to its address, not yet serving.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use cy_tools_builtin::control_server::{ControlServer, ControlServerConfig};
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
                max_concurrent_runs: config.max_concurrent_runs,
                runs: Arc::new(Semaphore::new(config.max_concurrent_runs)),
            }),
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
    /// # Errors
    /// Only if the server cannot go on accepting connections.
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
            "control server listening"
        );
        let router = Router::new()
            .route("/v1/sessions/{session_id}/execute", post(execute))
            .route(
                "/v1/sessions/{session_id}/code-mode",
                get(code_mode::code_mode),
            )
            .route("/v1/health", get(health))
            .with_state(self.state);
        axum::serve(
            self.listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
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
