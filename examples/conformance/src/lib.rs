//! The tools the official MCP conformance suite (`@modelcontextprotocol/conformance`) calls,
//! written as an application writes tools with cy-tools, and served over streamable HTTP.
//!
//! Each module shows one part of what a tool can answer or do while it runs:
//!
//! * [`content`]: text, an image, audio, an embedded resource, several kinds at once, and an
//!   error the model reads;
//! * [`notes`]: log messages and progress sent to the client while the call runs;
//! * [`schema`]: a tool with a hand-written JSON Schema 2020-12 (`$schema`, `$defs`), declared
//!   to MCP clients as written;
//! * [`resources`]: fixed text and bytes, a URI template, and a resource clients subscribe to,
//!   with the tool that says it changed;
//! * [`prompts`]: text, typed arguments with completion, an embedded resource and an image;
//! * [`ask`]: tools that ask the client's model (sampling) and its user (elicitation) in the
//!   middle of a call, which needs the session-bearing HTTP mode ([`bind_with_sessions`]).
//!
//! The scenarios the suite still fails are named in `expected-failures.yml` (stateless) and
//! `expected-failures-sessions.yml` (session-bearing), each with why.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//! let server = example_conformance::bind("127.0.0.1:0".parse()?).await?;
//! println!("http://{}/mcp", server.local_addr()?);
//! server.run().await?;
//! # Ok(())
//! # }
//! ```

pub mod ask;
pub mod content;
pub mod notes;
pub mod prompts;
pub mod resources;
pub mod schema;

use std::net::SocketAddr;
use std::sync::Arc;

use cy_tools::catalog::ResourceUpdates;
use cy_tools::{Session, SessionIdentity, ToolContext, ToolRegistry};
use cy_tools_mcp::McpServer;
use cy_tools_mcp::http::{McpHttpAuth, McpHttpConfig, McpHttpServer};

/// The names of the suite's tools this application serves.
pub const TOOLS: [&str; 15] = [
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_error_handling",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_update_watched_resource",
    "test_sampling",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "test_reconnection",
    schema::NAME,
];

/// The names of the suite's resources.
pub const RESOURCES: [&str; 4] = [
    "static_text",
    "static_binary",
    "template_data",
    "watched_resource",
];

/// The names of the suite's prompts.
pub const PROMPTS: [&str; 4] = [
    "test_simple_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
];

/// An MCP server over [`TOOLS`] (the linked `#[tool]`s and the hand-written schema tool),
/// [`RESOURCES`] and [`PROMPTS`].
///
/// # Errors
/// A tool, resource or prompt is missing or cannot be declared (a bug in this example).
pub fn server() -> Result<McpServer, Box<dyn std::error::Error + Send + Sync>> {
    Ok(McpServer::for_session(session()?)?)
}

/// The session [`server`] serves: its tools, resources and prompts, with one
/// [`ResourceUpdates`] hub in its context that the catalog announces on and a tool reaches as
/// state.
///
/// # Errors
/// As [`server`].
pub fn session() -> Result<Session, Box<dyn std::error::Error + Send + Sync>> {
    let mut registry = ToolRegistry::linked()?;
    registry.register(schema::NAME, &schema::JSON_SCHEMA_2020_12_TOOL)?;
    // The catalog announces changes on the context's hub, which the tool reaches as state.
    let context = Arc::new(
        ToolContext::new(SessionIdentity::root("conformance", "local"))
            .with_state(ResourceUpdates::default()),
    );
    let tools = registry.try_build(&TOOLS, Arc::clone(&context))?;
    let (catalog, left_out) = registry.catalog().build(&RESOURCES, &PROMPTS, &context);
    if let Some((name, why)) = left_out.first() {
        return Err(format!("`{name}` cannot be served: {why}").into());
    }
    Ok(Session::new(context, tools).with_catalog(catalog))
}

/// The server bound to `addr` over stateless streamable HTTP, without a token (the suite sends
/// none), so only on a loopback address.
///
/// # Errors
/// As [`server`]; the address cannot be bound or is not a loopback one.
pub async fn bind(
    addr: SocketAddr,
) -> Result<McpHttpServer, Box<dyn std::error::Error + Send + Sync>> {
    let config = McpHttpConfig::new(addr, McpHttpAuth::NoToken);
    Ok(McpHttpServer::bind(config, server()?).await?)
}

/// How long the session-bearing mode keeps a call's event stream open without its answer
/// before the client must resume it (short, so `test_reconnection` shows it).
pub const POLL_AFTER: std::time::Duration = std::time::Duration::from_millis(500);

/// [`bind`], in the session-bearing mode: a 2025-11-25 client gets a session, and the tools of
/// [`ask`] can ask it in the middle of a call.
///
/// # Errors
/// As [`bind`].
pub async fn bind_with_sessions(
    addr: SocketAddr,
) -> Result<McpHttpServer, Box<dyn std::error::Error + Send + Sync>> {
    let mut config = McpHttpConfig::new(addr, McpHttpAuth::NoToken);
    config.sessions = true;
    config.poll_after = Some(POLL_AFTER);
    Ok(McpHttpServer::bind(config, server()?).await?)
}
