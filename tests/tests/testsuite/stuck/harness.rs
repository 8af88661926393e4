//! What the checks of the command line never freezing share: the time bars, a process whose
//! stderr is read on a thread, an MCP server driven line by line, and the `terminal` command that
//! sleeps until something stops it.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rustix::process::Signal;
use serde_json::{Value, json};

use crate::support::process::{self, read_pids, running, stops, wait_for};
use crate::support::reaper::{ChildGuard, Reaper};

/// How long a stop may take once asked for: the bar these checks hold the binary to.
pub const STOP: Duration = Duration::from_secs(2);

/// How long `mcp` may take to end once its stdin is closed with calls stuck: `rmcp` waits 5 s
/// for calls to answer, then stops them; the rest is margin.
pub const DRAINED: Duration = Duration::from_secs(8);

/// Starts `sleep 30` in the background of the shell, records `<shell> <sleep>` pids, waits.
pub const SLOW: &str = "sleep 30 & echo $$ $! > pids.tmp && mv pids.tmp pids.txt; wait";

/// A process of the test, stopped and reaped on drop, its stderr read on a thread (a full pipe
/// would block the process on its next log line, which is not the freeze looked for).
pub struct Proc {
    pub child: ChildGuard,
    stderr: mpsc::Receiver<String>,
}

impl Proc {
    pub fn spawn(command: &mut Command) -> Proc {
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

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the process to exit, at most `within` from `since`; its exit code and stderr.
    pub fn exits(&mut self, since: Instant, within: Duration) -> (Option<i32>, String) {
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
pub struct Mcp {
    process: Proc,
    pub stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Messages read while waiting for another one.
    unclaimed: Vec<Value>,
}

impl Mcp {
    pub fn start(mut command: Command, root: &Path, tools: &str) -> Mcp {
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

    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    pub fn call(&mut self, id: u64, tool: &str, arguments: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}));
    }

    /// The response to request `id`, if it comes within `within`; other messages are kept for
    /// later.
    pub fn answer(&mut self, id: u64, within: Duration) -> Result<Value, String> {
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
    pub fn pings(&mut self, id: u64) {
        let asked = Instant::now();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        let pong = self
            .answer(id, STOP)
            .unwrap_or_else(|err| panic!("the server froze: {err}"));
        assert_eq!(pong["result"], json!({}), "{pong}");
        println!("    ping answered in {:?}", asked.elapsed());
    }

    pub fn pid(&self) -> u32 {
        self.process.id()
    }

    /// Waits for the server to exit with status 0, at most `within` from `since`.
    pub fn exits(&mut self, since: Instant, within: Duration) {
        let (code, stderr) = self.process.exits(since, within);
        assert_eq!(code, Some(0), "{stderr}");
    }
}

/// The `terminal` command's (shell, sleep) once it has recorded them; both killed on drop of
/// `reaper` if the check fails first.
pub fn command_pids(workspace: &Path, reaper: &mut Reaper) -> (u32, u32) {
    let pids = wait_for("the command's pids", || {
        read_pids(&workspace.join("pids.txt"), 2)
    });
    reaper.group(pids[0]);
    assert!(running(pids[0]) && running(pids[1]));
    (pids[0], pids[1])
}

pub fn sigterm(pid: u32) -> Instant {
    process::signal(pid, Signal::TERM);
    Instant::now()
}

pub fn gone(pids: &[u32]) {
    for &pid in pids {
        assert!(stops(pid), "process {pid} outlived the server");
    }
}

/// A workspace with a FIFO `pipe` in it.
pub fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let made = Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    dir
}
