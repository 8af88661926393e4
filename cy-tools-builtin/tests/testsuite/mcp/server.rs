//! The MCP server, driven with raw JSON-RPC lines: in process over in-memory pipes (with tools
//! defined here, to see structured results, images and the cancellation token), and through the
//! `cy-tools mcp` binary (stdout carries nothing but the protocol; a cancelled command's
//! process is killed).

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use cy_tools::prelude::*;
use cy_tools::{CancellationToken, Dialect, Toolset};
use cy_tools_builtin::LocalSandbox;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use crate::support::process::running;

/// Describe a figure: a line of text, the figure as structured JSON, and a tiny picture.
#[tool(read_only, open_world = false)]
async fn figure(
    /// The figure's label.
    label: String,
) -> ToolResult {
    ToolResult::text(format!("figure {label}"))
        .with_content(Content::json(json!({"label": label, "width": 2})))
        .with_content(Content::image(&[0x89, b'P', b'N', b'G'], "image/png"))
        .with_details(json!({"host_only": "never sent"}))
}

static CANCELS_SEEN: AtomicUsize = AtomicUsize::new(0);

/// Wait until the call is cancelled, and count that the tool saw it.
#[tool(read_only, open_world = false)]
async fn wait_for_cancel(call: CallInfo) -> String {
    call.cancel.cancelled().await;
    CANCELS_SEEN.fetch_add(1, Ordering::SeqCst);
    "cancelled".to_string()
}

const TIMEOUT: Duration = Duration::from_secs(20);

/// One JSON-RPC peer over a pair of byte streams.
struct Peer<W> {
    writer: W,
    lines: tokio::io::Lines<BufReader<Box<dyn tokio::io::AsyncRead + Send + Unpin>>>,
}

impl<W: AsyncWrite + Unpin> Peer<W> {
    fn new(writer: W, reader: impl tokio::io::AsyncRead + Send + Unpin + 'static) -> Self {
        let reader: Box<dyn tokio::io::AsyncRead + Send + Unpin> = Box::new(reader);
        Peer {
            writer,
            lines: BufReader::new(reader).lines(),
        }
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    /// The next message the server sends; every line must be one JSON-RPC message.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(TIMEOUT, self.lines.next_line())
            .await
            .expect("the server answers in time")
            .unwrap()
            .expect("the server keeps the connection open");
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|err| panic!("stdout line is not JSON ({err}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC: {line}");
        message
    }

    /// Sends a request and returns its response, skipping notifications.
    async fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = self.next().await;
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            assert!(
                message.get("id").is_none(),
                "a response to another request: {message}"
            );
        }
    }

    async fn initialize(&mut self) -> Value {
        let response = self
            .request(
                0,
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw-test", "version": "0"},
                }),
            )
            .await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        response
    }

    async fn call(&mut self, id: u64, name: &str, arguments: Value) -> Value {
        self.request(
            id,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        )
        .await
    }
}

/// A workspace with one file, and a session over it with `names` bound.
fn session(names: &[&str]) -> (tempfile::TempDir, Toolset) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme")).with_env(Arc::new(env));
    let tools = ToolRegistry::linked().unwrap().build(names, &context);
    assert_eq!(tools.len(), names.len());
    (dir, tools)
}

/// Serves `tools` in process; the returned peer is the client end.
fn serve(tools: Toolset) -> Peer<tokio::io::DuplexStream> {
    let (client_out, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, client_in) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        cy_tools_builtin::mcp::serve_io(tools, server_in, server_out)
            .await
            .unwrap();
    });
    Peer::new(client_out, client_in)
}

const NAMES: [&str; 4] = ["wait_for_cancel", "read_file", "figure", "list_directory"];

#[tokio::test]
async fn initialize_declares_the_tools_capability_and_names_the_server() {
    let (_dir, tools) = session(&NAMES);
    let mut peer = serve(tools);
    let response = peer.initialize().await;
    let result = &response["result"];
    assert_eq!(result["protocolVersion"], "2025-11-25");
    assert_eq!(result["serverInfo"]["name"], "cy-tools");
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(result["capabilities"]["tools"].is_object(), "{result}");
}

