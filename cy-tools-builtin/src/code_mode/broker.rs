//! `Broker`: the SDK channel of one execution.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use cy_tools::{
    CancellationToken, ExecutionLog, ServiceError, ServiceErrorKind, ToolCall, Toolset,
    execute_recorded,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::task::{JoinHandle, JoinSet};

use super::approval::{Approval, ApprovalHook, ApprovalRequest};
use super::limits::CodeModeLimits;
use super::protocol::{self, Request};
use super::{CY_SDK_PY, SOCKET_VAR, TOKEN_VAR};

/// What one execution's channel serves: the session's tools, log and rules.
pub(super) struct Served {
    pub tools: Toolset,
    pub log: Option<Arc<dyn ExecutionLog>>,
    pub session_id: String,
    pub parent_call: Option<String>,
    pub limits: CodeModeLimits,
    pub approval: Arc<dyn ApprovalHook>,
    pub cancel: CancellationToken,
}

struct State {
    served: Served,
    token: String,
    calls: AtomicUsize,
}

/// The SDK channel of one execution: a Unix socket in a private folder (mode `0700`) with the
/// `cy_sdk` module beside it, and a random one-time token. Dropping it stops the server, closes
/// every connection and removes the folder.
pub(crate) struct Broker {
    dir: PathBuf,
    socket: PathBuf,
    token: String,
    task: JoinHandle<()>,
}

