//! The store's own round trips: the schema is versioned and set up once however many workers
//! start; specs, calls and chat messages come back as written.

use cy_tools::{
    CancellationToken, ToolCall, ToolResult,
    services::{Chat, ChatMessage, ExecutionLog, LogEntry, ServiceErrorKind},
    session::SpecStore,
};
use cy_tools_session::store::SCHEMA_VERSION;
use serde_json::json;

use super::{connect, factory, runtime, spec};
use crate::support::postgres::{tenant, url};

#[test]
fn workers_starting_together_migrate_once_and_agree_on_the_version() {
    let Some(url) = url() else { return };
    runtime().block_on(async {
        let mut starting = tokio::task::JoinSet::new();
        for _ in 0..4 {
            let url = url.clone();
            starting.spawn(async move { connect(&url).await });
        }
        while let Some(store) = starting.join_next().await {
            assert_eq!(
                store.unwrap().schema_version().await.unwrap(),
                SCHEMA_VERSION
            );
        }
    });
}

#[test]
fn specs_calls_and_messages_come_back_as_written() {
    let Some(url) = url() else { return };
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let store = connect(&url).await;
        let t = tenant("store");
        let scoped = store.tenant(&t);

        let parent = spec("p", &t, dir.path());
        let mut first = parent.clone();
        first.identity = parent.identity.child("p.w-1");
        let mut second = parent.clone();
        second.identity = parent.identity.child("p.w-2");
        for s in [&parent, &second, &first] {
            scoped.insert_spec(s).await.unwrap();
        }
        assert_eq!(scoped.children("p").await.unwrap(), ["p.w-2", "p.w-1"]);
        assert_eq!(scoped.load_spec("p.w-1").await.unwrap(), Some(first));
        assert_eq!(scoped.load_spec("nobody").await.unwrap(), None);
        let again = scoped.insert_spec(&parent).await.unwrap_err();
        assert_eq!(again.kind(), ServiceErrorKind::InvalidInput);
        assert!(again.to_string().contains("already stored"), "{again}");

        // Text a `jsonb` column would refuse (NUL) and nested values survive.
        let entry = |call: &str, result: ToolResult| LogEntry {
            session_id: "p.w-1".to_string(),
            call_id: call.to_string(),
            parent_call: Some("d1".to_string()),
            tool: "read_file".to_string(),
            arguments: json!({"path": "a\u{0}.txt", "nested": {"n": [1, 2.5, null]}}),
            result,
            started_at_ms: 1_764_000_000_000,
            duration_us: 1234,
        };
        let ok = entry("c1", ToolResult::text("fine"));
        let bad = entry("c2", ToolResult::error("`path`: no such file"));
        scoped.record(ok.clone()).await.unwrap();
        scoped.record(bad.clone()).await.unwrap();
        assert_eq!(scoped.entries("p.w-1").await.unwrap(), [ok, bad]);
        assert!(scoped.entries("p").await.unwrap().is_empty());
        assert_eq!(scoped.call_count().await.unwrap(), 2);

        let message = ChatMessage {
            session_id: "p".to_string(),
            text: "done".to_string(),
        };
        scoped.send(message.clone()).await.unwrap();
        assert_eq!(scoped.messages().await.unwrap(), [message]);
    });
}

#[test]
fn a_session_is_created_run_and_resumed_through_the_factory() {
    let Some(url) = url() else { return };
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let store = connect(&url).await;
        let t = tenant("factory");
        let factory = factory(&store, &t);
        let session = factory
            .create(
                spec("s-1", &t, dir.path())
                    .with_tools(["write_file", "read_file"])
                    .with_chat(true),
            )
            .await
            .unwrap();
        let cancel = CancellationToken::new();
        let wrote = session
            .execute(
                "write_file",
                ToolCall::new("c1", json!({"path": "a.txt", "content": "hi"})),
                &cancel,
            )
            .await;
        assert!(!wrote.is_error, "{}", wrote.text_content());
        let sent = session
            .execute(
                "send_message",
                ToolCall::new("c2", json!({"text": "hello"})),
                &cancel,
            )
            .await;
        assert!(!sent.is_error, "{}", sent.text_content());
        let again = factory.resume("s-1").await.unwrap();
        assert_eq!(again.tools().names(), session.tools().names());
        let calls: Vec<String> = again
            .entries()
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.call_id)
            .collect();
        assert_eq!(calls, ["c1", "c2"]);
        let messages = store.tenant(&t).messages().await.unwrap();
        assert_eq!(messages.len(), 1);
        assert_eq!(
            (messages[0].session_id.as_str(), messages[0].text.as_str()),
            ("s-1", "hello")
        );
    });
}
