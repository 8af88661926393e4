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
//! This test binary (`harness = false`) is also an application's own `cy-tools`: started with
//! `CY_STUCK_APP=1`, its `main` runs the command line with the tools below linked in, tools that
//! get stuck the ways a badly written tool can. The checks run in order, each in its own
//! workspace; a name given on the command line runs only the checks containing it.
//! `faults_stuck_cli` checks the real binary on FIFOs, sleeping commands and the control server.

mod faults_common;
mod stuck_common;

use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use cy_tools::prelude::*;
use faults_common::{Reaper, wait_for};
use serde_json::json;
use stuck_common::{DRAINED, Mcp, Proc, SLOW, STOP, command_pids, gone, sigterm};

const APP: &str = "CY_STUCK_APP";

/// Block the thread running this call for a minute, as a tool body calling a blocking
/// function does. Creates the file `marker` (a host path) first.
#[tool(read_only, open_world = false)]
async fn block_thread(
    /// A host path to create once the call runs.
    marker: String,
) -> String {
    std::fs::write(&marker, "").unwrap();
    std::thread::sleep(Duration::from_secs(60));
    "woke up".to_string()
}

/// Block a blocking-pool thread for a minute, which no cancellation can stop. Creates the file
/// `marker` (a host path) first.
#[tool(read_only, open_world = false)]
async fn block_pool(
    /// A host path to create once the call runs.
    marker: String,
) -> String {
    let _ = tokio::task::spawn_blocking(move || {
        std::fs::write(&marker, "").unwrap();
        std::thread::sleep(Duration::from_secs(60));
    })
    .await;
    "woke up".to_string()
}

type Check = (&'static str, fn());

const CHECKS: &[Check] = &[
    (
        "mcp_answers_ping_with_a_thread_blocked_and_sigterm_stops_it",
        mcp_answers_ping_with_a_thread_blocked_and_sigterm_stops_it,
    ),
    (
        "mcp_with_a_thread_blocked_ends_when_stdin_closes",
        mcp_with_a_thread_blocked_ends_when_stdin_closes,
    ),
    (
        "sigterm_stops_a_call_blocking_its_thread",
        sigterm_stops_a_call_blocking_its_thread,
    ),
    (
        "sigterm_stops_a_call_blocking_a_pool_thread",
        sigterm_stops_a_call_blocking_a_pool_thread,
    ),
    (
        "sigterm_stops_mcp_with_every_worker_blocked_and_kills_its_commands",
        sigterm_stops_mcp_with_every_worker_blocked_and_kills_its_commands,
    ),
];

fn main() -> ExitCode {
    if std::env::var_os(APP).is_some() {
        return cy_tools_builtin::cli::run(std::env::args_os());
    }
    let filter = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    let mut failed = Vec::new();
    for (name, check) in CHECKS {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let started = Instant::now();
        match std::panic::catch_unwind(check) {
            Ok(()) => println!("test {name} ... ok ({:?})", started.elapsed()),
            Err(_) => {
                println!("test {name} ... FAILED");
                failed.push(*name);
            }
        }
    }
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        println!("failures: {}", failed.join(", "));
        ExitCode::FAILURE
    }
}

/// This binary as an application's `cy-tools`, with the blocking tools linked in.
fn app() -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.env(APP, "1");
    command
}

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

fn mcp_answers_ping_with_a_thread_blocked_and_sigterm_stops_it() {
    let ws = tempfile::tempdir().unwrap();
    let mut reaper = Reaper::new();
    let (mut mcp, (shell, sleep)) = app_mcp_with_blocked_calls(ws.path(), &mut reaper, 1);
    mcp.pings(20);
    let asked = sigterm(mcp.pid());
    mcp.exits(asked, STOP);
    gone(&[shell, sleep]);
}

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

fn sigterm_stops_mcp_with_every_worker_blocked_and_kills_its_commands() {
    let ws = tempfile::tempdir().unwrap();
    let mut reaper = Reaper::new();
    let (mut mcp, (shell, sleep)) = app_mcp_with_blocked_calls(ws.path(), &mut reaper, 2);
    let asked = sigterm(mcp.pid());
    mcp.exits(asked, STOP);
    gone(&[shell, sleep]);
}
