//! `MemoryCoordinator`: signals between the sessions of one process, for tests.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Notify;

use crate::BoxFuture;
use crate::services::{Coordinator, ServiceError};

/// An in-process coordinator: signals are queued per (session, name) until waited for.
#[derive(Debug, Default)]
pub struct MemoryCoordinator {
    queued: Mutex<HashMap<(String, String), Vec<Value>>>,
    arrived: Notify,
}

impl MemoryCoordinator {
    /// A coordinator with no signals.
    pub fn new() -> Self {
        MemoryCoordinator::default()
    }

    fn take(&self, session: &str, name: &str) -> Option<Value> {
        let mut queued = self
            .queued
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = (session.to_string(), name.to_string());
        let values = queued.get_mut(&key)?;
        let value = values.remove(0);
        if values.is_empty() {
            queued.remove(&key);
        }
        Some(value)
    }
}

impl Coordinator for MemoryCoordinator {
    fn signal<'a>(
        &'a self,
        to: &'a str,
        name: &'a str,
        payload: Value,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        self.queued
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry((to.to_string(), name.to_string()))
            .or_default()
            .push(payload);
        self.arrived.notify_waiters();
        Box::pin(async { Ok(()) })
    }

    fn wait<'a>(
        &'a self,
        session: &'a str,
        name: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Option<Value>, ServiceError>> {
        Box::pin(async move {
            let deadline = tokio::time::Instant::now() + timeout;
            loop {
                // Register interest before looking, so a signal between the two is not missed.
                let notified = self.arrived.notified();
                if let Some(value) = self.take(session, name) {
                    return Ok(Some(value));
                }
                if tokio::time::timeout_at(deadline, notified).await.is_err() {
                    return Ok(self.take(session, name));
                }
            }
        })
    }
}
