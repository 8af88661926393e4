//! `LocalSandbox` (a workspace folder on the host) and `SandboxView` (a session's view of it).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use cy_tools::{
    BoxFuture,
    services::{
        DirEntryInfo, ExecOptions, ProcessTable, Sandbox, SearchOptions, SearchResult,
        ServiceError, ServiceErrorKind, ShellResult, WalkOptions, WalkResult,
    },
};

use crate::confine::{self, WORKSPACE_PREFIX};
use crate::limits::ExecLimits;
use crate::processes::LocalProcessTable;
use crate::{exec, fs_ops, search, walk};

/// Largest ranged read done on the calling thread.
const INLINE_READ_MAX: usize = 64 * 1024;

/// A workspace folder on the host that sessions get views of.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use cy_tools::services::Sandbox;
/// use cy_tools_sandbox::LocalSandbox;
///
/// let dir = tempfile::tempdir().unwrap();
/// let env = LocalSandbox::new(dir.path()).unwrap().env();
/// env.write("notes/a.txt", b"hi".to_vec()).await.unwrap();
/// assert_eq!(env.read("/workspace/notes/a.txt").await.unwrap(), b"hi");
/// let err = env.read("../outside.txt").await.unwrap_err();
/// assert!(err.to_string().starts_with("path `../outside.txt` is outside the workspace"));
/// # });
/// ```
#[derive(Clone, Debug)]
pub struct LocalSandbox {
    root: PathBuf,
    limits: ExecLimits,
}

impl LocalSandbox {
    /// A sandbox rooted at `root`, created if missing.
    ///
    /// # Errors
    /// `root` cannot be created or resolved.
    pub fn new(root: impl AsRef<Path>) -> std::io::Result<Self> {
        std::fs::create_dir_all(root.as_ref())?;
        Ok(LocalSandbox {
            root: root.as_ref().canonicalize()?,
            limits: ExecLimits::default(),
        })
    }

    /// The same sandbox with other command limits.
    #[must_use]
    pub fn with_limits(mut self, limits: ExecLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The host folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A session view of the whole workspace (`/workspace`), with its own process table.
    ///
    /// # Panics
    /// When the root cannot be opened even after it is made again (the host is out of file
    /// descriptors, say). A server that must not panic uses [`LocalSandbox::try_env`].
    pub fn env(&self) -> SandboxView {
        self.try_env().unwrap_or_else(|err| panic!("{err}"))
    }

    /// A session view of the whole workspace, or why none can be opened. A root removed since
    /// [`LocalSandbox::new`] is made again, empty.
    ///
    /// # Errors
    /// The root cannot be opened (out of file descriptors, permissions changed).
    pub fn try_env(&self) -> std::io::Result<SandboxView> {
        let open = || {
            SandboxView::open(
                self.root.clone(),
                WORKSPACE_PREFIX.to_string(),
                self.limits.clone(),
            )
        };
        open()
            .or_else(|_| {
                let _ = std::fs::create_dir_all(&self.root);
                open()
            })
            .map_err(|err| {
                std::io::Error::new(
                    err.kind(),
                    format!(
                        "cannot open the sandbox root {}: {err}; check that it exists and this process may open it and has file descriptors left",
                        self.root.display()
                    ),
                )
            })
    }
}

/// A session's view of a [`LocalSandbox`]: every path resolves beneath its folder.
///
/// Cloning shares the view and its process table; the processes are killed when the last
/// clone is dropped.
#[derive(Clone)]
pub struct SandboxView {
    inner: Arc<EnvInner>,
}

struct EnvInner {
    dir: Dir,
    host_path: PathBuf,
    display: String,
    limits: ExecLimits,
    processes: LocalProcessTable,
}

impl SandboxView {
    fn open(host_path: PathBuf, display: String, limits: ExecLimits) -> std::io::Result<Self> {
        let dir = Dir::open_ambient_dir(&host_path, ambient_authority())?;
        let processes = LocalProcessTable::new(dir.try_clone()?, host_path.clone(), limits.clone());
        Ok(SandboxView {
            inner: Arc::new(EnvInner {
                dir,
                host_path,
                display,
                limits,
                processes,
            }),
        })
    }

    /// The view's confinements and cgroup, for the servers it starts.
    pub(crate) fn confinements(
        &self,
    ) -> (
        &crate::isolation::Confinements,
        &crate::exec::cgroup::ViewCgroup,
    ) {
        self.inner.processes.confinements()
    }

    /// The host folder of this view.
    pub fn host_path(&self) -> &Path {
        &self.inner.host_path
    }

