//! The MCP server on bad input, line by line, as JSON-RPC 2.0 asks: a line that is not JSON is
//! answered `-32700` with `"id": null`; an invalid request `-32600` with its `id` (or `null`
//! when none can be read, as for `{}`, `5` and batches); a malformed notification never; a line
//! longer than 16 MiB `-32600`, without the server holding it in memory. After each, the
//! server still answers. In process over `serve`; through the `cy-tools mcp` binary in
//! `cy-tools-cli`'s suite.

use std::sync::Arc;

use cy_tools::{SessionIdentity, ToolContext, ToolRegistry};
use cy_tools_sandbox::LocalSandbox;
use serde_json::{Value, json};

use crate::support::mcp_client::{Raw, error};

async fn in_process() -> (tempfile::TempDir, Raw<tokio::io::DuplexStream>) {
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme")).with_env(Arc::new(env));
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["read_file"], &context);
    let (client_out, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, client_in) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        cy_tools_mcp::serve(tools, server_in, server_out)
            .await
            .unwrap();
    });
    (dir, Raw::new(client_out, client_in).await)
}

const EXAMPLE: &str = r#"`{"jsonrpc": "2.0", "id": 1, "method": "ping"}`"#;

#[tokio::test]
async fn a_line_that_is_not_json_is_a_parse_error_with_a_null_id() {
    let (_dir, mut raw) = in_process().await;
    let answer = raw.answer("this is not json {").await;
    let message = error(&answer, -32700, Value::Null);
    assert_eq!(
        message,
        format!(
            "parse error: the line is not JSON (expected ident at line 1 column 2); send one JSON-RPC 2.0 message per line, such as {EXAMPLE}"
        )
    );
    // Cut off mid-message, as a client writing a partial line then a newline might.
    let answer = raw.answer(r#"{"jsonrpc": "2.0", "id": 3, "meth"#).await;
    error(&answer, -32700, Value::Null);
}

#[tokio::test]
async fn an_invalid_request_is_answered_with_its_id() {
    let (_dir, mut raw) = in_process().await;
    let answer = raw.answer(r#"{"jsonrpc":"2.0","id":7,"method":5}"#).await;
    assert_eq!(
        error(&answer, -32600, json!(7)),
        format!(
            "invalid request: `method` is the number 5, and must be a string such as \"tools/list\"; send a request such as {EXAMPLE}"
        )
    );
    let answer = raw
        .answer(r#"{"jsonrpc":"1.0","id":"req-8","method":"ping"}"#)
        .await;
    assert_eq!(
        error(&answer, -32600, json!("req-8")),
        format!(
            "invalid request: `jsonrpc` is \"1.0\", and must be \"2.0\"; send a request such as {EXAMPLE}"
        )
    );
    let answer = raw.answer(r#"{"jsonrpc":"2.0","id":9}"#).await;
    assert_eq!(
        error(&answer, -32600, json!(9)),
        format!("invalid request: it has no `method`; send a request such as {EXAMPLE}")
    );
}

#[tokio::test]
async fn what_has_no_readable_id_is_answered_with_a_null_id() {
    let (_dir, mut raw) = in_process().await;
    for (line, message) in [
        (
            "[]",
            "a batch (a JSON array) is not supported; send each message on a line of its own",
        ),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            "a batch (a JSON array) is not supported; send each message on a line of its own",
        ),
        (
            "{}",
            &format!(
                "invalid request: it has neither `method` nor `id`; send a request such as {EXAMPLE}"
            ),
        ),
        (
            "5",
            &format!("a message is a JSON object, not the number 5; send one such as {EXAMPLE}"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            &format!(
                "invalid request: `id` is the boolean true, and must be a string or a number; send a request such as {EXAMPLE}"
            ),
        ),
    ] {
        let answer = raw.answer(line).await;
        assert_eq!(error(&answer, -32600, Value::Null), message, "{line}");
    }
}

#[tokio::test]
async fn a_malformed_notification_is_never_answered() {
    let (_dir, mut raw) = in_process().await;
    for line in [
        r#"{"jsonrpc":"2.0","method":"notifications/x","params":5}"#,
        r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
        r#"{"method":"notifications/cancelled","params":{"requestId":[]}}"#,
        r#"{"jsonrpc":"2.0","method":7}"#,
    ] {
        raw.line(line).await;
        raw.still_answers().await;
    }
    // Blank lines are nothing to answer either.
    raw.line("").await;
    raw.line("  \r").await;
    raw.still_answers().await;
}

#[tokio::test]
async fn a_line_longer_than_16_mib_is_dropped_and_answered_with_a_null_id() {
    let (_dir, mut raw) = in_process().await;
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":11,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(17 << 20)
    );
    let answer = raw.answer(&long).await;
    assert_eq!(
        error(&answer, -32600, Value::Null),
        "invalid request: the line is longer than 16777216 bytes, the most one message may be, so it was dropped unread; send smaller messages (pass large data in files the tools read)"
    );
    // Just under the cap, the same message is read.
    let fits = format!(
        r#"{{"jsonrpc":"2.0","id":12,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(15 << 20)
    );
    let answer = raw.answer(&fits).await;
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 12, "result": {}}));
}