impl Broker {
    /// Opens the channel and starts serving it.
    pub(super) fn open(served: Served) -> Result<Broker, ServiceError> {
        let token = random_hex(16)?;
        let dir = std::env::temp_dir().join(format!("cy-sdk-{}", random_hex(8)?));
        std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
            .create(&dir)
            .map_err(|err| io_error("create the SDK channel's folder", &dir, &err))?;
        let socket = dir.join("sdk.sock");
        let opened = (|| {
            std::fs::write(dir.join("cy_sdk.py"), CY_SDK_PY)
                .map_err(|err| io_error("write `cy_sdk.py` into", &dir, &err))?;
            UnixListener::bind(&socket).map_err(|err| io_error("listen on", &socket, &err))
        })();
        let listener = match opened {
            Ok(listener) => listener,
            Err(err) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(err);
            }
        };
        let state = Arc::new(State {
            served,
            token: token.clone(),
            calls: AtomicUsize::new(0),
        });
        let task = tokio::spawn(accept(listener, state));
        Ok(Broker {
            dir,
            socket,
            token,
            task,
        })
    }

    /// The variables the code needs: the socket, the token, and `PYTHONPATH` for `cy_sdk`.
    pub(super) fn env(&self) -> Vec<(String, String)> {
        vec![
            (
                SOCKET_VAR.to_string(),
                self.socket.to_string_lossy().into_owned(),
            ),
            (TOKEN_VAR.to_string(), self.token.clone()),
            (
                "PYTHONPATH".to_string(),
                self.dir.to_string_lossy().into_owned(),
            ),
        ]
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        // Aborting the accept task drops its `JoinSet`, which aborts every connection.
        self.task.abort();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn accept(listener: UnixListener, state: Arc<State>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(serve(stream, Arc::clone(&state)));
                }
                Err(err) => {
                    tracing::warn!("the SDK channel stopped accepting connections: {err}");
                    return;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

async fn serve(stream: UnixStream, state: Arc<State>) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let max = state.served.limits.max_payload_bytes;
    let mut line = Vec::new();
    loop {
        line.clear();
        let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
        let n = match (&mut reader).take(limit).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let oversized = n > max && line.last() != Some(&b'\n');
        if oversized && !skip_line(&mut reader).await {
            return;
        }
        let reply = if oversized {
            protocol::error(format!(
                "the request is over the SDK channel's limit of {max} bytes; send less in one call (write large inputs to a file and pass its path)"
            ))
        } else {
            handle(&state, &line).await
        };
        let mut bytes = serde_json::to_vec(&reply).unwrap_or_default();
        bytes.push(b'\n');
        if write.write_all(&bytes).await.is_err() {
            return;
        }
    }
}

/// Discards the rest of an oversized request line, in bounded pieces, so the connection can
/// carry the next one; `false` when the connection ended first.
async fn skip_line(reader: &mut BufReader<tokio::net::unix::OwnedReadHalf>) -> bool {
    let mut piece = Vec::new();
    loop {
        piece.clear();
        match reader.take(64 * 1024).read_until(b'\n', &mut piece).await {
            Ok(0) | Err(_) => return false,
            Ok(_) if piece.last() == Some(&b'\n') => return true,
            Ok(_) => {}
        }
    }
}

async fn handle(state: &State, line: &[u8]) -> Value {
    let request: Request = match serde_json::from_slice(line) {
        Ok(request) => request,
        Err(err) => {
            return protocol::error(format!(
                "the request is not valid JSON of the form {{\"token\", \"tool\", \"arguments\"}}: {err}"
            ));
        }
    };
    if !same(request.token.as_bytes(), state.token.as_bytes()) {
        return protocol::error(
            "the SDK token is not valid for this execution: use the `CY_SDK_TOKEN` the run was started with (a token serves one execution only)",
        );
    }
    let served = &state.served;
    if request.op.as_deref() == Some("tools") {
        return protocol::ok(json!(callable(served)));
    }
    let Some(tool) = request.tool else {
        return protocol::error(
            "the request names no `tool`: send {\"tool\": name, \"arguments\": {...}}, or {\"op\": \"tools\"} to list them",
        );
    };
    if tool == "execute_code" && !served.limits.allow_nesting {
        return protocol::error(
            "`execute_code` cannot be called from code that `execute_code` runs: this session does not allow nesting; do the work in this program instead",
        );
    }
    if served.tools.get(&tool).is_none() {
        return protocol::error(format!(
            "tool `{tool}` is not in this session's toolset; the tools this code may call are {}",
            list(&callable(served))
        ));
    }
    let n = state.calls.fetch_add(1, Ordering::SeqCst);
    if n >= served.limits.max_calls {
        return protocol::error(format!(
            "this execution has made the {} tool calls it may make; do more per call, or split the work over several `execute_code` runs",
            served.limits.max_calls
        ));
    }
    let arguments = request.arguments.unwrap_or_else(|| json!({}));
    let cancel = served.cancel.child_token();
    let timeout = served.limits.call_timeout;
    let run = run_call(served, &tool, arguments, n, &cancel);
    let reply = match tokio::time::timeout(timeout, run).await {
        Ok(reply) => reply,
        Err(_) => {
            cancel.cancel();
            protocol::error(format!(
                "the call to `{tool}` took longer than the per-call limit of {} ms and was stopped; ask for less in one call",
                timeout.as_millis()
            ))
        }
    };
    let size = reply.to_string().len();
    if size > served.limits.max_payload_bytes {
        return protocol::error(format!(
            "the result of `{tool}` is {size} bytes, over the SDK channel's limit of {} bytes; ask for less in one call (a range, a limit), or have the tool write to a file",
            served.limits.max_payload_bytes
        ));
    }
    reply
}

async fn run_call(
    served: &Served,
    tool: &str,
    arguments: Value,
    n: usize,
    cancel: &CancellationToken,
) -> Value {
    let approval = served
        .approval
        .approve(ApprovalRequest {
            session_id: &served.session_id,
            parent_call: served.parent_call.as_deref(),
            tool,
            arguments: &arguments,
        })
        .await;
    if let Approval::Deny(reason) = approval {
        return protocol::error(format!("the call to `{tool}` was denied: {reason}"));
    }
    let id = match &served.parent_call {
        Some(parent) => format!("{parent}/sdk-{}", n + 1),
        None => format!("sdk-{}", n + 1),
    };
    let call = ToolCall::new(id, arguments);
    let result = match &served.log {
        Some(log) => {
            execute_recorded(
                &served.tools,
                &**log,
                &served.session_id,
                served.parent_call.as_deref(),
                tool,
                call,
                cancel,
            )
            .await
        }
        None => served.tools.execute(tool, call, cancel).await,
    };
    protocol::from_result(&result)
}

/// The tools the code may call: the session's, less `execute_code` unless nesting is allowed.
fn callable(served: &Served) -> Vec<&str> {
    served
        .tools
        .names()
        .into_iter()
        .filter(|name| *name != "execute_code" || served.limits.allow_nesting)
        .collect()
}

fn list(names: &[&str]) -> String {
    if names.is_empty() {
        return "none".to_string();
    }
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Compares without stopping at the first difference, so timing does not reveal the token.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn random_hex(bytes: usize) -> Result<String, ServiceError> {
    let mut buf = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::Other,
                format!("could not read `/dev/urandom` for the SDK token: {err}"),
            )
        })?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

fn io_error(what: &str, path: &Path, err: &std::io::Error) -> ServiceError {
    ServiceError::new(
        ServiceErrorKind::Other,
        format!(
            "could not {what} `{}`: {err}; check that the temp folder is writable",
            path.display()
        ),
    )
}
