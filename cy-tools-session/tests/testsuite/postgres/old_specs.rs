//! A spec stored by the code before the PostgreSQL store (its JSON exactly as that code wrote
//! it) still loads and resumes: from the embedded SQLite store, and copied into PostgreSQL.

use std::path::Path;

use cy_tools::{
    SessionSpec,
    session::{ExecutorSpec, SubagentProfile},
};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::SqliteStore;

use super::{connect, factory, runtime};
use crate::support::postgres::{tenant, url};

/// `serde_json::to_string(&spec)` of commit 1d661d1, for the spec [`expected`] builds.
fn written_before(tenant: &str, workspace: &Path) -> String {
    let workspace = serde_json::to_string(workspace.to_str().unwrap()).unwrap();
    format!(
        r#"{{"identity":{{"session_id":"s-old","tenant":"{tenant}","lineage":[],"depth":0}},"workspace":{workspace},"tools":["write_file","read_file"],"executor":{{"kind":"local","command":"sh {{file}}"}},"chat":true,"subagents":[{{"name":"worker","tools":["read_file"],"limits":{{"max_turns":20,"timeout_ms":600000}}}}],"max_depth":2}}"#
    )
}

fn expected(tenant: &str, workspace: &Path) -> SessionSpec {
    SessionSpec::root("s-old", tenant, workspace.to_str().unwrap())
        .with_tools(["write_file", "read_file"])
        .with_executor(ExecutorSpec::Local {
            command: "sh {file}".to_string(),
        })
        .with_chat(true)
        .with_subagent(SubagentProfile::new("worker", ["read_file"]))
}

const TOOLS: [&str; 6] = [
    "execute_code",
    "send_message",
    "write_file",
    "read_file",
    "delegate",
    "workflow",
];

#[test]
fn a_spec_written_before_loads_from_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("w");
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    // The table as the old code made it, then the row as it wrote it.
    // The text is today's serialization, byte for byte.
    assert_eq!(
        serde_json::to_string(&expected("acme", &workspace)).unwrap(),
        written_before("acme", &workspace)
    );
    drop(SqliteStore::open(state.join("sessions.db")).unwrap());
    let db = rusqlite::Connection::open(state.join("sessions.db")).unwrap();
    db.execute(
        "INSERT INTO sessions (id, tenant, parent, spec, created_ms) VALUES ('s-old', 'acme', NULL, ?1, 1764000000000)",
        [written_before("acme", &workspace)],
    )
    .unwrap();
    drop(db);
    runtime().block_on(async {
        let factory = LocalSessionFactory::embedded(&state).unwrap();
        assert_eq!(
            factory.specs().load_spec("s-old").await.unwrap(),
            Some(expected("acme", &workspace))
        );
        let session = factory.resume("s-old").await.unwrap();
        assert_eq!(session.tools().names(), TOOLS);
    });
}

#[test]
fn a_spec_written_before_loads_from_postgres() {
    let Some(url) = url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("w");
    runtime().block_on(async {
        let store = connect(&url).await;
        let t = tenant("old-spec");
        // Copied in as text, the way a migration from SQLite would.
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        client
            .execute(
                "INSERT INTO cy_sessions (tenant, id, parent, spec, spec_key, created_ms) VALUES ($1, 's-old', NULL, $2, 'copied', 1764000000000)",
                &[&t, &written_before(&t, &workspace)],
            )
            .await
            .unwrap();
        let factory = factory(&store, &t);
        assert_eq!(
            factory.specs().load_spec("s-old").await.unwrap(),
            Some(expected(&t, &workspace))
        );
        let session = factory.resume("s-old").await.unwrap();
        assert_eq!(session.tools().names(), TOOLS);
    });
}
