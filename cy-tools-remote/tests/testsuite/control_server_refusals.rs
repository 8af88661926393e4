//! Requests the control server refuses at once, written by hand: a body announced over the
//! limit (413 before any of it is read, not 408 at the idle timeout), the token beside a
//! second `Authorization` header, and the token followed by a space or tab (401).

use std::time::{Duration, Instant};

use crate::support::loopback_server::{Server, TOKEN};
use crate::support::raw_http::{exchange, post_head};

/// Long enough that an answer waiting for it would show: the 413 must come far sooner.
const IDLE_TIMEOUT: Duration = Duration::from_secs(20);

fn server(root: &std::path::Path) -> Server {
    Server::start(root, |config| {
        config.max_body_bytes = 64 * 1024;
        config.idle_timeout = IDLE_TIMEOUT;
        config.command = "sh {file}".into();
    })
}

#[tokio::test]
async fn a_body_announced_over_the_limit_is_answered_413_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    for path in ["/v1/sessions/s-1/execute", "/v1/sessions/s-1/sandbox"] {
        let started = Instant::now();
        // A gigabyte announced, and not a byte of it sent.
        let head = post_head(path, TOKEN, 1 << 30, &[]);
        let (status, body) = exchange(server.addr, &head, b"").await;
        let took = started.elapsed();
        assert_eq!(status, 413, "{path}: {body}");
        assert!(
            body.contains("over this server's limit of 65536 bytes"),
            "{path}: {body}"
        );
        assert!(
            took < Duration::from_secs(3),
            "{path}: the 413 took {took:?}"
        );
    }
    // Without the token it is a 401 all the same: the size says nothing to a stranger.
    let head = post_head(
        "/v1/sessions/s-1/execute",
        "wrong-token-0000000000",
        1 << 30,
        &[],
    );
    assert_eq!(exchange(server.addr, &head, b"").await.0, 401);
}

#[tokio::test]
async fn a_second_authorization_header_is_refused_even_beside_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let body = serde_json::json!({"code": "echo ran", "filename": "run.sh"}).to_string();
    let path = "/v1/sessions/s-1/execute";
    // The token alone runs the code, so what follows is refused for the second header only.
    let (status, answer) = exchange(
        server.addr,
        &post_head(path, TOKEN, body.len(), &[]),
        body.as_bytes(),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("ran"), "{answer}");
    for second in [
        "authorization: Bearer another-token-000000".to_string(),
        format!("authorization: Bearer {TOKEN}"),
        "authorization: Basic dXNlcjpwYXNz".to_string(),
    ] {
        let (status, answer) = exchange(
            server.addr,
            &post_head(path, TOKEN, body.len(), &[&second]),
            body.as_bytes(),
        )
        .await;
        assert_eq!(status, 401, "with `{second}`: {answer}");
        assert!(answer.contains("missing or wrong bearer token"), "{answer}");
    }
}

#[tokio::test]
async fn whitespace_after_the_token_is_refused_though_the_parser_drops_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let body = serde_json::json!({"code": "echo ran", "filename": "run.sh"}).to_string();
    for (path, ending) in [
        ("/v1/sessions/s-1/execute", " "),
        ("/v1/sessions/s-1/execute", "\t"),
        ("/v1/sessions/s-1/sandbox", "  "),
    ] {
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {TOKEN}{ending}\r\ncontent-type: application/json\r\ncontent-length: {}",
            body.len()
        );
        let (status, answer) = exchange(server.addr, &head, body.as_bytes()).await;
        assert_eq!(
            status, 401,
            "{path} with {ending:?} after the token: {answer}"
        );
        assert!(answer.contains("missing or wrong bearer token"), "{answer}");
    }
    assert!(
        !server.root.join("s-1/run.sh").exists(),
        "a refused run ran"
    );
}
