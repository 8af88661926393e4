//! What `create` and `resume` refuse, and how the executor choice in a spec is honoured.

use std::sync::Arc;

use cy_tools::{
    SessionIdentity, ToolRegistry,
    services::ServiceErrorKind,
    session::{ExecutorSpec, SubagentProfile},
};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::SqliteStore;

use super::{runtime, spec};

fn factory(dir: &std::path::Path) -> LocalSessionFactory {
    let store = SqliteStore::open(dir.join("sessions.db")).unwrap();
    LocalSessionFactory::with_sqlite(Arc::new(ToolRegistry::linked().unwrap()), store)
}

#[test]
fn malformed_specs_are_refused_with_the_field_and_the_fix() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let factory = factory(dir.path());
        let w = dir.path().join("w");
        let err = |spec| async { factory.create(spec).await.unwrap_err().to_string() };

        assert_eq!(
            err(spec("bad id/..", &w)).await,
            "`identity.session_id` `bad id/..` is not a valid session id: use 1 to 128 ASCII letters, digits, `-`, `_` or `.`, starting with a letter or digit"
        );
        let mut no_tenant = spec("s-1", &w);
        no_tenant.identity.tenant = " ".into();
        assert_eq!(
            err(no_tenant).await,
            "`identity.tenant` of session `s-1` is empty; name the tenant the session works for"
        );
        let mut child = spec("s-1", &w);
        child.identity = SessionIdentity::root("p", "acme").child("s-1");
        assert_eq!(
            err(child).await,
            "spec `s-1` is a child's (its lineage is not empty); create the root and start children from it with `spawn_child`, or resume the child by id"
        );
        let twice = spec("s-1", &w)
            .with_subagent(SubagentProfile::new("a", ["read_file"]))
            .with_subagent(SubagentProfile::new("a", ["write_file"]));
        assert_eq!(
            err(twice).await,
            "subagent profile `a` is declared twice in session `s-1`; give each profile its own name"
        );
        let no_file = spec("s-1", &w).with_executor(ExecutorSpec::Local {
            command: "python3 main.py".into(),
        });
        assert_eq!(
            err(no_file).await,
            "the run command `python3 main.py` has no `{file}`: write where the script's path goes, as in `python3 {file}`"
        );

        factory.create(spec("s-1", &w)).await.unwrap();
        assert_eq!(
            err(spec("s-1", &w)).await,
            "a session `s-1` is already stored; resume it, or create the new one under another id"
        );
        assert_eq!(
            factory.resume("s-2").await.unwrap_err().to_string(),
            "no session `s-2` in the store; check the id, or create the session first"
        );
    });
}

#[cfg(feature = "remote")]
#[test]
fn a_remote_executor_takes_its_token_from_the_named_variable_and_the_spec_keeps_only_the_name() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let remote = ExecutorSpec::Remote {
            url: "http://127.0.0.1:9".into(),
            token_var: "CY_TEST_TOKEN_NOT_SET".into(),
        };
        let missing = factory(dir.path())
            .create(spec("s-1", &dir.path().join("w")).with_executor(remote.clone()))
            .await
            .unwrap_err();
        assert_eq!(
            missing.to_string(),
            // Its workspace is on that server too, and is opened first.
            "session `s-1` keeps its workspace on `http://127.0.0.1:9` with the token in `CY_TEST_TOKEN_NOT_SET`, which is not set; set that environment variable (or give the factory a secrets lookup)"
        );

        let factory = factory(dir.path()).with_secrets(|name| {
            (name == "CY_TEST_TOKEN_NOT_SET").then(|| "a-long-shared-secret".to_string())
        });
        let session = factory
            .create(spec("s-2", &dir.path().join("w")).with_executor(remote))
            .await
            .unwrap();
        // Nothing listens on port 9: the code goes to the remote executor, not the local one.
        let ran = session
            .execute(
                "execute_code",
                cy_tools::ToolCall::new("c1", serde_json::json!({"code": "print(1)"})),
                &cy_tools::CancellationToken::new(),
            )
            .await;
        assert!(ran.is_error);
        assert!(ran.text_content().contains("127.0.0.1:9"), "{}", ran.text_content());
        assert!(!dir.path().join("w/main.py").exists());

        let stored = factory.specs().load_spec("s-2").await.unwrap().unwrap();
        let json = serde_json::to_string(&stored).unwrap();
        assert!(json.contains(r#""token_var":"CY_TEST_TOKEN_NOT_SET""#), "{json}");
        // The database and its write-ahead log hold the name, never the token.
        for file in ["sessions.db", "sessions.db-wal"] {
            let bytes = std::fs::read(dir.path().join(file)).unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains("a-long-shared-secret"), "the token reached {file}");
        }
        let wal = std::fs::read(dir.path().join("sessions.db-wal")).unwrap_or_default();
        let db = std::fs::read(dir.path().join("sessions.db")).unwrap();
        let all = [db, wal].concat();
        assert!(String::from_utf8_lossy(&all).contains("CY_TEST_TOKEN_NOT_SET"));
    });
}

