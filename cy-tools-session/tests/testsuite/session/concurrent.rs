//! Ten sessions built at once from one registry and one store, each in its own workspace:
//! nothing of one shows up in another.

use std::sync::Arc;

use cy_tools::{CancellationToken, ToolCall, ToolRegistry};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::SqliteStore;
use serde_json::json;

use super::{runtime, spec};

#[test]
fn ten_concurrent_sessions_do_not_cross_talk() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("sessions.db")).unwrap();
        let factory = LocalSessionFactory::with_sqlite(Arc::new(ToolRegistry::linked().unwrap()), store.clone());
        let mut handles = Vec::new();
        for n in 0..10 {
            let factory = factory.clone();
            let workspace = dir.path().join(format!("w{n}"));
            handles.push(tokio::spawn(async move {
                let id = format!("s-{n}");
                let session = factory
                    .create(spec(&id, &workspace).with_tools(["write_file", "read_file", "list_directory"]))
                    .await
                    .unwrap();
                let cancel = CancellationToken::new();
                let mut results = Vec::new();
                let calls = [
                    ("write_file", json!({"path": "me.txt", "content": id})),
                    ("execute_code", json!({"code": format!("printf '{id}' > code.txt; cat me.txt"), "filename": "run.sh"})),
                    ("read_file", json!({"path": "code.txt"})),
                    ("list_directory", json!({"path": "."})),
                    ("read_file", json!({"path": "../w0/me.txt"})),
                ];
                for (k, (tool, args)) in calls.into_iter().enumerate() {
                    let result = session
                        .execute(tool, ToolCall::new(format!("{id}-c{k}"), args), &cancel)
                        .await;
                    results.push(result);
                }
                (id, session, results)
            }));
        }
        for handle in handles {
            let (id, session, results) = handle.await.unwrap();
            assert_eq!(crate::support::outcome::text(&results[1]), id, "execute_code ran in its own workspace");
            assert_eq!(crate::support::outcome::text(&results[2]), format!("     1\t{id}"));
            let listing = crate::support::outcome::text(&results[3]);
            for other in (0..10).map(|n| format!("s-{n}")).filter(|o| *o != id) {
                assert!(!listing.contains(&other), "{id} sees {other}: {listing}");
            }
            assert!(listing.contains("me.txt") && listing.contains("code.txt"), "{listing}");
            assert!(results[4].is_error, "{id} read another session's file");
            let entries = session.entries().await.unwrap();
            let call_ids: Vec<String> = entries.iter().map(|e| e.call_id.clone()).collect();
            let expected: Vec<String> = (0..5).map(|k| format!("{id}-c{k}")).collect();
            assert_eq!(call_ids, expected, "only its own calls, in order");
            assert!(entries.iter().all(|e| e.session_id == id));
            assert!(session.spec().unwrap().workspace.ends_with(&format!("/w{}", &id[2..])), "{}", session.spec().unwrap().workspace);
        }
        assert_eq!(store.call_count().await.unwrap(), 50);
    });
}
