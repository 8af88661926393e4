//! The `cy-tools mcp` binary driven with raw JSON-RPC lines: stdout carries nothing but the
//! protocol, and a cancelled command's process is killed.

use std::process::Stdio;
use std::time::Duration;

use serde_json::json;

use crate::support::mcp_client::{Peer, TIMEOUT};
use crate::support::process::running;

struct Server {
    child: tokio::process::Child,
    peer: Peer<tokio::process::ChildStdin>,
}

fn spawn_binary(root: &std::path::Path, tools: &str) -> Server {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(["mcp", "--tools", tools, "--root"])
        .arg(root)
        .env("CY_TOOLS_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    Server {
        child,
        peer: Peer::new(stdin, stdout),
    }
}

#[tokio::test]
async fn the_binary_speaks_only_json_rpc_on_stdout_and_logs_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\n").unwrap();
    let Server { mut child, peer } = spawn_binary(dir.path(), "read_file,list_directory");
    let mut peer = peer;
    let init = peer.initialize().await;
    assert_eq!(init["result"]["serverInfo"]["name"], "cy-tools");
    let list = peer.request(1, "tools/list", json!({})).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["list_directory", "read_file"]);
    let call = peer
        .call(2, "read_file", json!({"path": "notes.txt"}))
        .await;
    assert_eq!(call["result"]["content"][0]["text"], "     1\talpha");
    let unknown = peer.call(3, "terminal", json!({"command": "true"})).await;
    assert_eq!(
        unknown["error"]["message"],
        "unknown tool `terminal`; valid tools are `list_directory`, `read_file`"
    );

    // Closing stdin ends the server cleanly; whatever it wrote to stdout was protocol (checked
    // line by line above), and its debug logs went to stderr.
    drop(peer);
    let output = tokio::time::timeout(TIMEOUT, async {
        let mut stderr = String::new();
        tokio::io::AsyncReadExt::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr)
            .await
            .unwrap();
        (child.wait().await.unwrap(), stderr)
    })
    .await
    .expect("the server exits when stdin closes");
    assert!(
        output.0.success(),
        "exit {:?}, stderr: {}",
        output.0,
        output.1
    );
    assert!(output.1.contains("tools/call"), "stderr: {}", output.1);
}

#[tokio::test]
async fn cancelling_a_call_through_the_binary_kills_the_command_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let Server {
        child: _child,
        peer,
    } = spawn_binary(dir.path(), "terminal");
    let mut peer = peer;
    peer.initialize().await;
    peer.send(json!({
        "jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "terminal", "arguments": {"command": "echo $$ > shell.pid; exec sleep 300"}},
    }))
    .await;
    let pid_file = dir.path().join("shell.pid");
    let pid = wait_for(|| {
        std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
    })
    .await;
    assert!(running(pid), "the command runs before the cancellation");
    peer.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}),
    )
    .await;
    wait_for(|| (!running(pid)).then_some(())).await;
    // No response for 5; the server goes on.
    let response = peer.request(6, "tools/list", json!({})).await;
    assert_eq!(response["id"], 6);
}

async fn wait_for<T>(mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
