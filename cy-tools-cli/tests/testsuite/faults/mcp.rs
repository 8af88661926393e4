//! The MCP client of `cy-tools mcp` going away while a call is running (the `terminal` tool
//! running `sleep 30` in the background of its shell): the server exits promptly, the
//! command's process group is killed (no `sleep` left behind), and nothing panics.
//!
//! * the client process is killed with `SIGKILL`: the test runs `mcp_client_role` in a process
//!   of its own as the client, which starts the server and the call, then is killed;
//!   the server, orphaned, must notice its pipes closed, and does at once (nobody reads its
//!   stdout any more).
//! * the client closes both pipes: the same, and the server exits with status 0.
//! * the client closes only the server's stdin (the MCP way to end a stdio session) and goes
//!   on reading: the server gives the call up to 5 s to finish (`rmcp`'s drain), then stops
//!   it and exits with status 0.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::alone::alone;
use crate::support::process::{
    group_members, group_of, kill9, read_pids, running, stops, wait_for,
};
use crate::support::reaper::{ChildGuard, Reaper};

/// Where the client role keeps the server's workspace, pid and stderr.
const DIR: &str = "CY_FAULTS_DIR";

/// Starts `sleep 30` in the background of the shell, records `<shell> <sleep>` pids, and
/// waits for it: the call runs until something stops it.
const SLOW: &str = "sleep 30 & echo $$ $! > pids.tmp && mv pids.tmp pids.txt; wait";

/// How long the server may take to exit once its client is gone: it notices at once that
/// nobody reads its stdout any more; the rest is margin for a loaded machine.
const GONE: Duration = Duration::from_secs(3);

/// How long the server may take to exit once its client closed only its stdin: `rmcp` gives
/// calls still running 5 s to finish and send their answers (that client may still be
/// reading), then cancels them; the rest is margin.
const DRAINED: Duration = Duration::from_secs(8);

fn spawn_server(workspace: &Path, stderr: Stdio) -> Child {
    Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(["mcp", "--tools", "terminal", "--root"])
        .arg(workspace)
        .env("CY_TOOLS_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

fn send(stdin: &mut ChildStdin, message: &Value) {
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
}

/// Initializes the session and starts the slow call (request id 2), without waiting for it.
fn start_slow_call(stdin: &mut ChildStdin, stdout: &mut BufReader<ChildStdout>) {
    send(
        stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "faults", "version": "0"}}}),
    );
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let init: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(init["id"], 1, "{line}");
    send(
        stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "terminal", "arguments": {"command": SLOW}}}),
    );
}

/// The running command's (shell, sleep), once the shell has recorded them.
fn command_pids(workspace: &Path, reaper: &mut Reaper) -> (u32, u32) {
    let pids = wait_for("the command's pids", || {
        read_pids(&workspace.join("pids.txt"), 2)
    });
    let (shell, sleep) = (pids[0], pids[1]);
    reaper.group(shell);
    assert!(running(shell) && running(sleep));
    assert_eq!(group_of(sleep), Some(shell), "the shell leads the group");
    (shell, sleep)
}

