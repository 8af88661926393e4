//! `TenantStore`: the PostgreSQL store as the sessions of one tenant see it: their specs,
//! their execution log and their chat (the coordinator is in `signals.rs`).

use std::sync::Arc;

use cy_tools::{
    BoxFuture, SessionSpec,
    services::{
        Chat, ChatMessage, ExecutionLog, LogEntry, ServiceError, ServiceErrorKind, UsageEntry,
    },
    session::SpecStore,
};

use super::retry::Failure;
use super::{Shared, now_ms};

/// One tenant's view of a [`PostgresStore`](super::PostgresStore): every query it makes is
/// limited to rows of its tenant, so a session id that another tenant also uses, or guesses,
/// reads nothing of that tenant. It is all four session services at once; give it to
/// [`LocalSessionFactory::with_postgres`](crate::LocalSessionFactory::with_postgres).
///
/// Cloning is cheap and shares the pool.
#[derive(Clone)]
pub struct TenantStore {
    pub(super) shared: Arc<Shared>,
    pub(super) tenant: Arc<str>,
}

impl TenantStore {
    pub(super) fn new(shared: Arc<Shared>, tenant: String) -> Self {
        TenantStore {
            shared,
            tenant: Arc::from(tenant),
        }
    }

    /// The tenant this view serves.
    pub fn tenant(&self) -> &str {
        &self.tenant
    }

    /// Every chat message of this tenant, oldest first.
    ///
    /// # Errors
    /// The store cannot be read.
    pub async fn messages(&self) -> Result<Vec<ChatMessage>, ServiceError> {
        let (pool, tenant) = (&self.shared.pool, &*self.tenant);
        self.shared
            .target
            .retry("reading the chat", move || async move {
                let client = pool.get().await?;
                let rows = client
                    .query(
                        "SELECT session_id, text FROM cy_chat WHERE tenant = $1 ORDER BY seq",
                        &[&tenant],
                    )
                    .await?;
                rows.iter()
                    .map(|row| {
                        Ok(ChatMessage {
                            session_id: row.try_get(0)?,
                            text: row.try_get(1)?,
                        })
                    })
                    .collect::<Result<Vec<_>, Failure>>()
            })
            .await
    }

    /// How many calls this tenant's sessions have recorded.
    ///
    /// # Errors
    /// The store cannot be read.
    pub async fn call_count(&self) -> Result<u64, ServiceError> {
        let (pool, tenant) = (&self.shared.pool, &*self.tenant);
        let count: i64 = self
            .shared
            .target
            .retry("counting calls", move || async move {
                let client = pool.get().await?;
                let row = client
                    .query_one(
                        "SELECT COUNT(*) FROM cy_calls WHERE tenant = $1",
                        &[&tenant],
                    )
                    .await?;
                Ok(row.try_get(0)?)
            })
            .await?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// The ids of this tenant's sessions, oldest first.
    ///
    /// # Errors
    /// The store cannot be read.
    pub async fn session_ids(&self) -> Result<Vec<String>, ServiceError> {
        let (pool, tenant) = (&self.shared.pool, &*self.tenant);
        self.shared
            .target
            .retry("listing sessions", move || async move {
                let client = pool.get().await?;
                let rows = client
                    .query(
                        "SELECT id FROM cy_sessions WHERE tenant = $1 ORDER BY seq",
                        &[&tenant],
                    )
                    .await?;
                rows.iter()
                    .map(|row| Ok(row.try_get(0)?))
                    .collect::<Result<Vec<String>, Failure>>()
            })
            .await
    }

    fn other_tenant(&self, spec: &SessionSpec) -> ServiceError {
        ServiceError::new(
            ServiceErrorKind::PermissionDenied,
            format!(
                "session `{}` belongs to tenant `{}`, but this store serves tenant `{}`; store it through `PostgresStore::tenant(\"{}\")`",
                spec.id(),
                spec.identity.tenant,
                self.tenant,
                spec.identity.tenant
            ),
        )
    }
}

fn json<T: serde::Serialize>(value: &T) -> Result<String, ServiceError> {
    serde_json::to_string(value).map_err(|err| {
        ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!("cannot encode a value for the session store: {err}"),
        )
    })
}

fn parse<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, Failure> {
    serde_json::from_str(text).map_err(|err| {
        Failure::Data(format!(
            "a stored {what} cannot be read ({err}); it was written by another version of cy-tools, or by hand"
        ))
    })
}

