//! `PostgresSettings`: how long a lost connection is retried, how many connections a worker
//! keeps, how often a waiter looks at its signals without being woken; and the server's address
//! as errors show it (never its password).

use std::time::Duration;

use cy_tools::services::{ServiceError, ServiceErrorKind};

/// How a worker uses its PostgreSQL store.
///
/// ```
/// use std::time::Duration;
/// use cy_tools_session::store::PostgresSettings;
///
/// let settings = PostgresSettings::default().with_retry_for(Duration::from_secs(5));
/// assert_eq!(settings.retry_for, Duration::from_secs(5));
/// assert_eq!(settings.pool_size, 16);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostgresSettings {
    /// How long an operation whose connection is lost (the server restarting, a network cut)
    /// is retried, with backoff, before it fails with an error that says what to check
    /// (default 30 s; `CY_TOOLS_STORE_RETRY_S` for the command line).
    pub retry_for: Duration,
    /// Connections this worker keeps open at most (default 16).
    pub pool_size: usize,
    /// How often a session waiting for a signal looks at the signals table even without a
    /// notification, so a notification lost with a connection delays it by this at most
    /// (default 1 s).
    pub poll_every: Duration,
    /// How long opening one connection may take (default 5 s, unless the URL sets
    /// `connect_timeout`).
    pub connect_timeout: Duration,
}

impl Default for PostgresSettings {
    fn default() -> Self {
        PostgresSettings {
            retry_for: Duration::from_secs(30),
            pool_size: 16,
            poll_every: Duration::from_secs(1),
            connect_timeout: Duration::from_secs(5),
        }
    }
}

impl PostgresSettings {
    /// The same settings retrying a lost connection for `retry_for`.
    #[must_use]
    pub fn with_retry_for(mut self, retry_for: Duration) -> Self {
        self.retry_for = retry_for;
        self
    }

    /// The same settings with at most `pool_size` connections (at least 1).
    #[must_use]
    pub fn with_pool_size(mut self, pool_size: usize) -> Self {
        self.pool_size = pool_size.max(1);
        self
    }

    /// The same settings polling waiting sessions' signals every `poll_every`.
    #[must_use]
    pub fn with_poll_every(mut self, poll_every: Duration) -> Self {
        self.poll_every = poll_every.max(Duration::from_millis(10));
        self
    }

    /// The defaults, with `retry_for` from `CY_TOOLS_STORE_RETRY_S` (whole seconds) when set.
    ///
    /// # Errors
    /// [`InvalidInput`](ServiceErrorKind::InvalidInput) when the variable is not a number.
    pub fn from_env() -> Result<Self, ServiceError> {
        let settings = PostgresSettings::default();
        match std::env::var("CY_TOOLS_STORE_RETRY_S") {
            Ok(text) => {
                let secs: u64 = text.trim().parse().map_err(|_| {
                    ServiceError::new(
                        ServiceErrorKind::InvalidInput,
                        format!(
                            "`CY_TOOLS_STORE_RETRY_S` is `{text}`, not a whole number of seconds; set it to how long a lost store connection is retried, such as 30"
                        ),
                    )
                })?;
                Ok(settings.with_retry_for(Duration::from_secs(secs)))
            }
            Err(_) => Ok(settings),
        }
    }
}

/// The parsed URL, with the defaults this crate adds (a connect timeout, keepalives, an
/// application name the server's `pg_stat_activity` shows).
pub(super) fn parse_url(
    url: &str,
    settings: &PostgresSettings,
) -> Result<tokio_postgres::Config, ServiceError> {
    let mut config: tokio_postgres::Config = url.parse().map_err(|err| {
        ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!(
                "the store URL `{}` is not a PostgreSQL URL ({err}); write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE",
                redact(url)
            ),
        )
    })?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(settings.connect_timeout);
    }
    if config.get_application_name().is_none() {
        config.application_name("cy-tools");
    }
    // A server that vanishes without closing the connection (a host down, a cable cut) is
    // noticed by the kernel within about 20 s instead of hours.
    config
        .keepalives(true)
        .keepalives_idle(Duration::from_secs(10))
        .keepalives_interval(Duration::from_secs(5))
        .keepalives_retries(2);
    Ok(config)
}

/// `postgres://user@host:port/db`: where the store is, as errors show it (no password).
pub(super) fn describe(config: &tokio_postgres::Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(n, host)| {
            let port = config
                .get_ports()
                .get(n)
                .or_else(|| config.get_ports().first())
                .copied()
                .unwrap_or(5432);
            match host {
                tokio_postgres::config::Host::Tcp(name) => format!("{name}:{port}"),
                tokio_postgres::config::Host::Unix(path) => format!("{}:{port}", path.display()),
            }
        })
        .collect();
    let user = config
        .get_user()
        .map(|u| format!("{u}@"))
        .unwrap_or_default();
    let db = config.get_dbname().unwrap_or_default();
    format!("postgres://{user}{}/{db}", hosts.join(","))
}

/// The first host and port, for the `pg_isready` an error suggests.
pub(super) fn first_address(config: &tokio_postgres::Config) -> (String, u16) {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(name)) => name.clone(),
        Some(tokio_postgres::config::Host::Unix(path)) => path.display().to_string(),
        None => "localhost".to_string(),
    };
    (host, config.get_ports().first().copied().unwrap_or(5432))
}

/// `url` with any password replaced by `***`, for a URL that could not even be parsed.
pub(super) fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or_default();
            let hidden = if userinfo.contains(':') { ":***" } else { "" };
            format!("{scheme}://{user}{hidden}@{host}{tail}")
        }
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            redact("postgres://cy:secret@db:5432/cy?x=1"),
            "postgres://cy:***@db:5432/cy?x=1"
        );
        assert_eq!(redact("postgres://db/cy"), "postgres://db/cy");
        let config = parse_url(
            "postgres://cy:secret@127.0.0.1:5999/sessions",
            &PostgresSettings::default(),
        )
        .unwrap();
        assert_eq!(describe(&config), "postgres://cy@127.0.0.1:5999/sessions");
        assert_eq!(first_address(&config), ("127.0.0.1".to_string(), 5999));
        let err = parse_url(
            "postgres://cy:secret@db:notaport/x",
            &PostgresSettings::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(!err.contains("secret"), "{err}");
        assert!(
            err.contains("postgres://USER:PASSWORD@HOST:PORT/DATABASE"),
            "{err}"
        );
    }
}
