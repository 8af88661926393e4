//! Serves the conformance suite's tools over streamable HTTP on loopback, without a token:
//! `cargo run -p example-conformance -- 127.0.0.1:8765` (add `--sessions` for the
//! session-bearing mode), then
//! `npx @modelcontextprotocol/conformance server --url http://127.0.0.1:8765/mcp`.

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let sessions = std::env::args().any(|arg| arg == "--sessions");
    let addr = match std::env::args().skip(1).find(|arg| arg != "--sessions") {
        Some(text) => text.parse().map_err(|err| {
            format!("`{text}` is not an address ({err}); pass one such as 127.0.0.1:8765")
        })?,
        None => "127.0.0.1:8765".parse()?,
    };
    let server = if sessions {
        example_conformance::bind_with_sessions(addr).await?
    } else {
        example_conformance::bind(addr).await?
    };
    println!(
        "serving the conformance tools at http://{}/mcp",
        server.local_addr()?
    );
    server.run().await?;
    Ok(())
}
