//! `PostgresStore`: the session store, chat and coordinator of any number of workers, in one
//! PostgreSQL database.
//!
//! * [`PostgresStore::connect`] opens a pool, brings the schema to this build's version
//!   ([`schema`]) and hands out [`TenantStore`]s, the store as one tenant sees it.
//! * [`TenantStore`] is every session service at once: [`SpecStore`](cy_tools::session::SpecStore),
//!   [`ExecutionLog`](cy_tools::services::ExecutionLog), [`Chat`](cy_tools::services::Chat) and
//!   [`Coordinator`](cy_tools::services::Coordinator); each of its queries names its tenant.
//! * Signals are rows; `NOTIFY` only wakes the workers waiting for them ([`listener`]), and a
//!   waiter looks at the table every [`PostgresSettings::poll_every`] anyway.
//! * A lost connection is retried with backoff for [`PostgresSettings::retry_for`], then
//!   reported with what to check ([`retry`]). Writes carry keys, so one retried after its
//!   answer was lost is not applied twice.

mod listener;
mod nonces;
mod retry;
pub mod schema;
mod settings;
mod signals;
mod tenant;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cy_tools::services::{ServiceError, ServiceErrorKind};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;

use listener::{Listener, Wakers};
use retry::Target;
pub use settings::PostgresSettings;
pub use tenant::TenantStore;

/// A pool of connections to one PostgreSQL database holding the sessions of every tenant.
/// Cloning is cheap and shares the pool.
///
/// ```no_run
/// # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
/// use cy_tools::session::SpecStore;
/// use cy_tools_session::store::PostgresStore;
///
/// let store = PostgresStore::connect("postgres://cy@127.0.0.1:5432/cy").await.unwrap();
/// let acme = store.tenant("acme");
/// assert_eq!(acme.load_spec("s-1").await.unwrap(), None);
/// # });
/// ```
#[derive(Clone)]
pub struct PostgresStore {
    shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pool: Pool,
    config: tokio_postgres::Config,
    target: Target,
    settings: PostgresSettings,
    wakers: Arc<Wakers>,
    listener: Listener,
    keys: Keys,
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`) with
    /// the default settings, and sets up or migrates its schema.
    ///
    /// # Errors
    /// See [`connect_with`](Self::connect_with).
    pub async fn connect(url: &str) -> Result<Self, ServiceError> {
        PostgresStore::connect_with(url, PostgresSettings::default()).await
    }

    /// Connects to the database at `url` with `settings`, and sets up or migrates its schema.
    /// A server that cannot be reached is retried for `settings.retry_for`.
    ///
    /// # Errors
    /// [`InvalidInput`](ServiceErrorKind::InvalidInput) for a URL that is not PostgreSQL's;
    /// [`Unavailable`](ServiceErrorKind::Unavailable) when the server cannot be reached, the
    /// database does not exist, or its schema is newer than this build knows;
    /// [`PermissionDenied`](ServiceErrorKind::PermissionDenied) for a wrong password. Each
    /// message says what to check.
    pub async fn connect_with(url: &str, settings: PostgresSettings) -> Result<Self, ServiceError> {
        let config = settings::parse_url(url, &settings)?;
        let (host, port) = settings::first_address(&config);
        let target = Target {
            shown: settings::describe(&config),
            host,
            port,
            retry_for: settings.retry_for,
        };
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(settings.pool_size)
            .runtime(Runtime::Tokio1)
            .create_timeout(Some(settings.connect_timeout))
            // A busy pool is not a lost server: a call waits its turn for a connection.
            .wait_timeout(None)
            .build()
            .map_err(|err| {
                ServiceError::new(
                    ServiceErrorKind::Other,
                    format!(
                        "cannot set up the connection pool of `{}`: {err}",
                        target.shown
                    ),
                )
            })?;
        schema::migrate(&pool, &target).await?;
        Ok(PostgresStore {
            shared: Arc::new(Shared {
                pool,
                config,
                target,
                settings,
                wakers: Arc::default(),
                listener: Listener::default(),
                keys: Keys::new()?,
            }),
        })
    }

    /// The store as the sessions of `tenant` see it.
    pub fn tenant(&self, tenant: impl Into<String>) -> TenantStore {
        TenantStore::new(Arc::clone(&self.shared), tenant.into())
    }

    /// Where the store is: `postgres://user@host:port/db` (never the password).
    pub fn describe(&self) -> &str {
        &self.shared.target.shown
    }

    /// The settings it runs with.
    pub fn settings(&self) -> &PostgresSettings {
        &self.shared.settings
    }

    /// The schema version of the database, as this worker found it on start or left it.
    ///
    /// # Errors
    /// The store cannot be read.
    pub async fn schema_version(&self) -> Result<i32, ServiceError> {
        let pool = &self.shared.pool;
        self.shared
            .target
            .retry("reading the schema version", move || async move {
                let client = pool.get().await?;
                let row = client
                    .query_one("SELECT COALESCE(MAX(version), 0) FROM cy_schema", &[])
                    .await?;
                Ok(row.try_get::<_, i32>(0)?)
            })
            .await
    }
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("at", &self.shared.target.shown)
            .field("settings", &self.shared.settings)
            .finish()
    }
}

/// Keys that make writes idempotent: unique in this process (a counter) and across processes
/// (a random prefix drawn once).
struct Keys {
    prefix: String,
    next: AtomicU64,
}

impl Keys {
    fn new() -> Result<Self, ServiceError> {
        Ok(Keys {
            prefix: cy_tools::services::random_hex(12)?,
            next: AtomicU64::new(0),
        })
    }

    fn next(&self) -> String {
        format!(
            "{}-{}",
            self.prefix,
            self.next.fetch_add(1, Ordering::Relaxed)
        )
    }
}

pub(super) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
