//! `cy-tools mcp --tool-search` through the binary: the client is listed the `--always` tools
//! and `search_tools`; a search tells it the list changed and adds what it found, which is
//! then listed and called. Over stdio, with the built-in tools and with a spec's MCP server
//! (`mcp-server-time`, installed by `.ci/run`), and a tool an upstream server adds while the
//! gateway serves is found; over HTTP with `--http-sessions`, where the session's event
//! stream is told. Refused, saying what to do, over stateless HTTP (whose
//! clients cannot be told), in code-only mode, and for an `--always` tool not served.

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use super::code_only::Mcp;
use crate::support::mcp_client::{Answer, exchange, post};

/// Sends a `search_tools` call and returns its answer, and whether
/// `notifications/tools/list_changed` came before it.
async fn search(mcp: &mut Mcp, id: u64, query: &str, limit: u64) -> (Value, bool) {
    mcp.peer
        .send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "search_tools", "arguments": {"query": query, "limit": limit}}}))
        .await;
    let mut told = false;
    loop {
        let message = mcp.peer.next().await;
        if message["method"] == "notifications/tools/list_changed" {
            told = true;
        } else if message["id"] == id {
            return (message, told);
        }
    }
}

#[tokio::test]
async fn the_kept_tools_and_search_tools_are_listed_and_a_search_adds_what_it_finds() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\n").unwrap();
    let root = dir.path().to_str().unwrap();
    let mut mcp = Mcp::start(
        dir.path(),
        &[
            "--tool-search",
            "--always",
            "read_file",
            "--tools",
            "read_file,write_file,edit_file,find_files,search_text,list_directory",
            "--root",
            root,
        ],
    )
    .await;
    assert_eq!(
        mcp.init["result"]["capabilities"]["tools"]["listChanged"], true,
        "{}",
        mcp.init
    );
    assert_eq!(mcp.names(1).await, ["read_file", "search_tools"]);

    let (answer, told) = search(&mut mcp, 2, "list the files of a folder", 1).await;
    assert!(told, "no notifications/tools/list_changed before {answer}");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Found 1 tool(s), now in the tool list:\n- list_directory: "),
        "{text}"
    );
    assert_eq!(
        mcp.names(3).await,
        ["list_directory", "read_file", "search_tools"]
    );
    let listing = mcp.text(4, "list_directory", json!({"path": "."})).await;
    assert!(listing.contains("notes.txt"), "{listing}");

    // Found again: nothing new, no notification.
    let (again, told) = search(&mut mcp, 5, "list directory", 1).await;
    assert!(!told, "told of no change: {again}");
    // The searched and found tools come first, in name order; `search_tools` is last.
    let listed = mcp.names(6).await;
    assert_eq!(listed, ["list_directory", "read_file", "search_tools"]);
}

#[tokio::test]
async fn a_search_finds_a_spec_servers_tool_which_is_then_listed_and_called() {
    let Some((dir, spec)) = crate::cli::mcp_servers::with_time_server(Some(&["read_file"])) else {
        return;
    };
    let spec = spec.to_str().unwrap();
    // No `--always`: the list starts as `search_tools` alone.
    let mut mcp = Mcp::start(dir.path(), &["--tool-search", "--spec", spec]).await;
    assert_eq!(mcp.names(1).await, ["search_tools"]);
    let (answer, told) = search(&mut mcp, 2, "current time in a timezone", 1).await;
    assert!(told, "no notifications/tools/list_changed before {answer}");
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\n- time__get_current_time: "),
        "{answer}"
    );
    assert_eq!(
        mcp.names(3).await,
        ["time__get_current_time", "search_tools"]
    );
    let now = mcp
        .text(
            4,
            "time__get_current_time",
            json!({"timezone": "Asia/Tokyo"}),
        )
        .await;
    assert!(now.contains("Asia/Tokyo"), "{now}");
}

/// A client that sends a search and closes its end at once (a script piping requests in) still
/// gets the answer: the server does not wait on a notification it can no longer send.
#[tokio::test]
async fn a_search_sent_just_before_stdin_closes_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let mcp = Mcp::start(
        dir.path(),
        &[
            "--tool-search",
            "--tools",
            "read_file,list_directory",
            "--root",
            root,
        ],
    )
    .await;
    let Mcp { peer, .. } = mcp;
    let crate::support::mcp_client::Peer {
        mut writer,
        mut lines,
    } = peer;
    let search = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search_tools", "arguments": {"query": "list directory", "limit": 1}}});
    writer
        .write_all(format!("{search}\n").as_bytes())
        .await
        .unwrap();
    drop(writer);
    let started = tokio::time::Instant::now();
    let mut answered = None;
    while let Some(line) =
        tokio::time::timeout(std::time::Duration::from_secs(20), lines.next_line())
            .await
            .expect("the server ends in time")
            .unwrap()
    {
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 2 {
            answered = Some(message);
        }
    }
    let answer = answered.expect("the search is answered before the server ends");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    // Not held until the connection's drain gives up (5 s).
    assert!(
        started.elapsed() < std::time::Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
}

