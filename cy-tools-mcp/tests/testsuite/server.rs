//! The MCP server, driven with raw JSON-RPC lines in process over in-memory pipes, with tools
//! defined here to see structured results, images and the cancellation token. (Through the
//! `cy-tools mcp` binary, where stdout carries nothing but the protocol and a cancelled
//! command's process is killed, is `cy-tools-cli`'s.)

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use cy_tools::prelude::*;
use cy_tools::{CancellationToken, Toolset, dialect::Dialect};
use cy_tools_sandbox::LocalSandbox;
use serde_json::{Value, json};

use crate::support::mcp_client::Peer;

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
        cy_tools_mcp::serve(tools, server_in, server_out)
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
    let supported = json!([
        "initialize",
        "ping",
        "tools/list",
        "tools/call",
        "logging/setLevel"
    ]);
    let response = peer.request(3, "tools/frobnicate", json!({})).await;
    assert_eq!(
        response["error"],
        json!({
            "code": -32601,
            "message": "`tools/frobnicate` is not supported: it is not a method of this server; the methods served are `initialize`, `ping`, `tools/list`, `tools/call`, `logging/setLevel`; list the tools with `tools/list` and call one with `tools/call`",
            "data": {"method": "tools/frobnicate", "supported": supported},
        })
    );
    // A method of MCP's that this server does not serve says so, and what it serves instead.
    let response = peer.request(5, "resources/list", json!({})).await;
    assert_eq!(response["error"]["code"], -32601, "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("`resources/list` is not supported: this server offers tools only, no resources or prompts; the methods served are"),
        "{response}"
    );
    // `logging/setLevel` is answered with an empty result.
    let response = peer
        .request(6, "logging/setLevel", json!({"level": "debug"}))
        .await;
    assert_eq!(response["result"], json!({}), "{response}");
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
