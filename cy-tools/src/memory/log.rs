//! `MemoryLog`: an execution log in memory, for tests.

use std::sync::Mutex;

use crate::BoxFuture;
use crate::services::{ExecutionLog, LogEntry, ServiceError, UsageEntry};

/// An execution log kept in memory.
#[derive(Debug, Default)]
pub struct MemoryLog {
    entries: Mutex<Vec<LogEntry>>,
    usage: Mutex<Vec<UsageEntry>>,
}

impl MemoryLog {
    /// An empty log.
    pub fn new() -> Self {
        MemoryLog::default()
    }

    /// Every entry of every session, in order.
    pub fn all(&self) -> Vec<LogEntry> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl ExecutionLog for MemoryLog {
    fn record(&self, entry: LogEntry) -> BoxFuture<'_, Result<(), ServiceError>> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(entry);
        Box::pin(async { Ok(()) })
    }

    fn entries<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<LogEntry>, ServiceError>> {
        let entries = self
            .all()
            .into_iter()
            .filter(|e| e.session_id == session_id)
            .collect();
        Box::pin(async { Ok(entries) })
    }

    fn record_usage(&self, entry: UsageEntry) -> BoxFuture<'_, Result<(), ServiceError>> {
        self.usage
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(entry);
        Box::pin(async { Ok(()) })
    }

    fn usage<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<UsageEntry>, ServiceError>> {
        let usage = self
            .usage
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|e| e.session_id == session_id)
            .cloned()
            .collect();
        Box::pin(async { Ok(usage) })
    }
}
