//! `cy-tools mcp --http` with calls whose bodies block their threads: it goes on answering with
//! one worker blocked, and `SIGTERM` ends it within 2 s with every worker blocked, killing the
//! commands its calls started. Calls run on the workers that read their requests (see
//! `cli/mcp_http.rs`), so this is what that choice has to keep.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::harness::{SLOW, STOP, command_pids, gone, sigterm};
use crate::support::http_mcp::{HttpMcp, TOKEN};
use crate::support::process::wait_for;
use crate::support::reaper::Reaper;

/// Starts `block_thread` on a connection of its own and waits until its body runs.
fn block_a_worker(server: &HttpMcp, ws: &Path, n: usize) -> TcpStream {
    let marker = ws.join(format!("thread-{n}.started"));
    let call = server.start_call("block_thread", json!({"marker": marker}));
    wait_for("the thread-blocking call to run", || {
        marker.exists().then_some(())
    });
    call
}

/// A `tools/list` on a fresh connection, answered within `within`.
fn lists_within(server: &HttpMcp, within: Duration) {
    let addr = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp");
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).to_string();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(within)).unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .expect("the server answers tools/list while a worker is blocked");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("block_thread"), "{answer}");
}

#[test]
fn mcp_http_answers_with_a_worker_blocked_and_sigterm_stops_it_with_all_blocked() {
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path();
    let mut reaper = Reaper::new();
    // About blocking, not approval: the calls run without asking.
    let mut server = HttpMcp::start(
        ws,
        "terminal,block_thread,block_pool",
        &["--approve", "none"],
    );
    reaper.pid(server.pid());
    let mut calls = vec![server.start_call("terminal", json!({"command": SLOW}))];
    let (shell, sleep) = command_pids(ws, &mut reaper);
    let marker = ws.join("pool.started");
    calls.push(server.start_call("block_pool", json!({"marker": marker})));
    wait_for("the pool-blocking call to run", || {
        marker.exists().then_some(())
    });

    calls.push(block_a_worker(&server, ws, 0));
    for _ in 0..5 {
        lists_within(&server, Duration::from_secs(5));
    }
    calls.push(block_a_worker(&server, ws, 1));

    let asked = sigterm(server.pid());
    server.exits(asked, STOP);
    gone(&[shell, sleep]);
    drop(calls);
}
