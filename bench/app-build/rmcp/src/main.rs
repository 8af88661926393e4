//! The three-tool MCP stdio server of the application build comparison in BENCHMARKS.md, written
//! with rmcp as its documentation writes a server: `#[tool_router]` methods taking
//! `Parameters<T>`, `#[tool_handler]` on `ServerHandler`, served on `transport::stdio()`.
//!
//! The same application is written with cy-tools for the other side of the comparison:
//! `add`, `greet` (which counts its greetings, the server's state) and `word_count` (a
//! structured result). `bench/app-build/check_server.py` checks either over stdio, and
//! `bench/app-build/measure.sh` measures its clean release build.

use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{Json, ServerHandler, ServiceExt, tool, tool_handler, tool_router, transport::stdio};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The server, and the application's state: greetings given since it started.
#[derive(Default)]
struct App {
    greetings: AtomicU64,
}

#[derive(Deserialize, JsonSchema)]
struct AddParams {
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
}

#[derive(Deserialize, JsonSchema)]
struct GreetParams {
    /// Who to greet.
    name: String,
    /// Greet loudly.
    excited: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
struct WordCountParams {
    /// Path of the file.
    path: String,
}

/// How many words and lines a text file has.
#[derive(Serialize, JsonSchema)]
struct WordCount {
    /// Words, separated by whitespace.
    words: u64,
    /// Lines.
    lines: u64,
}

#[tool_router]
impl App {
    /// Adds two integers.
    #[tool(annotations(read_only_hint = true))]
    async fn add(&self, Parameters(AddParams { a, b }): Parameters<AddParams>) -> String {
        (a + b).to_string()
    }

    /// Greets someone by name.
    #[tool]
    async fn greet(&self, Parameters(p): Parameters<GreetParams>) -> String {
        let n = self.greetings.fetch_add(1, Ordering::Relaxed) + 1;
        let bang = if p.excited.unwrap_or(false) {
            "!!!"
        } else {
            "!"
        };
        format!("Hello, {}{bang} (greeting #{n})", p.name)
    }

    /// Counts the words and lines of a UTF-8 text file.
    #[tool(annotations(read_only_hint = true))]
    async fn word_count(
        &self,
        Parameters(WordCountParams { path }): Parameters<WordCountParams>,
    ) -> Result<Json<WordCount>, String> {
        let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        Ok(Json(WordCount {
            words: text.split_whitespace().count() as u64,
            lines: text.lines().count() as u64,
        }))
    }
}

#[tool_handler]
impl ServerHandler for App {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = App::default().serve(stdio()).await?;
    server.waiting().await?;
    Ok(())
}
