//! An application's own MCP server: its tools, with the application's state, served over stdio
//! beside the built-in file tools, in a workspace folder confined like the `cy-tools mcp`
//! command's.
//!
//! Run with `cargo run -p cy-tools-builtin --features mcp --example app_mcp_server -- DIR` and
//! point an MCP client at that command.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cy_tools::Toolset;
use cy_tools::prelude::*;
use cy_tools_builtin::{LocalExecutor, LocalSandbox};

/// The application's own state: tickets opened since the server started.
#[derive(Default)]
struct Tickets {
    opened: AtomicU64,
}

/// Opens a support ticket and returns its number.
#[tool(capabilities(session))]
async fn open_ticket(
    tickets: State<'_, Tickets>,
    session: &SessionIdentity,
    /// What the ticket is about, in one line.
    title: String,
) -> String {
    let number = tickets.opened.fetch_add(1, Ordering::SeqCst) + 1;
    format!("ticket #{number} opened for {}: {title}", session.tenant)
}

/// The server's tools: the application's tool beside built-ins, all found by name in the linked
/// registry, in a session over the workspace `root`.
fn tools(root: &Path) -> Result<Toolset, Box<dyn std::error::Error>> {
    let env: Arc<dyn Sandbox> = Arc::new(LocalSandbox::new(root)?.env());
    let context = ToolContext::new(SessionIdentity::root("support", "acme"))
        .with_env(Arc::clone(&env))
        .with_executor(Arc::new(LocalExecutor::new(env)))
        .with_state(Tickets::default());
    let names = ["open_ticket", "read_file", "list_directory", "search_text"];
    Ok(ToolRegistry::linked()?.try_build(&names, context)?)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".into()));
    cy_tools_builtin::mcp::serve_stdio(tools(&root)?).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    /// The server over an in-memory pipe, spoken to as an MCP client would, line by line.
    #[tokio::test]
    async fn a_client_sees_the_application_tool_beside_the_built_ins_and_its_state_persists() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("faq.md"), "Reset with the red button.").unwrap();
        let tools = super::tools(dir.path()).unwrap();
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        tokio::spawn(cy_tools_builtin::mcp::serve(
            tools,
            server_read,
            server_write,
        ));
        let (read, mut write) = tokio::io::split(client);
        let mut lines = BufReader::new(read).lines();
        let mut ask = async |message: Value| -> Value {
            write
                .write_all(format!("{message}\n").as_bytes())
                .await
                .unwrap();
            if message.get("id").is_none() {
                return Value::Null;
            }
            let line = lines.next_line().await.unwrap().expect("an answer");
            serde_json::from_str(&line).unwrap()
        };
        ask(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "example-test", "version": "0"}}}),
        )
        .await;
        ask(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;

        let listed = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})).await;
        let names: Vec<&str> = listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["list_directory", "open_ticket", "read_file", "search_text"]
        );

        for number in 1..=2 {
            let opened = ask(
                json!({"jsonrpc": "2.0", "id": 10 + number, "method": "tools/call",
                "params": {"name": "open_ticket", "arguments": {"title": "button"}}}),
            )
            .await;
            assert_eq!(
                opened["result"]["content"][0]["text"],
                format!("ticket #{number} opened for acme: button")
            );
        }
        let read = ask(json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": "faq.md"}}}))
        .await;
        assert!(
            read["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("Reset with the red button."),
            "{read}"
        );
    }
}
