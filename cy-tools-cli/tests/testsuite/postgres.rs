//! `cy-tools call --store URL` (and `CY_TOOLS_STORE`): each command is a worker process; the
//! first creates the session, the next ones resume it, and a `signal` from one wakes the
//! `wait_for_signal` of another.

use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use cy_tools::ToolRegistry;
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::{PostgresSettings, PostgresStore};

use crate::support::postgres::{tenant, url};

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
    .trim()
    .to_string()
}

#[test]
fn cli_workers_share_a_stored_session_and_its_signals() {
    let Some(url) = url() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("w")).unwrap();
    let t = tenant("cli");
    let spec = dir.path().join("spec.json");
    let body = serde_json::json!({
        "session_id": "s-cli", "tenant": t, "workspace": "w",
        "tools": ["write_file", "read_file", "signal", "wait_for_signal"],
    });
    std::fs::write(&spec, body.to_string()).unwrap();
    let cli = |tool: &str, args: &str, by_env: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_cy-tools"));
        command.args(["call", tool, args, "--spec"]).arg(&spec);
        if by_env {
            command.env("CY_TOOLS_STORE", &url);
        } else {
            command.args(["--store", &url]).env_remove("CY_TOOLS_STORE");
        }
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    };
    let wrote = cli("write_file", r#"{"path": "a.txt", "content": "hi"}"#, false)
        .output()
        .unwrap();
    assert!(wrote.status.success(), "{}", text(&wrote));
    let read = cli("read_file", r#"{"path": "a.txt"}"#, true)
        .output()
        .unwrap();
    assert_eq!(text(&read), "1\thi");
    let waiting = cli(
        "wait_for_signal",
        r#"{"name": "go", "timeout_ms": 20000}"#,
        true,
    )
    .spawn()
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let sent = cli(
        "signal",
        r#"{"to": "s-cli", "name": "go", "payload": "from another worker"}"#,
        false,
    )
    .output()
    .unwrap();
    assert!(sent.status.success(), "{}", text(&sent));
    let woke = waiting.wait_with_output().unwrap();
    assert_eq!(
        text(&woke),
        "signal `go` from session `s-cli`: from another worker"
    );
    // Outside the spec file's `tools`, which narrow the stored session's.
    let refused = cli("list_directory", "{}", false).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused).contains("tool `list_directory` is not in the session spec's tools"),
        "{}",
        text(&refused)
    );

    // What the workers stored, read by this process as another worker would.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let settings = PostgresSettings::default().with_pool_size(4);
        let store = PostgresStore::connect_with(&url, settings).await.unwrap();
        let registry = Arc::new(ToolRegistry::linked().unwrap());
        let factory = LocalSessionFactory::with_postgres(registry, &store, &t);
        let session = factory.resume("s-cli").await.unwrap();
        let mut tools: Vec<String> = session
            .entries()
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.tool)
            .collect();
        tools.sort();
        assert_eq!(
            tools,
            ["read_file", "signal", "wait_for_signal", "write_file"]
        );
    });
}
