//! `KeyedLog`: one session's view of the execution log.

use std::sync::Arc;

use cy_tools::{
    BoxFuture,
    services::{ExecutionLog, LogEntry, ServiceError, ServiceErrorKind, UsageEntry},
};

/// The execution log as one session sees it: it records under that session's id only and reads
/// back only that session's entries. A child's context carries one keyed by the child, so
/// nothing in the child can write to or read its parent's log.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use cy_tools::{memory::MemoryLog, services::ExecutionLog};
/// use cy_tools_session::KeyedLog;
///
/// let log = KeyedLog::new(Arc::new(MemoryLog::new()), "s-1.worker-1");
/// let err = log.entries("s-1").await.unwrap_err();
/// assert_eq!(err.to_string(), "session `s-1.worker-1` may read only its own execution log, not that of `s-1`");
/// # });
/// ```
#[derive(Clone)]
pub struct KeyedLog {
    inner: Arc<dyn ExecutionLog>,
    session_id: String,
}

impl KeyedLog {
    /// `inner` as seen by session `session_id`.
    pub fn new(inner: Arc<dyn ExecutionLog>, session_id: impl Into<String>) -> Self {
        KeyedLog {
            inner,
            session_id: session_id.into(),
        }
    }

    /// The session this view is keyed by.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }
}

impl ExecutionLog for KeyedLog {
    fn record(&self, entry: LogEntry) -> BoxFuture<'_, Result<(), ServiceError>> {
        if entry.session_id != self.session_id {
            let err = ServiceError::new(
                ServiceErrorKind::PermissionDenied,
                format!(
                    "session `{}` may record only its own calls, not calls of `{}`",
                    self.session_id, entry.session_id
                ),
            );
            return Box::pin(async { Err(err) });
        }
        self.inner.record(entry)
    }

    fn entries<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<LogEntry>, ServiceError>> {
        if session_id != self.session_id {
            let err = ServiceError::new(
                ServiceErrorKind::PermissionDenied,
                format!(
                    "session `{}` may read only its own execution log, not that of `{session_id}`",
                    self.session_id
                ),
            );
            return Box::pin(async { Err(err) });
        }
        self.inner.entries(session_id)
    }

    fn record_usage(&self, entry: UsageEntry) -> BoxFuture<'_, Result<(), ServiceError>> {
        if entry.session_id != self.session_id {
            let err = self.foreign("record usage of", &entry.session_id);
            return Box::pin(async { Err(err) });
        }
        self.inner.record_usage(entry)
    }

    fn usage<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<UsageEntry>, ServiceError>> {
        if session_id != self.session_id {
            let err = self.foreign("read the usage of", session_id);
            return Box::pin(async { Err(err) });
        }
        self.inner.usage(session_id)
    }
}

impl KeyedLog {
    fn foreign(&self, what: &str, other: &str) -> ServiceError {
        ServiceError::new(
            ServiceErrorKind::PermissionDenied,
            format!(
                "session `{}` may {what} only itself, not `{other}`",
                self.session_id
            ),
        )
    }
}

impl std::fmt::Debug for KeyedLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyedLog")
            .field("session_id", &self.session_id)
            .finish()
    }
}
