//! `Coordinator`: signals between sessions of one tenant (`signal`, `wait_for_signal`).

use std::time::Duration;

use serde_json::Value;

use super::ServiceError;
use crate::BoxFuture;

/// Cross-session signaling: one session sends a named signal, another waits for it.
pub trait Coordinator: Send + Sync {
    /// Sends signal `name` with `payload` to session `to`.
    fn signal<'a>(
        &'a self,
        to: &'a str,
        name: &'a str,
        payload: Value,
    ) -> BoxFuture<'a, Result<(), ServiceError>>;

    /// Waits up to `timeout` for signal `name` addressed to session `session`; `None` on timeout.
    fn wait<'a>(
        &'a self,
        session: &'a str,
        name: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Option<Value>, ServiceError>>;
}
