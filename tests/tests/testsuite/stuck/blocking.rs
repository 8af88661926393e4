//! `cy-tools mcp` and `call` never freeze and always stop whatever a tool does: with a call
//! whose body blocks its thread, and one blocking a blocking-pool thread (which no cancellation
//! can stop),
//!
//! * the MCP server answers `ping`, stops on `SIGTERM` within 2 s, and within a few seconds of
//!   its stdin closing (`rmcp` gives calls 5 s to answer);
//! * `call` stops on `SIGTERM` within 2 s;
//! * with every worker thread blocked, `SIGTERM` still ends the server within 2 s and kills the
//!   commands its calls started.
//!
//! The application binary, `cy-tools-app`, has tools linked in that get stuck the ways a badly
//! written tool can (`cy_tools_tests::app`). `fifo` checks the same command line on FIFOs,
//! sleeping commands and the control server.

use std::path::Path;
use std::process::Stdio;
use std::time::Instant;

use serde_json::json;

use super::harness::{DRAINED, Mcp, Proc, SLOW, STOP, command_pids, gone, sigterm};
use crate::support::app::app;
use crate::support::process::wait_for;
use crate::support::reaper::Reaper;

/// `mcp` of the application binary with a sleeping command, a call blocking a pool thread
/// and `threads` calls each blocking a worker thread; all are running when this returns.
fn app_mcp_with_blocked_calls(ws: &Path, reaper: &mut Reaper, threads: u64) -> (Mcp, (u32, u32)) {
    let mut mcp = Mcp::start(app(), ws, "terminal,block_thread,block_pool");
    reaper.pid(mcp.pid());
    mcp.call(1, "terminal", json!({"command": SLOW}));
    let pids = command_pids(ws, reaper);
    let marker = ws.join("pool.started");
    mcp.call(2, "block_pool", json!({"marker": marker}));
    wait_for("the pool-blocking call to run", || {
        marker.exists().then_some(())
    });
    for n in 0..threads {
        let marker = ws.join(format!("thread-{n}.started"));
        mcp.call(3 + n, "block_thread", json!({"marker": marker}));
        wait_for("the thread-blocking call to run", || {
            marker.exists().then_some(())
        });
    }
    (mcp, pids)
}

#[test]
fn mcp_answers_ping_with_a_thread_blocked_and_sigterm_stops_it() {
    let ws = tempfile::tempdir().unwrap();
    let mut reaper = Reaper::new();
    let (mut mcp, (shell, sleep)) = app_mcp_with_blocked_calls(ws.path(), &mut reaper, 1);
    mcp.pings(20);
    let asked = sigterm(mcp.pid());
    mcp.exits(asked, STOP);
    gone(&[shell, sleep]);
}

#[test]
fn mcp_with_a_thread_blocked_ends_when_stdin_closes() {
    let ws = tempfile::tempdir().unwrap();
    let mut reaper = Reaper::new();
    let (mut mcp, (shell, sleep)) = app_mcp_with_blocked_calls(ws.path(), &mut reaper, 1);
    let closed = Instant::now();
    mcp.stdin = None;
    mcp.exits(closed, DRAINED);
    gone(&[shell, sleep]);
}

/// `cy-tools call` of the application binary running `tool`, once the call has started.
fn app_call(ws: &Path, tool: &str) -> Proc {
    let marker = ws.join("started");
    let call = Proc::spawn(
        app()
            .args(["call", tool, &json!({"marker": marker}).to_string()])
            .stdout(Stdio::null()),
    );
    wait_for("the call to run", || marker.exists().then_some(()));
    call
}

#[test]
fn sigterm_stops_a_call_blocking_its_thread() {
    let ws = tempfile::tempdir().unwrap();
    let mut call = app_call(ws.path(), "block_thread");
    let asked = sigterm(call.id());
    let (code, stderr) = call.exits(asked, STOP);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        stderr,
        "the call to `block_thread` was cancelled but did not stop (its tool is blocked); it was abandoned and the commands it started were killed; call it again if the result is still needed\n"
    );
}

#[test]
fn sigterm_stops_a_call_blocking_a_pool_thread() {
    let ws = tempfile::tempdir().unwrap();
    let mut call = app_call(ws.path(), "block_pool");
    let asked = sigterm(call.id());
    let (code, stderr) = call.exits(asked, STOP);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        stderr,
        "the call to `block_pool` was cancelled before it finished and was stopped; call it again if the result is still needed\n"
    );
}

#[test]
fn sigterm_stops_mcp_with_every_worker_blocked_and_kills_its_commands() {
    let ws = tempfile::tempdir().unwrap();
    let mut reaper = Reaper::new();
    let (mut mcp, (shell, sleep)) = app_mcp_with_blocked_calls(ws.path(), &mut reaper, 2);
    let asked = sigterm(mcp.pid());
    mcp.exits(asked, STOP);
    gone(&[shell, sleep]);
}
