//! The MCP HTTP server's token check against loose `Authorization` headers, written by hand on
//! a socket: the token beside a second `Authorization` (either way round), and the token
//! followed by a space or a tab, which the parser drops before any handler sees it, are all
//! answered `401`, as on the control server; the exact token alone is served.

use cy_tools_mcp::http::McpHttpAuth;
use serde_json::json;

use super::http::{TOKEN, serve};
use crate::support::mcp_client::{exchange, post};

/// The 401's message, the same whatever was loose about the header.
const REFUSED: &str = "missing or wrong bearer token; send `Authorization: Bearer <token>` with the token the server was started with (its `CY_TOOLS_MCP_TOKEN`)";

#[tokio::test]
async fn only_the_exact_token_in_one_authorization_header_is_served() {
    let (_dir, addr) = serve(|config| config.auth = McpHttpAuth::Bearer(TOKEN.into())).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let wrong = "http-test-token-0123456780";

    // The token alone: served, so each refusal below is for what was added to it.
    let alone = exchange(
        addr,
        &post("/mcp", &format!("Authorization: Bearer {TOKEN}\r\n"), &list),
    )
    .await;
    assert_eq!(alone.status, 200, "{}", alone.body);
    assert!(alone.body.contains("read_file"), "{}", alone.body);

    let loose = [
        (
            "the token, then a wrong one",
            format!("Authorization: Bearer {TOKEN}\r\nAuthorization: Bearer {wrong}\r\n"),
        ),
        (
            "a wrong token, then the token",
            format!("Authorization: Bearer {wrong}\r\nAuthorization: Bearer {TOKEN}\r\n"),
        ),
        (
            "the token twice",
            format!("Authorization: Bearer {TOKEN}\r\nauthorization: Bearer {TOKEN}\r\n"),
        ),
        (
            "the token and a space",
            format!("Authorization: Bearer {TOKEN} \r\n"),
        ),
        (
            "the token and a tab",
            format!("Authorization: Bearer {TOKEN}\t\r\n"),
        ),
    ];
    for (what, headers) in loose {
        let answer = exchange(addr, &post("/mcp", &headers, &list)).await;
        assert_eq!(answer.status, 401, "{what}: {}", answer.body);
        assert!(
            answer
                .head
                .contains("www-authenticate: bearer realm=\"cy-tools\""),
            "{what}: {}",
            answer.head
        );
        assert_eq!(answer.message(), REFUSED, "{what}");
    }
}
