//! `MemorySpecs`: a store of session specs in memory, for tests.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::BoxFuture;
use crate::services::{ServiceError, ServiceErrorKind};
use crate::session::{SessionSpec, SpecStore};

/// Session specs kept in memory, for tests: a session "resumes" only within the process.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use cy_tools::{SessionSpec, memory::MemorySpecs, session::SpecStore};
/// let specs = MemorySpecs::new();
/// let spec = SessionSpec::root("s-1", "acme", "/tmp/w");
/// specs.insert_spec(&spec).await.unwrap();
/// assert_eq!(specs.load_spec("s-1").await.unwrap(), Some(spec.clone()));
/// assert!(specs.insert_spec(&spec).await.is_err());
/// # });
/// ```
#[derive(Debug, Default)]
pub struct MemorySpecs {
    specs: Mutex<BTreeMap<String, (u64, SessionSpec)>>,
}

impl MemorySpecs {
    /// An empty store.
    pub fn new() -> Self {
        MemorySpecs::default()
    }
}

impl SpecStore for MemorySpecs {
    fn insert_spec<'a>(&'a self, spec: &'a SessionSpec) -> BoxFuture<'a, Result<(), ServiceError>> {
        let mut specs = self
            .specs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let result = if specs.contains_key(spec.id()) {
            Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!(
                    "a session `{}` is already stored; resume it, or create the new one under another id",
                    spec.id()
                ),
            ))
        } else {
            let order = specs.len() as u64;
            specs.insert(spec.id().to_string(), (order, spec.clone()));
            Ok(())
        };
        Box::pin(async { result })
    }

    fn load_spec<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<SessionSpec>, ServiceError>> {
        let spec = self
            .specs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(session_id)
            .map(|(_, spec)| spec.clone());
        Box::pin(async { Ok(spec) })
    }

    fn children<'a>(
        &'a self,
        parent_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<String>, ServiceError>> {
        let specs = self
            .specs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut children: Vec<(u64, String)> = specs
            .values()
            .filter(|(_, spec)| spec.identity.lineage.last().map(String::as_str) == Some(parent_id))
            .map(|(order, spec)| (*order, spec.id().to_string()))
            .collect();
        children.sort();
        let children = children.into_iter().map(|(_, id)| id).collect();
        Box::pin(async { Ok(children) })
    }
}
