//! `Broker`: the SDK channel of one execution.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cy_tools::{SdkCalls, ServiceError, ServiceErrorKind};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::task::{JoinHandle, JoinSet};

use super::protocol;
use super::{CY_SDK_PY, SOCKET_VAR, TOKEN_VAR};

struct State {
    calls: Arc<dyn SdkCalls>,
    token: String,
    max_line: usize,
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
    /// Opens the channel and starts serving it: requests whose token matches go to `calls`;
    /// request lines over `max_line` bytes are refused.
    pub(crate) fn open(calls: Arc<dyn SdkCalls>, max_line: usize) -> Result<Broker, ServiceError> {
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
            calls,
            token: token.clone(),
            max_line,
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
    pub(crate) fn env(&self) -> Vec<(String, String)> {
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
    let max = state.max_line;
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
    let mut request: Value = match serde_json::from_slice(line) {
        Ok(request @ Value::Object(_)) => request,
        Ok(_) | Err(_) => {
            return protocol::error(
                "the request is not a JSON object of the form {\"token\", \"tool\", \"arguments\"} on one line",
            );
        }
    };
    let token = request
        .as_object_mut()
        .and_then(|o| o.remove("token"))
        .unwrap_or(Value::Null);
    let token = token.as_str().unwrap_or_default();
    if !same(token.as_bytes(), state.token.as_bytes()) {
        return protocol::error(
            "the SDK token is not valid for this execution: use the `CY_SDK_TOKEN` the run was started with (a token serves one execution only)",
        );
    }
    state.calls.call(request).await
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