#[tokio::test]
async fn tools_list_is_sorted_and_is_the_mcp_dialect_export() {
    let (_dir, tools) = session(&NAMES);
    let expected: Vec<Value> = {
        let mut sorted: Vec<_> = tools.iter().collect();
        sorted.sort_by_key(|t| t.name().to_string());
        sorted
            .into_iter()
            .map(|t| Dialect::Mcp.export(t).unwrap())
            .collect()
    };
    let mut peer = serve(tools);
    peer.initialize().await;
    let response = peer.request(1, "tools/list", json!({})).await;
    let listed = response["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = listed.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["figure", "list_directory", "read_file", "wait_for_cancel"]
    );
    assert_eq!(listed, &expected);
    assert_eq!(
        listed[2]["annotations"],
        json!({"title": "Read file", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(listed[2]["title"], "Read file");
}

#[tokio::test]
async fn a_call_runs_the_tool_and_answers_its_text() {
    let (_dir, tools) = session(&NAMES);
    let mut peer = serve(tools);
    peer.initialize().await;
    let response = peer
        .call(1, "read_file", json!({"path": "notes.txt"}))
        .await;
    assert_eq!(
        response["result"],
        json!({
            "content": [{"type": "text", "text": "     1\talpha\n     2\tbeta"}],
            "isError": false,
        })
    );
}

#[tokio::test]
async fn structured_json_is_structured_content_plus_a_text_copy_and_images_are_image_blocks() {
    let (_dir, tools) = session(&NAMES);
    let mut peer = serve(tools);
    peer.initialize().await;
    let response = peer.call(1, "figure", json!({"label": "a"})).await;
    assert_eq!(
        response["result"],
        json!({
            "content": [
                {"type": "text", "text": "figure a"},
                {"type": "text", "text": "{\"label\":\"a\",\"width\":2}"},
                {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
            ],
            "structuredContent": {"label": "a", "width": 2},
            "isError": false,
        })
    );
}

#[tokio::test]
async fn invalid_arguments_are_an_error_result_from_our_own_validation() {
    let (_dir, tools) = session(&NAMES);
    let direct = tools
        .execute(
            "read_file",
            ToolCall::new("direct", json!({"path": 3})),
            &CancellationToken::new(),
        )
        .await;
    assert!(direct.is_error);
    assert!(
        direct
            .text_content()
            .starts_with("invalid arguments for `read_file`: `path`: expected a string")
    );
    let mut peer = serve(tools);
    peer.initialize().await;
    let response = peer.call(1, "read_file", json!({"path": 3})).await;
    assert_eq!(
        response["result"],
        json!({"content": [{"type": "text", "text": direct.text_content()}], "isError": true})
    );
    let response = peer
        .call(2, "read_file", json!({"path": "notes.txt", "pth": 1}))
        .await;
    assert_eq!(response["result"]["isError"], true);
    let text = response["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("`pth`"), "{text}");
}

#[tokio::test]
async fn a_failing_tool_is_an_error_result() {
    let (_dir, tools) = session(&NAMES);
    let mut peer = serve(tools);
    peer.initialize().await;
    let response = peer.call(1, "read_file", json!({"path": "nope.txt"})).await;
    assert_eq!(
        response["result"],
        json!({
            "content": [{"type": "text", "text": "no file or folder `nope.txt` in the workspace; list the folder to see what is there"}],
            "isError": true,
        })
    );
}

#[tokio::test]
async fn an_unknown_tool_is_a_json_rpc_error_listing_the_valid_ones() {
    let (_dir, tools) = session(&NAMES);
    let mut peer = serve(tools);
    peer.initialize().await;
    let response = peer.call(1, "reed_file", json!({})).await;
    assert!(response.get("result").is_none(), "{response}");
    assert_eq!(
        response["error"],
        json!({
            "code": -32602,
            "message": "unknown tool `reed_file`; valid tools are `figure`, `list_directory`, `read_file`, `wait_for_cancel`",
            "data": {
                "tool": "reed_file",
                "valid_tools": ["figure", "list_directory", "read_file", "wait_for_cancel"],
            },
        })
    );
}

#[tokio::test]
async fn a_malformed_call_is_a_json_rpc_error_and_the_server_goes_on() {
    let (_dir, tools) = session(&NAMES);
    let mut peer = serve(tools);
    peer.initialize().await;
    let response = peer
        .request(1, "tools/call", json!({"arguments": {"path": "notes.txt"}}))
        .await;
    assert!(response.get("result").is_none(), "{response}");
    assert_eq!(
        response["error"],
        json!({
            "code": -32602,
            "message": "invalid `tools/call` request: missing field `name`; send params {\"name\": \"<tool>\", \"arguments\": {...}} with one of the tools `tools/list` names",
        })
    );
    let response = peer
        .request(
            2,
            "tools/call",
            json!({"name": "read_file", "arguments": [1]}),
        )
        .await;
    assert_eq!(response["error"]["code"], -32602, "{response}");
    let response = peer.request(3, "tools/frobnicate", json!({})).await;
    assert_eq!(
        response["error"],
        json!({"code": -32601, "message": "unknown method `tools/frobnicate`"})
    );
    let response = peer
        .call(4, "read_file", json!({"path": "notes.txt"}))
        .await;
    assert_eq!(response["result"]["isError"], false);
}

#[tokio::test]
async fn a_cancellation_notification_reaches_the_calls_token_and_no_response_is_sent() {
    let (_dir, tools) = session(&NAMES);
    let mut peer = serve(tools);
    peer.initialize().await;
    let before = CANCELS_SEEN.load(Ordering::SeqCst);
    peer.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "wait_for_cancel"}}))
        .await;
    // The call is running (it never ends by itself); the server still answers others.
    let response = peer.request(8, "tools/list", json!({})).await;
    assert!(response["result"]["tools"].is_array());
    assert_eq!(CANCELS_SEEN.load(Ordering::SeqCst), before);

    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "user"}}))
        .await;
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    while CANCELS_SEEN.load(Ordering::SeqCst) == before {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the tool never saw the cancellation"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The next message is the answer to 9: nothing was sent for the cancelled request 7.
    let response = peer.request(9, "tools/list", json!({})).await;
    assert_eq!(response["id"], 9);
}

