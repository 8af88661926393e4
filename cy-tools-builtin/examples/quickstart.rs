//! The README's quickstart, as it is there (a test holds the two equal), and run: a tool of
//! your own beside a built-in one, in a session over a folder, called once and served over MCP.
//!
//! `cargo run -p cy-tools-builtin --features mcp --example quickstart` serves on stdio (point an
//! MCP client at it); its tests run the call and speak MCP to it over in-memory pipes.

use cy_tools::prelude::*;

/// Adds two integers.
#[tool(read_only)]
fn add(
    /** The first. */
    a: i64,
    /** The second. */
    b: i64,
) -> i64 {
    a + b
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Your tool beside a built-in one, in a session over the folder `work`.
    let session = cy_tools_builtin::local_session("work", &["add", "read_file"])?;

    // Run it once, as a model would call it: prints 5.
    println!(
        "{}",
        session
            .call("add", serde_json::json!({"a": 2, "b": 3}))
            .await
    );

    // Serve the same tools to any MCP client over stdio.
    cy_tools_builtin::mcp::serve_stdio(session).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    fn session(dir: &std::path::Path) -> cy_tools::Session {
        cy_tools_builtin::local_session(dir, &["add", "read_file"]).unwrap()
    }

    #[tokio::test]
    async fn the_call_prints_5_and_a_wrong_argument_says_what_to_send() {
        let dir = tempfile::tempdir().unwrap();
        let session = session(dir.path());
        let sum = session.call("add", json!({"a": 2, "b": 3})).await;
        assert_eq!(sum.to_string(), "5");
        let wrong = session.call("add", json!({"a": "two", "b": 3})).await;
        assert!(wrong.is_error);
        // The message the README quotes.
        assert_eq!(
            wrong.to_string(),
            "invalid arguments for `add`: `a`: expected an integer, got string \"two\"; valid fields are `a` (integer, required), `b` (integer, required)"
        );
    }

    #[tokio::test]
    async fn a_client_lists_and_calls_the_served_tools() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "hello\n").unwrap();
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        tokio::spawn(cy_tools_builtin::mcp::serve(
            session(dir.path()),
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
            let line = lines.next_line().await.unwrap().unwrap();
            serde_json::from_str(&line).unwrap()
        };
        ask(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "quickstart", "version": "0"}}}),
        )
        .await;
        ask(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        let list = ask(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).await;
        let names: Vec<&str> = list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["add", "read_file"]);
        let call = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": "notes.txt"}}}))
        .await;
        assert_eq!(call["result"]["content"][0]["text"], "     1\thello");
    }

    /// The README shows this file's code: the same, but for layout (`cargo fmt` lays this file
    /// out, the README keeps the quickstart short).
    #[test]
    fn the_readme_shows_this_code() {
        let readme = include_str!("../../README.md");
        let shown = readme
            .split("```rust,no_run\n")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .expect("the README has the quickstart block");
        let this = include_str!("quickstart.rs");
        let code = this
            .split_once("\n\n")
            .map(|(_, rest)| rest)
            .and_then(|rest| rest.split("\n#[cfg(test)]").next())
            .unwrap();
        // Without whitespace, and without the trailing commas a vertical layout adds.
        let squeeze = |text: &str| {
            text.split_whitespace()
                .collect::<String>()
                .replace(",)", ")")
                .replace(",]", "]")
                .replace(",}", "}")
        };
        assert_eq!(squeeze(code), squeeze(shown));
    }
}
