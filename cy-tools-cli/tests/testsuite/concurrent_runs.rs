//! `execute_code` calls in flight at once each run their own code: through the library, the
//! control server and the MCP server. (Every provider lets a model issue parallel calls; when
//! every run wrote the default `main.py`, the last write won and calls answered with each
//! other's output.)

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use cy_tools::{
    BoundTool, CancellationToken, SessionIdentity, ToolCall, ToolContext, binding::bind_tool,
    services::CodeExecutor,
};
use cy_tools_remote::RemoteExecutor;
use cy_tools_remote::control_server::{ControlServer, ControlServerConfig};
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::executor::LocalExecutor;
use cy_tools_sandbox::tools::execute_code::EXECUTE_CODE;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::task::JoinSet;

const CALLS: usize = 20;
const TOKEN: &str = "concurrent-runs-token-0123456789";

/// Code that prints its own marker, after a pause so the runs overlap.
fn marked(i: usize) -> String {
    format!("import time\ntime.sleep(0.2)\nprint('marker-{i}')")
}

fn tool(workspace: &Path, executor: Arc<dyn CodeExecutor>) -> BoundTool {
    let env = LocalSandbox::new(workspace).unwrap().env();
    let context = ToolContext::new(SessionIdentity::root("s-par", "acme"))
        .with_env(Arc::new(env))
        .with_executor(executor);
    bind_tool(&EXECUTE_CODE, context).unwrap()
}

/// Runs `CALLS` calls at once, `arguments(i)` each, and checks call `i` printed `marker-i`.
async fn each_gets_its_own(tool: BoundTool, arguments: impl Fn(usize) -> Value) {
    let mut calls = JoinSet::new();
    for i in 0..CALLS {
        let tool = tool.clone();
        let args = arguments(i);
        calls.spawn(async move {
            let result = tool
                .execute(
                    ToolCall::new(format!("c{i}"), args),
                    &CancellationToken::new(),
                )
                .await;
            (i, result)
        });
    }
    while let Some(done) = calls.join_next().await {
        let (i, result) = done.unwrap();
        assert!(!result.is_error, "call {i}: {}", result.text_content());
        assert_eq!(
            crate::support::outcome::text(&result),
            format!("marker-{i}"),
            "call {i}"
        );
    }
}

/// No script is left behind in `workspace` (fresh ones are never written there).
fn no_scripts_left(workspace: &Path) {
    let left: Vec<String> = std::fs::read_dir(workspace)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".py"))
        .collect();
    assert!(left.is_empty(), "scripts left behind: {left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_calls_each_run_their_own_code_locally() {
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let executor = Arc::new(LocalExecutor::new(Arc::new(env)));
    each_gets_its_own(tool(dir.path(), executor), |i| json!({"code": marked(i)})).await;
    no_scripts_left(dir.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_calls_naming_the_same_file_take_turns() {
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let executor = Arc::new(LocalExecutor::new(Arc::new(env)));
    let code = |i: usize| format!("print('marker-{i}')");
    each_gets_its_own(
        tool(dir.path(), executor),
        |i| json!({"code": code(i), "filename": "shared.py"}),
    )
    .await;
    // A named file is kept, with the code of whichever run went last.
    let kept = std::fs::read_to_string(dir.path().join("shared.py")).unwrap();
    assert!(kept.starts_with("print('marker-"), "{kept}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_calls_each_run_their_own_code_on_the_control_server() {
    let root = tempfile::tempdir().unwrap();
    let config = ControlServerConfig {
        token: Some(TOKEN.into()),
        max_concurrent_runs: CALLS,
        ..ControlServerConfig::new("127.0.0.1:0".parse().unwrap(), root.path())
    };
    let server = ControlServer::bind(config).await.unwrap();
    let addr = server.local_addr().unwrap();
    tokio::spawn(server.run());
    let remote = RemoteExecutor::new(&format!("http://{addr}"), "s-par", TOKEN).unwrap();
    let local = tempfile::tempdir().unwrap();
    each_gets_its_own(
        tool(local.path(), Arc::new(remote)),
        |i| json!({"code": marked(i)}),
    )
    .await;
    no_scripts_left(&root.path().join("s-par"));
}

#[tokio::test]
async fn parallel_calls_each_run_their_own_code_over_mcp() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(["mcp", "--tools", "execute_code", "--root"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = async |message: Value| {
        let mut line = message.to_string();
        line.push('\n');
        stdin.write_all(line.as_bytes()).await.unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "parallel-test", "version": "0"}}}),
    )
    .await;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    for i in 1..=CALLS {
        send(json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "execute_code", "arguments": {"code": marked(i)}}}))
        .await;
    }
    let mut answered = 0;
    while answered < CALLS {
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("the server answers in time")
            .unwrap()
            .expect("the server stays up");
        let message: Value = serde_json::from_str(&line).unwrap();
        let Some(id) = message["id"].as_u64().filter(|id| *id > 0) else {
            continue;
        };
        let result = &message["result"];
        assert_eq!(result["isError"], false, "call {id}: {message}");
        assert_eq!(
            result["content"][0]["text"],
            format!("marker-{id}"),
            "call {id}"
        );
        answered += 1;
    }
    no_scripts_left(dir.path());
}
