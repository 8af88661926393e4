//! The `cy-tools mcp` binary on bad input, line by line, as JSON-RPC 2.0 asks (the same as in
//! process, `cy-tools-mcp`'s suite): after each bad line the server still answers, and a line
//! far longer than 16 MiB streams through in flat memory.

use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::support::mcp_client::{Raw, error};

fn spawn_binary(root: &std::path::Path) -> tokio::process::Child {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(["mcp", "--tools", "read_file", "--root"])
        .arg(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

#[tokio::test]
async fn the_binary_answers_bad_lines_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn_binary(dir.path());
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut raw = Raw::new(stdin, stdout).await;
    let answer = raw.answer("garbage").await;
    error(&answer, -32700, Value::Null);
    let answer = raw.answer(r#"{"jsonrpc":"2.0","id":7,"method":5}"#).await;
    error(&answer, -32600, json!(7));
    raw.line(r#"{"jsonrpc":"2.0","method":"notifications/x","params":5}"#)
        .await;
    raw.still_answers().await;
    let answer = raw.answer("[]").await;
    error(&answer, -32600, Value::Null);
}

/// The most memory the server may hold at its peak while a 200 MiB line streams through it:
/// well under the line, and under what one 16 MiB line buffered whole twice would take.
const PEAK_LIMIT_KIB: u64 = 96 * 1024;

/// `VmHWM`: the process's peak resident memory.
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[tokio::test]
async fn a_200_mib_line_streams_through_the_binary_in_flat_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn_binary(dir.path());
    let pid = child.id().unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut raw = Raw::new(stdin, stdout).await;
    let chunk = vec![b'x'; 1 << 20];
    raw.writer
        .write_all(br#"{"jsonrpc":"2.0","id":13,"method":"ping","params":{"pad":""#)
        .await
        .unwrap();
    let mut answer = None;
    for _ in 0..200 {
        // The answer comes as soon as the line passes 16 MiB; it is read while writing on, so
        // the server is never stuck on a full stdout.
        tokio::select! {
            written = raw.writer.write_all(&chunk) => written.unwrap(),
            line = raw.lines.next_line(), if answer.is_none() => {
                answer = Some(line.unwrap().unwrap());
            }
        }
    }
    raw.line(r#""}}"#).await;
    let answer: Value = match answer {
        Some(line) => serde_json::from_str(&line).unwrap(),
        None => raw.next().await,
    };
    error(&answer, -32600, Value::Null);
    raw.still_answers().await;
    let peak = peak_kib(pid);
    println!("the server's peak resident memory: {peak} KiB");
    assert!(
        peak < PEAK_LIMIT_KIB,
        "the server's memory peaked at {peak} KiB reading a 200 MiB line"
    );
}