impl SpecStore for TenantStore {
    fn insert_spec<'a>(&'a self, spec: &'a SessionSpec) -> BoxFuture<'a, Result<(), ServiceError>> {
        Box::pin(async move {
            if spec.identity.tenant != *self.tenant {
                return Err(self.other_tenant(spec));
            }
            let text = json(spec)?;
            let spec_key = self.shared.keys.next();
            let (pool, tenant, id) = (&self.shared.pool, &*self.tenant, spec.id());
            let parent = spec.identity.lineage.last();
            let (text, spec_key) = (&text, &spec_key);
            // A retry after a lost answer finds its own row by its key: not a conflict.
            let ours = self
                .shared
                .target
                .retry("storing a session spec", move || async move {
                    let client = pool.get().await?;
                    let inserted = client
                        .execute(
                            "INSERT INTO cy_sessions (tenant, id, parent, spec, spec_key, created_ms) VALUES ($1, $2, $3, $4, $5, $6)
                             ON CONFLICT (tenant, id) DO NOTHING",
                            &[&tenant, &id, &parent, text, spec_key, &now_ms()],
                        )
                        .await?;
                    if inserted == 1 {
                        return Ok(true);
                    }
                    let row = client
                        .query_one(
                            "SELECT spec_key FROM cy_sessions WHERE tenant = $1 AND id = $2",
                            &[&tenant, &id],
                        )
                        .await?;
                    Ok(row.try_get::<_, String>(0)? == *spec_key)
                })
                .await?;
            if ours {
                Ok(())
            } else {
                Err(ServiceError::new(
                    ServiceErrorKind::InvalidInput,
                    format!(
                        "a session `{id}` is already stored; resume it, or create the new one under another id"
                    ),
                ))
            }
        })
    }

    fn load_spec<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<SessionSpec>, ServiceError>> {
        Box::pin(async move {
            let (pool, tenant) = (&self.shared.pool, &*self.tenant);
            let target = &self.shared.target;
            let text: Option<String> = target
                .retry("loading a session spec", move || async move {
                    let client = pool.get().await?;
                    let row = client
                        .query_opt(
                            "SELECT spec FROM cy_sessions WHERE tenant = $1 AND id = $2",
                            &[&tenant, &session_id],
                        )
                        .await?;
                    Ok(row.map(|r| r.try_get(0)).transpose()?)
                })
                .await?;
            text.map(|t| parse("session spec", &t))
                .transpose()
                .map_err(|f| target.error("loading a session spec", &f))
        })
    }

    fn children<'a>(
        &'a self,
        parent_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<String>, ServiceError>> {
        Box::pin(async move {
            let (pool, tenant) = (&self.shared.pool, &*self.tenant);
            self.shared
                .target
                .retry("listing child sessions", move || async move {
                    let client = pool.get().await?;
                    let rows = client
                        .query(
                            "SELECT id FROM cy_sessions WHERE tenant = $1 AND parent = $2 ORDER BY seq",
                            &[&tenant, &parent_id],
                        )
                        .await?;
                    rows.iter()
                        .map(|row| Ok(row.try_get(0)?))
                        .collect::<Result<Vec<String>, Failure>>()
                })
                .await
        })
    }
}

impl ExecutionLog for TenantStore {
    fn record(&self, entry: LogEntry) -> BoxFuture<'_, Result<(), ServiceError>> {
        Box::pin(async move {
            let arguments = json(&entry.arguments)?;
            let result = json(&entry.result)?;
            // One key for every attempt: a retried insert whose first try committed is a no-op.
            let key = self.shared.keys.next();
            let started = i64::try_from(entry.started_at_ms).unwrap_or(i64::MAX);
            let duration = i64::try_from(entry.duration_us).unwrap_or(i64::MAX);
            let (entry, key, arguments, result) = (&entry, &key, &arguments, &result);
            let (pool, tenant) = (&self.shared.pool, &*self.tenant);
            self.shared
                .target
                .retry("recording a call", move || async move {
                    let client = pool.get().await?;
                    let statement = client
                        .prepare_cached(
                            "INSERT INTO cy_calls (tenant, session_id, record_key, call_id, parent_call, tool, arguments, result, is_error, started_ms, duration_us)
                             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                             ON CONFLICT (record_key) DO NOTHING",
                        )
                        .await?;
                    client
                        .execute(
                            &statement,
                            &[
                                &tenant,
                                &entry.session_id,
                                &key,
                                &entry.call_id,
                                &entry.parent_call,
                                &entry.tool,
                                &arguments,
                                &result,
                                &entry.result.is_error,
                                &started,
                                &duration,
                            ],
                        )
                        .await?;
                    Ok(())
                })
                .await
        })
    }

    fn entries<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<LogEntry>, ServiceError>> {
        Box::pin(async move {
            let (pool, tenant) = (&self.shared.pool, &*self.tenant);
            self.shared
                .target
                .retry("reading the execution log", move || async move {
                    let client = pool.get().await?;
                    let statement = client
                        .prepare_cached(
                            "SELECT session_id, call_id, parent_call, tool, arguments, result, started_ms, duration_us
                             FROM cy_calls WHERE tenant = $1 AND session_id = $2 ORDER BY seq",
                        )
                        .await?;
                    let rows = client.query(&statement, &[&tenant, &session_id]).await?;
                    rows.iter()
                        .map(|row| {
                            let started: i64 = row.try_get(6)?;
                            let duration: i64 = row.try_get(7)?;
                            Ok(LogEntry {
                                session_id: row.try_get(0)?,
                                call_id: row.try_get(1)?,
                                parent_call: row.try_get(2)?,
                                tool: row.try_get(3)?,
                                arguments: parse("call's arguments", row.try_get(4)?)?,
                                result: parse("call's result", row.try_get(5)?)?,
                                started_at_ms: u64::try_from(started).unwrap_or(0),
                                duration_us: u64::try_from(duration).unwrap_or(0),
                            })
                        })
                        .collect::<Result<Vec<_>, Failure>>()
                })
                .await
        })
    }

    fn record_usage(&self, entry: UsageEntry) -> BoxFuture<'_, Result<(), ServiceError>> {
        Box::pin(self.insert_usage(entry))
    }

    fn usage<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<UsageEntry>, ServiceError>> {
        Box::pin(self.select_usage(session_id))
    }
}

