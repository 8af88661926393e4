//! An MCP server over a toolset in this process, on a pair of in-memory pipes, and a client
//! peer of it that has completed the handshake.

use cy_tools::Toolset;
use tokio::io::DuplexStream;

use crate::support::mcp_client::Peer;

/// Serves `tools` over MCP in a task of its own and returns an initialized client of it.
pub(crate) async fn serve(tools: Toolset) -> Peer<DuplexStream> {
    let (client_out, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, client_in) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        cy_tools_mcp::serve(tools, server_in, server_out)
            .await
            .unwrap();
    });
    let mut peer = Peer::new(client_out, client_in);
    peer.initialize().await;
    peer
}
