//! The sandbox endpoint: a [`RemoteSandbox`](crate::sandbox::RemoteSandbox)'s file,
//! command and process operations, done with the local sandbox in the named workspace.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use cy_tools::services::{Sandbox, ServiceError, ServiceErrorKind};
use serde::Serialize;

use super::admission::{Admitted, Expected, admit};
use super::batch;
use super::clamp;
use super::execute::{ServerState, json_bytes, refuse};
use super::views::Lease;
use crate::sandbox::wire::{
    Chunk, MAX_RANGE_BYTES, SandboxOp, SandboxRequest, check_upload, decode, encode, staging_name,
};
use cy_tools_sandbox::LocalSandbox;

/// How the sandbox endpoint names its request in a refusal.
const EXPECTED: Expected = Expected {
    what: "a sandbox request",
    shape: "send JSON with `op` (an object with its `kind`) and optionally `scope`",
    smaller: "send file data in smaller chunks (`RemoteSandbox::with_chunk_bytes`)",
};

/// `POST /v1/sessions/{name}/sandbox`.
///
/// Like `execute`: the operation runs inside this future, so a client that closes its
/// connection stops it (an `exec` is killed with every process it started).
pub(super) async fn sandbox(
    State(state): State<Arc<ServerState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(name): Path<String>,
    request: Request,
) -> Response {
    // The headers are read where they are, not copied out by an extractor.
    let (parts, body) = request.into_parts();
    let admitted = admit::<SandboxRequest>(&state, &parts.headers, peer, &name, body, &EXPECTED);
    let Admitted { request, _permit } = match admitted.await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    if let SandboxOp::Batch { ops } = request.op {
        return batch::answer(&state, peer, &name, request.scope, ops).await;
    }
    let op = request.op.name();
    let started = Instant::now();
    let outcome = perform_in(&state, &name, request.scope.as_deref(), request.op).await;
    let elapsed_ms = started.elapsed().as_millis() as u64;
    match outcome {
        Ok(value) => {
            tracing::info!(%peer, workspace = %name, scope = ?request.scope, op, elapsed_ms, "sandbox operation done");
            json_bytes(StatusCode::OK, value)
        }
        Err((status, err)) => {
            tracing::info!(%peer, workspace = %name, scope = ?request.scope, op, elapsed_ms, "sandbox operation refused: {err}");
            refuse(status, err.kind(), err.message())
        }
    }
}

/// Does `op` in workspace `name` (narrowed to `scope`): its answer as JSON, or the status and
/// error to refuse it with.
pub(super) async fn perform_in(
    state: &ServerState,
    name: &str,
    scope: Option<&str>,
    op: SandboxOp,
) -> Result<Vec<u8>, (StatusCode, ServiceError)> {
    let lease = view(state, name, scope)?;
    perform(&lease, state, op)
        .await
        .map_err(|err| (StatusCode::UNPROCESSABLE_ENTITY, err))
}

/// The view of workspace `name` (narrowed to `scope`) the operation works in: the kept one,
/// else a new one, kept (see [`super::views`]).
fn view(
    state: &ServerState,
    name: &str,
    scope: Option<&str>,
) -> Result<Lease, (StatusCode, ServiceError)> {
    let key = match scope {
        Some(scope) => format!("{name}/{scope}"),
        None => name.to_string(),
    };
    state.views.lease(&key, || {
        let cannot = |err: std::io::Error| {
            ServiceError::new(
                ServiceErrorKind::Unavailable,
                format!("the server cannot open the workspace `{name}`: {err}"),
            )
        };
        let env = LocalSandbox::new(state.root.join(name))
            .map_err(cannot)?
            .with_limits(state.limits.clone())
            .try_env()
            .map_err(cannot)?;
        match scope {
            Some(scope) => env.scoped_env(scope),
            None => Ok(env),
        }
    })
}

