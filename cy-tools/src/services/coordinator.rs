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

    /// The id of the session a sender means by `to`: the id itself by default. A subagent's
    /// coordinator also knows its siblings by name (`worker-2`, or `worker` when one sibling
    /// has that profile) and refuses sessions outside its tree; [`signal`](Self::signal)
    /// resolves the same way, so this is for saying whom a signal went to.
    ///
    /// # Errors
    /// `to` names no session this coordinator may reach
    /// ([`InvalidInput`](crate::services::ServiceErrorKind::InvalidInput)), or the lookup failed.
    fn resolve<'a>(&'a self, to: &'a str) -> BoxFuture<'a, Result<String, ServiceError>> {
        Box::pin(async move { Ok(to.to_string()) })
    }
}
