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
    BoxFuture, CancellationToken,
    services::{CodeExecutor, CodeOptions, SdkCalls, ServiceError, ServiceErrorKind},
};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, WriteHalf};
use tokio::sync::{mpsc, oneshot};

use super::execute::{ServerState, refusal, refuse, workspace};
use crate::executor::wire::{CODE_MODE_PROTOCOL, ErrorReply, ExecuteRequest, read_line};
use cy_tools_code_mode::Broker;
use cy_tools_sandbox::executor::LocalExecutor;

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

/// How long the runtime has, once upgraded, to send the run's request before the connection
/// (and its run slot) is given up.
const FIRST_LINE_TIMEOUT: Duration = Duration::from_secs(30);

/// How long the last line and the close may take once the run is over: a runtime that stopped
/// reading must not hold the run slot.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);

/// Serves one code-mode connection to its end. Every way it can end (the runtime closing before
/// the request or during the run, a malformed request, the run's own end) ends the writer too,
/// so the caller's run slot is given back, and a run still going is dropped, which kills it.
async fn serve<S>(stream: S, executor: &LocalExecutor, max_line: usize)
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let (read, write) = tokio::io::split(stream);
    let mut reader = BufReader::new(read);
    let (out, outgoing) = mpsc::unbounded_channel::<Value>();
    let relay = Arc::new(Relay {
        out,
        pending: Mutex::new(HashMap::new()),
        next: AtomicU64::new(1),
    });
    // The relay (and so the call lines' sender) lives as long as this function; the writer is
    // told the run is over by `done`, not by the channel closing.
    let (done_tx, done_rx) = oneshot::channel::<Option<Value>>();
    let run = async {
        let last = run_relayed(&mut reader, executor, &relay, max_line).await;
        let _ = done_tx.send(last);
    };
    tokio::join!(run, write_lines(write, outgoing, done_rx));
}

/// Reads the request, runs it with the SDK channel relayed, and gives the line that ends the
/// exchange: `done` or `refused`, or `None` when the runtime went away first.
async fn run_relayed<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    executor: &LocalExecutor,
    relay: &Arc<Relay>,
    max_line: usize,
) -> Option<Value> {
    let first = tokio::time::timeout(FIRST_LINE_TIMEOUT, read_line(reader, max_line)).await;
    let request = match first {
        Ok(Some(line)) => serde_json::from_slice::<ExecuteRequest>(&line).map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!("the first line is not an execute request ({err}); send JSON with `code` and optionally `filename` and `timeout_ms`"),
            )
        }),
        Ok(None) => return None,
        Err(_) => Err(ServiceError::new(
            ServiceErrorKind::TimedOut,
            format!(
                "no execute request arrived within {} s of the upgrade; send it as the first line right away",
                FIRST_LINE_TIMEOUT.as_secs()
            ),
        )),
    };
    let request = match request {
        Ok(request) => request,
        Err(err) => return Some(json!({"refused": ErrorReply::from_error(&err)})),
    };
    // A child's run: in its folder of the workspace.
    let scoped;
    let executor: &dyn CodeExecutor = match request.scope.as_deref() {
        None => executor,
        Some(scope) => match executor.scoped(scope) {
            Ok(narrower) => {
                scoped = narrower;
                &scoped
            }
            Err(err) => return Some(json!({"refused": ErrorReply::from_error(&err)})),
        },
    };
    // A runtime that sends no module (an older one) gets an empty `cy_sdk.tools`.
    let tools: Arc<str> = request.sdk_module.unwrap_or_default().into();
    let opened = Broker::for_module(relay.clone(), max_line, &tools);
    let broker = match opened {
        Ok(broker) => broker,
        Err(err) => return Some(json!({"refused": ErrorReply::from_error(&err)})),
    };
    let cancel = CancellationToken::new();
    let mut options = CodeOptions {
        filename: request.filename,
        timeout: request.timeout_ms.map(Duration::from_millis),
        cancel: cancel.clone(),
        ..CodeOptions::default()
    };
    broker.prepare(&mut options);
    let replies = async {
        while let Some(line) = read_line(reader, max_line).await {
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
        () = replies => {
            cancel.cancel();
            return None;
        }
    };
    drop(broker);
    Some(match outcome {
        Ok(result) => json!({"done": result}),
        Err(err) => json!({"refused": ErrorReply::from_error(&err)}),
    })
}

/// Writes the relay's call lines until the run is over, then its last line, then closes. A
/// write the runtime does not take never outlasts the run, and the close is bounded.
async fn write_lines<W: AsyncWrite>(
    mut write: WriteHalf<W>,
    mut outgoing: mpsc::UnboundedReceiver<Value>,
    mut done: oneshot::Receiver<Option<Value>>,
) {
    let finish = |mut write: WriteHalf<W>, last: Option<Value>| async move {
        let close = async {
            if let Some(last) = last {
                let _ = write.write_all(&line_bytes(&last)).await;
            }
            let _ = write.shutdown().await;
        };
        let _ = tokio::time::timeout(CLOSE_TIMEOUT, close).await;
    };
    loop {
        let last = tokio::select! {
            biased;
            last = &mut done => last,
            Some(line) = outgoing.recv() => {
                let bytes = line_bytes(&line);
                tokio::select! {
                    written = write.write_all(&bytes) => match written {
                        Ok(()) => continue,
                        Err(_) => return,
                    },
                    last = &mut done => last,
                }
            }
        };
        return finish(write, last.ok().flatten()).await;
    }
}

fn line_bytes(value: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
