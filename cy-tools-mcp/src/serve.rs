//! Serving an [`McpServer`]: one way per transport. Over this process's stdin and stdout
//! ([`McpServer::serve_stdio`]), over any pair of byte streams ([`McpServer::serve`]: a child's
//! pipes, a socket, in-memory pipes in tests), and over streamable HTTP (`http::McpHttpServer`,
//! feature `http`).

use cy_tools::CancellationToken;
use rmcp::service::QuitReason;
use tokio::io::{AsyncRead, AsyncWrite};

use super::{McpServer, ServeError, transport};

impl McpServer {
    /// Serves over this process's stdin and stdout until the client closes stdin, or closes
    /// its end of stdout (it died, or was killed): calls still running then are dropped at
    /// once, which stops their work, since nobody could read their answers.
    ///
    /// At most [`DEFAULT_MAX_CONCURRENT_CALLS`](crate::DEFAULT_MAX_CONCURRENT_CALLS) calls run at
    /// once (or the server's own cap, [`with_max_concurrent_calls`](Self::with_max_concurrent_calls));
    /// the rest wait their turn. A server whose calls run on a runtime of their own
    /// ([`with_call_runtime`](Self::with_call_runtime)) keeps answering the protocol (ping,
    /// cancellation, shutdown) while a tool is stuck on its thread.
    ///
    /// ```no_run
    /// # async fn run(tools: cy_tools::Toolset) -> Result<(), cy_tools_mcp::ServeError> {
    /// cy_tools_mcp::McpServer::new(tools)?.serve_stdio().await
    /// # }
    /// ```
    ///
    /// # Errors
    /// The client's `initialize` fails, or the connection breaks.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
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

    /// Serves over a pair of byte streams carrying newline-delimited JSON-RPC, until the input
    /// ends. [`serve_stdio`](Self::serve_stdio) is this over stdin and stdout.
    ///
    /// Bad input is answered as JSON-RPC 2.0 says: a line that is not JSON with `-32700` and
    /// `"id": null`, an invalid request with `-32600` and its `id` (`null` when none can be
    /// read), and a malformed notification not at all. A line may be at most 16 MiB long; a
    /// longer one is dropped as it arrives and answered `-32600`.
    ///
    /// # Errors
    /// As [`serve_stdio`](Self::serve_stdio).
    pub async fn serve<R, W>(self, input: R, output: W) -> Result<(), ServeError>
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
