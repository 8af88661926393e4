//! Sessions from a spec: built by the factory, resumed by id in another process, killed
//! mid-write, run concurrently, and their children isolated from each other and the parent.

mod catalog;
mod child_isolation;
#[cfg(all(feature = "code-mode", feature = "remote"))]
mod code_mode;
#[cfg(all(feature = "code-mode", feature = "mcp-client"))]
mod code_only;
mod composition;
mod concurrent;
#[cfg(feature = "code-mode")]
mod corpus_resume;
mod cross_process;
mod factory;
mod kill9;
#[cfg(feature = "mcp-client")]
mod mcp_servers;
#[cfg(feature = "remote")]
mod remote_workspace;
mod runner;
pub(crate) mod siblings;
mod state;

use std::path::Path;

use cy_tools::{SessionSpec, session::ExecutorSpec};

/// A root spec working in `dir`, running code with `sh` (so no Python is needed).
fn spec(id: &str, dir: &Path) -> SessionSpec {
    SessionSpec::root(id, "acme", dir.to_str().unwrap()).with_executor(ExecutorSpec::Local {
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
