//! Signals between sessions of one tenant, across workers: each signal is a row of
//! `cy_signals` (so none is lost with a worker, nor with the server's restart), announced with
//! `NOTIFY` in the same statement; a waiter takes the oldest row addressed to it, and sleeps
//! until a notification for it arrives or [`poll_every`](super::PostgresSettings::poll_every)
//! passes, whichever is first.

use std::time::Duration;

use cy_tools::{
    BoxFuture,
    services::{Coordinator, ServiceError, ServiceErrorKind},
};
use serde_json::Value;

use super::listener::{CHANNEL, key};
use super::retry::Failure;
use super::{TenantStore, now_ms};

impl TenantStore {
    /// Takes the oldest untaken signal `name` addressed to `session`, marking it taken by
    /// `token`; a retried take finds the signal its lost first try took.
    async fn take(
        &self,
        session: &str,
        name: &str,
        token: &str,
    ) -> Result<Option<Value>, ServiceError> {
        let (pool, tenant) = (&self.shared.pool, &*self.tenant);
        let text: Option<String> = self
            .shared
            .target
            .retry("waiting for a signal", move || async move {
                let client = pool.get().await?;
                let statement = client
                    .prepare_cached(
                        "WITH mine AS (
                             SELECT payload FROM cy_signals WHERE tenant = $1 AND taken_by = $4
                         ), took AS (
                             UPDATE cy_signals SET taken_by = $4, taken_ms = $5
                             WHERE seq = (
                                 SELECT seq FROM cy_signals
                                 WHERE tenant = $1 AND session_id = $2 AND name = $3 AND taken_by IS NULL
                                 ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED
                             ) AND NOT EXISTS (SELECT 1 FROM mine)
                             RETURNING payload
                         )
                         SELECT payload FROM mine UNION ALL SELECT payload FROM took",
                    )
                    .await?;
                let row = client
                    .query_opt(&statement, &[&tenant, &session, &name, &token, &now_ms()])
                    .await?;
                Ok(row.map(|r| r.try_get(0)).transpose()?)
            })
            .await?;
        text.map(|t| {
            serde_json::from_str(&t).map_err(|err| {
                self.shared.target.error(
                    "waiting for a signal",
                    &Failure::Data(format!("a stored signal's payload is not JSON ({err})")),
                )
            })
        })
        .transpose()
    }
}

impl Coordinator for TenantStore {
    fn signal<'a>(
        &'a self,
        to: &'a str,
        name: &'a str,
        payload: Value,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        Box::pin(async move {
            let text = serde_json::to_string(&payload).map_err(|err| {
                ServiceError::new(
                    ServiceErrorKind::InvalidInput,
                    format!("cannot encode the signal's payload: {err}"),
                )
            })?;
            let signal_key = self.shared.keys.next();
            let wake = key(&self.tenant, to, name);
            let (text, signal_key, wake) = (&text, &signal_key, &wake);
            let (pool, tenant) = (&self.shared.pool, &*self.tenant);
            self.shared
                .target
                .retry("sending a signal", move || async move {
                    let client = pool.get().await?;
                    // One statement, so the row and its notification commit together; a retry
                    // whose first try committed inserts nothing and notifies again (harmless).
                    let statement = client
                        .prepare_cached(&format!(
                            "WITH sent AS (
                                 INSERT INTO cy_signals (tenant, session_id, name, payload, signal_key, sent_ms)
                                 VALUES ($1, $2, $3, $4, $5, $6)
                                 ON CONFLICT (signal_key) DO NOTHING
                                 RETURNING seq
                             )
                             SELECT pg_notify('{CHANNEL}', $7)"
                        ))
                        .await?;
                    client
                        .execute(
                            &statement,
                            &[&tenant, &to, &name, text, signal_key, &now_ms(), wake],
                        )
                        .await?;
                    Ok(())
                })
                .await
        })
    }

    fn wait<'a>(
        &'a self,
        session: &'a str,
        name: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Option<Value>, ServiceError>> {
        Box::pin(async move {
            let shared = &self.shared;
            let waker = shared.wakers.register(&key(&self.tenant, session, name));
            shared.listener.ensure(&shared.config, &shared.wakers);
            let token = shared.keys.next();
            let deadline = tokio::time::Instant::now() + timeout;
            loop {
                // Interest is registered before looking, so a notification in between is kept.
                let notified = waker.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if let Some(value) = self.take(session, name, &token).await? {
                    return Ok(Some(value));
                }
                let now = tokio::time::Instant::now();
                if now >= deadline {
                    return Ok(None);
                }
                let nap = (deadline - now).min(shared.settings.poll_every);
                let _ = tokio::time::timeout(nap, notified).await;
            }
        })
    }
}
