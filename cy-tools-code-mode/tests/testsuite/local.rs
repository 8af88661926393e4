//! What only the local executor shows of code mode: a plain executor leaves `execute_code`
//! unchanged, an executor never bound says how to bind it, and nested calls land under their
//! parent in the SQLite store.

use std::sync::Arc;

use super::harness::Harness;

#[tokio::test]
async fn without_code_mode_execute_code_is_unchanged() {
    let h = Harness::plain();
    let result = h
        .run(
            "c",
            "import os, importlib.util\nprint(os.environ.get('CY_SDK_SOCKET'), importlib.util.find_spec('cy_sdk'))",
        )
        .await;
    assert!(!result.is_error, "{}", result.text_content());
    assert_eq!(crate::support::outcome::text(&result), "None None");
}

#[tokio::test]
async fn an_unbound_executor_says_how_to_bind_it() {
    let h = Harness::unbound();
    let result = h.run("c", "print(1)").await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "code mode has no session to call back into: bind the executor with `CodeModeExecutor::bind` after building the toolset, and keep that `Session` alive"
    );
}

#[tokio::test]
async fn nested_calls_are_stored_under_their_parent_in_the_sqlite_store() {
    use cy_tools::{
        CancellationToken, Session, SessionIdentity, ToolCall, ToolContext, ToolRegistry,
        services::{ExecutionLog, Sandbox},
    };
    use cy_tools_code_mode::CodeModeExecutor;
    use cy_tools_sandbox::{LocalSandbox, executor::LocalExecutor};
    use cy_tools_session::store::SqliteStore;
    use serde_json::json;

    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("w");
    std::fs::create_dir(&workspace).unwrap();
    std::fs::write(workspace.join("a.txt"), "one two").unwrap();
    let store: Arc<dyn ExecutionLog> =
        Arc::new(SqliteStore::open(dir.path().join("store.db")).unwrap());
    let env: Arc<dyn Sandbox> = Arc::new(LocalSandbox::new(&workspace).unwrap().env());
    let executor = Arc::new(CodeModeExecutor::new(Arc::new(LocalExecutor::new(
        Arc::clone(&env),
    ))));
    let context = ToolContext::new(SessionIdentity::root("s-db", "tenant"))
        .with_env(env)
        .with_executor(executor.clone())
        .with_log(Arc::clone(&store));
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["execute_code", "read_file", "tally"], &context);
    let session = Arc::new(Session::new(Arc::new(context), tools));
    executor.bind(&session).unwrap();
    let code = "import cy_sdk\nprint(cy_sdk.call('tally', text=cy_sdk.call('read_file', path='a.txt'))['words'] > 0)";
    let result = session
        .execute(
            "execute_code",
            ToolCall::new("top", json!({ "code": code })),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(crate::support::outcome::text(&result), "True");
    let rows: Vec<(String, String, Option<String>)> = store
        .entries("s-db")
        .await
        .unwrap()
        .into_iter()
        .map(|e| (e.tool, e.call_id, e.parent_call))
        .collect();
    assert_eq!(
        rows,
        [
            ("read_file".into(), "top/sdk-1".into(), Some("top".into())),
            ("tally".into(), "top/sdk-2".into(), Some("top".into())),
            ("execute_code".into(), "top".into(), None),
        ]
    );
}
