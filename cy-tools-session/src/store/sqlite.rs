//! `SqliteStore`: session specs and the execution log in one SQLite database, in WAL mode.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cy_tools::{
    BoxFuture, SessionSpec, ToolResult,
    services::{ExecutionLog, LogEntry, ServiceError, ServiceErrorKind, UsageEntry},
    session::SpecStore,
};
use rusqlite::{Connection, OptionalExtension, params};

use super::disk::{DiskTrouble, disk_trouble, store_error};
use super::sqlite_schema::migrate;

/// Session specs and every recorded call, in one SQLite file.
///
/// The database runs in WAL mode with `synchronous = NORMAL`: each spec and each call is its
/// own transaction, so a process killed at any point (even `kill -9` mid-write) leaves a
/// database that opens with every committed row; only a power loss can drop the last few.
/// Several processes may open the same file; writers wait for each other (up to 5 s).
///
/// The connection is used on Tokio's blocking pool, so the async methods never hold up the
/// runtime.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use cy_tools::{SessionSpec, session::SpecStore};
/// use cy_tools_session::store::SqliteStore;
///
/// let dir = tempfile::tempdir().unwrap();
/// let store = SqliteStore::open(dir.path().join("sessions.db")).unwrap();
/// let spec = SessionSpec::root("s-1", "acme", "/tmp/w").with_tools(["read_file"]);
/// store.insert_spec(&spec).await.unwrap();
/// let again = SqliteStore::open(dir.path().join("sessions.db")).unwrap();
/// assert_eq!(again.load_spec("s-1").await.unwrap(), Some(spec));
/// # });
/// ```
#[derive(Clone)]
pub struct SqliteStore {
    inner: Arc<Inner>,
}