/// Waits up to `within` for `child` to exit.
fn exits_within(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "the server still runs {within:?} after its client went away"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn no_panic(stderr: &str) {
    assert!(
        !stderr.contains("panic") && !stderr.contains("RUST_BACKTRACE"),
        "{stderr}"
    );
}

/// The client role: starts the server (its stderr into a file the test reads), starts the
/// slow call, says the server's pid, and waits to be killed.
fn client(dir: &Path) {
    let stderr = std::fs::File::create(dir.join("server.err")).unwrap();
    let mut server = spawn_server(&dir.join("workspace"), Stdio::from(stderr));
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = BufReader::new(server.stdout.take().unwrap());
    start_slow_call(&mut stdin, &mut stdout);
    std::fs::write(dir.join("server.tmp"), format!("{}\n", server.id())).unwrap();
    std::fs::rename(dir.join("server.tmp"), dir.join("server.pid")).unwrap();
    // Killed by the test from here on. Were the test gone, it cleans up after a minute.
    std::thread::sleep(Duration::from_secs(60));
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
#[ignore = "run by `a_client_killed_mid_call_stops_the_server_and_its_command`, which kills it"]
fn mcp_client_role() {
    let dir = std::env::var_os(DIR).expect(
        "run by `a_client_killed_mid_call_stops_the_server_and_its_command`, which sets `CY_FAULTS_DIR`; run that test instead",
    );
    client(Path::new(&dir));
}

#[test]
fn a_client_killed_mid_call_stops_the_server_and_its_command() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    std::fs::create_dir(&workspace).unwrap();
    let mut reaper = Reaper::new();
    let mut client = ChildGuard(
        alone!(mcp_client_role)
            .env(DIR, dir.path())
            .command()
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let server = wait_for("the client to start the server", || {
        read_pids(&dir.path().join("server.pid"), 1)
    })[0];
    reaper.pid(server);
    let (shell, sleep) = command_pids(&workspace, &mut reaper);
    assert!(running(server));

    let killed = Instant::now();
    kill9(client.id());
    client.0.wait().unwrap();
    assert!(
        stops(server),
        "the server outlived its client: {}",
        std::fs::read_to_string(dir.path().join("server.err")).unwrap()
    );
    let took = killed.elapsed();
    assert!(took < GONE, "the server took {took:?} to exit");
    assert!(
        stops(shell) && stops(sleep),
        "the command outlived the server"
    );
    // The rest of the group too, if the shell had started anything else.
    assert!(group_members(shell).is_empty());
    let stderr = std::fs::read_to_string(dir.path().join("server.err")).unwrap();
    assert!(
        stderr.contains("tools/call"),
        "the call was running: {stderr}"
    );
    no_panic(&stderr);
}

/// Starts the server and the slow call in this process; returns the server (its stderr piped,
/// stopped on drop) with its pipes, and the command's (shell, sleep).
fn server_with_slow_call(
    workspace: &Path,
    reaper: &mut Reaper,
) -> (ChildGuard, ChildStdin, BufReader<ChildStdout>, (u32, u32)) {
    let mut server = ChildGuard(spawn_server(workspace, Stdio::piped()));
    let mut stdin = server.0.stdin.take().unwrap();
    let mut stdout = BufReader::new(server.0.stdout.take().unwrap());
    start_slow_call(&mut stdin, &mut stdout);
    let pids = command_pids(workspace, reaper);
    (server, stdin, stdout, pids)
}

fn stderr_of(server: &mut Child) -> String {
    let mut stderr = String::new();
    server
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    stderr
}

#[test]
fn a_client_closing_both_pipes_mid_call_stops_the_server_and_its_command() {
    let dir = tempfile::tempdir().unwrap();
    let mut reaper = Reaper::new();
    let (mut server, stdin, stdout, (shell, sleep)) =
        server_with_slow_call(dir.path(), &mut reaper);
    let closed = Instant::now();
    drop(stdin);
    drop(stdout);
    let status = exits_within(&mut server.0, GONE);
    let took = closed.elapsed();
    let stderr = stderr_of(&mut server.0);
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(took < GONE, "{took:?}");
    assert!(
        stops(shell) && stops(sleep),
        "the command outlived the server"
    );
    no_panic(&stderr);
}

#[test]
fn a_client_closing_stdin_mid_call_stops_the_server_and_its_command() {
    let dir = tempfile::tempdir().unwrap();
    let mut reaper = Reaper::new();
    let (mut server, stdin, mut stdout, (shell, sleep)) =
        server_with_slow_call(dir.path(), &mut reaper);
    let closed = Instant::now();
    drop(stdin);
    let status = exits_within(&mut server.0, DRAINED);
    let took = closed.elapsed();
    let stderr = stderr_of(&mut server.0);
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(took < DRAINED, "{took:?}");
    assert!(
        stops(shell) && stops(sleep),
        "the command outlived the server"
    );
    no_panic(&stderr);
    // Whatever the server still wrote is protocol, not a crash report.
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    for line in rest.lines() {
        let message: Value = serde_json::from_str(line).unwrap_or_else(|err| {
            panic!("not JSON-RPC on stdout ({err}): {line}");
        });
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
}
