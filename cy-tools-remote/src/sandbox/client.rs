//! The [`Sandbox`] implementation over the sandbox endpoint.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use cy_tools::{
    BoxFuture,
    services::{
        DirEntryInfo, ExecOptions, ProcessTable, Sandbox, SearchOptions, SearchResult,
        ServiceError, ServiceErrorKind, ShellResult, WalkOptions, WalkResult,
    },
};
use hyper::Uri;
use serde::de::DeserializeOwned;

use super::processes::RemoteProcessTable;
use super::transport::Transport;
use super::wire::{Chunk, SandboxOp, SandboxRequest, WireExec, decode, encode, sandbox_path};
use crate::executor::wire::check_session_id;
use cy_tools_sandbox::confine::{self, WORKSPACE_PREFIX};

/// Bytes of file data per request by default: a chunk in base64 fits well within the
/// control server's default body limit of 1 MiB.
pub const DEFAULT_CHUNK_BYTES: usize = 512 * 1024;

/// A session's workspace on a control server (`cy-tools control-server`): the workspace
/// folder `name` under the server's root, where the server's execute endpoint also runs the
/// code of a [`RemoteExecutor`](crate::executor::RemoteExecutor) for session id `name`.
///
/// Every [`Sandbox`] operation and every background-process operation is a request to
/// `POST /v1/sessions/{name}/sandbox`, with the bearer token; the server performs it with its
/// local sandbox, so paths are confined there, commands are limited and isolated there, and
/// errors read as a local sandbox's. Reads, listings, walks and searches started at the same
/// moment (concurrent calls) share one request, a batch, each still answered as alone (see
/// [`with_batching`](Self::with_batching)). Large reads and writes go in chunks of
/// [`with_chunk_bytes`](Self::with_chunk_bytes) (a write into a staging file renamed into
/// place, so it stays atomic). Cancelling an `exec` closes its connection, and the server kills
/// the command with every process it started.
///
/// Plain HTTP, as [`RemoteExecutor`](crate::executor::RemoteExecutor): across machines, reach
/// the server through a tunnel or a TLS-terminating proxy.
///
/// ```
/// use cy_tools::services::Sandbox;
/// use cy_tools_remote::RemoteSandbox;
///
/// let sandbox = RemoteSandbox::new("http://127.0.0.1:8700", "s-1", "a-long-shared-secret").unwrap();
/// assert_eq!(sandbox.describe(), "/workspace");
/// assert_eq!(sandbox.resolve_path("notes/a.txt").unwrap(), std::path::Path::new("/workspace/notes/a.txt"));
/// let err = sandbox.resolve_path("../etc/passwd").unwrap_err();
/// assert!(err.to_string().starts_with("path `../etc/passwd` is outside the workspace"));
/// assert!(RemoteSandbox::new("http://127.0.0.1:8700", "../s-1", "t").is_err());
/// ```
#[derive(Clone)]
pub struct RemoteSandbox {
    transport: Arc<Transport>,
    name: String,
    /// The folder of a narrower view, relative to the workspace.
    scope: Option<PathBuf>,
    chunk_bytes: usize,
    reply_margin: Duration,
    processes: Arc<RemoteProcessTable>,
}

