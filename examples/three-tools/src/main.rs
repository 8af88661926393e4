//! An application's own MCP server: three tools written with `#[tool]`, one with application
//! state, served over stdio. It depends on `cy-tools` and `cy-tools-mcp` only, so none of the
//! built-in tools (file tools, `terminal`, `execute_code`, ...) is linked into it, and a session
//! spec that named one would not get it.
//!
//! Run with `cargo run -p example-three-tools` and point an MCP client at that command;
//! `bench/app-build/check_server.py target/debug/three-tools` speaks MCP to it.

use std::sync::atomic::{AtomicU64, Ordering};

use cy_tools::prelude::*;

/// The application's state: greetings given since the server started.
#[derive(Default)]
struct Greetings {
    given: AtomicU64,
}

/// Adds two integers.
#[tool(read_only)]
async fn add(
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
) -> String {
    (a + b).to_string()
}

/// Greets someone by name.
#[tool]
async fn greet(
    greetings: State<'_, Greetings>,
    /// Who to greet.
    name: String,
    /// Greet loudly.
    excited: Option<bool>,
) -> String {
    let n = greetings.given.fetch_add(1, Ordering::Relaxed) + 1;
    let bang = if excited.unwrap_or(false) { "!!!" } else { "!" };
    format!("Hello, {name}{bang} (greeting #{n})")
}

/// How many words and lines a text file has.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct WordCount {
    /// Words, separated by whitespace.
    words: u64,
    /// Lines.
    lines: u64,
}

/// Counts the words and lines of a UTF-8 text file.
#[tool(read_only)]
async fn word_count(
    /// Path of the file.
    path: String,
) -> Result<Json<WordCount>, ToolError> {
    let text = std::fs::read_to_string(&path)?;
    Ok(Json(WordCount {
        words: text.split_whitespace().count() as u64,
        lines: text.lines().count() as u64,
    }))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let context = ToolContext::local().with_state(Greetings::default());
    let session = Session::linked(context, &["add", "greet", "word_count"])?;
    cy_tools_mcp::serve_stdio(session).await?;
    Ok(())
}
