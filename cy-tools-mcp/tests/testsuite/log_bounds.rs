//! The bounds of what a call streams to its client: a log message past
//! `cy_tools::call::LOG_MESSAGE_BYTES` arrives cut with a notice, and a tool that logs faster
//! than its client reads has the messages past `MAX_PENDING_LOG_MESSAGES` dropped, the client
//! told how many, and its answer still arrives.

use cy_tools::call::{LOG_MESSAGE_BYTES, LogLevel};
use cy_tools::prelude::*;
use cy_tools_mcp::MAX_PENDING_LOG_MESSAGES;
use serde_json::{Value, json};

use crate::support::mcp_client::Peer;

/// Logs `count` messages of `bytes` bytes each, all before it first yields.
#[tool(read_only, open_world = false)]
async fn chatter(
    call: CallInfo<'_>,
    /** How many messages. */
    count: usize,
    /** How long each is. */
    bytes: usize,
) -> String {
    for _ in 0..count {
        call.log(LogLevel::Info, "y".repeat(bytes));
    }
    "done".into()
}

/// The notifications/message the server sent before answering request `id`, and the answer.
async fn logged_then_answer<W: tokio::io::AsyncWrite + Unpin>(
    peer: &mut Peer<W>,
    id: u64,
) -> (Vec<Value>, Value) {
    let mut logged = Vec::new();
    loop {
        let message = peer.next().await;
        if message.get("id") == Some(&json!(id)) {
            return (logged, message);
        }
        if message["method"] == "notifications/message" {
            logged.push(message["params"].clone());
        }
    }
}

#[tokio::test]
async fn a_long_message_is_cut_and_a_flood_is_bounded() {
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme"));
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["chatter"], &context);
    let mut peer = crate::in_process::serve(tools).await;
    peer.request(2, "logging/setLevel", json!({"level": "info"}))
        .await;

    // One message four times the bound.
    let arguments = json!({"count": 1, "bytes": 4 * LOG_MESSAGE_BYTES});
    peer.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "chatter", "arguments": arguments}}))
        .await;
    let (logged, answer) = logged_then_answer(&mut peer, 3).await;
    assert_eq!(answer["result"]["content"][0]["text"], "done", "{answer}");
    assert_eq!(logged.len(), 1);
    let data = logged[0]["data"].as_str().unwrap();
    assert!(data.len() < LOG_MESSAGE_BYTES + 200, "{}", data.len());
    assert!(
        data.ends_with(&format!(
            "[log message cut: {} of its {} bytes are past the bound of {LOG_MESSAGE_BYTES}]",
            3 * LOG_MESSAGE_BYTES,
            4 * LOG_MESSAGE_BYTES
        )),
        "{}",
        &data[data.len() - 120..]
    );

    // Five thousand messages logged before the tool yields: the first ones wait, the rest are
    // counted, and the client is told.
    let arguments = json!({"count": 5000, "bytes": 10});
    peer.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "chatter", "arguments": arguments}}))
        .await;
    let (logged, answer) = logged_then_answer(&mut peer, 4).await;
    assert_eq!(answer["result"]["content"][0]["text"], "done", "{answer}");
    assert_eq!(logged.len(), MAX_PENDING_LOG_MESSAGES + 1);
    let last = &logged[MAX_PENDING_LOG_MESSAGES];
    assert_eq!(last["level"], "warning");
    assert_eq!(
        last["data"],
        format!(
            "{} log messages of this call were dropped: the tool logged faster than they could be sent (at most {MAX_PENDING_LOG_MESSAGES} wait at once)",
            5000 - MAX_PENDING_LOG_MESSAGES
        )
    );
}
