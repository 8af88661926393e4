//! `Sandbox`: a session's view of its workspace (files and commands), and the options of a
//! command it runs.

use std::path::PathBuf;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::{
    DirEntryInfo, ProcessTable, ResourceLimits, SearchOptions, SearchResult, ServiceError,
    ServiceErrorKind, ShellResult, WalkOptions, WalkResult,
};
use crate::BoxFuture;

/// Options for [`Sandbox::exec`].
///
/// ```
/// use std::time::Duration;
/// use cy_tools::services::ExecOptions;
/// let opts = ExecOptions::default().timeout(Duration::from_secs(5)).env("MODE", "test");
/// assert_eq!(opts.env, vec![("MODE".to_string(), "test".to_string())]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ExecOptions {
    /// Working directory, relative to the sandbox view; `None` is the view's root.
    pub cwd: Option<String>,
    /// Variables added to the clean environment the command starts with.
    pub env: Vec<(String, String)>,
    /// Bytes written to the command's standard input, which is then closed.
    pub stdin: Option<Vec<u8>>,
    /// Wall-clock limit; the whole process group is killed when it passes.
    pub timeout: Option<Duration>,
    /// Cancels the run (and kills its process group) when triggered.
    pub cancel: Option<CancellationToken>,
    /// Raised by the number of lines the command writes (stdout and stderr), as it writes
    /// them, for progress.
    pub output_lines: Option<super::ProgressCounter>,
    /// Cap on captured stdout and on captured stderr, each, in bytes.
    pub output_limit: Option<usize>,
    /// CPU, memory and process caps for this command; `None` is the sandbox's own default.
    pub resources: Option<ResourceLimits>,
    /// Open descriptors the command inherits (code mode's SDK channel), each announced in
    /// its variable. A sandbox that runs commands on another host refuses them.
    #[cfg(unix)]
    pub pass_fds: Vec<super::PassedFd>,
    /// Files and folders the command may read besides what its sandbox allows every command
    /// (code mode's module folder, say).
    pub read_only: Vec<PathBuf>,
}

impl ExecOptions {
    /// Sets the timeout.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Adds an environment variable.
    #[must_use]
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sets the cancellation token.
    #[must_use]
    pub fn cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = Some(cancel);
        self
    }
}

/// A session's view of its sandbox: a workspace folder and a way to run commands in it.
///
/// Paths are relative to the view's root (`/workspace` by convention); an
/// implementation refuses any path that resolves outside it, with a [`ServiceError`] of kind
/// [`OutsideSandbox`](crate::services::ServiceErrorKind::OutsideSandbox).
pub trait Sandbox: Send + Sync {
    /// A short human description of the view, for messages (for example its root).
    fn describe(&self) -> String;

    /// Resolves `path` to the host path it names, refusing paths outside the view.
    ///
    /// # Errors
    /// The path escapes the view, or is not a valid path.
    fn resolve_path(&self, path: &str) -> Result<PathBuf, ServiceError>;

    /// Reads a whole file.
    fn read<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<Vec<u8>, ServiceError>>;

    /// Reads at most `max_len` bytes of a file from byte `offset`; fewer at the end of the file.
    /// Tools page through large files with it, so their cost follows what they return.
    fn read_range<'a>(
        &'a self,
        path: &'a str,
        offset: u64,
        max_len: usize,
    ) -> BoxFuture<'a, Result<Vec<u8>, ServiceError>>;

    /// Writes a whole file atomically (a reader sees the old or the new contents, never a
    /// mix), creating parent folders.
    fn write<'a>(
        &'a self,
        path: &'a str,
        contents: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>>;

    /// Writes a file the session can make again (a script about to run, say): atomic like
    /// [`write`](Self::write), but not synced to disk, which can cost more than the run itself.
    /// Defaults to `write`.
    fn write_scratch<'a>(
        &'a self,
        path: &'a str,
        contents: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        self.write(path, contents)
    }

    /// Removes file `path` (not a folder). A symlink is removed itself, never what it points to.
    ///
    /// # Errors
    /// The file does not exist, is a folder, or is outside the view; by default,
    /// [`Unavailable`](ServiceErrorKind::Unavailable): this sandbox cannot remove files.
    fn remove<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), ServiceError>> {
        let err = ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "this workspace ({}) cannot remove `{path}`: it does not remove files",
                self.describe()
            ),
        );
        Box::pin(async move { Err(err) })
    }

    /// What `path` is, without following a final symlink.
    fn stat<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<DirEntryInfo, ServiceError>>;

    /// The entries of directory `path`, sorted by name.
    fn list_dir<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<Vec<DirEntryInfo>, ServiceError>>;

    /// Every entry below directory `path`, sorted by path. Symlinks are listed, never followed.
    fn walk<'a>(
        &'a self,
        path: &'a str,
        options: WalkOptions,
    ) -> BoxFuture<'a, Result<WalkResult, ServiceError>>;

    /// Lines matching a regular expression in the files below `path`.
    fn search<'a>(
        &'a self,
        path: &'a str,
        options: SearchOptions,
    ) -> BoxFuture<'a, Result<SearchResult, ServiceError>>;

    /// Runs a shell command inside the view.
    fn exec<'a>(
        &'a self,
        command: &'a str,
        options: ExecOptions,
    ) -> BoxFuture<'a, Result<ShellResult, ServiceError>>;

    /// A narrower view rooted at `subdir` of this one, which cannot reach this view's other files.
    ///
    /// # Errors
    /// `subdir` escapes this view or cannot be created.
    fn scoped(&self, subdir: &str) -> Result<std::sync::Arc<dyn Sandbox>, ServiceError>;

    /// The session's background processes, where this sandbox can run them.
    ///
    /// # Errors
    /// [`Unavailable`](ServiceErrorKind::Unavailable) where it cannot (the default).
    fn processes(&self) -> Result<&dyn ProcessTable, ServiceError> {
        Err(ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "this workspace ({}) cannot run background processes; use the `terminal` tool for one-off commands",
                self.describe()
            ),
        ))
    }
}
