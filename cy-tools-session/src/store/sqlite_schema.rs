//! The SQLite store's schema: its migrations, in order, and the step that applies them.

use std::path::Path;

use cy_tools::services::{ServiceError, ServiceErrorKind};
use rusqlite::Connection;

/// The migrations, in order: (version, SQL). The version reached is kept in SQLite's
/// `user_version`. The first is written with `IF NOT EXISTS` because files made before the
/// schema was versioned (at version 0) already have its tables.
pub(super) const MIGRATIONS: &[(i32, &str)] = &[(1, SCHEMA_1), (2, SCHEMA_2), (3, SCHEMA_3)];

/// The newest schema version this build knows.
pub(super) const SCHEMA_VERSION: i32 = MIGRATIONS[MIGRATIONS.len() - 1].0;

pub(super) const SCHEMA_1: &str = "
CREATE TABLE IF NOT EXISTS sessions (
    id         TEXT PRIMARY KEY NOT NULL,
    tenant     TEXT NOT NULL,
    parent     TEXT,
    spec       TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_parent ON sessions(parent);
CREATE TABLE IF NOT EXISTS calls (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id   TEXT NOT NULL,
    call_id      TEXT NOT NULL,
    parent_call  TEXT,
    tool         TEXT NOT NULL,
    arguments    TEXT NOT NULL,
    result       TEXT NOT NULL,
    is_error     INTEGER NOT NULL,
    started_ms   INTEGER NOT NULL,
    duration_us  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS calls_session ON calls(session_id, seq);
";

/// Token usage of model turns (the agent loop's), beside the calls.
const SCHEMA_2: &str = "
CREATE TABLE usage (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id    TEXT NOT NULL,
    turn          INTEGER NOT NULL,
    provider      TEXT NOT NULL,
    model         TEXT NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    recorded_ms   INTEGER NOT NULL
);
CREATE INDEX usage_session ON usage(session_id, seq);
";

/// Approval nonces spent by MCP servers of this store (see `store::nonces`).
const SCHEMA_3: &str = "
CREATE TABLE spent_nonces (
    nonce      TEXT PRIMARY KEY NOT NULL,
    expires_ms INTEGER NOT NULL
);
CREATE INDEX spent_nonces_expiry ON spent_nonces(expires_ms);
";

/// Brings the file to [`SCHEMA_VERSION`] in one write transaction (so processes opening it
/// together migrate one at a time), and refuses a file newer than this build.
pub(super) fn migrate(
    conn: &mut Connection,
    path: &Path,
) -> rusqlite::Result<Result<(), ServiceError>> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let at: i32 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if at > SCHEMA_VERSION {
        return Ok(Err(ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "the session store `{}` has schema version {at}, newer than this build knows ({SCHEMA_VERSION}); open it with the cy-tools version that wrote it, or a newer one",
                path.display()
            ),
        )));
    }
    for (version, sql) in MIGRATIONS.iter().filter(|m| m.0 > at) {
        tx.execute_batch(sql)?;
        // `PRAGMA` takes no parameters; the version is one of the constants above.
        tx.execute_batch(&format!("PRAGMA user_version = {version}"))?;
    }
    tx.commit()?;
    Ok(Ok(()))
}
