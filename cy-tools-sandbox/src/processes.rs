//! A session's background processes: started, read, written to and killed by id, and all
//! killed when the table is dropped.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use cap_std::fs::Dir;
use cy_tools::{
    BoxFuture,
    services::{
        ExecOptions, ProcessInfo, ProcessOutput, ProcessTable, ServiceError, ServiceErrorKind,
    },
};
use tokio::process::ChildStdin;

use crate::ExecLimits;
use crate::confine::command_dir;
use crate::exec::cgroup::ViewCgroup;
use crate::exec::command::{self, Launch, Started};
use crate::exec::group::watch_exit;
use crate::isolation::Confinements;
use proc::{Proc, supervise};

mod proc;
mod ring;

/// Processes one table may run at once; more would let one session exhaust the host.
pub(crate) const MAX_RUNNING: usize = 64;

/// How long [`ProcessTable::kill`] waits for the killed process to be gone.
const KILL_WAIT: Duration = Duration::from_secs(5);

/// How long a write to a process's standard input may wait for it to read.
const WRITE_WAIT: Duration = Duration::from_secs(10);

/// The background processes of one session view; all are killed when it is dropped.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use cy_tools::services::{ExecOptions, ProcessTable, Sandbox};
/// use cy_tools_sandbox::LocalSandbox;
///
/// let dir = tempfile::tempdir().unwrap();
/// let env = LocalSandbox::new(dir.path()).unwrap().env();
/// let table = env.processes().unwrap();
/// let started = table.start("read line; echo got $line", ExecOptions::default()).await.unwrap();
/// assert_eq!(started.id, "p1");
/// table.write_stdin("p1", b"hello\n".to_vec()).await.unwrap();
/// # let mut seen = String::new();
/// # while !seen.contains('\n') {
/// #     seen.push_str(&table.output("p1").await.unwrap().stdout);
/// #     tokio::time::sleep(std::time::Duration::from_millis(10)).await;
/// # }
/// assert_eq!(seen, "got hello\n");
/// # });
/// ```
pub struct LocalProcessTable {
    dir: Dir,
    host_path: PathBuf,
    limits: ExecLimits,
    /// The view's confinements, shared with its `exec`.
    confinements: Arc<Confinements>,
    /// The view's cgroup: its process budget, shared by its background processes and its
    /// `exec` commands, all killed with the view.
    cgroup: ViewCgroup,
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    started: u64,
    procs: Vec<Arc<Proc>>,
}

impl LocalProcessTable {
    /// A table for the view whose folder is `dir` (at `host_path` on the host).
    pub fn new(dir: Dir, host_path: PathBuf, limits: ExecLimits) -> Self {
        let confinements = Arc::new(Confinements::new(&limits, &host_path));
        let cgroup = ViewCgroup::new(limits.resources.processes);
        LocalProcessTable {
            dir,
            host_path,
            limits,
            confinements,
            cgroup,
            table: Mutex::new(Table::default()),
        }
    }

    /// The view's confinements and cgroup, for its `exec` to share.
    pub(crate) fn confinements(&self) -> (&Confinements, &ViewCgroup) {
        (&self.confinements, &self.cgroup)
    }

    /// How many of the table's processes are still running.
    pub(crate) fn running(&self) -> usize {
        self.table().procs.iter().filter(|p| p.running()).count()
    }

    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn find(&self, id: &str) -> Result<Arc<Proc>, ServiceError> {
        let table = self.table();
        if let Some(proc) = table.procs.iter().find(|p| p.id == id) {
            return Ok(proc.clone());
        }
        let known = if table.procs.is_empty() {
            "none has been started yet".to_string()
        } else {
            let ids: Vec<String> = table.procs.iter().map(|p| format!("`{}`", p.id)).collect();
            format!("its processes are {}", ids.join(", "))
        };
        Err(ServiceError::new(
            ServiceErrorKind::NotFound,
            format!(
                "no background process `{id}` in this session ({known}); use an id that starting a process returned"
            ),
        ))
    }

    fn start_now(&self, command: &str, options: ExecOptions) -> Result<ProcessInfo, ServiceError> {
        let cwd = command_dir(&self.dir, &self.host_path, options.cwd.as_deref())?;
        let running = self.table().procs.iter().filter(|p| p.running()).count();
        if running >= MAX_RUNNING {
            return Err(ServiceError::new(
                ServiceErrorKind::PermissionDenied,
                format!(
                    "this session already runs {running} background processes, the most it may; kill the ones you no longer need and start this one again"
                ),
            ));
        }
        let resources = options.resources.unwrap_or(self.limits.resources);
        let launch = Launch {
            cwd: &cwd,
            home: &self.host_path,
            env: &options.env,
            limits: &self.limits,
            resources: &resources,
            stdin: true,
            pass_fds: &options.pass_fds,
            read_only: &options.read_only,
            confinements: &self.confinements,
            cgroup: &self.cgroup,
        };
        let Started {
            group,
            mut child,
            pid,
        } = command::start(command, &launch)?;
        let exit = match watch_exit(pid) {
            Ok(exit) => exit,
            Err(err) => {
                drop(group);
                return Err(ServiceError::new(
                    ServiceErrorKind::Unavailable,
                    format!(
                        "could not watch the process: {err}; the host is out of threads or memory, so kill background processes you no longer need and retry"
                    ),
                ));
            }
        };
        let stdin: Option<ChildStdin> = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let proc = {
            let mut table = self.table();
            table.started += 1;
            let proc = Arc::new(Proc::new(
                format!("p{}", table.started),
                command.to_string(),
                pid,
                group,
                stdin,
                self.limits.process_buffer,
            ));
            table.procs.push(proc.clone());
            proc
        };
        tokio::spawn(supervise(
            proc.clone(),
            child,
            exit,
            stdout,
            stderr,
            options.stdin,
        ));
        Ok(proc.info())
    }
}

impl Drop for LocalProcessTable {
    fn drop(&mut self) {
        for proc in &self.table().procs {
            proc.group.kill();
        }
        // What the view's commands started and left behind, wherever it went.
        self.cgroup.kill();
    }
}

impl std::fmt::Debug for LocalProcessTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalProcessTable")
            .field("host_path", &self.host_path)
            .field("processes", &self.table().procs.len())
            .finish()
    }
}

impl ProcessTable for LocalProcessTable {
    fn start<'a>(
        &'a self,
        command: &'a str,
        options: ExecOptions,
    ) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>> {
        Box::pin(async move { self.start_now(command, options) })
    }

    fn status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>> {
        let result = self.find(id).map(|proc| proc.info());
        Box::pin(async move { result })
    }

    fn output<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessOutput, ServiceError>> {
        let result = self.find(id).map(|proc| proc.take_output());
        Box::pin(async move { result })
    }

    fn write_stdin<'a>(
        &'a self,
        id: &'a str,
        data: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        Box::pin(async move { self.find(id)?.write_stdin(&data, WRITE_WAIT).await })
    }

    fn kill<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>> {
        Box::pin(async move {
            let proc = self.find(id)?;
            proc.kill(KILL_WAIT).await;
            Ok(proc.info())
        })
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<ProcessInfo>, ServiceError>> {
        let all = self.table().procs.iter().map(|p| p.info()).collect();
        Box::pin(async move { Ok(all) })
    }
}
