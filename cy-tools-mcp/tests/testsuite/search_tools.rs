//! Tool search over MCP (`McpServer::with_tool_search`): the kept tools and `search_tools`
//! are listed; a search adds what it finds to the connection's list and sends
//! `notifications/tools/list_changed`; the found tool is then listed and called.

use std::sync::Arc;

use cy_tools::{SessionIdentity, ToolContext, ToolRegistry, Toolset};
use cy_tools_mcp::McpServer;
use cy_tools_sandbox::LocalSandbox;
use serde_json::{Value, json};

use crate::support::mcp_client::Peer;

fn tools(dir: &std::path::Path) -> Toolset {
    std::fs::write(dir.join("notes.txt"), "alpha\n").unwrap();
    let env = LocalSandbox::new(dir).unwrap().env();
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme")).with_env(Arc::new(env));
    ToolRegistry::linked().unwrap().build(
        &[
            "read_file",
            "write_file",
            "edit_file",
            "find_files",
            "search_text",
            "list_directory",
        ],
        &context,
    )
}

fn serve(server: McpServer) -> Peer<tokio::io::DuplexStream> {
    let (client_out, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, client_in) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        cy_tools_mcp::serve(server, server_in, server_out)
            .await
            .unwrap();
    });
    Peer::new(client_out, client_in)
}