struct Inner {
    conn: Mutex<Connection>,
    path: PathBuf,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`.
    ///
    /// # Errors
    /// The file cannot be opened or created, is not a database, or its schema cannot be set up.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ServiceError> {
        let path = path.as_ref().to_path_buf();
        let fail = |err: rusqlite::Error| {
            let shown = path.display();
            match disk_trouble(&path, &err) {
                Some(DiskTrouble::Full) => ServiceError::new(
                    ServiceErrorKind::Unavailable,
                    format!(
                        "cannot open the session store `{shown}`: its disk is full ({err}); free space on it, or open the store on another disk"
                    ),
                ),
                Some(DiskTrouble::ReadOnlyFs) => ServiceError::new(
                    ServiceErrorKind::Unavailable,
                    format!(
                        "cannot open the session store `{shown}`: it is on a read-only file system ({err}); remount the file system read-write, or open the store in a writable folder"
                    ),
                ),
                Some(DiskTrouble::ReadOnlyFile) | None => ServiceError::new(
                    ServiceErrorKind::Other,
                    format!(
                        "cannot open the session store `{shown}`: {err}; check that the path is a writable SQLite file or a new file in a writable folder"
                    ),
                ),
            }
        };
        let mut conn = Connection::open(&path).map_err(fail)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(fail)?;
        // `journal_mode` answers with the mode in force, so it is read as a query.
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            .map_err(fail)?;
        if !mode.eq_ignore_ascii_case("wal") {
            tracing::warn!(
                path = %path.display(),
                "the session store runs in `{mode}` journal mode, not WAL"
            );
        }
        conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")
            .map_err(fail)?;
        migrate(&mut conn, &path).map_err(fail)??;
        Ok(SqliteStore {
            inner: Arc::new(Inner {
                conn: Mutex::new(conn),
                path,
            }),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Runs `work` on the connection, on the blocking pool.
    pub(super) async fn with_conn<T: Send + 'static>(
        &self,
        what: &'static str,
        work: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, ServiceError> {
        let inner = Arc::clone(&self.inner);
        let joined = tokio::task::spawn_blocking(move || {
            let conn = inner
                .conn
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            work(&conn).map_err(|err| store_error(&inner.path, what, err))
        })
        .await;
        joined.unwrap_or_else(|err| {
            Err(ServiceError::new(
                ServiceErrorKind::Other,
                format!("the session store failed while {what}: {err}"),
            ))
        })
    }

    /// Runs SQLite's own consistency check; `ok` when the file is sound.
    ///
    /// # Errors
    /// The check cannot run.
    pub async fn integrity_check(&self) -> Result<String, ServiceError> {
        self.with_conn("checking the database", |conn| {
            conn.query_row("PRAGMA integrity_check", [], |row| row.get(0))
        })
        .await
    }

    /// How many calls are recorded, over every session.
    ///
    /// # Errors
    /// The store cannot be read.
    pub async fn call_count(&self) -> Result<u64, ServiceError> {
        let count: i64 = self
            .with_conn("counting calls", |conn| {
                conn.query_row("SELECT COUNT(*) FROM calls", [], |row| row.get(0))
            })
            .await?;
        Ok(u64::try_from(count).unwrap_or(0))
    }
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.inner.path)
            .finish()
    }
}

pub(super) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, ServiceError> {
    serde_json::to_string(value).map_err(|err| {
        ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!("cannot encode a value for the session store: {err}"),
        )
    })
}

fn from_json<T: serde::de::DeserializeOwned>(column: usize, text: &str) -> rusqlite::Result<T> {
    serde_json::from_str(text).map_err(|err| {
        rusqlite::Error::FromSqlConversionFailure(
            column,
            rusqlite::types::Type::Text,
            Box::new(err),
        )
    })
}

impl SpecStore for SqliteStore {
    fn insert_spec<'a>(&'a self, spec: &'a SessionSpec) -> BoxFuture<'a, Result<(), ServiceError>> {
        Box::pin(async move {
            let json = to_json(spec)?;
            let id = spec.id().to_string();
            let tenant = spec.identity.tenant.clone();
            let parent = spec.identity.lineage.last().cloned();
            let inserted = self
                .with_conn("storing a session spec", move |conn| {
                    conn.execute(
                        "INSERT OR IGNORE INTO sessions (id, tenant, parent, spec, created_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
                        params![id, tenant, parent, json, now_ms()],
                    )
                })
                .await?;
            if inserted == 0 {
                return Err(ServiceError::new(
                    ServiceErrorKind::InvalidInput,
                    format!(
                        "a session `{}` is already stored; resume it, or create the new one under another id",
                        spec.id()
                    ),
                ));
            }
            Ok(())
        })
    }

    fn load_spec<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<SessionSpec>, ServiceError>> {
        let id = session_id.to_string();
        Box::pin(self.with_conn("loading a session spec", move |conn| {
            let text: Option<String> = conn
                .query_row("SELECT spec FROM sessions WHERE id = ?1", [&id], |row| {
                    row.get(0)
                })
                .optional()?;
            text.map(|t| from_json(0, &t)).transpose()
        }))
    }

    fn children<'a>(
        &'a self,
        parent_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<String>, ServiceError>> {
        let parent = parent_id.to_string();
        Box::pin(self.with_conn("listing child sessions", move |conn| {
            let mut stmt =
                conn.prepare_cached("SELECT id FROM sessions WHERE parent = ?1 ORDER BY rowid")?;
            let rows = stmt.query_map([&parent], |row| row.get(0))?;
            rows.collect()
        }))
    }
}

impl ExecutionLog for SqliteStore {
    fn record(&self, entry: LogEntry) -> BoxFuture<'_, Result<(), ServiceError>> {
        Box::pin(async move {
            let arguments = to_json(&entry.arguments)?;
            let result = to_json(&entry.result)?;
            self.with_conn("recording a call", move |conn| {
                let mut stmt = conn.prepare_cached(
                    "INSERT INTO calls (session_id, call_id, parent_call, tool, arguments, result, is_error, started_ms, duration_us)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )?;
                stmt.execute(params![
                    entry.session_id,
                    entry.call_id,
                    entry.parent_call,
                    entry.tool,
                    arguments,
                    result,
                    entry.result.is_error,
                    i64::try_from(entry.started_at_ms).unwrap_or(i64::MAX),
                    i64::try_from(entry.duration_us).unwrap_or(i64::MAX),
                ])?;
                Ok(())
            })
            .await
        })
    }

    fn entries<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<LogEntry>, ServiceError>> {
        let id = session_id.to_string();
        Box::pin(self.with_conn("reading the execution log", move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT session_id, call_id, parent_call, tool, arguments, result, started_ms, duration_us
                 FROM calls WHERE session_id = ?1 ORDER BY seq",
            )?;
            let rows = stmt.query_map([&id], |row| {
                let arguments: String = row.get(4)?;
                let result: String = row.get(5)?;
                let started: i64 = row.get(6)?;
                let duration: i64 = row.get(7)?;
                Ok(LogEntry {
                    session_id: row.get(0)?,
                    call_id: row.get(1)?,
                    parent_call: row.get(2)?,
                    tool: row.get(3)?,
                    arguments: from_json(4, &arguments)?,
                    result: from_json::<ToolResult>(5, &result)?,
                    started_at_ms: u64::try_from(started).unwrap_or(0),
                    duration_us: u64::try_from(duration).unwrap_or(0),
                })
            })?;
            rows.collect()
        }))
    }

    fn record_usage(&self, entry: UsageEntry) -> BoxFuture<'_, Result<(), ServiceError>> {
        Box::pin(self.with_conn("recording token usage", move |conn| {
            conn.prepare_cached(
                "INSERT INTO usage (session_id, turn, provider, model, input_tokens, output_tokens, recorded_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                entry.session_id,
                entry.turn,
                entry.provider,
                entry.model,
                i64::try_from(entry.input_tokens).unwrap_or(i64::MAX),
                i64::try_from(entry.output_tokens).unwrap_or(i64::MAX),
                i64::try_from(entry.recorded_at_ms).unwrap_or(i64::MAX),
            ])?;
            Ok(())
        }))
    }

    fn usage<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<UsageEntry>, ServiceError>> {
        let id = session_id.to_string();
        Box::pin(self.with_conn("reading token usage", move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT session_id, turn, provider, model, input_tokens, output_tokens, recorded_ms
                 FROM usage WHERE session_id = ?1 ORDER BY seq",
            )?;
            let rows = stmt.query_map([&id], |row| {
                let count = |i: usize| row.get::<_, i64>(i).map(|n| u64::try_from(n).unwrap_or(0));
                Ok(UsageEntry {
                    session_id: row.get(0)?,
                    turn: row.get(1)?,
                    provider: row.get(2)?,
                    model: row.get(3)?,
                    input_tokens: count(4)?,
                    output_tokens: count(5)?,
                    recorded_at_ms: count(6)?,
                })
            })?;
            rows.collect()
        }))
    }
}

#[cfg(test)]
mod tests {
    use cy_tools::{SessionSpec, ToolResult};
    use serde_json::json;

    use super::*;
    use crate::store::sqlite_schema::{SCHEMA_1, SCHEMA_VERSION};

    fn entry(session: &str, call: &str, result: ToolResult) -> LogEntry {
        LogEntry {
            session_id: session.to_string(),
            call_id: call.to_string(),
            parent_call: Some("d1".to_string()),
            tool: "read_file".to_string(),
            arguments: json!({"path": "a.txt", "nested": {"n": [1, 2]}}),
            result,
            started_at_ms: 1_764_000_000_000,
            duration_us: 1234,
        }
    }

    #[tokio::test]
    async fn entries_and_specs_come_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("s.db")).unwrap();
        let ok = entry("p.w-1", "c1", ToolResult::text("fine"));
        let bad = entry("p.w-1", "c2", ToolResult::error("`path`: no such file"));
        let other = entry("p", "c3", ToolResult::text("parent"));
        for e in [&ok, &other, &bad] {
            store.record(e.clone()).await.unwrap();
        }
        assert_eq!(store.entries("p.w-1").await.unwrap(), [ok, bad]);
        assert_eq!(store.entries("p").await.unwrap(), [other]);
        assert!(store.entries("nobody").await.unwrap().is_empty());

        let parent = SessionSpec::root("p", "acme", "/w");
        let mut first = parent.clone();
        first.identity = parent.identity.child("p.w-1");
        let mut second = parent.clone();
        second.identity = parent.identity.child("p.w-2");
        for spec in [&parent, &second, &first] {
            store.insert_spec(spec).await.unwrap();
        }
        assert_eq!(store.children("p").await.unwrap(), ["p.w-2", "p.w-1"]);
        assert_eq!(store.load_spec("p.w-1").await.unwrap(), Some(first));
        let again = store.insert_spec(&parent).await.unwrap_err();
        assert_eq!(again.kind(), ServiceErrorKind::InvalidInput);

        // The error flag has its own column, for queries that do not decode results.
        let errors: i64 = store
            .with_conn("counting errors", |conn| {
                conn.query_row("SELECT COUNT(*) FROM calls WHERE is_error", [], |r| {
                    r.get(0)
                })
            })
            .await
            .unwrap();
        assert_eq!(errors, 1);
    }

    #[tokio::test]
    async fn a_file_from_before_versioned_schemas_is_migrated_and_keeps_its_calls() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        {
            // The schema as builds before the usage table wrote it: no `user_version`.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(SCHEMA_1).unwrap();
            conn.execute(
                "INSERT INTO calls (session_id, call_id, parent_call, tool, arguments, result, is_error, started_ms, duration_us)
                 VALUES ('s', 'c1', NULL, 'read_file', '{\"path\":\"a\"}', '{\"content\":[],\"is_error\":false}', 0, 5, 6)",
                [],
            )
            .unwrap();
        }
        let store = SqliteStore::open(&path).unwrap();
        let entries = store.entries("s").await.unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].arguments, json!({"path": "a"}));
        let turn = UsageEntry {
            session_id: "s".to_string(),
            turn: 1,
            provider: "openai".to_string(),
            model: "m".to_string(),
            input_tokens: 120,
            output_tokens: 7,
            recorded_at_ms: 9,
        };
        store.record_usage(turn.clone()).await.unwrap();
        drop(store);
        let again = SqliteStore::open(&path).unwrap();
        assert_eq!(again.usage("s").await.unwrap(), [turn]);
        assert!(again.usage("t").await.unwrap().is_empty());
        let version: i32 = again
            .with_conn("reading the version", |conn| {
                conn.query_row("PRAGMA user_version", [], |row| row.get(0))
            })
            .await
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
    }

    #[tokio::test]
    async fn a_file_newer_than_this_build_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("PRAGMA user_version = 99")
            .unwrap();
        let err = SqliteStore::open(&path).unwrap_err().to_string();
        assert!(
            err.contains("schema version 99, newer than this build knows"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn a_file_that_is_not_a_database_is_refused_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(
            &path,
            "just some text, long enough to be read as a header ........",
        )
        .unwrap();
        let err = SqliteStore::open(&path).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!(
                "cannot open the session store `{}`",
                path.display()
            )),
            "{err}"
        );
    }
}