/// A store inside a session's workspace is refused when the session is created, and when a
/// stored one is resumed: its commands could rewrite the store the factory reads unconfined.
#[test]
fn a_store_inside_the_workspace_is_refused_at_create_and_resume() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap().join("ws");
        std::fs::create_dir(&ws).unwrap();
        let inside = LocalSessionFactory::embedded(ws.join(".cy-store")).unwrap();
        let err = inside.create(spec("s-in", &ws)).await.err().unwrap();
        assert_eq!(err.kind(), ServiceErrorKind::InvalidInput, "{err}");
        assert!(
            err.message().contains("is inside the workspace")
                && err.message().contains(&format!(
                    "for example `{}`",
                    dir.path()
                        .canonicalize()
                        .unwrap()
                        .join("ws.cy-store")
                        .display()
                )),
            "{err}"
        );
        // Stored with its store beside the workspace, resumed fine; the same store moved into
        // the workspace: its session is refused when resumed.
        let store = dir.path().join("state");
        let beside = LocalSessionFactory::embedded(&store).unwrap();
        beside.create(spec("s-ok", &ws)).await.unwrap();
        drop(beside);
        LocalSessionFactory::embedded(&store)
            .unwrap()
            .resume("s-ok")
            .await
            .unwrap();
        std::fs::remove_dir_all(ws.join(".cy-store")).unwrap();
        std::fs::rename(&store, ws.join(".cy-store")).unwrap();
        let moved = LocalSessionFactory::embedded(ws.join(".cy-store")).unwrap();
        let err = moved.resume("s-ok").await.err().unwrap();
        assert_eq!(err.kind(), ServiceErrorKind::InvalidInput, "{err}");
        assert!(err.message().contains("is inside the workspace"), "{err}");
    });
}

/// A build without the `remote` feature refuses a spec whose code runs on a control server,
/// naming the feature, before anything is stored.
#[cfg(not(feature = "remote"))]
#[test]
fn without_the_remote_feature_a_remote_executor_is_refused_naming_it() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let remote = ExecutorSpec::Remote {
            url: "http://127.0.0.1:9".into(),
            token_var: "CY_TEST_TOKEN".into(),
        };
        let factory = factory(dir.path());
        let err = factory
            .create(spec("s-1", &dir.path().join("w")).with_executor(remote))
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "session `s-1` keeps its workspace on the execution host `http://127.0.0.1:9`, but this build has no remote sandbox; build `cy-tools-builtin` with its `remote` feature"
        );
        assert!(factory.specs().load_spec("s-1").await.unwrap().is_none());
    });
}

/// A build without the `code-mode` feature refuses a spec with code mode on, naming the
/// feature.
#[cfg(not(feature = "code-mode"))]
#[test]
fn without_the_code_mode_feature_code_mode_is_refused_naming_it() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let err = factory(dir.path())
            .create(spec("s-1", &dir.path().join("w")).with_code_mode(true))
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "session `s-1` has code mode on, but this build has no code mode; build `cy-tools-builtin` with its `code-mode` feature, or turn `code_mode` off in the spec"
        );
    });
}