async fn listed(peer: &mut Peer<tokio::io::DuplexStream>, id: u64) -> Vec<String> {
    let response = peer.request(id, "tools/list", json!({})).await;
    response["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_search_adds_the_tools_it_finds_and_says_the_list_changed() {
    let dir = tempfile::tempdir().unwrap();
    let server = McpServer::new(tools(dir.path()))
        .unwrap()
        .with_tool_search(&["read_file"])
        .unwrap();
    let mut peer = serve(server);
    let init = peer.initialize().await;
    assert_eq!(
        init["result"]["capabilities"]["tools"]["listChanged"], true,
        "{init}"
    );
    assert_eq!(listed(&mut peer, 1).await, ["read_file", "search_tools"]);

    // The search: its notification comes before its answer.
    peer.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search_tools", "arguments": {"query": "list the files of a directory", "limit": 2}}}))
        .await;
    let mut notified = false;
    let answer: Value = loop {
        let message = peer.next().await;
        if message["method"] == "notifications/tools/list_changed" {
            notified = true;
        } else if message["id"] == 2 {
            break message;
        }
    };
    assert!(
        notified,
        "no notifications/tools/list_changed before {answer}"
    );
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Found 2 tool(s), now in the tool list:\n- "),
        "{text}"
    );
    assert!(text.contains("\n- list_directory: "), "{text}");
    let now = listed(&mut peer, 3).await;
    assert!(now.contains(&"list_directory".to_string()), "{now:?}");
    assert_eq!(now.len(), 4, "{now:?}");
    assert_eq!(now.last().map(String::as_str), Some("search_tools"));

    let called = peer.call(4, "list_directory", json!({"path": "."})).await;
    assert!(
        called["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("notes.txt"),
        "{called}"
    );

    // Found again: nothing new, no notification; nothing found: an error result.
    peer.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "search_tools", "arguments": {"query": "list directory", "limit": 1}}}))
        .await;
    let again = peer.next().await;
    assert_eq!(again["id"], 5, "a notification for nothing new: {again}");
    let none = peer
        .call(6, "search_tools", json!({"query": "xyzzy"}))
        .await;
    assert_eq!(none["result"]["isError"], true);
    assert_eq!(
        none["result"]["content"][0]["text"],
        "no tool matches `xyzzy`; try other words (a verb, an object: `list files`, `time zone`)"
    );
    let bad = peer.call(7, "search_tools", json!({})).await;
    assert_eq!(bad["result"]["isError"], true);

    // A 2026-07-28 request for the list: this connection's own, which a search may change, so
    // not to be kept nor shared.
    let modern = peer
        .request(
            8,
            "tools/list",
            json!({"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            }}),
        )
        .await;
    assert_eq!(modern["result"]["ttlMs"], 0, "{modern}");
    assert_eq!(modern["result"]["cacheScope"], "private", "{modern}");
}

/// A host that puts other tools in place while the server runs (a gateway whose upstream's
/// list changed): a search finds what is served now, not what was served at the start.
#[tokio::test]
async fn a_search_finds_the_tools_a_host_put_in_place_since() {
    let dir = tempfile::tempdir().unwrap();
    let all = tools(dir.path());
    let first: Vec<cy_tools::BoundTool> = all
        .iter()
        .filter(|t| t.name() != "list_directory")
        .cloned()
        .collect();
    let identity = SessionIdentity::root("s-3", "acme");
    let session = cy_tools::Session::new(
        Arc::new(ToolContext::new(identity.clone())),
        Toolset::new(first),
    );
    let (server, updates) = McpServer::for_session(session)
        .unwrap()
        .with_tool_search(&["read_file"])
        .unwrap()
        .with_tool_updates();
    let mut peer = serve(server);
    peer.initialize().await;
    let none = peer
        .call(
            1,
            "search_tools",
            json!({"query": "list directory entries", "limit": 1}),
        )
        .await;
    let text = none["result"]["content"][0]["text"].as_str().unwrap();
    assert!(!text.contains("list_directory"), "{text}");

    let now = cy_tools::Session::new(Arc::new(ToolContext::new(identity)), all);
    updates.replace(now).await.unwrap();
    let found = peer
        .call(
            2,
            "search_tools",
            json!({"query": "list directory", "limit": 1}),
        )
        .await;
    let text = found["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Found 1 tool(s), now in the tool list:\n- list_directory: "),
        "{text}"
    );
    assert!(
        listed(&mut peer, 3)
            .await
            .contains(&"list_directory".to_string())
    );
    let called = peer.call(4, "list_directory", json!({"path": "."})).await;
    assert!(
        called["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("notes.txt"),
        "{called}"
    );
}

/// A tool of the application's own named like the search tool.
#[cy_tools::tool(read_only, open_world = false)]
async fn search_tools(
    /// What to look for.
    query: String,
) -> String {
    query
}

#[tokio::test]
async fn a_session_with_its_own_search_tools_is_refused_and_without_search_all_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let tools = tools(dir.path());
    let context = ToolContext::new(SessionIdentity::root("s-2", "acme"));
    let own = ToolRegistry::linked()
        .unwrap()
        .build(&["search_tools"], &context);
    let err = McpServer::new(own)
        .unwrap()
        .with_tool_search(&["search_tools"])
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        "the session has a tool named `search_tools`, the name tool search gives its own; rename that tool, or serve without tool search"
    );
    let mut peer = serve(McpServer::new(tools.clone()).unwrap());
    let init = peer.initialize().await;
    assert!(
        init["result"]["capabilities"]["tools"]
            .get("listChanged")
            .is_none(),
        "{init}"
    );
    assert_eq!(listed(&mut peer, 1).await.len(), 6);
}

/// Stateless HTTP keeps nothing between requests and cannot notify: every tool is listed, and
/// the list is not said to change.
#[cfg(feature = "http")]
#[tokio::test]
async fn stateless_http_lists_every_tool() {
    use cy_tools_mcp::http::{McpHttpAuth, McpHttpConfig, McpHttpServer};

    use crate::support::mcp_client::{exchange, post};

    let dir = tempfile::tempdir().unwrap();
    let server = McpServer::new(tools(dir.path()))
        .unwrap()
        .with_tool_search(&["read_file"])
        .unwrap();
    let config = McpHttpConfig::new("127.0.0.1:0".parse().unwrap(), McpHttpAuth::NoToken);
    let http = McpHttpServer::bind(config, server).await.unwrap();
    let addr = http.local_addr().unwrap();
    tokio::spawn(http.run());
    let (headers, body) = crate::http::modern(1, "tools/list", json!({}));
    let answer = exchange(addr, &post("/mcp", &headers, &body)).await;
    let listed = answer.json();
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 6, "{names:?}");
    assert!(!names.contains(&"search_tools"), "{names:?}");
}

