//! Sessions on several workers, against a real PostgreSQL server (`CY_TEST_POSTGRES_URL`,
//! started by `.ci/run`; see `support::postgres`): the store's round trips, tenants kept apart,
//! specs written before PostgreSQL existed, a session moved between two worker processes with
//! a signal from one waking a wait in the other, a worker killed with SIGKILL mid-call, and the
//! server restarted under a call.

mod kill9;
mod old_specs;
mod restart;
mod siblings;
mod signals;
mod store;
mod tenants;
mod usage;
mod wake_latency;
mod workers;

use std::path::Path;
use std::sync::Arc;

use cy_tools::{SessionSpec, ToolRegistry, session::ExecutorSpec};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::{PostgresSettings, PostgresStore};

/// A root spec of `tenant` working in `dir`, running code with `sh` (no Python needed).
fn spec(id: &str, tenant: &str, dir: &Path) -> SessionSpec {
    SessionSpec::root(id, tenant, dir.to_str().unwrap()).with_executor(ExecutorSpec::Local {
        command: "sh {file}".to_string(),
    })
}

/// A runtime of two workers, for tests that are not async themselves.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A store on `url` with a small pool (the tests share one server) and fast polling.
async fn connect(url: &str) -> PostgresStore {
    PostgresStore::connect_with(url, settings()).await.unwrap()
}

fn settings() -> PostgresSettings {
    PostgresSettings::default().with_pool_size(4)
}

/// A factory of `tenant` over every linked tool.
fn factory(store: &PostgresStore, tenant: &str) -> LocalSessionFactory {
    let registry = Arc::new(ToolRegistry::linked().unwrap());
    LocalSessionFactory::with_postgres(registry, store, tenant)
}
