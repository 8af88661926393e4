//! Concurrent `tools/call` over streamable HTTP.

use std::time::{Duration, Instant};

use http_body_util::{BodyExt as _, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::net::TcpStream;

use super::stats::quantile_us;

pub struct Load {
    pub url: String,
    pub clients: usize,
    pub seconds: u64,
    pub warmup: u64,
    pub token: Option<String>,
}

/// What one client measured.
#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    errors: u64,
    first_error: Option<String>,
}

pub async fn run(load: Load) -> Result<serde_json::Value, String> {
    let uri: hyper::Uri = load.url.parse().map_err(|err| format!("bad URL: {err}"))?;
    let authority = uri.authority().ok_or("the URL has no host")?.to_string();
    // Origin form on the request line (`POST /mcp`), as clients send it.
    let uri: hyper::Uri = uri
        .path()
        .parse()
        .map_err(|err| format!("bad path: {err}"))?;
    let body = Bytes::from(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "read_file",
            "arguments": {"path": "notes.txt"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "mcp_load", "version": "0"},
            },
        }})
        .to_string(),
    );
    let measure_from = Instant::now() + Duration::from_secs(load.warmup);
    let until = measure_from + Duration::from_secs(load.seconds);
    let mut clients = Vec::new();
    for _ in 0..load.clients {
        let (authority, uri, body, token) = (
            authority.clone(),
            uri.clone(),
            body.clone(),
            load.token.clone(),
        );
        clients.push(tokio::spawn(async move {
            client(
                &authority,
                &uri,
                &body,
                token.as_deref(),
                measure_from,
                until,
            )
            .await
        }));
    }
    let mut all = Vec::new();
    let (mut errors, mut first_error) = (0, None);
    for client in clients {
        let tally = client.await.map_err(|err| err.to_string())??;
        all.extend(tally.latencies);
        errors += tally.errors;
        first_error = first_error.or(tally.first_error);
    }
    all.sort_unstable();
    let calls = all.len();
    Ok(json!({
        "clients": load.clients,
        "calls": calls,
        "errors": errors,
        "first_error": first_error,
        "calls_per_s": calls as f64 / load.seconds as f64,
        "p50_us": quantile_us(&all, 0.5),
        "p99_us": quantile_us(&all, 0.99),
    }))
}

async fn client(
    authority: &str,
    uri: &hyper::Uri,
    body: &Bytes,
    token: Option<&str>,
    measure_from: Instant,
    until: Instant,
) -> Result<Tally, String> {
    let stream = TcpStream::connect(authority)
        .await
        .map_err(|err| format!("cannot connect to {authority}: {err}"))?;
    stream.set_nodelay(true).map_err(|err| err.to_string())?;
    let (mut sender, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|err| err.to_string())?;
    tokio::spawn(connection);
    let mut tally = Tally::default();
    loop {
        let sent = Instant::now();
        if sent >= until {
            return Ok(tally);
        }
        let mut request = Request::post(uri.clone())
            .header("host", authority)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "read_file");
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let request = request
            .body(Full::new(body.clone()))
            .map_err(|err| err.to_string())?;
        sender.ready().await.map_err(|err| err.to_string())?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|err| format!("request failed: {err}"))?;
        let status = response.status();
        let answer = response
            .into_body()
            .collect()
            .await
            .map_err(|err| err.to_string())?
            .to_bytes();
        let done = Instant::now();
        let ok = status == StatusCode::OK
            && memchr_find(&answer, br#""isError":false"#)
            && memchr_find(&answer, b"alpha");
        if sent < measure_from {
            continue;
        }
        if ok {
            tally.latencies.push(done - sent);
        } else {
            tally.errors += 1;
            tally
                .first_error
                .get_or_insert_with(|| format!("{status}: {}", String::from_utf8_lossy(&answer)));
        }
    }
}

fn memchr_find(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
