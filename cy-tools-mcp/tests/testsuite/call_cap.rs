//! MCP over stdio runs at most a few calls at once: a client that sends many without waiting
//! gets every answer, but the calls past the cap wait for a running one to end.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use cy_tools::prelude::*;
use cy_tools_mcp::DEFAULT_MAX_CONCURRENT_CALLS;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

static RUNNING: AtomicUsize = AtomicUsize::new(0);
static MOST_AT_ONCE: AtomicUsize = AtomicUsize::new(0);

/// Hold a call slot for a moment, counting how many run at once.
#[tool(read_only, open_world = false)]
async fn hold_a_call_slot() -> String {
    let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
    MOST_AT_ONCE.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(400)).await;
    RUNNING.fetch_sub(1, Ordering::SeqCst);
    "held".to_string()
}

const CALLS: u64 = 40;

#[tokio::test]
async fn calls_past_the_cap_wait_their_turn_and_all_are_answered() {
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme"));
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["hold_a_call_slot"], &context);
    let (mut client_out, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, client_in) = tokio::io::duplex(1 << 16);
    tokio::spawn(cy_tools_mcp::serve(tools, server_in, server_out));
    let mut lines = BufReader::new(client_in).lines();
    let mut send = async |message: Value| {
        let mut line = message.to_string();
        line.push('\n');
        client_out.write_all(line.as_bytes()).await.unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "0"}}}),
    )
    .await;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    // Every call sent before any answer is read.
    for id in 1..=CALLS {
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "hold_a_call_slot", "arguments": {}}}))
        .await;
    }
    let mut answered = 0;
    let read = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let message: Value = serde_json::from_str(&line).unwrap();
            let id = message["id"].as_u64().unwrap_or(0);
            if id >= 1 {
                assert_eq!(message["result"]["content"][0]["text"], "held", "{message}");
                answered += 1;
                if answered == CALLS {
                    return;
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), read)
        .await
        .expect("every call is answered");
    let most = MOST_AT_ONCE.load(Ordering::SeqCst);
    // At the cap, not past it (a loaded machine may not fill every slot at once).
    assert!(
        (DEFAULT_MAX_CONCURRENT_CALLS / 2..=DEFAULT_MAX_CONCURRENT_CALLS).contains(&most),
        "{most} calls ran at once, the cap is {DEFAULT_MAX_CONCURRENT_CALLS}"
    );
}
