//! The code-mode endpoint: run code whose SDK calls are relayed back to the runtime over the
//! same connection.
//!
//! `GET /v1/sessions/{session_id}/code-mode` with the bearer token and
//! `Connection: upgrade`, `Upgrade: cy-sdk/1`; the server answers `101` and both sides then
//! write one JSON object per line on the raw connection:
//!
//! * runtime → server, first: an [`ExecuteRequest`];
//! * server → runtime: `{"call": {"id": n, "request": {...}}}` for each SDK request the code
//!   makes (its token already checked here), and last `{"done": <ShellResult>}` or
//!   `{"refused": <ErrorReply>}`;
//! * runtime → server: `{"reply": {"id": n, "response": {"ok": ...} | {"error": "..."}}}`.
//!
//! The socket the code talks to is opened here, next to the code; the tools run in the runtime,
//! under its context. Closing the connection kills the run.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::header::{CONNECTION, UPGRADE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use cy_tools::{
    BoxFuture, CancellationToken, CodeExecutor, CodeOptions, SdkCalls, ServiceError,
    ServiceErrorKind,
};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use super::execute::{ServerState, refusal, refuse, workspace};
use crate::code_mode::broker::Broker;
use crate::executor::wire::{CODE_MODE_PROTOCOL, ErrorReply, ExecuteRequest};

/// `GET /v1/sessions/{session_id}/code-mode` (an upgrade).
pub(super) async fn code_mode(
    State(state): State<Arc<ServerState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(session_id): Path<String>,
    mut request: Request,
) -> Response {
    if let Some(refused) = refusal(&state, request.headers(), peer, &session_id) {
        return refused;
    }
    if request.headers().get(UPGRADE).and_then(|v| v.to_str().ok()) != Some(CODE_MODE_PROTOCOL) {
        return refuse(
            StatusCode::BAD_REQUEST,
            ServiceErrorKind::InvalidInput,
            format!(
                "this endpoint is an upgrade: send `Connection: upgrade` and `Upgrade: {CODE_MODE_PROTOCOL}`"
            ),
        );
    }
    let Ok(permit) = state.runs.clone().try_acquire_owned() else {
        return refuse(
            StatusCode::TOO_MANY_REQUESTS,
            ServiceErrorKind::Unavailable,
            format!(
                "this server is already running {} runs at once, its limit; wait for a run to finish, then retry",
                state.max_concurrent_runs
            ),
        );
    };
    let executor = match workspace(&state, &session_id) {
        Ok(executor) => executor,
        Err(err) => return refuse(StatusCode::INTERNAL_SERVER_ERROR, err.kind(), err.message()),
    };
    let upgrade = hyper::upgrade::on(&mut request);
    let max_line = state.max_body_bytes;
    tokio::spawn(async move {
        let _permit = permit;
        match upgrade.await {
            Ok(upgraded) => {
                tracing::info!(%peer, session = %session_id, "code-mode run started");
                serve(TokioIo::new(upgraded), &executor, max_line).await;
                tracing::info!(%peer, session = %session_id, "code-mode run ended");
            }
            Err(err) => tracing::warn!(%peer, "code-mode upgrade failed: {err}"),
        }
    });
    let mut response = StatusCode::SWITCHING_PROTOCOLS.into_response();
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("upgrade"));
    response
        .headers_mut()
        .insert(UPGRADE, HeaderValue::from_static(CODE_MODE_PROTOCOL));
    response
}

/// Relays SDK requests to the runtime as `call` lines and waits for the matching `reply`.
struct Relay {
    out: mpsc::UnboundedSender<Value>,
    pending: Mutex<HashMap<u64, oneshot::Sender<Value>>>,
    next: AtomicU64,
}

impl SdkCalls for Relay {
    fn call(&self, request: Value) -> BoxFuture<'_, Value> {
        Box::pin(async move {
            let id = self.next.fetch_add(1, Ordering::SeqCst);
            let (tx, rx) = oneshot::channel();
            self.pending
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(id, tx);
            let gone = || json!({"error": "the runtime that started this run is gone; the call was not made"});
            if self
                .out
                .send(json!({"call": {"id": id, "request": request}}))
                .is_err()
            {
                return gone();
            }
            rx.await.unwrap_or_else(|_| gone())
        })
    }
}

async fn serve<S>(stream: S, executor: &dyn CodeExecutor, max_line: usize)
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let (read, mut write) = tokio::io::split(stream);
    let mut reader = BufReader::new(read);
    let (out, mut outgoing) = mpsc::unbounded_channel::<Value>();
    let relay = Arc::new(Relay {
        out: out.clone(),
        pending: Mutex::new(HashMap::new()),
        next: AtomicU64::new(1),
    });
    let final_line = async {
        let request = match read_line(&mut reader, max_line).await {
            Some(line) => serde_json::from_slice::<ExecuteRequest>(&line).map_err(|err| {
                ServiceError::new(
                    ServiceErrorKind::InvalidInput,
                    format!("the first line is not an execute request ({err}); send JSON with `code`, `filename` and optionally `timeout_ms`"),
                )
            }),
            None => return None,
        };
        let request = match request {
            Ok(request) => request,
            Err(err) => return Some(json!({"refused": ErrorReply::from_error(&err)})),
        };
        let broker = match Broker::open(relay.clone(), max_line) {
            Ok(broker) => broker,
            Err(err) => return Some(json!({"refused": ErrorReply::from_error(&err)})),
        };
        let cancel = CancellationToken::new();
        let options = CodeOptions {
            filename: request.filename,
            timeout: request.timeout_ms.map(Duration::from_millis),
            cancel: cancel.clone(),
            env: broker.env(),
            ..CodeOptions::default()
        };
        let replies = async {
            while let Some(line) = read_line(&mut reader, max_line).await {
                let Ok(reply) = serde_json::from_slice::<Value>(&line) else {
                    continue;
                };
                let id = reply["reply"]["id"].as_u64().unwrap_or_default();
                let sender = relay
                    .pending
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .remove(&id);
                if let Some(sender) = sender {
                    let _ = sender.send(reply["reply"]["response"].clone());
                }
            }
        };
        let outcome = tokio::select! {
            outcome = executor.execute(&request.code, options) => outcome,
            // The runtime closed the connection: dropping the run kills it.
            () = replies => { cancel.cancel(); return None; }
        };
        drop(broker);
        Some(match outcome {
            Ok(result) => json!({"done": result}),
            Err(err) => json!({"refused": ErrorReply::from_error(&err)}),
        })
    };
    let writer = async {
        while let Some(line) = outgoing.recv().await {
            let mut bytes = serde_json::to_vec(&line).unwrap_or_default();
            bytes.push(b'\n');
            if write.write_all(&bytes).await.is_err() {
                return;
            }
            if line.get("done").is_some() || line.get("refused").is_some() {
                let _ = write.shutdown().await;
                return;
            }
        }
    };
    let run = async {
        if let Some(line) = final_line.await {
            let _ = out.send(line);
        }
        drop(out);
    };
    tokio::join!(run, writer);
}

/// One line of at most `max` bytes, without its newline; `None` at the end of the stream or
/// on a line too long.
pub(crate) async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    max: usize,
) -> Option<Vec<u8>> {
    let mut line = Vec::new();
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    match reader.take(limit).read_until(b'\n', &mut line).await {
        Ok(0) | Err(_) => None,
        Ok(_) if line.last() == Some(&b'\n') => {
            line.pop();
            Some(line)
        }
        Ok(_) => None,
    }
}
