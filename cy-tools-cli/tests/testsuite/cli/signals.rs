//! `cy-tools call` and `cy-tools mcp` on Ctrl-C and SIGTERM: the sandbox runs commands in
//! process groups of their own, out of reach of the terminal's Ctrl-C, so the command line must
//! stop them itself (and `call` says the call was cancelled).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::support::process::running;

fn workspace() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

fn wait_for_pid(file: &Path) -> u32 {
    for _ in 0..1000 {
        if let Some(pid) = std::fs::read_to_string(file)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return pid;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("{} never appeared", file.display());
}

fn wait_until_gone(pid: u32) {
    for _ in 0..1000 {
        if !running(pid) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("process {pid} still runs");
}

#[test]
fn an_interrupted_call_stops_its_command_and_says_so() {
    let dir = workspace();
    let child = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args([
            "call",
            "terminal",
            r#"{"command": "echo $$ > shell.pid; exec sleep 300"}"#,
        ])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let shell = wait_for_pid(&dir.path().join("shell.pid"));
    assert!(running(shell));
    signal(child.id(), "INT");
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "the call to `terminal` was cancelled before it finished and was stopped; call it again if the result is still needed\n"
    );
    wait_until_gone(shell);
}

#[test]
fn a_terminated_mcp_server_stops_the_commands_its_tools_started() {
    let dir = workspace();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(["mcp", "--tools", "terminal"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "terminal", "arguments": {"command": "echo $$ > shell.pid; exec sleep 300"}}}),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    let init: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(init["id"], 1);
    let shell = wait_for_pid(&dir.path().join("shell.pid"));
    assert!(running(shell));
    signal(child.id(), "TERM");
    assert!(child.wait().unwrap().success());
    wait_until_gone(shell);
}
