//! Token usage in the PostgreSQL store: recorded and read back by tenant, and a database at
//! schema version 1 (before usage was kept) migrated with its calls intact.

use cy_tools::services::{ExecutionLog, UsageEntry};
use cy_tools_session::store::SCHEMA_VERSION;
use serde_json::json;

use super::{connect, runtime};
use crate::support::postgres::{tenant, url};

fn turn(session: &str, turn: u32) -> UsageEntry {
    UsageEntry {
        session_id: session.to_string(),
        turn,
        provider: "anthropic".to_string(),
        model: "claude-fake".to_string(),
        input_tokens: 1200 + u64::from(turn),
        output_tokens: 80,
        recorded_at_ms: 1_764_000_000_000,
    }
}

#[test]
fn usage_comes_back_as_written_and_only_to_its_tenant() {
    let Some(url) = url() else { return };
    runtime().block_on(async {
        let store = connect(&url).await;
        let (a, b) = (tenant("usage-a"), tenant("usage-b"));
        let ours = store.tenant(&a);
        ours.record_usage(turn("s", 1)).await.unwrap();
        ours.record_usage(turn("s", 2)).await.unwrap();
        ours.record_usage(turn("other", 1)).await.unwrap();
        assert_eq!(ours.usage("s").await.unwrap(), [turn("s", 1), turn("s", 2)]);
        assert!(store.tenant(&b).usage("s").await.unwrap().is_empty());
    });
}

/// The tables of schema version 1, as that version created them (the parts this test uses).
const VERSION_1: &str = "
CREATE TABLE cy_schema (version integer PRIMARY KEY, description text NOT NULL, applied_ms bigint NOT NULL);
INSERT INTO cy_schema VALUES (1, 'sessions, calls, signals and chat, by tenant', 1764000000000);
CREATE TABLE cy_sessions (tenant text NOT NULL, id text NOT NULL, parent text, spec text NOT NULL,
    spec_key text NOT NULL, created_ms bigint NOT NULL, seq bigserial NOT NULL, PRIMARY KEY (tenant, id));
CREATE INDEX cy_sessions_parent ON cy_sessions (tenant, parent, seq);
CREATE TABLE cy_calls (seq bigserial PRIMARY KEY, tenant text NOT NULL, session_id text NOT NULL,
    record_key text NOT NULL UNIQUE, call_id text NOT NULL, parent_call text, tool text NOT NULL,
    arguments text NOT NULL, result text NOT NULL, is_error boolean NOT NULL,
    started_ms bigint NOT NULL, duration_us bigint NOT NULL);
CREATE INDEX cy_calls_session ON cy_calls (tenant, session_id, seq);
CREATE TABLE cy_signals (seq bigserial PRIMARY KEY, tenant text NOT NULL, session_id text NOT NULL,
    name text NOT NULL, payload text NOT NULL, signal_key text NOT NULL UNIQUE, sent_ms bigint NOT NULL,
    taken_by text UNIQUE, taken_ms bigint);
CREATE INDEX cy_signals_waiting ON cy_signals (tenant, session_id, name, seq) WHERE taken_by IS NULL;
CREATE TABLE cy_chat (seq bigserial PRIMARY KEY, tenant text NOT NULL, session_id text NOT NULL,
    message_key text NOT NULL UNIQUE, text text NOT NULL, sent_ms bigint NOT NULL);
CREATE INDEX cy_chat_tenant ON cy_chat (tenant, seq);
INSERT INTO cy_calls (tenant, session_id, record_key, call_id, parent_call, tool, arguments, result, is_error, started_ms, duration_us)
    VALUES ('acme', 's-old', 'k1', 'c1', NULL, 'read_file', '{\"path\":\"a.txt\"}',
            '{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"is_error\":false}', false, 5, 6);
";

#[test]
fn a_version_1_database_is_migrated_and_keeps_its_calls() {
    let Some(url) = url() else { return };
    runtime().block_on(async {
        // A database of its own: the shared one is already at the newest version.
        let name = tenant("migrate").replace('-', "_");
        let (admin, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .unwrap();
        let (base, _) = url.rsplit_once('/').unwrap();
        let old_url = format!("{base}/{name}");
        let (old, connection) = tokio_postgres::connect(&old_url, tokio_postgres::NoTls)
            .await
            .unwrap();
        let connection = tokio::spawn(connection);
        old.batch_execute(VERSION_1).await.unwrap();
        drop(old);
        let _ = connection.await;

        let store = connect(&old_url).await;
        assert_eq!(store.schema_version().await.unwrap(), SCHEMA_VERSION);
        let acme = store.tenant("acme");
        let entries = acme.entries("s-old").await.unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].arguments, json!({"path": "a.txt"}));
        acme.record_usage(turn("s-old", 1)).await.unwrap();
        assert_eq!(acme.usage("s-old").await.unwrap(), [turn("s-old", 1)]);
        drop(acme);
        drop(store);
        admin
            .batch_execute(&format!("DROP DATABASE {name} WITH (FORCE)"))
            .await
            .unwrap();
    });
}
