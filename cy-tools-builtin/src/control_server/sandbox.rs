//! The sandbox endpoint: a [`RemoteSandbox`](crate::remote_sandbox::RemoteSandbox)'s file,
//! command and process operations, done with the local sandbox in the named workspace.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::Body;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use cy_tools::{Sandbox, ServiceError, ServiceErrorKind};
use serde_json::Value;

use super::admission::{Admitted, Expected, admit};
use super::execute::{ServerState, json, refuse};
use crate::remote_sandbox::wire::{
    Chunk, MAX_RANGE_BYTES, SandboxOp, SandboxRequest, check_upload, decode, encode, staging_name,
};
use crate::{LocalSandbox, SessionEnv};

/// Workspace views kept between requests, by workspace and scope: opening a view costs
/// several system calls and its commands' confinement is built once per view, so a view is
/// reused while its session works. A view that started background processes is kept until the
/// server stops, so they live on between requests; others make room when there are
/// [`KEPT_VIEWS`].
#[derive(Default)]
pub(super) struct Workspaces(Mutex<HashMap<String, Kept>>);

struct Kept {
    env: SessionEnv,
    has_processes: bool,
}

/// Views kept at most, besides those with background processes; each holds two descriptors.
const KEPT_VIEWS: usize = 128;

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
    let outcome = match view(&state, &name, request.scope.as_deref(), &request.op) {
        Ok(env) => perform(&env, request.op).await,
        Err(err) => Err(err),
    };
    let elapsed_ms = started.elapsed().as_millis() as u64;
    match outcome {
        Ok(value) => {
            tracing::info!(%peer, workspace = %name, scope = ?request.scope, op, elapsed_ms, "sandbox operation done");
            json(StatusCode::OK, &value)
        }
        Err(err) => {
            tracing::info!(%peer, workspace = %name, scope = ?request.scope, op, elapsed_ms, "sandbox operation refused: {err}");
            refuse(StatusCode::UNPROCESSABLE_ENTITY, err.kind(), err.message())
        }
    }
}

/// The view of workspace `name` (narrowed to `scope`) the operation works in: the kept one,
/// else a new one, kept.
fn view(
    state: &ServerState,
    name: &str,
    scope: Option<&str>,
    op: &SandboxOp,
) -> Result<SessionEnv, ServiceError> {
    let key = match scope {
        Some(scope) => format!("{name}/{scope}"),
        None => name.to_string(),
    };
    let starts = matches!(op, SandboxOp::Start { .. });
    let mut kept = state.workspaces.0.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(view) = kept.get_mut(&key) {
        view.has_processes |= starts;
        return Ok(view.env.clone());
    }
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
    let env = match scope {
        Some(scope) => env.scoped_env(scope)?,
        None => env,
    };
    if kept.iter().filter(|(_, v)| !v.has_processes).count() >= KEPT_VIEWS {
        let idle = kept
            .iter()
            .find(|(_, v)| !v.has_processes)
            .map(|(k, _)| k.clone());
        if let Some(idle) = idle {
            kept.remove(&idle);
        }
    }
    kept.insert(
        key,
        Kept {
            env: env.clone(),
            has_processes: starts,
        },
    );
    Ok(env)
}

async fn perform(env: &SessionEnv, op: SandboxOp) -> Result<Value, ServiceError> {
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
            value(
                env.append_staged(staging_name(&upload), offset, decode(&data)?)
                    .await,
            )
        }
        SandboxOp::Commit {
            upload,
            path,
            durable,
        } => {
            check_upload(&upload)?;
            value(
                env.commit_staged(staging_name(&upload), path, durable)
                    .await,
            )
        }
        SandboxOp::Abandon { upload } => {
            check_upload(&upload)?;
            value(env.abandon_staged(staging_name(&upload)).await)
        }
        SandboxOp::Remove { path } => value(env.remove(&path).await),
        SandboxOp::Stat { path } => value(env.stat(&path).await),
        SandboxOp::ListDir { path } => value(env.list_dir(&path).await),
        SandboxOp::Walk { path, options } => value(env.walk(&path, options.into()).await),
        SandboxOp::Search { path, options } => value(env.search(&path, options.into()).await),
        SandboxOp::Exec { command, options } => {
            value(env.exec(&command, options.into_options()?).await)
        }
        SandboxOp::Start { command, options } => {
            let options = options.into_options()?;
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