impl RemoteSandbox {
    /// The workspace `name` on the control server at `endpoint` (`http://host:port`),
    /// authenticating with `token`.
    ///
    /// # Errors
    /// [`InvalidInput`](ServiceErrorKind::InvalidInput) when `endpoint` is not an
    /// `http://host:port` address or `name` cannot name a workspace folder.
    pub fn new(endpoint: &str, name: &str, token: impl Into<String>) -> Result<Self, ServiceError> {
        let bad = |why: &str| {
            ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!(
                    "execution host address `{endpoint}` is not plain `http://host:port` ({why}); write it like `http://127.0.0.1:8700`"
                ),
            )
        };
        let uri: Uri = endpoint.parse().map_err(|_| bad("it does not parse"))?;
        if uri.scheme_str() != Some("http") {
            return Err(bad(
                "only `http` is spoken; put TLS in front with a proxy or tunnel",
            ));
        }
        if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
            return Err(bad("it has a path"));
        }
        let authority = uri.authority().ok_or_else(|| bad("it has no host"))?;
        check_session_id(name)?;
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let transport = Arc::new(Transport::new(
            format!("http://{authority}"),
            host,
            authority.port_u16().unwrap_or(80),
            authority.to_string(),
            sandbox_path(name),
            token.into(),
        )?);
        Ok(RemoteSandbox {
            processes: Arc::new(RemoteProcessTable::new(Arc::clone(&transport), None)),
            transport,
            name: name.to_string(),
            scope: None,
            chunk_bytes: DEFAULT_CHUNK_BYTES,
            reply_margin: Duration::from_secs(15),
        })
    }

    /// The same sandbox sending at most `bytes` of file data per request (at least 1; keep
    /// its base64, a third larger, under the server's body limit).
    #[must_use]
    pub fn with_chunk_bytes(mut self, bytes: usize) -> Self {
        self.chunk_bytes = bytes.max(1);
        self
    }

    /// The server's address, `http://host:port`.
    pub fn endpoint(&self) -> &str {
        &self.transport.endpoint
    }

    /// The workspace's name on the server.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn scope(&self) -> Option<String> {
        self.scope
            .as_ref()
            .map(|scope| scope.to_string_lossy().into_owned())
    }

    /// The same sandbox (and every narrower view of it) sending each operation in an exchange
    /// of its own when `on` is false. By default (`true`) reads, listings, walks and searches
    /// started at the same moment (concurrent calls) go together as one batch, each caller
    /// still getting its own result; an operation alone is sent as before.
    ///
    /// ```
    /// use cy_tools_remote::RemoteSandbox;
    ///
    /// let lone = RemoteSandbox::new("http://127.0.0.1:8700", "s-1", "a-long-shared-secret")
    ///     .unwrap()
    ///     .with_batching(false);
    /// # drop(lone);
    /// ```
    #[must_use]
    pub fn with_batching(self, on: bool) -> Self {
        self.transport.batcher.enable(on);
        self
    }

    async fn op<T: DeserializeOwned>(&self, op: SandboxOp) -> Result<T, ServiceError> {
        self.transport
            .call_op(&SandboxRequest {
                scope: self.scope(),
                op,
            })
            .await
    }

    async fn read_whole(&self, path: &str) -> Result<Vec<u8>, ServiceError> {
        let first: Chunk = self
            .op(SandboxOp::Read {
                path: path.to_string(),
                max_len: self.chunk_bytes,
            })
            .await?;
        let mut bytes = decode(&first.data)?;
        let size = first.size.unwrap_or(0);
        // Up to the size the first chunk saw, or a short chunk if the file shrank meanwhile.
        let mut last = bytes.len();
        while last == self.chunk_bytes && (bytes.len() as u64) < size {
            let more = self
                .range(path, bytes.len() as u64, self.chunk_bytes)
                .await?;
            last = more.len();
            bytes.extend_from_slice(&more);
        }
        Ok(bytes)
    }

    async fn range(
        &self,
        path: &str,
        offset: u64,
        max_len: usize,
    ) -> Result<Vec<u8>, ServiceError> {
        let chunk: Chunk = self
            .op(SandboxOp::ReadRange {
                path: path.to_string(),
                offset,
                max_len,
            })
            .await?;
        decode(&chunk.data)
    }

    async fn read_ranges(
        &self,
        path: &str,
        offset: u64,
        max_len: usize,
    ) -> Result<Vec<u8>, ServiceError> {
        let mut bytes = Vec::new();
        loop {
            let want = (max_len - bytes.len()).min(self.chunk_bytes);
            let more = self.range(path, offset + bytes.len() as u64, want).await?;
            let short = more.len() < want;
            bytes.extend_from_slice(&more);
            if short || bytes.len() >= max_len {
                return Ok(bytes);
            }
        }
    }

    async fn write_file(
        &self,
        path: &str,
        contents: Vec<u8>,
        durable: bool,
    ) -> Result<(), ServiceError> {
        if contents.len() <= self.chunk_bytes {
            return self
                .op(SandboxOp::Write {
                    path: path.to_string(),
                    data: encode(&contents),
                    durable,
                })
                .await;
        }
        let upload = cy_tools::services::random_hex(12)?;
        let mut unfinished = Unfinished {
            sandbox: Some(self.clone()),
            upload: upload.clone(),
        };
        let sent = async {
            for (n, part) in contents.chunks(self.chunk_bytes).enumerate() {
                self.op::<()>(SandboxOp::Upload {
                    upload: upload.clone(),
                    offset: (n * self.chunk_bytes) as u64,
                    data: encode(part),
                })
                .await?;
            }
            self.op::<()>(SandboxOp::Commit {
                upload: upload.clone(),
                path: path.to_string(),
                durable,
            })
            .await
        }
        .await;
        if sent.is_err() {
            let _ = self.op::<()>(SandboxOp::Abandon { upload }).await;
        }
        // Finished either way: committed, or abandoned as far as the server would let it
        // (one it refused is removed by the server once it has waited its idle timeout).
        unfinished.sandbox = None;
        sent
    }

    async fn run(&self, command: &str, options: ExecOptions) -> Result<ShellResult, ServiceError> {
        let wire = WireExec::from_options(&options, &format!("`{}`", self.describe()))?;
        let wait = options.timeout.map(|t| t.saturating_add(self.reply_margin));
        let exchange = self.op::<ShellResult>(SandboxOp::Exec {
            command: command.to_string(),
            options: wire,
        });
        let bounded = async {
            match wait {
                Some(wait) => tokio::time::timeout(wait, exchange).await.unwrap_or_else(|_| {
                    Err(ServiceError::new(
                        ServiceErrorKind::TimedOut,
                        format!(
                            "the control server at {} did not answer within {} ms; the connection was closed so the command is stopped there. Check that the server is healthy, then run it again",
                            self.endpoint(),
                            wait.as_millis()
                        ),
                    ))
                }),
                None => exchange.await,
            }
        };
        // Leaving this select drops the exchange, closing its connection: the server then
        // kills the command.
        match options.cancel {
            Some(cancel) => tokio::select! {
                biased;
                () = cancel.cancelled() => Err(ServiceError::new(
                    ServiceErrorKind::Other,
                    "the command was cancelled; it and every process it started were killed",
                )),
                result = bounded => result,
            },
            None => bounded.await,
        }
    }
}

