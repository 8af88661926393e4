//! `Broker`: the SDK channel of one execution.

use std::path::PathBuf;
use std::sync::Arc;

use cy_tools::services::{PassedFd, SdkCalls, ServiceError, ServiceErrorKind};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::task::JoinHandle;

use super::FD_VAR;
use super::protocol;

struct State {
    calls: Arc<dyn SdkCalls>,
    max_line: usize,
}

/// The SDK channel of one execution: one end of a connected socket pair, handed to the run as
/// an inherited descriptor (its number in `CY_SDK_FD`); this end is served here. Nothing in the
/// run's environment names a path or a secret another process could use: the channel is the
/// descriptor, which no other process has, so no other session's code can reach it. The
/// `cy_sdk` package comes from the folder written for the session's toolset, a private folder
/// of this process reached through a descriptor. Dropping the broker stops serving and closes
/// this end.
///
/// A [`CodeModeExecutor`](crate::CodeModeExecutor) opens one per run on this host; a host that
/// runs code for another (the control server, whose runs relay their calls back to the
/// runtime) opens one with [`for_module`](Self::for_module) next to the code.
pub struct Broker {
    dir: PathBuf,
    passed: PassedFd,
    task: JoinHandle<()>,
}

impl Broker {
    /// Opens a channel whose run imports `cy_sdk` with `tools_module` as its `cy_sdk.tools`
    /// (written once per distinct module, see [`ToolsModule`](crate::ToolsModule)), serving
    /// each request line with `calls`; a request line over `max_line` bytes is refused without
    /// being held whole.
    ///
    /// # Errors
    /// [`Unavailable`](ServiceErrorKind::Unavailable): the module's folder cannot be written
    /// or the socket pair cannot be opened.
    pub fn for_module(
        calls: Arc<dyn SdkCalls>,
        max_line: usize,
        tools_module: &Arc<str>,
    ) -> Result<Broker, ServiceError> {
        let dir = super::module::folder(tools_module)?;
        Broker::open(calls, max_line, dir)
    }

    /// Opens the channel and starts serving it: each request line goes to `calls`; request
    /// lines over `max_line` bytes are refused without being held whole. `dir` holds the
    /// `cy_sdk` package the code imports.
    pub(crate) fn open(
        calls: Arc<dyn SdkCalls>,
        max_line: usize,
        dir: PathBuf,
    ) -> Result<Broker, ServiceError> {
        // Both ends close-on-exec; the run's end is made inheritable in its child only. The
        // run's end stays blocking (Python reads it plainly); this end is async.
        let (ours, theirs) = std::os::unix::net::UnixStream::pair()
            .map_err(|err| io_error("open a socket pair", &err))?;
        ours.set_nonblocking(true)
            .map_err(|err| io_error("set up the socket pair", &err))?;
        let ours =
            UnixStream::from_std(ours).map_err(|err| io_error("register the socket pair", &err))?;
        let state = Arc::new(State { calls, max_line });
        let task = tokio::spawn(serve(ours, state));
        Ok(Broker {
            dir,
            passed: PassedFd::new(Arc::new(theirs.into()), FD_VAR),
            task,
        })
    }

    /// The variable the code needs besides the descriptor: `PYTHONPATH`, for `cy_sdk`, for an
    /// executor that does not honour [`CodeOptions::python_path`](cy_tools::services::CodeOptions).
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        vec![(
            "PYTHONPATH".to_string(),
            self.dir.to_string_lossy().into_owned(),
        )]
    }

    /// The options a run needs for code mode: the descriptors (the channel, the package
    /// folder's), the variable, the folder on its `sys.path` and allowed to be read.
    pub fn prepare(&self, options: &mut cy_tools::services::CodeOptions) {
        options.env.extend(self.env());
        options.pass_fds.push(self.passed());
        // The package folder is reached through this descriptor, never through a name.
        options.pass_fds.extend(super::module::passed());
        options.read_only.push(self.dir.clone());
        options.python_path.push(self.dir.clone());
    }

    /// The run's end of the channel, to pass to it.
    pub(crate) fn passed(&self) -> PassedFd {
        self.passed.clone()
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        // Aborting the task drops this end of the pair: the code sees the channel close.
        self.task.abort();
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
    match serde_json::from_slice(line) {
        Ok(request @ Value::Object(_)) => state.calls.call(request).await,
        Ok(_) | Err(_) => protocol::error(
            "the request is not a JSON object of the form {\"tool\", \"arguments\"} on one line",
        ),
    }
}

fn io_error(what: &str, err: &std::io::Error) -> ServiceError {
    ServiceError::new(
        ServiceErrorKind::Unavailable,
        format!(
            "could not {what} for the SDK channel: {err}; the host is out of file descriptors or memory, so retry once other runs finish"
        ),
    )
}
