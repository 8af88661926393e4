//! `cy-tools mcp`, `call` and `control-server` never freeze on what a call is stuck on, and
//! `SIGTERM` ends them within 2 s with the commands their calls started:
//!
//! * the MCP server answers `ping` while a `terminal` command sleeps and the file tools are
//!   pointed at a FIFO (whose open used to block the server's only thread), and stops on
//!   `SIGTERM`, or within a few seconds of its stdin closing;
//! * `call` on a FIFO answers at once, and `SIGTERM` stops a `call` and the control server
//!   mid-run.
//!
//! They run the application binary, `cy-tools-app`: the same command line as `cy-tools`
//! (`cy_tools_builtin::cli::main`), with more tools linked in. `blocking` does the same with
//! tools that block their thread.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cy_tools::prelude::*;
use cy_tools::{CancellationToken, ToolCall, binding::bind_tool};
use cy_tools_builtin::executor::RemoteExecutor;
use cy_tools_builtin::tools::execute_code::EXECUTE_CODE;
use serde_json::json;

use super::harness::{DRAINED, Mcp, Proc, SLOW, STOP, command_pids, gone, sigterm, workspace};
use crate::support::app::app as cy_tools;
use crate::support::process::{parent_of, read_pids, wait_for};
use crate::support::reaper::{ChildGuard, Reaper};

/// `mcp` with a sleeping command and the file tools pointed at a FIFO.
fn mcp_with_fifo_calls(ws: &Path, reaper: &mut Reaper) -> (Mcp, (u32, u32)) {
    let mut mcp = Mcp::start(cy_tools(), ws, "terminal,read_file,edit_file,search_text");
    reaper.pid(mcp.pid());
    mcp.call(1, "terminal", json!({"command": SLOW}));
    let pids = command_pids(ws, reaper);
    mcp.call(2, "read_file", json!({"path": "pipe"}));
    mcp.call(
        3,
        "edit_file",
        json!({"path": "pipe", "old_string": "a", "new_string": "b"}),
    );
    mcp.call(4, "search_text", json!({"pattern": "a", "path": "pipe"}));
    (mcp, pids)
}

#[test]
fn mcp_answers_ping_while_calls_are_stuck_and_sigterm_stops_it() {
    let ws = workspace();
    let mut reaper = Reaper::new();
    let (mut mcp, (shell, sleep)) = mcp_with_fifo_calls(ws.path(), &mut reaper);
    mcp.pings(5);
    for id in [2, 3, 4] {
        let answer = mcp.answer(id, STOP).unwrap_or_else(|err| panic!("{err}"));
        let text = answer["result"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        assert!(text.contains("is a FIFO (named pipe)"), "{text}");
    }
    let asked = sigterm(mcp.pid());
    mcp.exits(asked, STOP);
    gone(&[shell, sleep]);
}

#[test]
fn mcp_with_calls_stuck_ends_when_stdin_closes() {
    let ws = workspace();
    let mut reaper = Reaper::new();
    let (mut mcp, (shell, sleep)) = mcp_with_fifo_calls(ws.path(), &mut reaper);
    let closed = Instant::now();
    mcp.stdin = None;
    mcp.exits(closed, DRAINED);
    gone(&[shell, sleep]);
}

#[test]
fn call_on_a_fifo_answers_at_once() {
    let ws = workspace();
    let started = Instant::now();
    let mut call = Proc::spawn(
        cy_tools()
            .args(["call", "read_file", r#"{"path": "pipe"}"#, "--root"])
            .arg(ws.path())
            .stdout(Stdio::null()),
    );
    while started.elapsed() < STOP && call.child.0.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(10));
    }
    if call.child.0.try_wait().unwrap().is_none() {
        let asked = sigterm(call.id());
        call.exits(asked, STOP);
        panic!("the call did not answer within {STOP:?} (SIGTERM stopped it)");
    }
    let (code, stderr) = call.exits(started, STOP);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        stderr,
        "`pipe` is a FIFO (named pipe), not a regular file; the file tools read regular files only, so give the path of one\n"
    );
}

#[test]
fn sigterm_stops_a_call_and_its_command_within_2s() {
    let ws = workspace();
    let mut reaper = Reaper::new();
    let mut call = Proc::spawn(
        cy_tools()
            .args(["call", "terminal", &json!({"command": SLOW}).to_string()])
            .arg("--root")
            .arg(ws.path())
            .stdout(Stdio::null()),
    );
    let (shell, sleep) = command_pids(ws.path(), &mut reaper);
    let asked = sigterm(call.id());
    let (code, stderr) = call.exits(asked, STOP);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        stderr,
        "the call to `terminal` was cancelled before it finished and was stopped; call it again if the result is still needed\n"
    );
    gone(&[shell, sleep]);
}

#[test]
fn sigterm_stops_the_control_server_and_its_run_within_2s() {
    const TOKEN: &str = "stuck-token-5b1e8f0c2d";
    let root = tempfile::tempdir().unwrap();
    let mut reaper = Reaper::new();
    let mut command = cy_tools();
    command
        .args(["control-server", "--bind", "127.0.0.1:0", "--root"])
        .arg(root.path())
        .env("CY_CONTROL_TOKEN", TOKEN)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut server = ChildGuard(child);
    reaper.pid(server.id());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    // The rest is read on, so no log line can block the server.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let endpoint = line
        .trim()
        .strip_prefix("control server listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_string();
    let executor = RemoteExecutor::new(&endpoint, "s-stuck", TOKEN).unwrap();
    let context = ToolContext::new(SessionIdentity::root("s-stuck", "acme"))
        .with_executor(Arc::new(executor));
    let tool = bind_tool(&EXECUTE_CODE, context).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let call = runtime.spawn(async move {
        tool.execute(
            ToolCall::new("c1", json!({"code": SLEEPER, "timeout_ms": 120_000})),
            &CancellationToken::new(),
        )
        .await
    });
    let pids = wait_for("the run's pids", || {
        read_pids(&root.path().join("s-stuck").join("pids.txt"), 2)
    });
    let shell = parent_of(pids[0]).unwrap();
    reaper.group(shell);
    let asked = sigterm(server.id());
    loop {
        if let Some(status) = server.0.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(asked.elapsed() < STOP, "the control server still runs");
        std::thread::sleep(Duration::from_millis(10));
    }
    println!("    exited in {:?}", asked.elapsed());
    gone(&[shell, pids[0], pids[1]]);
    let result = runtime.block_on(call).unwrap();
    assert!(result.is_error, "{}", result.text_content());
}

/// Python that starts `sleep 300` as its child, writes `<its pid> <the child's pid>\n` to
/// `pids.txt` (through a rename, so the file is never seen half-written), says `started`, and
/// sleeps (not a busy loop: the machines running these tests are small and shared).
pub const SLEEPER: &str = r#"import os, subprocess, time
child = subprocess.Popen(["sleep", "300"])
with open("pids.tmp", "w") as f:
    f.write(f"{os.getpid()} {child.pid}\n")
os.rename("pids.tmp", "pids.txt")
print("started", flush=True)
time.sleep(300)
"#;
