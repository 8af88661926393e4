//! Where a load run keeps its sessions: one SQLite store in one process (the baseline), or one
//! PostgreSQL database shared by several worker processes, each running its share of the
//! sessions, spread over several tenants.

use std::sync::Arc;

use cy_tools::{
    ToolRegistry,
    services::{ExecutionLog, LogEntry, ServiceError},
    session::SpecStore,
};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::SqliteStore;
use cy_tools_session::store::{PostgresSettings, PostgresStore};

pub enum Backend {
    Sqlite {
        store: SqliteStore,
        factory: LocalSessionFactory,
    },
    Postgres {
        store: PostgresStore,
        /// One factory per tenant, in tenant order.
        factories: Vec<LocalSessionFactory>,
        tenants: Vec<String>,
        worker: usize,
        workers: usize,
    },
}

/// The PostgreSQL pool's size: each connection is a descriptor the process keeps.
const POOL_SIZE: usize = 16;

impl Backend {
    /// Descriptors the store may keep open for the life of the process, which the leak check
    /// must not count: PostgreSQL's pool of connections and the signal listener's connection.
    pub fn kept_descriptors(&self) -> usize {
        match self {
            Backend::Sqlite { .. } => 0,
            Backend::Postgres { .. } => POOL_SIZE + 1,
        }
    }

    pub fn sqlite(store: SqliteStore) -> Self {
        let registry = Arc::new(ToolRegistry::linked().unwrap());
        let factory = LocalSessionFactory::with_sqlite(registry, store.clone());
        Backend::Sqlite { store, factory }
    }

    /// Worker `worker` of `workers` on the database at `url`, with tenants `{prefix}-0`…
    pub async fn postgres(
        url: &str,
        prefix: &str,
        tenants: usize,
        worker: usize,
        workers: usize,
    ) -> Self {
        let store =
            PostgresStore::connect_with(url, PostgresSettings::default().with_pool_size(POOL_SIZE))
                .await
                .unwrap();
        let registry = Arc::new(ToolRegistry::linked().unwrap());
        let tenants: Vec<String> = (0..tenants.max(1))
            .map(|t| format!("{prefix}-{t}"))
            .collect();
        let factories = tenants
            .iter()
            .map(|t| LocalSessionFactory::with_postgres(Arc::clone(&registry), &store, t))
            .collect();
        Backend::Postgres {
            store,
            factories,
            tenants,
            worker,
            workers,
        }
    }

    /// The sessions (by number) this process runs.
    pub fn sessions(&self, all: usize) -> Vec<usize> {
        match self {
            Backend::Sqlite { .. } => (0..all).collect(),
            Backend::Postgres {
                worker, workers, ..
            } => (0..all).filter(|n| n % workers == *worker).collect(),
        }
    }

    /// Session `n`'s tenant.
    pub fn tenant(&self, n: usize) -> &str {
        match self {
            Backend::Sqlite { .. } => "load",
            Backend::Postgres { tenants, .. } => &tenants[n % tenants.len()],
        }
    }

    pub fn factory(&self, n: usize) -> &LocalSessionFactory {
        match self {
            Backend::Sqlite { factory, .. } => factory,
            Backend::Postgres { factories, .. } => &factories[n % factories.len()],
        }
    }

    /// Session `n`'s log, read as its own tenant.
    pub async fn entries(&self, n: usize, id: &str) -> Result<Vec<LogEntry>, ServiceError> {
        match self {
            Backend::Sqlite { store, .. } => store.entries(id).await,
            Backend::Postgres { store, .. } => store.tenant(self.tenant(n)).entries(id).await,
        }
    }

    /// What session `n` can be read as by the next tenant: its spec and records must not show
    /// (for SQLite, which has one tenant's view, nothing to read).
    pub async fn read_across(&self, n: usize, id: &str) -> Result<usize, ServiceError> {
        let Backend::Postgres { store, tenants, .. } = self else {
            return Ok(0);
        };
        if tenants.len() < 2 {
            return Ok(0);
        }
        let other = store.tenant(&tenants[(n + 1) % tenants.len()]);
        let spec = other.load_spec(id).await?.map_or(0, |_| 1);
        Ok(spec + other.entries(id).await?.len())
    }

    /// Calls recorded over the whole store (every worker's), and whether that count is this
    /// process's alone (it is not when other workers share the store).
    pub async fn call_count(&self) -> Result<(u64, bool), ServiceError> {
        match self {
            Backend::Sqlite { store, .. } => Ok((store.call_count().await?, true)),
            Backend::Postgres {
                store,
                tenants,
                workers,
                ..
            } => {
                let mut total = 0;
                for t in tenants {
                    total += store.tenant(t).call_count().await?;
                }
                Ok((total, *workers == 1))
            }
        }
    }

    /// The store's own soundness check: SQLite's integrity check; a PostgreSQL server checks
    /// itself (`ok`).
    pub async fn integrity_check(&self) -> Result<String, ServiceError> {
        match self {
            Backend::Sqlite { store, .. } => store.integrity_check().await,
            Backend::Postgres { .. } => Ok("ok".to_string()),
        }
    }

    pub fn label(&self) -> String {
        match self {
            Backend::Sqlite { .. } => "one SQLite store".to_string(),
            Backend::Postgres {
                store,
                tenants,
                worker,
                workers,
                ..
            } => format!(
                "PostgreSQL at {} shared by {workers} worker processes (this is worker {worker}), {} tenants",
                store.describe(),
                tenants.len()
            ),
        }
    }
}
