//! A lost connection retried with backoff, and every failure told in words a person can act
//! on: what was being done, what went wrong, what to check.

use std::future::Future;
use std::time::{Duration, Instant};

use cy_tools::services::{ServiceError, ServiceErrorKind};
use deadpool_postgres::PoolError;
use tokio_postgres::error::SqlState;

/// Where the store is, as its errors name it.
#[derive(Clone, Debug)]
pub(super) struct Target {
    /// `postgres://user@host:port/db`, no password.
    pub(super) shown: String,
    pub(super) host: String,
    pub(super) port: u16,
    pub(super) retry_for: Duration,
}

/// Why one attempt failed.
#[derive(Debug)]
pub(super) enum Failure {
    /// No connection could be had from the pool.
    Pool(PoolError),
    /// The server or the connection failed the statement.
    Pg(tokio_postgres::Error),
    /// The row came back in a shape this build cannot read.
    Data(String),
}

impl From<PoolError> for Failure {
    fn from(err: PoolError) -> Self {
        Failure::Pool(err)
    }
}

impl From<tokio_postgres::Error> for Failure {
    fn from(err: tokio_postgres::Error) -> Self {
        Failure::Pg(err)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Pool(PoolError::Backend(err)) | Failure::Pg(err) => write_pg(f, err),
            Failure::Pool(err) => write!(f, "{err}"),
            Failure::Data(what) => f.write_str(what),
        }
    }
}

/// The driver's text, with the server's own message and the I/O cause when there is one
/// (`db error` or `error connecting to server` alone say little).
fn write_pg(f: &mut std::fmt::Formatter<'_>, err: &tokio_postgres::Error) -> std::fmt::Result {
    if let Some(db) = err.as_db_error() {
        return write!(f, "{} ({})", db.message(), db.code().code());
    }
    match std::error::Error::source(err) {
        Some(cause) => write!(f, "{err}: {cause}"),
        None => write!(f, "{err}"),
    }
}

impl Failure {
    /// Whether trying again may succeed: the connection was lost or could not be made, the
    /// server is starting or stopping, or it is out of connections.
    pub(super) fn is_transient(&self) -> bool {
        match self {
            Failure::Pool(PoolError::Timeout(_)) => true,
            Failure::Pool(PoolError::Backend(err)) | Failure::Pg(err) => pg_transient(err),
            Failure::Pool(_) | Failure::Data(_) => false,
        }
    }

    /// The server's error code, when the server answered with one.
    fn code(&self) -> Option<&SqlState> {
        match self {
            Failure::Pool(PoolError::Backend(err)) | Failure::Pg(err) => err.code(),
            _ => None,
        }
    }
}

fn pg_transient(err: &tokio_postgres::Error) -> bool {
    if err.is_closed() {
        return true;
    }
    match err.code() {
        Some(code) => {
            let text = code.code();
            text.starts_with("08") // connection exception
                || *code == SqlState::ADMIN_SHUTDOWN
                || *code == SqlState::CRASH_SHUTDOWN
                || *code == SqlState::CANNOT_CONNECT_NOW
                || *code == SqlState::TOO_MANY_CONNECTIONS
                || *code == SqlState::T_R_SERIALIZATION_FAILURE
                || *code == SqlState::T_R_DEADLOCK_DETECTED
        }
        // No answer from the server: a socket error, a refused or timed-out connection.
        None => {
            let mut cause = std::error::Error::source(err);
            while let Some(c) = cause {
                if c.is::<std::io::Error>() {
                    return true;
                }
                cause = c.source();
            }
            err.to_string().starts_with("timeout")
        }
    }
}

impl Target {
    /// Runs `attempt` until it succeeds, fails for good, or connections have been failing
    /// for longer than `retry_for`; `what` (`recording a call`) names the work in errors.
    ///
    /// Each attempt must be safe to repeat: a statement whose answer was lost with its
    /// connection may have committed (the stores make their writes idempotent with keys).
    pub(super) async fn retry<T, F, Fut>(
        &self,
        what: &str,
        mut attempt: F,
    ) -> Result<T, ServiceError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let started = Instant::now();
        let mut pause = Duration::from_millis(50);
        let mut warned = false;
        loop {
            let failure = match attempt().await {
                Ok(value) => {
                    if warned {
                        tracing::warn!(store = %self.shown, "the session store is reachable again; {what} succeeded");
                    }
                    return Ok(value);
                }
                Err(failure) => failure,
            };
            if !failure.is_transient() {
                return Err(self.error(what, &failure));
            }
            let waited = started.elapsed();
            if waited + pause > self.retry_for {
                return Err(self.unreachable(what, &failure, waited));
            }
            if !warned {
                tracing::warn!(
                    store = %self.shown,
                    "the session store cannot be reached while {what} ({failure}); retrying for up to {} s",
                    self.retry_for.as_secs()
                );
                warned = true;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(2));
        }
    }

    /// The error for a connection that stayed lost.
    fn unreachable(&self, what: &str, failure: &Failure, waited: Duration) -> ServiceError {
        let (host, port) = (&self.host, self.port);
        ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "the session store at `{}` could not be reached for {:.1} s while {what} (last error: {failure}); check that the server is running and accepts connections from this worker (`pg_isready -h {host} -p {port}`), that the URL given with `--store` or `CY_TOOLS_STORE` is right, and that the server has connections to spare (`max_connections`); nothing stored before is lost, retry once it is back",
                self.shown,
                waited.as_secs_f64()
            ),
        )
    }

    /// The error for a failure that trying again would not fix.
    pub(super) fn error(&self, what: &str, failure: &Failure) -> ServiceError {
        let shown = &self.shown;
        let code = failure.code();
        let (kind, fix) = match code {
            Some(c)
                if *c == SqlState::INVALID_PASSWORD
                    || *c == SqlState::INVALID_AUTHORIZATION_SPECIFICATION =>
            {
                (
                    ServiceErrorKind::PermissionDenied,
                    "check the user and password in the store URL, and that `pg_hba.conf` lets this worker's address in".to_string(),
                )
            }
            Some(c) if *c == SqlState::INVALID_CATALOG_NAME => (
                ServiceErrorKind::Unavailable,
                format!(
                    "create the database (`createdb -h {} -p {} NAME`), or name an existing one in the store URL",
                    self.host, self.port
                ),
            ),
            Some(c) if *c == SqlState::INSUFFICIENT_PRIVILEGE => (
                ServiceErrorKind::PermissionDenied,
                "grant the store's user the right to create and use tables in the database (the schema is set up on start)".to_string(),
            ),
            _ => (
                ServiceErrorKind::Other,
                "this is not a lost connection, so it was not retried; see the server's log for more".to_string(),
            ),
        };
        ServiceError::new(
            kind,
            format!("the session store at `{shown}` failed while {what}: {failure}; {fix}"),
        )
    }
}
