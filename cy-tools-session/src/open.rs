//! A factory chosen by where its store is: a PostgreSQL URL for sessions shared by several
//! workers, or a folder for the embedded SQLite store.

#[cfg(feature = "postgres")]
use std::sync::Arc;

#[cfg(feature = "postgres")]
use cy_tools::ToolRegistry;
use cy_tools::services::{ServiceError, ServiceErrorKind};

use super::LocalSessionFactory;
use crate::store::StoreLocation;
#[cfg(feature = "postgres")]
use crate::store::{PostgresSettings, PostgresStore};

impl LocalSessionFactory {
    /// A factory over every linked tool, keeping its sessions where `store` says:
    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE` for a PostgreSQL database that any number
    /// of workers share (specs, log, chat and signals; `CY_TOOLS_STORE_RETRY_S` sets how long
    /// a lost connection is retried), or a folder for the embedded SQLite store
    /// ([`embedded`](Self::embedded)). See [`StoreLocation`].
    ///
    /// `tenant` is the tenant whose sessions the factory serves: the PostgreSQL store reads
    /// and writes that tenant's rows only (the embedded store keeps every tenant's sessions
    /// in its file, told apart by id).
    ///
    /// ```no_run
    /// # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
    /// use cy_tools_session::LocalSessionFactory;
    ///
    /// // Worker A and worker B, on two hosts, run the same line:
    /// let factory = LocalSessionFactory::connect("postgres://cy@db:5432/cy", "acme").await.unwrap();
    /// let session = factory.resume("s-1").await.unwrap();
    /// # });
    /// ```
    ///
    /// # Errors
    /// The location cannot be read, the store cannot be opened (each message says what to
    /// check), or two linked tools share a name.
    pub async fn connect(store: &str, tenant: &str) -> Result<Self, ServiceError> {
        LocalSessionFactory::open(StoreLocation::parse(store)?, tenant).await
    }

    /// As [`connect`](Self::connect), from a parsed location.
    ///
    /// # Errors
    /// As [`connect`](Self::connect).
    pub async fn open(location: StoreLocation, tenant: &str) -> Result<Self, ServiceError> {
        match location {
            StoreLocation::Embedded(folder) => {
                let _ = tenant;
                LocalSessionFactory::embedded(folder)
            }
            #[cfg(feature = "postgres")]
            StoreLocation::Postgres(url) => {
                let store =
                    PostgresStore::connect_with(&url, PostgresSettings::from_env()?).await?;
                let registry = ToolRegistry::linked()
                    .map_err(|err| ServiceError::new(ServiceErrorKind::Other, err.to_string()))?;
                Ok(LocalSessionFactory::with_postgres(
                    Arc::new(registry),
                    &store,
                    tenant,
                ))
            }
            #[cfg(not(feature = "postgres"))]
            StoreLocation::Postgres(_) => Err(ServiceError::new(
                ServiceErrorKind::Unavailable,
                "this build has no PostgreSQL store; build `cy-tools-builtin` with its `postgres` feature, or give a folder for the embedded SQLite store",
            )),
        }
    }

    /// A factory over `registry` keeping the sessions of `tenant` in `store`: specs, the
    /// execution log, the chat and the coordinator, all in PostgreSQL, so any worker connected
    /// to the same database resumes the session and wakes its waits. The coordinator of
    /// another tenant ([`coordinator`](Self::coordinator)) is that tenant's view of the store.
    #[cfg(feature = "postgres")]
    pub fn with_postgres(registry: Arc<ToolRegistry>, store: &PostgresStore, tenant: &str) -> Self {
        let scoped = Arc::new(store.tenant(tenant));
        let all = store.clone();
        LocalSessionFactory::new(registry, scoped.clone(), scoped.clone())
            .with_chat(scoped.clone())
            .with_spent_nonces(scoped.clone())
            .with_coordinator(scoped)
            .with_tenant_coordinators(move |tenant| Arc::new(all.tenant(tenant)))
    }
}