impl TenantStore {
    async fn insert_usage(&self, entry: UsageEntry) -> Result<(), ServiceError> {
        let key = self.shared.keys.next();
        let turn = i32::try_from(entry.turn).unwrap_or(i32::MAX);
        let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let counts = [
            count(entry.input_tokens),
            count(entry.output_tokens),
            count(entry.recorded_at_ms),
        ];
        let (entry, key, counts) = (&entry, &key, &counts);
        let (pool, tenant) = (&self.shared.pool, &*self.tenant);
        self.shared
            .target
            .retry("recording token usage", move || async move {
                let client = pool.get().await?;
                let statement = client
                    .prepare_cached(
                        "INSERT INTO cy_usage (tenant, session_id, usage_key, turn, provider, model, input_tokens, output_tokens, recorded_ms)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                         ON CONFLICT (usage_key) DO NOTHING",
                    )
                    .await?;
                client
                    .execute(
                        &statement,
                        &[
                            &tenant,
                            &entry.session_id,
                            &key,
                            &turn,
                            &entry.provider,
                            &entry.model,
                            &counts[0],
                            &counts[1],
                            &counts[2],
                        ],
                    )
                    .await?;
                Ok(())
            })
            .await
    }

    async fn select_usage(&self, session_id: &str) -> Result<Vec<UsageEntry>, ServiceError> {
        let (pool, tenant) = (&self.shared.pool, &*self.tenant);
        self.shared
            .target
            .retry("reading token usage", move || async move {
                let client = pool.get().await?;
                let statement = client
                    .prepare_cached(
                        "SELECT session_id, turn, provider, model, input_tokens, output_tokens, recorded_ms
                         FROM cy_usage WHERE tenant = $1 AND session_id = $2 ORDER BY seq",
                    )
                    .await?;
                let rows = client.query(&statement, &[&tenant, &session_id]).await?;
                rows.iter()
                    .map(|row| {
                        let count = |i: usize| {
                            row.try_get::<_, i64>(i)
                                .map(|n| u64::try_from(n).unwrap_or(0))
                        };
                        let turn: i32 = row.try_get(1)?;
                        Ok(UsageEntry {
                            session_id: row.try_get(0)?,
                            turn: u32::try_from(turn).unwrap_or(0),
                            provider: row.try_get(2)?,
                            model: row.try_get(3)?,
                            input_tokens: count(4)?,
                            output_tokens: count(5)?,
                            recorded_at_ms: count(6)?,
                        })
                    })
                    .collect::<Result<Vec<_>, Failure>>()
            })
            .await
    }
}

impl Chat for TenantStore {
    fn send(&self, message: ChatMessage) -> BoxFuture<'_, Result<(), ServiceError>> {
        Box::pin(async move {
            let key = self.shared.keys.next();
            let (message, key) = (&message, &key);
            let (pool, tenant) = (&self.shared.pool, &*self.tenant);
            self.shared
                .target
                .retry("sending a chat message", move || async move {
                    let client = pool.get().await?;
                    client
                        .execute(
                            "INSERT INTO cy_chat (tenant, session_id, message_key, text, sent_ms) VALUES ($1, $2, $3, $4, $5)
                             ON CONFLICT (message_key) DO NOTHING",
                            &[&tenant, &message.session_id, &key, &message.text, &now_ms()],
                        )
                        .await?;
                    Ok(())
                })
                .await
        })
    }
}

impl std::fmt::Debug for TenantStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TenantStore")
            .field("at", &self.shared.target.shown)
            .field("tenant", &self.tenant)
            .finish()
    }
}