    /// The command limits of this view.
    pub fn limits(&self) -> &ExecLimits {
        &self.inner.limits
    }

    /// How many of the view's background processes are still running: a host that keeps views
    /// between requests (the control server) releases a view only when none is.
    pub fn running_processes(&self) -> usize {
        self.inner.processes.running()
    }

    /// A second handle on the view's directory, for blocking work on another thread.
    fn dir(&self) -> Result<Dir, ServiceError> {
        self.inner.dir.try_clone().map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::Other,
                format!("could not open the workspace: {err}"),
            )
        })
    }

    /// Runs blocking file work on the blocking pool with a handle on the view's directory.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Dir) -> Result<T, ServiceError> + Send + 'static,
    ) -> Result<T, ServiceError> {
        let dir = self.dir()?;
        tokio::task::spawn_blocking(move || work(&dir))
            .await
            .unwrap_or_else(|err| {
                Err(ServiceError::new(
                    ServiceErrorKind::Other,
                    format!("the file operation failed unexpectedly: {err}"),
                ))
            })
    }
    /// A narrower view rooted at `subdir`, as [`Sandbox::scoped`] gives it.
    ///
    /// # Errors
    /// As [`Sandbox::scoped`].
    pub fn scoped_env(&self, subdir: &str) -> Result<SandboxView, ServiceError> {
        let rel = confine::relative(subdir)?;
        if rel == Path::new(".") {
            return Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                "a scoped view needs a subfolder name, such as `child-1`",
            ));
        }
        self.inner
            .dir
            .create_dir_all(&rel)
            .map_err(|err| confine::io_error(subdir, &err))?;
        // Open through cap-std first, so a symlink named like the child cannot point the view
        // outside; the host path is only used to start commands in.
        let dir = self
            .inner
            .dir
            .open_dir(&rel)
            .map_err(|err| confine::io_error(subdir, &err))?;
        let host_path = self.inner.host_path.join(&rel);
        let display = format!("{}/{}", self.inner.display, rel.display());
        let processes = LocalProcessTable::new(
            dir.try_clone()
                .map_err(|err| confine::io_error(subdir, &err))?,
            host_path.clone(),
            self.inner.limits.clone(),
        );
        Ok(SandboxView {
            inner: Arc::new(EnvInner {
                dir,
                host_path,
                display,
                limits: self.inner.limits.clone(),
                processes,
            }),
        })
    }

    /// The first `max_len` bytes of a whole read of `path`, and its size: a whole read done
    /// in chunks (as the control server answers a remote sandbox's read), refused as
    /// [`Sandbox::read`] refuses.
    ///
    /// # Errors
    /// As [`Sandbox::read`].
    pub async fn read_head(
        &self,
        path: &str,
        max_len: usize,
    ) -> Result<(Vec<u8>, u64), ServiceError> {
        let path = path.to_string();
        self.blocking(move |dir| fs_ops::read_head(dir, &path, max_len))
            .await
    }

    /// Writes `data` at `offset` of the staging file `staging` (in the view's root), which
    /// must already hold `offset` bytes: a large write sent in parts, in order, then put in
    /// place whole by [`commit_staged`](Self::commit_staged) or dropped by
    /// [`abandon_staged`](Self::abandon_staged), so no reader sees a half-written file.
    ///
    /// # Errors
    /// The staging file is missing (for a part after the first) or not `offset` bytes long,
    /// or cannot be written.
    pub async fn append_staged(
        &self,
        staging: String,
        offset: u64,
        data: Vec<u8>,
    ) -> Result<(), ServiceError> {
        self.blocking(move |dir| fs_ops::append_staged(dir, &staging, offset, &data))
            .await
    }

    /// Renames the staging file `staging` into place as `path`, as [`Sandbox::write`] would
    /// write it (synced first when `durable`).
    ///
    /// # Errors
    /// As [`Sandbox::write`], or the staging file is missing.
    pub async fn commit_staged(
        &self,
        staging: String,
        path: String,
        durable: bool,
    ) -> Result<(), ServiceError> {
        self.blocking(move |dir| fs_ops::commit_staged(dir, &staging, &path, durable))
            .await
    }

    /// Removes the staging file `staging`, if it is there.
    ///
    /// # Errors
    /// It is there and cannot be removed.
    pub async fn abandon_staged(&self, staging: String) -> Result<(), ServiceError> {
        self.blocking(move |dir| match dir.remove_file(&staging) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                Err(confine::io_error(&staging, &err))
            }
            _ => Ok(()),
        })
        .await
    }
}

impl std::fmt::Debug for SandboxView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxView")
            .field("display", &self.inner.display)
            .field("host_path", &self.inner.host_path)
            .finish()
    }
}

