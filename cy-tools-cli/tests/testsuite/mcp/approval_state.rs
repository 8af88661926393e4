//! The signed approval state (`requestState`) of 2026-07-28's multi-round approval, across
//! `cy-tools mcp --http` replicas sharing `CY_TOOLS_MCP_STATE_KEY`: an answer is good in the
//! session it was asked in only (session id, tenant, workspace), and where the replicas share
//! a store (SQLite, PostgreSQL) its nonce is spent there before the call runs, so a replay on
//! another replica is refused even while the first call still runs.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::postgres;

const TOKEN: &str = "approval-state-test-token-0123";
const STATE_KEY: &str = "approval-state-test-key-0123456789abcdef";

/// `cy-tools mcp --http 127.0.0.1:0 ARGS` in `dir`, with the token and the shared state key;
/// killed when dropped.
struct Replica {
    child: Child,
    addr: SocketAddr,
}

impl Replica {
    fn start(dir: &Path, args: &[&str]) -> Replica {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
            .args(["mcp", "--http", "127.0.0.1:0", "--approve", "destructive"])
            .args(args)
            .current_dir(dir)
            .env("CY_TOOLS_MCP_TOKEN", TOKEN)
            .env("CY_TOOLS_MCP_STATE_KEY", STATE_KEY)
            .env_remove("CY_TOOLS_LOG")
            .env_remove("CY_TOOLS_STORE")
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut seen = String::new();
        let addr = loop {
            let mut line = String::new();
            if stderr.read_line(&mut line).unwrap() == 0 {
                panic!("`mcp --http` exited before it served: {seen}");
            }
            if let Some(url) = line.strip_prefix("serving MCP over streamable HTTP at ") {
                let addr = url.trim_start_matches("http://").split('/').next().unwrap();
                break addr.parse().unwrap();
            }
            seen.push_str(&line);
        };
        std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
            eprint!("{rest}");
        });
        Replica { child, addr }
    }
}

/// A 2026-07-28 `tools/call` with `extra` params (the answer and the state), the client
/// able to answer elicitations; the result.
fn call(addr: SocketAddr, tool: &str, arguments: &Value, extra: Value) -> Value {
    let mut params = json!({
        "name": tool,
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "approval-state", "version": "0"},
        },
    });
    for (key, value) in extra.as_object().unwrap() {
        params[key] = value.clone();
    }
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {tool}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        addr,
        body.len()
    );
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (_, body) = answer.split_once("\r\n\r\n").expect("a whole answer");
    let value: Value =
        serde_json::from_str(body).unwrap_or_else(|err| panic!("not JSON ({err}): {answer}"));
    value["result"].clone()
}

/// The first round: the state the replica signs for an approval of this call.
fn ask(addr: SocketAddr, tool: &str, arguments: &Value) -> String {
    let asked = call(addr, tool, arguments, json!({}));
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    asked["requestState"].as_str().unwrap().to_string()
}

/// The second round: the call again, approved, with `state`.
fn answer(addr: SocketAddr, tool: &str, arguments: &Value, state: &str) -> Value {
    let approved = json!({"approve": {"action": "accept", "content": {}}});
    call(
        addr,
        tool,
        arguments,
        json!({"inputResponses": approved, "requestState": state}),
    )
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

const OTHER_SESSION: &str = "the approval state the client sent back was issued in another session (another session id, tenant or workspace); call the tool again without it to be asked in this one";

#[test]
fn an_approval_asked_in_one_workspace_does_not_run_in_another() {
    let dir = tempfile::tempdir().unwrap();
    for folder in ["a", "b"] {
        std::fs::create_dir(dir.path().join(folder)).unwrap();
    }
    let tools = ["--tools", "read_file,write_file", "--root"];
    let a = Replica::start(dir.path(), &[&tools[..], &["a"]].concat());
    let b = Replica::start(dir.path(), &[&tools[..], &["b"]].concat());
    let args = json!({"path": "approved.txt", "content": "x"});
    let state = ask(a.addr, "write_file", &args);

    // Same key, same session id (`cli`), same tool and arguments: another workspace.
    let refused = answer(b.addr, "write_file", &args, &state);
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text(&refused).contains(OTHER_SESSION), "{refused}");
    assert!(!dir.path().join("b/approved.txt").exists());

    let ran = answer(a.addr, "write_file", &args, &state);
    assert_eq!(ran["isError"], false, "{ran}");
    assert!(dir.path().join("a/approved.txt").exists());
}

#[test]
fn an_approval_asked_in_one_stored_session_does_not_run_in_another() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("w")).unwrap();
    for id in ["s-a", "s-b"] {
        let spec = json!({"session_id": id, "workspace": "w", "tools": ["write_file"]});
        std::fs::write(dir.path().join(format!("{id}.json")), spec.to_string()).unwrap();
    }
    let store = ["--store", "store", "--tools", "write_file", "--spec"];
    let a = Replica::start(dir.path(), &[&store[..], &["s-a.json"]].concat());
    let b = Replica::start(dir.path(), &[&store[..], &["s-b.json"]].concat());
    let args = json!({"path": "approved.txt", "content": "x"});
    let state = ask(a.addr, "write_file", &args);
    let refused = answer(b.addr, "write_file", &args, &state);
    assert!(text(&refused).contains(OTHER_SESSION), "{refused}");
    assert!(!dir.path().join("w/approved.txt").exists());
}

/// Two replicas of one stored session (`store` is a `--store` argument): the answer runs on
/// the first while its call still runs, and is refused as spent on the second.
fn a_replay_on_another_replica_is_refused_while_the_call_runs(store: &str, tenant: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("w")).unwrap();
    let spec = json!({"session_id": "s-replayed", "tenant": tenant, "workspace": "w", "tools": ["terminal"]});
    std::fs::write(dir.path().join("s.json"), spec.to_string()).unwrap();
    let args = ["--store", store, "--spec", "s.json", "--tools", "terminal"];
    let a = Replica::start(dir.path(), &args);
    let b = Replica::start(dir.path(), &args);
    // Slow, so the first run is still going when the answer is replayed.
    let command = json!({"command": "sleep 2; echo ran >> runs.txt"});
    let state = ask(a.addr, "terminal", &command);

    let first = {
        let (addr, state, command) = (a.addr, state.clone(), command.clone());
        std::thread::spawn(move || answer(addr, "terminal", &command, &state))
    };
    // The first answer has reached `a` and its call runs (it ran in the store's log once
    // done, which the old check waited for).
    std::thread::sleep(Duration::from_millis(700));
    let replayed = answer(b.addr, "terminal", &command, &state);
    assert_eq!(replayed["isError"], true, "{replayed}");
    assert!(
        text(&replayed).contains("the approval state the client sent back was already used"),
        "{replayed}"
    );
    let first = first.join().unwrap();
    assert_eq!(first["isError"], false, "{first}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("w/runs.txt")).unwrap(),
        "ran\n"
    );
}

#[test]
fn a_replay_on_another_replica_of_a_sqlite_store_is_refused_while_the_call_runs() {
    a_replay_on_another_replica_is_refused_while_the_call_runs("store", "local");
}

#[test]
fn a_replay_on_another_replica_of_a_postgres_store_is_refused_while_the_call_runs() {
    let Some(url) = postgres::url() else {
        return;
    };
    let tenant = postgres::tenant("approval-replay");
    a_replay_on_another_replica_is_refused_while_the_call_runs(&url, &tenant);
}