/// Does `op` in the leased view; its answer as JSON, written straight from the value (no
/// intermediate `serde_json::Value`).
async fn perform(
    lease: &Lease,
    state: &ServerState,
    op: SandboxOp,
) -> Result<Vec<u8>, ServiceError> {
    let env = &lease.env;
    match op {
        SandboxOp::Read { path, max_len } => {
            let (data, size) = env.read_head(&path, range_len(max_len)?).await?;
            to_json(&Chunk {
                data: encode(&data),
                size: Some(size),
            })
        }
        SandboxOp::ReadRange {
            path,
            offset,
            max_len,
        } => {
            let data = env.read_range(&path, offset, range_len(max_len)?).await?;
            to_json(&Chunk {
                data: encode(&data),
                size: None,
            })
        }
        SandboxOp::Write {
            path,
            data,
            durable,
        } => {
            let data = decode(&data)?;
            json(if durable {
                env.write(&path, data).await
            } else {
                env.write_scratch(&path, data).await
            })
        }
        SandboxOp::Upload {
            upload,
            offset,
            data,
        } => {
            check_upload(&upload)?;
            let staging = staging_name(&upload);
            lease.staged(&staging);
            json(env.append_staged(staging, offset, decode(&data)?).await)
        }
        SandboxOp::Commit {
            upload,
            path,
            durable,
        } => {
            check_upload(&upload)?;
            let staging = staging_name(&upload);
            let committed = env.commit_staged(staging.clone(), path, durable).await;
            if committed.is_ok() {
                lease.unstaged(&staging);
            }
            json(committed)
        }
        SandboxOp::Abandon { upload } => {
            check_upload(&upload)?;
            let staging = staging_name(&upload);
            let abandoned = env.abandon_staged(staging.clone()).await;
            if abandoned.is_ok() {
                lease.unstaged(&staging);
            }
            json(abandoned)
        }
        SandboxOp::Remove { path } => json(env.remove(&path).await),
        SandboxOp::Stat { path } => json(env.stat(&path).await),
        SandboxOp::ListDir { path } => json(env.list_dir(&path).await),
        SandboxOp::Walk { path, options } => json(env.walk(&path, options.into()).await),
        SandboxOp::Search { path, options } => json(env.search(&path, options.into()).await),
        SandboxOp::Exec { command, options } => {
            let options = clamp::exec_options(options.into_options()?, &state.limits);
            json(env.exec(&command, options).await)
        }
        SandboxOp::Start { command, options } => {
            let options = clamp::exec_options(options.into_options()?, &state.limits);
            json(env.processes()?.start(&command, options).await)
        }
        SandboxOp::Status { id } => json(env.processes()?.status(&id).await),
        SandboxOp::Output { id } => json(env.processes()?.output(&id).await),
        SandboxOp::WriteStdin { id, data } => {
            json(env.processes()?.write_stdin(&id, decode(&data)?).await)
        }
        SandboxOp::Kill { id } => json(env.processes()?.kill(&id).await),
        SandboxOp::List {} => json(env.processes()?.list().await),
        // Checked before any view is opened (see `batch::answer`); one inside a batch is
        // refused there too.
        SandboxOp::Batch { .. } => Err(ServiceError::new(
            ServiceErrorKind::InvalidInput,
            "a batch cannot hold another batch; put its operations in the outer one",
        )),
    }
}

fn range_len(max_len: usize) -> Result<usize, ServiceError> {
    if max_len > MAX_RANGE_BYTES {
        return Err(ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!(
                "a read of {max_len} bytes at once is over this server's {MAX_RANGE_BYTES}; read in smaller chunks"
            ),
        ));
    }
    Ok(max_len)
}

fn json<T: Serialize>(result: Result<T, ServiceError>) -> Result<Vec<u8>, ServiceError> {
    result.and_then(|v| to_json(&v))
}

fn to_json(value: &impl Serialize) -> Result<Vec<u8>, ServiceError> {
    serde_json::to_vec(value).map_err(|err| {
        ServiceError::new(
            ServiceErrorKind::Other,
            format!("could not encode the answer: {err}"),
        )
    })
}