impl Sandbox for SandboxView {
    fn describe(&self) -> String {
        self.inner.display.clone()
    }

    fn resolve_path(&self, path: &str) -> Result<PathBuf, ServiceError> {
        let rel = confine::relative(path)?;
        // Resolve through cap-std so a symlink that leads out is refused, then name the host
        // path lexically: the caller gets a path inside the view or an error.
        match self.inner.dir.symlink_metadata(&rel) {
            // A final symlink is followed too: whoever opens the host path returned would
            // follow it, wherever it leads. (A dangling one is fine while it points inside.)
            Ok(meta) if meta.file_type().is_symlink() => match self.inner.dir.metadata(&rel) {
                Ok(_) => {}
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => return Err(confine::io_error(path, &err)),
            },
            Ok(_) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(confine::io_error(path, &err)),
        }
        if let Some(parent) = rel.parent().filter(|p| !p.as_os_str().is_empty()) {
            match self.inner.dir.metadata(parent) {
                Ok(_) => {}
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => return Err(confine::io_error(path, &err)),
            }
        }
        Ok(self.inner.host_path.join(rel))
    }

    fn read<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<Vec<u8>, ServiceError>> {
        let path = path.to_string();
        Box::pin(self.blocking(move |dir| fs_ops::read(dir, &path)))
    }

    fn read_range<'a>(
        &'a self,
        path: &'a str,
        offset: u64,
        max_len: usize,
    ) -> BoxFuture<'a, Result<Vec<u8>, ServiceError>> {
        // A small ranged read from the page cache takes microseconds, less than the hand-off
        // to the blocking pool; larger ones go there so the executor is never held up long.
        // The file is opened without blocking and refused unless it is a regular file, so a
        // FIFO (whose open would wait for a writer) cannot hold the executor's thread.
        if max_len <= INLINE_READ_MAX {
            let result = fs_ops::read_range(&self.inner.dir, path, offset, max_len);
            return Box::pin(async move { result });
        }
        let path = path.to_string();
        Box::pin(self.blocking(move |dir| fs_ops::read_range(dir, &path, offset, max_len)))
    }

    fn write<'a>(
        &'a self,
        path: &'a str,
        contents: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        let path = path.to_string();
        Box::pin(self.blocking(move |dir| fs_ops::write_atomic(dir, &path, &contents, true)))
    }

    fn write_scratch<'a>(
        &'a self,
        path: &'a str,
        contents: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        let path = path.to_string();
        Box::pin(self.blocking(move |dir| fs_ops::write_atomic(dir, &path, &contents, false)))
    }

    fn stat<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<DirEntryInfo, ServiceError>> {
        let path = path.to_string();
        Box::pin(self.blocking(move |dir| fs_ops::stat(dir, &path)))
    }

    fn remove<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), ServiceError>> {
        let path = path.to_string();
        Box::pin(self.blocking(move |dir| fs_ops::remove(dir, &path)))
    }

    fn list_dir<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<Vec<DirEntryInfo>, ServiceError>> {
        let path = path.to_string();
        Box::pin(self.blocking(move |dir| fs_ops::list_dir(dir, &path)))
    }

    fn walk<'a>(
        &'a self,
        path: &'a str,
        options: WalkOptions,
    ) -> BoxFuture<'a, Result<WalkResult, ServiceError>> {
        let path = path.to_string();
        Box::pin(self.blocking(move |dir| walk::walk(dir, &path, &options)))
    }

    fn search<'a>(
        &'a self,
        path: &'a str,
        options: SearchOptions,
    ) -> BoxFuture<'a, Result<SearchResult, ServiceError>> {
        let path = path.to_string();
        Box::pin(self.blocking(move |dir| search::search(dir, &path, &options)))
    }

    fn exec<'a>(
        &'a self,
        command: &'a str,
        options: ExecOptions,
    ) -> BoxFuture<'a, Result<ShellResult, ServiceError>> {
        Box::pin(async move {
            let cwd = confine::command_dir(
                &self.inner.dir,
                &self.inner.host_path,
                options.cwd.as_deref(),
            )?;
            exec::run(
                command,
                &cwd,
                &self.inner.host_path,
                options,
                &self.inner.limits,
                self.inner.processes.confinements(),
            )
            .await
        })
    }

    fn scoped(&self, subdir: &str) -> Result<Arc<dyn Sandbox>, ServiceError> {
        Ok(Arc::new(self.scoped_env(subdir)?))
    }

    fn processes(&self) -> Result<&dyn ProcessTable, ServiceError> {
        Ok(&self.inner.processes)
    }
}
