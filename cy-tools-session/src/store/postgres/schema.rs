//! The store's tables, versioned: each worker brings the schema up to the version it knows on
//! start, one migration at a time, and refuses a schema newer than it knows.
//!
//! Every table is prefixed `cy_`, so the store can share a database with an application's own
//! tables, and every row carries its tenant: each query of the store names the tenant it
//! serves.
//!
//! JSON (specs, arguments, results, payloads) is kept as `text`, exactly as serialized: `jsonb`
//! would refuse a string holding `\u0000`, which a tool's arguments may. Cast it (`::jsonb`) to
//! query it.

use cy_tools::services::{ServiceError, ServiceErrorKind};
use deadpool_postgres::Pool;

use super::retry::{Failure, Target};

/// Taken for the migration's transaction, so workers starting together migrate one at a time
/// (the number is arbitrary, fixed: "cy-tools" in ASCII).
const MIGRATION_LOCK: i64 = 0x6379_2d74_6f6f_6c73;

/// The migrations, in order: (version, what it does, SQL).
const MIGRATIONS: &[(i32, &str, &str)] = &[
    (
    1,
    "sessions, calls, signals and chat, by tenant",
    "
CREATE TABLE cy_sessions (
    tenant     text   NOT NULL,
    id         text   NOT NULL,
    parent     text,
    spec       text   NOT NULL,
    -- Written once: a create retried after a lost answer knows its own row.
    spec_key   text   NOT NULL,
    created_ms bigint NOT NULL,
    seq        bigserial NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE INDEX cy_sessions_parent ON cy_sessions (tenant, parent, seq);

CREATE TABLE cy_calls (
    seq         bigserial PRIMARY KEY,
    tenant      text    NOT NULL,
    session_id  text    NOT NULL,
    -- Written once, so an insert retried after a lost answer is not recorded twice.
    record_key  text    NOT NULL UNIQUE,
    call_id     text    NOT NULL,
    parent_call text,
    tool        text    NOT NULL,
    arguments   text    NOT NULL,
    result      text    NOT NULL,
    is_error    boolean NOT NULL,
    started_ms  bigint  NOT NULL,
    duration_us bigint  NOT NULL
);
CREATE INDEX cy_calls_session ON cy_calls (tenant, session_id, seq);

CREATE TABLE cy_signals (
    seq        bigserial PRIMARY KEY,
    tenant     text   NOT NULL,
    session_id text   NOT NULL,
    name       text   NOT NULL,
    payload    text   NOT NULL,
    signal_key text   NOT NULL UNIQUE,
    sent_ms    bigint NOT NULL,
    -- The wait that took it; a wait retried after a lost answer finds its signal again.
    taken_by   text UNIQUE,
    taken_ms   bigint
);
CREATE INDEX cy_signals_waiting ON cy_signals (tenant, session_id, name, seq) WHERE taken_by IS NULL;

CREATE TABLE cy_chat (
    seq         bigserial PRIMARY KEY,
    tenant      text   NOT NULL,
    session_id  text   NOT NULL,
    message_key text   NOT NULL UNIQUE,
    text        text   NOT NULL,
    sent_ms     bigint NOT NULL
);
CREATE INDEX cy_chat_tenant ON cy_chat (tenant, seq);
",
    ),
    (
        2,
        "token usage of model turns",
        "
CREATE TABLE cy_usage (
    seq           bigserial PRIMARY KEY,
    tenant        text    NOT NULL,
    session_id    text    NOT NULL,
    -- Written once, so an insert retried after a lost answer is not recorded twice.
    usage_key     text    NOT NULL UNIQUE,
    turn          integer NOT NULL,
    provider      text    NOT NULL,
    model         text    NOT NULL,
    input_tokens  bigint  NOT NULL,
    output_tokens bigint  NOT NULL,
    recorded_ms   bigint  NOT NULL
);
CREATE INDEX cy_usage_session ON cy_usage (tenant, session_id, seq);
",
    ),
    (
        3,
        "approval nonces spent by MCP servers",
        "
CREATE TABLE cy_spent_nonces (
    tenant     text   NOT NULL,
    nonce      text   NOT NULL,
    -- Who spent it: a spend retried after a lost answer knows its own row.
    spend_key  text   NOT NULL,
    expires_ms bigint NOT NULL,
    PRIMARY KEY (tenant, nonce)
);
CREATE INDEX cy_spent_nonces_expiry ON cy_spent_nonces (expires_ms);
",
    ),
];

/// The newest schema version this build knows.
pub const SCHEMA_VERSION: i32 = MIGRATIONS[MIGRATIONS.len() - 1].0;

/// Brings the database to [`SCHEMA_VERSION`]; the version it was at before.
pub(super) async fn migrate(pool: &Pool, target: &Target) -> Result<i32, ServiceError> {
    let newer = &std::sync::Mutex::new(None);
    let before = target
        .retry("setting up the schema", move || async move {
            let mut client = pool.get().await?;
            let tx = client.transaction().await?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
                .await?;
            tx.batch_execute(
                "CREATE TABLE IF NOT EXISTS cy_schema (
                    version     integer PRIMARY KEY,
                    description text    NOT NULL,
                    applied_ms  bigint  NOT NULL
                )",
            )
            .await?;
            let row = tx
                .query_one("SELECT COALESCE(MAX(version), 0) FROM cy_schema", &[])
                .await?;
            let at: i32 = row.try_get(0)?;
            if at > SCHEMA_VERSION {
                *newer
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(at);
                return Ok(at);
            }
            for (version, description, sql) in MIGRATIONS.iter().filter(|m| m.0 > at) {
                tx.batch_execute(sql).await?;
                tx.execute(
                    "INSERT INTO cy_schema (version, description, applied_ms) VALUES ($1, $2, $3)",
                    &[version, description, &super::now_ms()],
                )
                .await?;
            }
            tx.commit().await?;
            Ok::<_, Failure>(at)
        })
        .await?;
    if let Some(at) = *newer
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
    {
        return Err(ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "the session store at `{}` has schema version {at}, newer than this worker knows ({SCHEMA_VERSION}); run the same cy-tools version on every worker (upgrade this one)",
                target.shown
            ),
        ));
    }
    if before < SCHEMA_VERSION {
        tracing::info!(store = %target.shown, "session store schema migrated from version {before} to {SCHEMA_VERSION}");
    }
    Ok(before)
}