/// A large write's staging upload while the write is under way: if the write's future is
/// dropped first (cancelled, or timed out by its caller), dropping this abandons the upload
/// from a task of its own, so the server does not keep the staged part until its sweep.
struct Unfinished {
    sandbox: Option<RemoteSandbox>,
    upload: String,
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        let Some(sandbox) = self.sandbox.take() else {
            return;
        };
        // Outside a runtime nothing can be sent; the server's sweep removes it then.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let upload = std::mem::take(&mut self.upload);
            runtime.spawn(async move {
                let _ = sandbox.op::<()>(SandboxOp::Abandon { upload }).await;
            });
        }
    }
}

impl std::fmt::Debug for RemoteSandbox {
    // The token stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteSandbox")
            .field("endpoint", &self.transport.endpoint)
            .field("name", &self.name)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

impl Sandbox for RemoteSandbox {
    fn describe(&self) -> String {
        match &self.scope {
            Some(scope) => format!("{WORKSPACE_PREFIX}/{}", scope.display()),
            None => WORKSPACE_PREFIX.to_string(),
        }
    }

    /// The path as the session names it (`/workspace/...`): there is no host path on this
    /// side. The server refuses, at each use, one that leads out through a symlink.
    fn resolve_path(&self, path: &str) -> Result<PathBuf, ServiceError> {
        let rel = confine::relative(path)?;
        let mut full = PathBuf::from(WORKSPACE_PREFIX);
        if let Some(scope) = &self.scope {
            full.push(scope);
        }
        if rel != Path::new(".") {
            full.push(rel);
        }
        Ok(full)
    }

    fn read<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<Vec<u8>, ServiceError>> {
        Box::pin(self.read_whole(path))
    }

    fn read_range<'a>(
        &'a self,
        path: &'a str,
        offset: u64,
        max_len: usize,
    ) -> BoxFuture<'a, Result<Vec<u8>, ServiceError>> {
        Box::pin(self.read_ranges(path, offset, max_len))
    }

    fn write<'a>(
        &'a self,
        path: &'a str,
        contents: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        Box::pin(self.write_file(path, contents, true))
    }

    fn write_scratch<'a>(
        &'a self,
        path: &'a str,
        contents: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        Box::pin(self.write_file(path, contents, false))
    }

    fn remove<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), ServiceError>> {
        Box::pin(self.op(SandboxOp::Remove {
            path: path.to_string(),
        }))
    }

    fn stat<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<DirEntryInfo, ServiceError>> {
        Box::pin(self.op(SandboxOp::Stat {
            path: path.to_string(),
        }))
    }

    fn list_dir<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<Vec<DirEntryInfo>, ServiceError>> {
        Box::pin(self.op(SandboxOp::ListDir {
            path: path.to_string(),
        }))
    }

    fn walk<'a>(
        &'a self,
        path: &'a str,
        options: WalkOptions,
    ) -> BoxFuture<'a, Result<WalkResult, ServiceError>> {
        Box::pin(self.op(SandboxOp::Walk {
            path: path.to_string(),
            options: (&options).into(),
        }))
    }

    fn search<'a>(
        &'a self,
        path: &'a str,
        options: SearchOptions,
    ) -> BoxFuture<'a, Result<SearchResult, ServiceError>> {
        Box::pin(self.op(SandboxOp::Search {
            path: path.to_string(),
            options: (&options).into(),
        }))
    }

    fn exec<'a>(
        &'a self,
        command: &'a str,
        options: ExecOptions,
    ) -> BoxFuture<'a, Result<ShellResult, ServiceError>> {
        Box::pin(self.run(command, options))
    }

    /// A narrower view; its folder is made (and refused if it leads out) by the server at
    /// its first operation.
    fn scoped(&self, subdir: &str) -> Result<Arc<dyn Sandbox>, ServiceError> {
        let rel = confine::relative(subdir)?;
        if rel == Path::new(".") {
            return Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                "a scoped view needs a subfolder name, such as `child-1`",
            ));
        }
        let scope = match &self.scope {
            Some(outer) => outer.join(rel),
            None => rel,
        };
        let scope_text = scope.to_string_lossy().into_owned();
        Ok(Arc::new(RemoteSandbox {
            processes: Arc::new(RemoteProcessTable::new(
                Arc::clone(&self.transport),
                Some(scope_text),
            )),
            transport: Arc::clone(&self.transport),
            name: self.name.clone(),
            scope: Some(scope),
            chunk_bytes: self.chunk_bytes,
            reply_margin: self.reply_margin,
        }))
    }

    fn processes(&self) -> Result<&dyn ProcessTable, ServiceError> {
        Ok(&*self.processes)
    }
}
