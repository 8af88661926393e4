//! The MCP server over streamable HTTP, driven with raw HTTP/1.1 on a socket: what it refuses
//! before `rmcp` sees a request (wrong path, `Host`, `Origin`, token, oversized and stalled
//! bodies, bodies that are not messages), and the list-caching fields. (The `cy-tools` binary
//! refusing to serve a non-loopback address without a token is `cy-tools-cli`'s.)

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use cy_tools::{SessionIdentity, ToolContext, ToolRegistry};
use cy_tools_mcp::McpServer;
use cy_tools_mcp::http::{McpHttpAuth, McpHttpConfig, McpHttpServer};
use cy_tools_sandbox::LocalSandbox;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::support::mcp_client::{exchange, post, read_answer};

pub(super) const TOKEN: &str = "http-test-token-0123456789";

/// Serves `read_file` over a workspace with one file, without a token; `configure` changes
/// that and the defaults.
pub(super) async fn serve(
    configure: impl FnOnce(&mut McpHttpConfig),
) -> (tempfile::TempDir, SocketAddr) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme")).with_env(Arc::new(env));
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["read_file"], &context);
    let mut config = McpHttpConfig::new("127.0.0.1:0".parse().unwrap(), McpHttpAuth::NoToken);
    configure(&mut config);
    let server = McpHttpServer::bind(config, McpServer::new(tools).unwrap())
        .await
        .unwrap();
    let addr = server.local_addr().unwrap();
    tokio::spawn(server.run());
    (dir, addr)
}

fn auth() -> String {
    format!("Authorization: Bearer {TOKEN}\r\n")
}

/// A 2026-07-28 request: per-request metadata and the headers that go with it.
pub(super) fn modern(id: u64, method: &str, mut params: Value) -> (String, String) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    });
    let mut headers = format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n");
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        headers.push_str(&format!("Mcp-Name: {name}\r\n"));
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    (headers, body.to_string())
}

#[tokio::test]
async fn a_call_and_the_list_with_its_caching_fields() {
    let (_dir, addr) = serve(|_| {}).await;
    let (headers, body) = modern(
        1,
        "tools/call",
        json!({"name": "read_file", "arguments": {"path": "notes.txt"}}),
    );
    let answer = exchange(addr, &post("/mcp", &headers, &body)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.json()["result"]["content"],
        json!([{"type": "text", "text": "     1\talpha\n     2\tbeta"}])
    );
    // Stateless: no session is handed out.
    assert!(!answer.head.contains("mcp-session-id"), "{}", answer.head);

    let (headers, body) = modern(2, "tools/list", json!({}));
    let answer = exchange(addr, &post("/mcp", &headers, &body)).await;
    let result = &answer.json()["result"];
    assert_eq!(result["tools"][0]["name"], "read_file");
    assert_eq!(result["tools"][0]["title"], "Read file");
    assert_eq!(result["ttlMs"], 300_000);
    // No token: anyone who can reach the server sees the same list.
    assert_eq!(result["cacheScope"], "public");

    // A pre-2026 client gets the list as it knows it.
    let legacy = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}).to_string();
    let answer = exchange(
        addr,
        &post("/mcp", "MCP-Protocol-Version: 2025-11-25\r\n", &legacy),
    )
    .await;
    let result = &answer.json()["result"];
    assert_eq!(result["tools"][0]["name"], "read_file");
    assert!(result.get("ttlMs").is_none() && result.get("cacheScope").is_none());
}