/// The session-bearing HTTP mode: what one session's search found is in its list only, and that
/// session's open event stream is told the list changed.
#[cfg(feature = "http")]
#[tokio::test]
async fn each_http_session_keeps_what_its_own_searches_found() {
    use cy_tools_mcp::http::{McpHttpAuth, McpHttpConfig, McpHttpServer};

    use tokio::io::AsyncWriteExt as _;

    use crate::support::mcp_client::{Answer, exchange, post};

    /// The JSON-RPC messages of an answer, a JSON body or an event stream's `data:` lines.
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

    let dir = tempfile::tempdir().unwrap();
    let server = McpServer::new(tools(dir.path()))
        .unwrap()
        .with_tool_search(&["read_file"])
        .unwrap();
    let mut config = McpHttpConfig::new("127.0.0.1:0".parse().unwrap(), McpHttpAuth::NoToken);
    config.sessions = true;
    let http = McpHttpServer::bind(config, server).await.unwrap();
    let addr = http.local_addr().unwrap();
    tokio::spawn(http.run());

    let legacy = "MCP-Protocol-Version: 2025-11-25\r\n";
    let mut sessions = Vec::new();
    for _ in 0..2 {
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
        let first = &messages(&answer)[0];
        assert_eq!(
            first["result"]["capabilities"]["tools"]["listChanged"], true,
            "{first}"
        );
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let headers = format!("{legacy}Mcp-Session-Id: {id}\r\n");
        exchange(addr, &post("/mcp", &headers, &initialized.to_string())).await;
        sessions.push(headers);
    }
    let list = |headers: String| async move {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let answer = exchange(addr, &post("/mcp", &headers, &request.to_string())).await;
        let found = messages(&answer);
        let result = found.iter().find(|m| m["id"] == 1).unwrap().clone();
        result["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let search = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search_tools", "arguments": {"query": "list directory", "limit": 1}}});
    // The first session's standalone stream, where a notification not tied to a request
    // goes: opened before the search, read until the list is said to have changed.
    let mut events = tokio::net::TcpStream::connect(addr).await.unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n{}\r\n",
        sessions[0]
    );
    events.write_all(get.as_bytes()).await.unwrap();
    let mut seen = String::new();
    // The stream is open once its head has come: a search before that could be told nowhere.
    read_until(&mut events, &mut seen, "\r\n\r\n").await;
    assert!(seen.starts_with("HTTP/1.1 200"), "{seen}");
    let answer = exchange(addr, &post("/mcp", &sessions[0], &search.to_string())).await;
    read_until(&mut events, &mut seen, "notifications/tools/list_changed").await;
    assert!(
        messages(&answer)
            .iter()
            .any(|m| m["id"] == 2 && m["result"]["isError"] != true),
        "{}",
        answer.body
    );
    assert_eq!(
        list(sessions[0].clone()).await,
        ["list_directory", "read_file", "search_tools"]
    );
    assert_eq!(
        list(sessions[1].clone()).await,
        ["read_file", "search_tools"]
    );

    // A 2026-07-28 request has no session to keep what a search found: it is listed every
    // tool, as over stateless HTTP.
    let (headers, body) = crate::http::modern(4, "tools/list", json!({}));
    let answer = exchange(addr, &post("/mcp", &headers, &body)).await;
    let modern: Vec<String> = messages(&answer)
        .iter()
        .find(|m| m["id"] == 4)
        .unwrap_or_else(|| panic!("no answer: {}", answer.body))["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(modern.len(), 6, "{modern:?}");
    assert!(!modern.contains(&"search_tools".to_string()), "{modern:?}");
}

/// Reads `stream` into `seen` until it holds `wanted`, for at most 10 seconds.
#[cfg(feature = "http")]
async fn read_until(stream: &mut tokio::net::TcpStream, seen: &mut String, wanted: &str) {
    use tokio::io::AsyncReadExt as _;

    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut buf = [0u8; 4096];
    while !seen.contains(wanted) {
        let read = tokio::time::timeout_at(deadline, stream.read(&mut buf))
            .await
            .unwrap_or_else(|_| {
                panic!("`{wanted}` did not come within 10 s; the stream had: {seen}")
            })
            .unwrap();
        assert!(read > 0, "the stream closed before `{wanted}`: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..read]));
    }
}