// Through the binary.

struct Server {
    child: tokio::process::Child,
    peer: Peer<tokio::process::ChildStdin>,
}

fn spawn_binary(root: &std::path::Path, tools: &str) -> Server {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(["mcp", "--tools", tools, "--root"])
        .arg(root)
        .env("CY_TOOLS_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    Server {
        child,
        peer: Peer::new(stdin, stdout),
    }
}

#[tokio::test]
async fn the_binary_speaks_only_json_rpc_on_stdout_and_logs_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\n").unwrap();
    let Server { mut child, peer } = spawn_binary(dir.path(), "read_file,list_directory");
    let mut peer = peer;
    let init = peer.initialize().await;
    assert_eq!(init["result"]["serverInfo"]["name"], "cy-tools");
    let list = peer.request(1, "tools/list", json!({})).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["list_directory", "read_file"]);
    let call = peer
        .call(2, "read_file", json!({"path": "notes.txt"}))
        .await;
    assert_eq!(call["result"]["content"][0]["text"], "     1\talpha");
    let unknown = peer.call(3, "terminal", json!({"command": "true"})).await;
    assert_eq!(
        unknown["error"]["message"],
        "unknown tool `terminal`; valid tools are `list_directory`, `read_file`"
    );

    // Closing stdin ends the server cleanly; whatever it wrote to stdout was protocol (checked
    // line by line above), and its debug logs went to stderr.
    drop(peer);
    let output = tokio::time::timeout(TIMEOUT, async {
        let mut stderr = String::new();
        tokio::io::AsyncReadExt::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr)
            .await
            .unwrap();
        (child.wait().await.unwrap(), stderr)
    })
    .await
    .expect("the server exits when stdin closes");
    assert!(
        output.0.success(),
        "exit {:?}, stderr: {}",
        output.0,
        output.1
    );
    assert!(output.1.contains("tools/call"), "stderr: {}", output.1);
}

#[tokio::test]
async fn cancelling_a_call_through_the_binary_kills_the_command_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let Server {
        child: _child,
        peer,
    } = spawn_binary(dir.path(), "terminal");
    let mut peer = peer;
    peer.initialize().await;
    peer.send(json!({
        "jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "terminal", "arguments": {"command": "echo $$ > shell.pid; exec sleep 300"}},
    }))
    .await;
    let pid_file = dir.path().join("shell.pid");
    let pid = wait_for(|| {
        std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
    })
    .await;
    assert!(running(pid), "the command runs before the cancellation");
    peer.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}),
    )
    .await;
    wait_for(|| (!running(pid)).then_some(())).await;
    // No response for 5; the server goes on.
    let response = peer.request(6, "tools/list", json!({})).await;
    assert_eq!(response["id"], 6);
}

async fn wait_for<T>(mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
