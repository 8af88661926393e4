//! Serving: one way per transport. Over this process's stdin and stdout ([`serve_stdio`]),
//! over any pair of byte streams ([`serve`]: a child's pipes, a socket, in-memory pipes in
//! tests), and over streamable HTTP (`http::McpHttpServer`, feature `http`). Each takes what
//! [`IntoMcpServer`] turns into a server: a [`Session`], a [`Toolset`], or an [`McpServer`]
//! set up with its `with_*` methods.

use cy_tools::{CancellationToken, Session, Toolset};
use rmcp::service::QuitReason;
use tokio::io::{AsyncRead, AsyncWrite};

use super::{McpServer, ServeError, transport};

/// What can be served over MCP: a session (whose log then records every call), a toolset, or
/// a server set up already ([`McpServer::new`] and its `with_*` methods).
pub trait IntoMcpServer {
    /// The server.
    ///
    /// # Errors
    /// [`ServeError::Declaration`] when a tool's declaration is not a valid MCP `Tool`.
    fn into_mcp_server(self) -> Result<McpServer, ServeError>;
}

impl IntoMcpServer for McpServer {
    fn into_mcp_server(self) -> Result<McpServer, ServeError> {
        Ok(self)
    }
}

impl IntoMcpServer for Session {
    fn into_mcp_server(self) -> Result<McpServer, ServeError> {
        McpServer::for_session(self)
    }
}

impl IntoMcpServer for Toolset {
    fn into_mcp_server(self) -> Result<McpServer, ServeError> {
        McpServer::new(self)
    }
}

/// Serves `server` (a session, a toolset or a server) over this process's stdin and stdout,
/// until the client closes stdin, or closes its end of stdout (it died, or was killed): calls
/// still running then are dropped at once, which stops their work, since nobody could read
/// their answers.
///
/// At most [`DEFAULT_MAX_CONCURRENT_CALLS`](crate::DEFAULT_MAX_CONCURRENT_CALLS) calls run at
/// once (or the server's own cap, [`McpServer::with_max_concurrent_calls`]); the rest wait
/// their turn. A server whose calls run on a runtime of their own
/// ([`McpServer::with_call_runtime`]) keeps answering the protocol (ping, cancellation,
/// shutdown) while a tool is stuck on its thread. The protocol owns stdout; logs go through
/// `tracing`.
///
/// ```no_run
/// # async fn run(session: cy_tools::Session) -> Result<(), cy_tools_mcp::ServeError> {
/// cy_tools_mcp::serve_stdio(session).await
/// # }
/// ```
///
/// # Errors
/// A tool's declaration cannot be made, the client's `initialize` fails, or the connection
/// breaks.
pub async fn serve_stdio(server: impl IntoMcpServer) -> Result<(), ServeError> {
    server.into_mcp_server()?.serve_stdio().await
}

/// Serves `server` (a session, a toolset or a server) over a pair of byte streams carrying
/// newline-delimited JSON-RPC, until the input ends: [`serve_stdio`] is this over stdin and
/// stdout.
///
/// Bad input is answered as JSON-RPC 2.0 says: a line that is not JSON with `-32700` and
/// `"id": null`, an invalid request with `-32600` and its `id` (`null` when none can be read),
/// and a malformed notification not at all. A line may be at most 16 MiB long; a longer one is
/// dropped as it arrives and answered `-32600`.
///
/// # Errors
/// As [`serve_stdio`].
pub async fn serve<R, W>(server: impl IntoMcpServer, input: R, output: W) -> Result<(), ServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    server.into_mcp_server()?.serve(input, output).await
}

impl McpServer {
    /// [`serve_stdio`] of this server.
    pub(crate) async fn serve_stdio(self) -> Result<(), ServeError> {
        let (stdin, stdout) = rmcp::transport::io::stdio_pipes();
        #[cfg(unix)]
        {
            tokio::select! {
                served = self.serve(stdin, stdout) => served,
                () = super::hangup::stdout_closed() => {
                    tracing::info!("the client closed its end of stdout: stopping, with the calls in flight");
                    Ok(())
                }
            }
        }
        #[cfg(not(unix))]
        self.serve(stdin, stdout).await
    }

    /// [`serve`] of this server.
    pub(crate) async fn serve<R, W>(self, input: R, output: W) -> Result<(), ServeError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let server = self.with_default_call_cap();
        let served = CancellationToken::new();
        let (transport, io) = transport::connect(input, output, served.clone().cancelled_owned());
        let service = async {
            let result = serve_transport(server, transport).await;
            // Stops reading: nothing read now could be answered. The output is still written
            // to its end.
            served.cancel();
            result
        };
        let (result, ()) = tokio::join!(service, io);
        result
    }
}

async fn serve_transport(
    server: McpServer,
    transport: transport::LineTransport,
) -> Result<(), ServeError> {
    // rmcp's `serve`, not ours (the inherent method would be picked).
    let running = rmcp::ServiceExt::serve(server, transport)
        .await
        .map_err(|err| ServeError::Initialize { source: err.into() })?;
    match running.waiting().await {
        Ok(QuitReason::JoinError(err)) | Err(err) => {
            Err(ServeError::Connection { source: err.into() })
        }
        Ok(reason) => {
            tracing::info!(?reason, "MCP connection closed");
            Ok(())
        }
    }
}
