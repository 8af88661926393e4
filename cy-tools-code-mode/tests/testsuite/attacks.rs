//! Code mode under attack, as a hostile model or client would try it:
//!
//! * a code-mode client that goes away (before its first line, during the run) or sends
//!   garbage must give back the control server's run slot and leave no run behind;
//! * one session's code must not reach another session's SDK channel (it used to read the
//!   other run's token and socket path from `/proc/<pid>/environ` and drive its tools).
//!
//! Code flooding its SDK channel, measured on a control-server process, is `cy-tools-cli`'s.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cy_tools::{
    BoundTool, CancellationToken, SessionIdentity, ToolCall, ToolContext, ToolResult,
    binding::bind_tool,
};
use cy_tools_code_mode::CodeModeLimits;
use cy_tools_remote::RemoteExecutor;
use cy_tools_remote::control_server::{ControlServer, ControlServerConfig};
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::tools::execute_code::EXECUTE_CODE;
use serde_json::json;

use super::harness::Harness;
use crate::support::backend::Backend;
use crate::support::loopback_server::code_mode_upgrade;
use crate::support::process;

const TOKEN: &str = "code-mode-attacks-token-0123456789";

/// A raw code-mode connection: upgraded, then lines both ways.
fn upgrade(addr: SocketAddr, session: &str) -> TcpStream {
    code_mode_upgrade(addr, session, TOKEN, Duration::from_secs(30))
}

fn wait_until(what: &str, mut probe: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !probe() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn execute_tool(endpoint: &str, session: &str) -> BoundTool {
    let local = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(local.path()).unwrap().env();
    let remote = RemoteExecutor::new(endpoint, session, TOKEN).unwrap();
    let context = ToolContext::new(SessionIdentity::root(session, "acme"))
        .with_env(Arc::new(env))
        .with_executor(Arc::new(remote));
    bind_tool(&EXECUTE_CODE, context).unwrap()
}

async fn run(tool: &BoundTool, code: &str) -> ToolResult {
    tool.execute(
        ToolCall::new("c", json!({"code": code})),
        &CancellationToken::new(),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_way_a_code_mode_client_leaves_gives_back_its_slot_and_kills_its_run() {
    const ROUNDS: usize = 20;
    let root = tempfile::tempdir().unwrap();
    let config = ControlServerConfig {
        token: Some(TOKEN.into()),
        ..ControlServerConfig::new("127.0.0.1:0".parse().unwrap(), root.path())
    };
    let slots = config.max_concurrent_runs;
    let server = ControlServer::bind(config).await.unwrap();
    let addr = server.local_addr().unwrap();
    tokio::spawn(server.run());
    let workspace = root.path().join("s-leave");

    tokio::task::spawn_blocking(move || {
        for round in 0..ROUNDS {
            // Gone before its first line.
            drop(upgrade(addr, "s-leave"));

            // A first line that is not a request: refused, and the server closes.
            let mut garbage = upgrade(addr, "s-leave");
            garbage.write_all(b"this is not json\n").unwrap();
            let mut answer = String::new();
            BufReader::new(&garbage).read_line(&mut answer).unwrap();
            assert!(answer.contains("\"refused\""), "{answer}");

            // Gone in the middle of its run: the run is killed.
            let mut running = upgrade(addr, "s-leave");
            let pid_file = workspace.join(format!("pid-{round}"));
            let code = format!(
                "import os, time\nopen({:?}, 'w').write(str(os.getpid()))\ntime.sleep(60)",
                pid_file.display().to_string()
            );
            let request =
                json!({"code": code, "filename": format!("run-{round}.py"), "timeout_ms": 60_000})
                    .to_string();
            running
                .write_all(format!("{request}\n").as_bytes())
                .unwrap();
            wait_until("the run started", || {
                std::fs::read_to_string(&pid_file).is_ok_and(|s| !s.is_empty())
            });
            let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().parse().unwrap();
            assert!(process::running(pid));
            drop(running);
            wait_until("the run was killed", || !process::running(pid));
        }
    })
    .await
    .unwrap();

    // Every slot is free again: as many runs at once as the server allows are all admitted.
    let tool = execute_tool(&format!("http://{addr}"), "s-after");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut runs = tokio::task::JoinSet::new();
        for _ in 0..slots {
            let tool = tool.clone();
            runs.spawn(
                async move { run(&tool, "import time\ntime.sleep(0.5)\nprint('in')").await },
            );
        }
        let results: Vec<ToolResult> = runs.join_all().await;
        let refused: Vec<String> = results
            .iter()
            .filter(|r| r.is_error)
            .map(ToolResult::text_content)
            .collect();
        if refused.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "slots never came back: {refused:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_sessions_code_cannot_drive_another_sessions_tools() {
    let victim = Arc::new(Harness::start(Backend::Local, CodeModeLimits::default(), None).await);
    let attacker = Harness::start(Backend::Local, CodeModeLimits::default(), None).await;
    // The victim's run holds its channel open for a while.
    let busy = {
        let victim = Arc::clone(&victim);
        tokio::spawn(async move {
            victim
                .run(
                    "v",
                    "import cy_sdk, time\ncy_sdk.call('tally', text='x')\ntime.sleep(3)\nprint('done')",
                )
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(800)).await;
    let attack = r#"
import glob, json, os, socket
me = os.getpid()
found, answers, opened = [], [], []
for path in glob.glob("/proc/[0-9]*/environ"):
    if int(path.split("/")[2]) == me:
        continue
    try:
        pairs = open(path, "rb").read().split(b"\0")
    except OSError:
        continue
    env = dict(p.split(b"=", 1) for p in pairs if b"=" in p)
    if b"CY_SDK_SOCKET" in env:
        found.append((env[b"CY_SDK_SOCKET"].decode(), env.get(b"CY_SDK_TOKEN", b"").decode()))
for path, token in found:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        s.sendall(json.dumps({"token": token, "tool": "write_file",
            "arguments": {"path": "pwned.txt", "content": "pwned"}}).encode() + b"\n")
        answers.append(s.makefile().readline())
    except OSError as err:
        answers.append(str(err))
# Another process's sockets, through its /proc entries.
for path in glob.glob("/proc/[0-9]*/fd/*"):
    if int(path.split("/")[2]) == me:
        continue
    try:
        if os.readlink(path).startswith("socket:"):
            os.close(os.open(path, os.O_RDWR))
            opened.append(path)
    except OSError:
        pass
print(json.dumps({"found": found, "answers": answers, "opened": opened}))
"#;
    let result = attacker.run("a", attack).await;
    assert!(!result.is_error, "{}", result.text_content());
    let out: serde_json::Value =
        serde_json::from_str(&crate::support::outcome::text(&result)).unwrap();
    let done = busy.await.unwrap();
    assert_eq!(crate::support::outcome::text(&done), "done");
    assert!(
        !victim.root().join("pwned.txt").exists(),
        "the attacker's code wrote into the victim's workspace: {out}"
    );
    assert_eq!(out["found"], json!([]), "{out}");
    assert_eq!(out["opened"], json!([]), "{out}");
}
