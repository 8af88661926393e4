//! `cy-tools mcp`, `call` and `control-server` never freeze and always stop, whatever a call
//! is stuck on:
//!
//! * the MCP server answers `ping` while calls are stuck: a `terminal` command sleeping, file
//!   tools pointed at a FIFO, and (in the application binary below) a tool body blocking its
//!   thread and one blocking a blocking-pool thread;
//! * `SIGTERM` ends `mcp`, `call` and `control-server` within 2 s, and the commands their calls
//!   started are gone with them, even when every worker thread is blocked;
//! * closing stdin ends `mcp` within a few seconds (`rmcp` gives calls 5 s to answer).
//!
//! This test binary (`harness = false`) is also an application's own `cy-tools`: started with
//! `CY_STUCK_APP=1`, its `main` runs the command line with the tools below linked in, tools that
//! get stuck the ways a badly written tool can. The checks run in order, each in its own
//! workspace; a name given on the command line runs only the checks containing it.

mod faults_common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{ChildStdin, Command, ExitCode, Stdio};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use cy_tools::prelude::*;
use cy_tools::{CancellationToken, ToolCall, bind_tool};
use cy_tools_builtin::executor::RemoteExecutor;
use cy_tools_builtin::tools::execute_code::EXECUTE_CODE;
use faults_common::{ChildGuard, Reaper, SLEEPER, read_pids, running, stops, wait_for};
use rustix::process::Signal;
use serde_json::{Value, json};

const APP: &str = "CY_STUCK_APP";

/// How long a stop may take once asked for: the bar these checks hold the binary to.
const STOP: Duration = Duration::from_secs(2);

/// How long `mcp` may take to end once its stdin is closed with calls stuck: `rmcp` waits 5 s
/// for calls to answer, then stops them; the rest is margin.
const DRAINED: Duration = Duration::from_secs(8);

/// Starts `sleep 30` in the background of the shell, records `<shell> <sleep>` pids, waits.
const SLOW: &str = "sleep 30 & echo $$ $! > pids.tmp && mv pids.tmp pids.txt; wait";

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
        "mcp_answers_ping_while_calls_are_stuck_and_sigterm_stops_it",
        mcp_answers_ping_while_calls_are_stuck_and_sigterm_stops_it,
    ),
    (
        "mcp_with_calls_stuck_ends_when_stdin_closes",
        mcp_with_calls_stuck_ends_when_stdin_closes,
    ),
    (
        "call_on_a_fifo_answers_at_once",
        call_on_a_fifo_answers_at_once,
    ),
    (
        "sigterm_stops_a_call_and_its_command_within_2s",
        sigterm_stops_a_call_and_its_command_within_2s,
    ),
    (
        "sigterm_stops_the_control_server_and_its_run_within_2s",
        sigterm_stops_the_control_server_and_its_run_within_2s,
    ),
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

/// The real `cy-tools`.
fn cy_tools() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cy-tools"))
}

/// This binary as an application's `cy-tools`, with the blocking tools linked in.
fn app() -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.env(APP, "1");
    command
}

/// A workspace with a FIFO `pipe` in it.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let made = Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    dir
}

/// A process of the test, stopped and reaped on drop, its stderr read on a thread (a full pipe
/// would block the process on its next log line, which is not the freeze looked for).
struct Proc {
    child: ChildGuard,
    stderr: mpsc::Receiver<String>,
}