/// A gateway whose upstream's list changes (the tests' fault server, whose `change` adds
/// `added`): a search then finds the new tool, which is listed and called.
#[tokio::test]
async fn a_search_finds_a_tool_an_upstream_added_while_serving() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("w");
    std::fs::create_dir(&workspace).unwrap();
    let (script, folder) = crate::support::mcp_servers::fault_server();
    let spec = dir.path().join("changing.json");
    std::fs::write(
        &spec,
        json!({"tools": ["read_file"], "mcp_servers": [
            {"name": "fault", "command": "python3", "args": [script], "read_only": [folder]}]})
        .to_string(),
    )
    .unwrap();
    let mut mcp = Mcp::start(
        dir.path(),
        &[
            "--tool-search",
            "--always",
            "fault__change",
            "--spec",
            spec.to_str().unwrap(),
            "--root",
            workspace.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(mcp.names(1).await, ["fault__change", "search_tools"]);
    let (before, _) = search(&mut mcp, 2, "new after change", 3).await;
    assert!(
        !before.to_string().contains("fault__added"),
        "found before it exists: {before}"
    );
    assert_eq!(mcp.text(3, "fault__change", json!({})).await, "changed");
    // The gateway hears of the change and puts the new tools in place on its own time: asked
    // until a search finds the tool.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut id = 10;
    let found = loop {
        let (answer, _) = search(&mut mcp, id, "new after change", 3).await;
        if answer.to_string().contains("fault__added") {
            break answer;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the search never found the added tool: {answer}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        id += 1;
    };
    assert_eq!(found["result"]["isError"], false, "{found}");
    assert!(mcp.names(100).await.contains(&"fault__added".to_string()));
    assert_eq!(
        mcp.text(101, "fault__added", json!({})).await,
        "added answers"
    );
}

/// `cy-tools mcp --http 127.0.0.1:0 --no-token ARGS`, killed when dropped, and its address.
struct Http {
    child: std::process::Child,
    addr: SocketAddr,
}

impl Http {
    fn start(dir: &Path, args: &[&str]) -> Http {
        use std::io::BufRead as _;
        let mut child = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
            .args(["mcp", "--http", "127.0.0.1:0", "--no-token"])
            .args(args)
            .current_dir(dir)
            .env_remove("CY_TOOLS_MCP_TOKEN")
            .env_remove("CY_TOOLS_LOG")
            .env_remove("CY_TOOLS_STORE")
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let addr = line
            .strip_prefix("serving MCP over streamable HTTP at http://")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .parse()
            .unwrap();
        Http { child, addr }
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The JSON-RPC messages of an answer: a JSON body, or an event stream's `data:` lines.
fn messages(answer: &Answer) -> Vec<Value> {
    if answer.head.contains("content-type: application/json") {
        return vec![answer.json()];
    }
    answer
        .body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect()
}

/// The answer to request `id` among `answer`'s messages.
fn answer_to(answer: &Answer, id: u64) -> Value {
    messages(answer)
        .into_iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {id}: {}", answer.body))
}

/// Reads `stream` into `seen` until it holds `wanted`, for at most 20 seconds.
async fn read_until(stream: &mut tokio::net::TcpStream, seen: &mut String, wanted: &str) {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut buf = [0u8; 4096];
    while !seen.contains(wanted) {
        let read = tokio::time::timeout_at(deadline, stream.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("`{wanted}` did not come in time; the stream had: {seen}"))
            .unwrap();
        assert!(read > 0, "the stream closed before `{wanted}`: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..read]));
    }
}

#[tokio::test]
async fn over_http_sessions_a_search_tells_the_sessions_stream_and_the_found_tool_is_called() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\n").unwrap();
    let root = dir.path().to_str().unwrap();
    let server = Http::start(
        dir.path(),
        &[
            "--http-sessions",
            "--tool-search",
            "--always",
            "read_file",
            "--tools",
            "read_file,write_file,list_directory",
            "--root",
            root,
        ],
    );
    let addr = server.addr;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    let answer = exchange(addr, &post("/mcp", "", &init.to_string())).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let id = answer
        .head
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .unwrap_or_else(|| panic!("no session: {}", answer.head))
        .trim()
        .to_string();
    let initialized = answer_to(&answer, 0);
    assert_eq!(
        initialized["result"]["capabilities"]["tools"]["listChanged"], true,
        "{initialized}"
    );
    let headers = format!("MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: {id}\r\n");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    exchange(addr, &post("/mcp", &headers, &note.to_string())).await;
    let list = |n: u64| {
        let headers = headers.clone();
        async move {
            let request = json!({"jsonrpc": "2.0", "id": n, "method": "tools/list"});
            let answer = exchange(addr, &post("/mcp", &headers, &request.to_string())).await;
            answer_to(&answer, n)["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(list(1).await, ["read_file", "search_tools"]);

    // The session's own event stream, where a notification not tied to a request goes:
    // open before the search (its head read), read until it is told.
    let mut events = tokio::net::TcpStream::connect(addr).await.unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n{headers}\r\n"
    );
    events.write_all(get.as_bytes()).await.unwrap();
    let mut seen = String::new();
    read_until(&mut events, &mut seen, "\r\n\r\n").await;
    assert!(seen.starts_with("HTTP/1.1 200"), "{seen}");
    let search = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search_tools", "arguments": {"query": "list directory", "limit": 1}}});
    let answer = exchange(addr, &post("/mcp", &headers, &search.to_string())).await;
    let found = answer_to(&answer, 2);
    assert_eq!(found["result"]["isError"], false, "{found}");
    read_until(&mut events, &mut seen, "notifications/tools/list_changed").await;
    assert_eq!(
        list(3).await,
        ["list_directory", "read_file", "search_tools"]
    );
    let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "list_directory", "arguments": {"path": "."}}});
    let answer = exchange(addr, &post("/mcp", &headers, &call.to_string())).await;
    let called = answer_to(&answer, 4);
    assert!(
        called["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("notes.txt"),
        "{called}"
    );
}

/// `cy-tools mcp ARGS` that refuses to start: its one-line error.
fn refused(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .arg("mcp")
        .args(args)
        .current_dir(dir)
        .env_remove("CY_TOOLS_MCP_TOKEN")
        .env_remove("CY_TOOLS_LOG")
        .env_remove("CY_TOOLS_STORE")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr.trim_end().to_string()
}

#[test]
fn tool_search_is_refused_where_a_client_cannot_be_told_or_there_is_nothing_to_search() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    assert_eq!(
        refused(
            dir.path(),
            &[
                "--tool-search",
                "--http",
                "127.0.0.1:0",
                "--no-token",
                "--root",
                root
            ]
        ),
        "error: `--tool-search` needs a client the server can tell that its tool list changed: stdio, or HTTP with `--http-sessions`; stateless HTTP (the default of `--http`) cannot send `notifications/tools/list_changed`, so its clients would never see what a search finds. Add `--http-sessions`, or leave out `--tool-search` (every tool is then listed)"
    );
    assert_eq!(
        refused(
            dir.path(),
            &["--tool-search", "--code-only", "--root", root]
        ),
        "error: the argument '--tool-search' cannot be used with '--code-only'; run `cy-tools --help` for usage"
    );
    let spec = dir.path().join("session.json");
    std::fs::write(&spec, r#"{"code_only": true, "tools": ["read_file"]}"#).unwrap();
    let outside = tempfile::tempdir().unwrap();
    assert_eq!(
        refused(
            outside.path(),
            &[
                "--tool-search",
                "--spec",
                spec.to_str().unwrap(),
                "--root",
                outside.path().to_str().unwrap()
            ]
        ),
        "error: `--tool-search` was given for a session in code-only mode (the session spec's `code_only`), which serves `execute_code` alone: there is nothing to search; leave out `--tool-search`"
    );
    assert_eq!(
        refused(
            dir.path(),
            &[
                "--tool-search",
                "--always",
                "terminal",
                "--tools",
                "read_file,list_directory",
                "--root",
                root
            ]
        ),
        "error: `--always terminal`: `terminal` is not one of the tools served (`read_file`, `list_directory`); name tools served, or serve it with `--tools` or the spec's `tools`"
    );
    assert_eq!(
        refused(
            dir.path(),
            &["--tool-search", "--always", "search_tools", "--root", root]
        ),
        "error: `--always search_tools`: `search_tools` is listed with `--tool-search` anyway; name the tools to list beside it"
    );
    assert_eq!(
        refused(dir.path(), &["--always", "read_file", "--root", root]),
        "error: the following required arguments were not provided: --tool-search; run `cy-tools --help` for usage"
    );
}