#[tokio::test]
async fn requests_are_refused_before_rmcp_with_the_fix() {
    let (_dir, addr) = serve(|config| config.auth = McpHttpAuth::Bearer(TOKEN.into())).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();

    let answer = exchange(addr, &post("/other", &auth(), &list)).await;
    assert_eq!(answer.status, 404);
    assert_eq!(
        answer.message(),
        "no MCP endpoint at `/other`; the endpoint is `/mcp`"
    );

    let answer = exchange(addr, &post("/mcp", "", &list)).await;
    assert_eq!(answer.status, 401);
    assert!(
        answer
            .head
            .contains("www-authenticate: bearer realm=\"cy-tools\"")
    );
    assert_eq!(
        answer.message(),
        "missing or wrong bearer token; send `Authorization: Bearer <token>` with the token the server was started with (its `CY_TOOLS_MCP_TOKEN`)"
    );
    let wrong = "Authorization: Bearer http-test-token-0123456780\r\n";
    assert_eq!(
        exchange(addr, &post("/mcp", wrong, &list)).await.status,
        401
    );

    // A page elsewhere, through a browser on this machine.
    let from_page = format!("{}Origin: https://evil.example\r\n", auth());
    let answer = exchange(addr, &post("/mcp", &from_page, &list)).await;
    assert_eq!(answer.status, 403);
    assert!(
        answer
            .message()
            .contains("--allow-origin https://evil.example")
    );
    // With a token, any `Host` (a proxy's name); without one, only loopback names.
    let rebound = |auth: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: evil.example:8765\r\n{auth}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{list}",
            list.len()
        )
    };
    assert_eq!(exchange(addr, &rebound(&auth())).await.status, 200);
    let (_open_dir, open) = serve(|_| {}).await;
    let answer = exchange(open, &rebound("")).await;
    assert_eq!(answer.status, 403);
    assert!(
        answer.message().contains("is not a loopback name"),
        "{}",
        answer.message()
    );
    // A page served from this machine may call.
    let local_page = format!("{}Origin: http://localhost:6274\r\n", auth());
    assert_eq!(
        exchange(addr, &post("/mcp", &local_page, &list))
            .await
            .status,
        200
    );

    // Not JSON, and not a message: answered as JSON-RPC says.
    let answer = exchange(addr, &post("/mcp", &auth(), "{\"jsonrpc\":")).await;
    assert_eq!(answer.status, 400);
    assert_eq!(answer.json()["error"]["code"], -32700);
    assert!(
        answer
            .message()
            .starts_with("parse error: the request body is not JSON")
    );
    let answer = exchange(addr, &post("/mcp", &auth(), "[]")).await;
    assert_eq!(
        (answer.status, answer.json()["error"]["code"].clone()),
        (400, json!(-32600))
    );
    assert!(
        answer
            .message()
            .ends_with("send each message in a request of its own")
    );
    let no_method = json!({"jsonrpc": "2.0", "id": 7}).to_string();
    let answer = exchange(addr, &post("/mcp", &auth(), &no_method)).await;
    assert_eq!(answer.status, 400);
    assert_eq!(answer.json()["id"], 7);

    // No sessions, so no event stream to open.
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n{}Accept: text/event-stream\r\nConnection: close\r\n\r\n",
        auth()
    );
    let answer = exchange(addr, &get).await;
    assert_eq!(answer.status, 405);
    assert!(answer.head.contains("allow: post"));
}

#[tokio::test]
async fn bodies_are_bounded_in_size_and_in_pauses() {
    let (_dir, addr) = serve(|config| {
        config.max_body_bytes = 1024;
        config.idle_timeout = Duration::from_millis(300);
    })
    .await;
    let big = format!("{{\"pad\": \"{}\"}}", "x".repeat(2000));
    // Announced too long: refused before a byte of it is read.
    let answer = exchange(addr, &post("/mcp", "", &big)).await;
    assert_eq!(answer.status, 413);
    assert!(answer.head.contains("connection: close"));
    assert!(
        answer
            .message()
            .starts_with("the request body is longer than 1024 bytes")
    );

    // Chunked, without a length: refused once it passes the limit.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
    stream.write_all(head.as_bytes()).await.unwrap();
    for _ in 0..3 {
        let chunk = "y".repeat(500);
        let _ = stream
            .write_all(format!("{:x}\r\n{chunk}\r\n", chunk.len()).as_bytes())
            .await;
    }
    assert_eq!(read_answer(&mut stream).await.status, 413);

    // Half a body, then nothing: `408` after the idle timeout, and the connection closed.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = post(
        "/mcp",
        "",
        "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}",
    );
    let half = &request[..request.len() - 10];
    stream.write_all(half.as_bytes()).await.unwrap();
    let answer = read_answer(&mut stream).await;
    assert_eq!(answer.status, 408);
    assert!(
        answer
            .message()
            .starts_with("the request body stalled: nothing arrived for 300 ms")
    );
}