impl Proc {
    fn spawn(command: &mut Command) -> Proc {
        let mut child = command.stderr(Stdio::piped()).spawn().unwrap();
        let mut pipe = child.stderr.take().unwrap();
        let (tx, stderr) = mpsc::channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            let _ = tx.send(text);
        });
        Proc {
            child: ChildGuard(child),
            stderr,
        }
    }

    fn id(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the process to exit, at most `within` from `since`; its exit code and stderr.
    fn exits(&mut self, since: Instant, within: Duration) -> (Option<i32>, String) {
        let status = loop {
            if let Some(status) = self.child.0.try_wait().unwrap() {
                break status;
            }
            assert!(
                since.elapsed() < within,
                "still running {within:?} after it was asked to stop"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        println!("    exited in {:?}: {status}", since.elapsed());
        let stderr = self
            .stderr
            .recv_timeout(Duration::from_secs(5))
            .unwrap_or_default();
        assert!(
            !stderr.contains("panicked"),
            "a panic on the way out: {stderr}"
        );
        (status.code(), stderr)
    }
}

/// An MCP server process with its stdout read line by line on a thread of the test.
struct Mcp {
    process: Proc,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Messages read while waiting for another one.
    unclaimed: Vec<Value>,
}

impl Mcp {
    fn start(mut command: Command, root: &Path, tools: &str) -> Mcp {
        let mut process = Proc::spawn(
            command
                .args(["mcp", "--tools", tools, "--root"])
                .arg(root)
                .env("CY_TOOLS_LOG", "debug")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped()),
        );
        let stdin = process.child.0.stdin.take();
        let stdout = BufReader::new(process.child.0.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp {
            process,
            stdin,
            lines,
            unclaimed: Vec::new(),
        };
        mcp.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "stuck", "version": "0"}}}),
        );
        let init = mcp
            .answer(0, Duration::from_secs(10))
            .unwrap_or_else(|err| panic!("{err}"));
        assert!(init["result"].is_object(), "{init}");
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn call(&mut self, id: u64, tool: &str, arguments: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}));
    }

    /// The response to request `id`, if it comes within `within`; other messages are kept for
    /// later.
    fn answer(&mut self, id: u64, within: Duration) -> Result<Value, String> {
        if let Some(at) = self.unclaimed.iter().position(|m| m["id"] == json!(id)) {
            return Ok(self.unclaimed.remove(at));
        }
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .map_err(|_| format!("no answer to request {id} within {within:?}"))?;
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|err| panic!("not JSON on stdout ({err}): {line}"));
            if message["id"] == json!(id) {
                return Ok(message);
            }
            self.unclaimed.push(message);
        }
    }

    /// Answers `ping` within [`STOP`].
    fn pings(&mut self, id: u64) {
        let asked = Instant::now();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        let pong = self
            .answer(id, STOP)
            .unwrap_or_else(|err| panic!("the server froze: {err}"));
        assert_eq!(pong["result"], json!({}), "{pong}");
        println!("    ping answered in {:?}", asked.elapsed());
    }

    fn pid(&self) -> u32 {
        self.process.id()
    }

    /// Waits for the server to exit with status 0, at most `within` from `since`.
    fn exits(&mut self, since: Instant, within: Duration) {
        let (code, stderr) = self.process.exits(since, within);
        assert_eq!(code, Some(0), "{stderr}");
    }
}

/// The `terminal` command's (shell, sleep) once it has recorded them; both killed on drop of
/// `reaper` if the check fails first.
fn command_pids(workspace: &Path, reaper: &mut Reaper) -> (u32, u32) {
    let pids = wait_for("the command's pids", || {
        read_pids(&workspace.join("pids.txt"), 2)
    });
    reaper.group(pids[0]);
    assert!(running(pids[0]) && running(pids[1]));
    (pids[0], pids[1])
}

fn sigterm(pid: u32) -> Instant {
    faults_common::signal(pid, Signal::TERM);
    Instant::now()
}

fn gone(pids: &[u32]) {
    for &pid in pids {
        assert!(stops(pid), "process {pid} outlived the server");
    }
}

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

fn mcp_with_calls_stuck_ends_when_stdin_closes() {
    let ws = workspace();
    let mut reaper = Reaper::new();
    let (mut mcp, (shell, sleep)) = mcp_with_fifo_calls(ws.path(), &mut reaper);
    let closed = Instant::now();
    mcp.stdin = None;
    mcp.exits(closed, DRAINED);
    gone(&[shell, sleep]);
}

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
    let shell = faults_common::parent_of(pids[0]).unwrap();
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
