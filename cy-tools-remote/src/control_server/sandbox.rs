//! The sandbox endpoint: a [`RemoteSandbox`](crate::sandbox::RemoteSandbox)'s file,
//! command and process operations, done with the local sandbox in the named workspace.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use cy_tools::services::{Sandbox, ServiceError, ServiceErrorKind};
use serde_json::Value;

use super::admission::{Admitted, Expected, admit};
use super::clamp;
use super::execute::{ServerState, json, refuse};
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
    headers: HeaderMap,
    body: Body,
) -> Response {
    let admitted = admit::<SandboxRequest>(&state, &headers, peer, &name, body, &EXPECTED);
    let Admitted { request, _permit } = match admitted.await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    let op = request.op.name();
    let started = Instant::now();
    let outcome = match view(&state, &name, request.scope.as_deref()) {
        Ok(lease) => perform(&lease, &state, request.op)
            .await
            .map_err(|err| (StatusCode::UNPROCESSABLE_ENTITY, err)),
        Err(refused) => Err(refused),
    };
    let elapsed_ms = started.elapsed().as_millis() as u64;
    match outcome {
        Ok(value) => {
            tracing::info!(%peer, workspace = %name, scope = ?request.scope, op, elapsed_ms, "sandbox operation done");
            json(StatusCode::OK, &value)
        }
        Err((status, err)) => {
            tracing::info!(%peer, workspace = %name, scope = ?request.scope, op, elapsed_ms, "sandbox operation refused: {err}");
            refuse(status, err.kind(), err.message())
        }
    }
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

async fn perform(lease: &Lease, state: &ServerState, op: SandboxOp) -> Result<Value, ServiceError> {
    let env = &lease.env;
    match op {
        SandboxOp::Read { path, max_len } => {
            let (data, size) = env.read_head(&path, range_len(max_len)?).await?;
            to_value(&Chunk {
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
            to_value(&Chunk {
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
            value(if durable {
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
            value(env.append_staged(staging, offset, decode(&data)?).await)
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
            value(committed)
        }
        SandboxOp::Abandon { upload } => {
            check_upload(&upload)?;
            let staging = staging_name(&upload);
            let abandoned = env.abandon_staged(staging.clone()).await;
            if abandoned.is_ok() {
                lease.unstaged(&staging);
            }
            value(abandoned)
        }
        SandboxOp::Remove { path } => value(env.remove(&path).await),
        SandboxOp::Stat { path } => value(env.stat(&path).await),
        SandboxOp::ListDir { path } => value(env.list_dir(&path).await),
        SandboxOp::Walk { path, options } => value(env.walk(&path, options.into()).await),
        SandboxOp::Search { path, options } => value(env.search(&path, options.into()).await),
        SandboxOp::Exec { command, options } => {
            let options = clamp::exec_options(options.into_options()?, &state.limits);
            value(env.exec(&command, options).await)
        }
        SandboxOp::Start { command, options } => {
            let options = clamp::exec_options(options.into_options()?, &state.limits);
            value(env.processes()?.start(&command, options).await)
        }
        SandboxOp::Status { id } => value(env.processes()?.status(&id).await),
        SandboxOp::Output { id } => value(env.processes()?.output(&id).await),
        SandboxOp::WriteStdin { id, data } => {
            value(env.processes()?.write_stdin(&id, decode(&data)?).await)
        }
        SandboxOp::Kill { id } => value(env.processes()?.kill(&id).await),
        SandboxOp::List {} => value(env.processes()?.list().await),
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

fn value<T: serde::Serialize>(result: Result<T, ServiceError>) -> Result<Value, ServiceError> {
    result.and_then(|v| to_value(&v))
}

fn to_value(value: &impl serde::Serialize) -> Result<Value, ServiceError> {
    serde_json::to_value(value).map_err(|err| {
        ServiceError::new(
            ServiceErrorKind::Other,
            format!("could not encode the answer: {err}"),
        )
    })
}
