//! The execute endpoint: check the request, run the code in the session's workspace, answer.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use cy_tools::{
    CancellationToken,
    services::{CodeExecutor, CodeOptions, ServiceError, ServiceErrorKind},
};
use serde::Serialize;
use tokio::sync::Semaphore;

use super::admission::{Admitted, Expected, admit};
use super::auth::Token;
use crate::executor::wire::{ErrorReply, ExecuteRequest, check_session_id};
use cy_tools_sandbox::ExecLimits;
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::executor::{LocalExecutor, PythonRunner};

/// What every request handler shares.
pub(super) struct ServerState {
    pub(super) root: PathBuf,
    pub(super) token: Token,
    pub(super) token_env: String,
    pub(super) command: String,
    pub(super) limits: ExecLimits,
    pub(super) max_body_bytes: usize,
    pub(super) idle_timeout: Duration,
    pub(super) max_concurrent_runs: usize,
    pub(super) runs: Arc<Semaphore>,
    /// The sandbox endpoint's workspace views, kept between requests.
    pub(super) views: super::views::Views,
}

/// How `execute` names its request in a refusal.
const EXPECTED: Expected = Expected {
    what: "an execute request",
    shape: "send JSON with `code` and optionally `filename` and `timeout_ms`",
    smaller: "send less code at once, for example by writing data to files in smaller runs",
};

/// `POST /v1/sessions/{session_id}/execute`.
///
/// The run happens inside this future: when the client closes the connection, the server
/// drops the future, and dropping the run kills it with every process it started.
pub(super) async fn execute(
    State(state): State<Arc<ServerState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(session_id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let admitted = admit::<ExecuteRequest>(&state, &headers, peer, &session_id, body, &EXPECTED);
    let Admitted { request, _permit } = match admitted.await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };

    let executor = match workspace(&state, &session_id) {
        Ok(executor) => executor,
        Err(err) => {
            tracing::error!(%peer, session = %session_id, "cannot open the workspace: {err}");
            return refuse(StatusCode::INTERNAL_SERVER_ERROR, err.kind(), err.message());
        }
    };
    let executor = match request.scope.as_deref() {
        None => executor,
        Some(scope) => match executor.scoped(scope) {
            Ok(executor) => executor,
            Err(err) => return refuse(StatusCode::UNPROCESSABLE_ENTITY, err.kind(), err.message()),
        },
    };
    let mut log = RunLog {
        peer,
        session: session_id,
        filename: request
            .filename
            .clone()
            .unwrap_or_else(|| "(a fresh file)".to_string()),
        started: Instant::now(),
        finished: false,
    };
    tracing::info!(
        %peer,
        session = %log.session,
        filename = %log.filename,
        code_bytes = request.code.len(),
        timeout_ms = request.timeout_ms,
        "run started"
    );
    let options = CodeOptions {
        filename: request.filename,
        timeout: request.timeout_ms.map(Duration::from_millis),
        cancel: CancellationToken::new(),
        ..CodeOptions::default()
    };
    let outcome = executor.execute(&request.code, options).await;
    log.finished = true;
    match outcome {
        Ok(result) => {
            tracing::info!(
                %peer,
                session = %log.session,
                filename = %log.filename,
                exit_code = result.exit_code,
                timed_out = result.timed_out,
                truncated = result.truncated,
                elapsed_ms = log.started.elapsed().as_millis() as u64,
                "run finished"
            );
            json(StatusCode::OK, &result)
        }
        Err(err) => {
            tracing::info!(
                %peer,
                session = %log.session,
                filename = %log.filename,
                elapsed_ms = log.started.elapsed().as_millis() as u64,
                "run refused: {err}"
            );
            refuse(StatusCode::UNPROCESSABLE_ENTITY, err.kind(), err.message())
        }
    }
}

/// The `429` answer of a server already running its most runs at once.
pub(super) fn busy(state: &ServerState) -> Response {
    refuse(
        StatusCode::TOO_MANY_REQUESTS,
        ServiceErrorKind::Unavailable,
        format!(
            "this server is already running {} at once, its limit; wait for a run to finish, then retry",
            if state.max_concurrent_runs == 1 {
                "1 run".to_string()
            } else {
                format!("{} runs", state.max_concurrent_runs)
            }
        ),
    )
}

/// `GET /v1/health`: the server is up and serving; no token needed, nothing revealed.
pub(super) async fn health() -> Response {
    json(StatusCode::OK, &serde_json::json!({"status": "ok"}))
}

/// The session's workspace and an executor on it.
pub(super) fn workspace(
    state: &ServerState,
    session_id: &str,
) -> Result<LocalExecutor, ServiceError> {
    let sandbox = LocalSandbox::new(state.root.join(session_id)).map_err(|err| {
        ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!("the server cannot open the workspace of session `{session_id}`: {err}"),
        )
    })?;
    let env = sandbox
        .with_limits(state.limits.clone())
        .try_env()
        .map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::Unavailable,
                format!("the server cannot open the workspace of session `{session_id}`: {err}"),
            )
        })?;
    LocalExecutor::new(Arc::new(env))
        .with_python(PythonRunner::for_limits(&state.limits))
        .with_command(state.command.clone())
}

/// Logs a run that ended without an answer: its client went away, or the server is shutting
/// down, and the run was killed.
struct RunLog {
    peer: SocketAddr,
    session: String,
    filename: String,
    started: Instant,
    finished: bool,
}

impl Drop for RunLog {
    fn drop(&mut self) {
        if !self.finished {
            tracing::info!(
                peer = %self.peer,
                session = %self.session,
                filename = %self.filename,
                elapsed_ms = self.started.elapsed().as_millis() as u64,
                "run stopped before it finished (its client closed the connection, or the server is shutting down), so it was killed with every process it started"
            );
        }
    }
}

/// What every session endpoint checks first, before reading a body: the bearer token (401),
/// then the session id (400). `Some` is the refusal to send.
pub(super) fn refusal(
    state: &ServerState,
    headers: &HeaderMap,
    peer: SocketAddr,
    session_id: &str,
) -> Option<Response> {
    if !state.token.admits(headers) {
        tracing::warn!(%peer, session = %session_id, "refused: missing or wrong token");
        return Some(refuse(
            StatusCode::UNAUTHORIZED,
            ServiceErrorKind::PermissionDenied,
            format!(
                "missing or wrong bearer token; send `Authorization: Bearer <token>` with the token the server was started with (its `{}`)",
                state.token_env
            ),
        ));
    }
    if let Err(err) = check_session_id(session_id) {
        tracing::warn!(%peer, "refused: {err}");
        return Some(refuse(StatusCode::BAD_REQUEST, err.kind(), err.message()));
    }
    None
}

pub(super) fn refuse(
    status: StatusCode,
    kind: ServiceErrorKind,
    message: impl Into<String>,
) -> Response {
    let error = ServiceError::new(kind, message);
    json(status, &ErrorReply::from_error(&error))
}

/// An answer whose body is JSON already.
pub(super) fn json_bytes(status: StatusCode, bytes: Vec<u8>) -> Response {
    (
        status,
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        bytes,
    )
        .into_response()
}

pub(super) fn json(status: StatusCode, value: &impl Serialize) -> Response {
    match serde_json::to_vec(value) {
        Ok(bytes) => (
            status,
            [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
            bytes,
        )
            .into_response(),
        Err(err) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("could not encode the answer: {err}"),
        )
            .into_response(),
    }
}
