//! The benchmark's `read_file` served over streamable HTTP by rmcp, written the way rmcp's
//! documentation and examples write such a server: a handler with `#[tool_router]` and
//! `#[tool_handler]`, `StreamableHttpService` nested at `/mcp` in an axum router, `axum::serve`,
//! `#[tokio::main]` (a worker thread per core). The transport settings are the ones `cy-tools mcp --http` uses (stateless,
//! JSON answers), so the comparison is of the servers, not of their settings.
//!
//! Usage: `rmcp_http PORT WORKSPACE`

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `read_file`.
#[derive(Deserialize, JsonSchema)]
struct ReadFile {
    /// Path of the file, relative to the workspace root.
    path: String,
    /// 1-based number of the first line to return.
    offset: Option<usize>,
    /// How many lines to return at most.
    limit: Option<usize>,
}

/// The workspace's files.
#[derive(Clone)]
struct Files {
    root: Arc<PathBuf>,
    tool_router: ToolRouter<Files>,
}

#[tool_router]
impl Files {
    fn new(root: Arc<PathBuf>) -> Self {
        Files {
            root,
            tool_router: Self::tool_router(),
        }
    }

    /// Read a UTF-8 text file from the workspace, with line numbers (`cat -n` style).
    #[tool(annotations(read_only_hint = true, destructive_hint = false))]
    async fn read_file(&self, Parameters(p): Parameters<ReadFile>) -> Result<String, String> {
        let relative = Path::new(&p.path);
        if relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(format!("`{}` is outside the workspace", p.path));
        }
        let text = std::fs::read_to_string(self.root.join(relative))
            .map_err(|err| format!("cannot read `{}`: {err}", p.path))?;
        let offset = p.offset.unwrap_or(1).max(1);
        let lines = text
            .lines()
            .enumerate()
            .skip(offset - 1)
            .take(p.limit.unwrap_or(usize::MAX))
            .map(|(n, line)| format!("{:>6}\t{line}", n + 1))
            .collect::<Vec<_>>();
        Ok(lines.join("\n"))
    }
}

// The router kept in the handler, not rebuilt per call (`#[tool_handler]`'s default): the
// faster of the forms rmcp documents.
#[tool_handler(router = self.tool_router)]
impl ServerHandler for Files {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(port), Some(root)) = (args.next(), args.next()) else {
        eprintln!("usage: rmcp_http PORT WORKSPACE");
        std::process::exit(2);
    };
    let root = Arc::new(PathBuf::from(root).canonicalize()?);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let service = StreamableHttpService::new(
        move || Ok(Files::new(Arc::clone(&root))),
        LocalSessionManager::default().into(),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    eprintln!("rmcp serving on http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, router).await
}
