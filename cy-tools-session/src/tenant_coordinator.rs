//! `TenantCoordinator`: the coordinator as the sessions of one tenant see it.

use std::sync::Arc;
use std::time::Duration;

use cy_tools::{
    BoxFuture,
    services::{Coordinator, ServiceError},
};
use serde_json::Value;

/// A view of a shared coordinator in which session ids are those of one tenant: a session can
/// signal, and be signalled by, sessions of its own tenant only, even when ids repeat across
/// tenants. Every session's context carries the view of its tenant; an application signals a
/// session through [`LocalSessionFactory::coordinator`](super::LocalSessionFactory::coordinator).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::{sync::Arc, time::Duration};
/// use cy_tools::{memory::MemoryCoordinator, services::Coordinator};
/// use cy_tools_session::TenantCoordinator;
///
/// let shared = Arc::new(MemoryCoordinator::new());
/// let acme = TenantCoordinator::new(shared.clone(), "acme");
/// let globex = TenantCoordinator::new(shared, "globex");
/// globex.signal("s-1", "go", serde_json::json!(1)).await.unwrap();
/// assert_eq!(acme.wait("s-1", "go", Duration::from_millis(10)).await.unwrap(), None);
/// assert_eq!(globex.wait("s-1", "go", Duration::from_millis(10)).await.unwrap(), Some(serde_json::json!(1)));
/// # });
/// ```
#[derive(Clone)]
pub struct TenantCoordinator {
    inner: Arc<dyn Coordinator>,
    tenant: String,
}

impl TenantCoordinator {
    /// `inner` as seen by the sessions of `tenant`.
    pub fn new(inner: Arc<dyn Coordinator>, tenant: impl Into<String>) -> Self {
        TenantCoordinator {
            inner,
            tenant: tenant.into(),
        }
    }

    /// The key `session` has in the shared coordinator. The tenant's length leads it, so no two
    /// (tenant, session) pairs share a key whatever characters they hold.
    fn key(&self, session: &str) -> String {
        format!("{}:{}/{session}", self.tenant.len(), self.tenant)
    }
}

impl Coordinator for TenantCoordinator {
    fn signal<'a>(
        &'a self,
        to: &'a str,
        name: &'a str,
        payload: Value,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        Box::pin(async move { self.inner.signal(&self.key(to), name, payload).await })
    }

    fn wait<'a>(
        &'a self,
        session: &'a str,
        name: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Option<Value>, ServiceError>> {
        Box::pin(async move { self.inner.wait(&self.key(session), name, timeout).await })
    }
}

impl std::fmt::Debug for TenantCoordinator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TenantCoordinator")
            .field("tenant", &self.tenant)
            .finish()
    }
}
