//! Where a command's async work runs, and how it always stops.
//!
//! Tool calls (and the control server's runs) go on a multi-thread runtime with [`WORKERS`]
//! threads, so one call whose body blocks its thread leaves another thread for the rest. The
//! calling thread has a small runtime of its own that waits for the work or a stop request
//! (`SIGINT`, `SIGTERM`), and also carries the MCP protocol, which never blocks: a signal is
//! seen, and `ping` answered, even when every worker is stuck. Stopping never waits without
//! bound: both runtimes are shut down with [`SHUTDOWN_WAIT`] (a plain drop waits for every
//! blocking-pool thread, forever if one is stuck in a system call, or in a read of stdin), and
//! every command a call started that could not be stopped by dropping its future is killed
//! last.

use std::future::Future;
use std::time::Duration;

use tokio::runtime::{Builder, Handle, Runtime};
use tokio::task::JoinHandle;

use super::error::CliError;
use super::interrupted;

/// Worker threads the work runs on.
const WORKERS: usize = 2;

/// How long stopping waits for the work's tasks to be dropped and its blocking threads to end.
const SHUTDOWN_WAIT: Duration = Duration::from_millis(500);

/// How a command's work ended.
pub(super) enum Outcome<T> {
    /// It ran to its end.
    Done(T),
    /// The process was asked to stop first; the work still runs, as this task.
    Interrupted(JoinHandle<T>),
}

/// The runtimes of one command: shut down, within bounds, when dropped.
pub(super) struct CommandRuntime {
    /// Runs the calls; `None` once shut down.
    work: Option<Runtime>,
    /// Runs on the calling thread: waits for the work or a signal; `None` once shut down.
    watch: Option<Runtime>,
}

impl CommandRuntime {
    /// # Errors
    /// A runtime cannot be started (no threads left, say).
    pub(super) fn new() -> Result<Self, CliError> {
        let failed =
            |err: std::io::Error| CliError::new(format!("cannot start the async runtime: {err}"));
        let work = Builder::new_multi_thread()
            .worker_threads(WORKERS)
            .thread_name("cy-tools-worker")
            .enable_all()
            .build()
            .map_err(failed)?;
        let watch = Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(failed)?;
        Ok(CommandRuntime {
            work: Some(work),
            watch: Some(watch),
        })
    }

    /// The runtime calls run on.
    pub(super) fn work(&self) -> Result<Handle, CliError> {
        self.work
            .as_ref()
            .map(|runtime| runtime.handle().clone())
            .ok_or_else(shut_down)
    }

    fn watch(&self) -> Result<&Runtime, CliError> {
        self.watch.as_ref().ok_or_else(shut_down)
    }

    /// Runs `work` on the calling thread until it ends (`Some`) or the process is asked to stop
    /// first (`None`: the work is dropped). For work that never blocks, such as a protocol
    /// handing its calls to [`CommandRuntime::work`].
    pub(super) fn run_here<T>(&self, work: impl Future<Output = T>) -> Result<Option<T>, CliError> {
        Ok(self.watch()?.block_on(async {
            tokio::select! {
                done = work => Some(done),
                () = interrupted() => None,
            }
        }))
    }

    /// Runs `work` on the work runtime until it ends or the process is asked to stop.
    ///
    /// # Errors
    /// The work panicked.
    pub(super) fn run<T: Send + 'static>(
        &self,
        work: impl Future<Output = T> + Send + 'static,
    ) -> Result<Outcome<T>, CliError> {
        let mut task = self.work()?.spawn(work);
        self.watch()?.block_on(async {
            tokio::select! {
                joined = &mut task => joined.map(Outcome::Done).map_err(stopped_unexpectedly),
                () = interrupted() => Ok(Outcome::Interrupted(task)),
            }
        })
    }

    /// The task's output, if it ends within `limit`.
    ///
    /// # Errors
    /// The task panicked.
    pub(super) fn wait<T>(
        &self,
        task: JoinHandle<T>,
        limit: Duration,
    ) -> Result<Option<T>, CliError> {
        self.watch()?.block_on(async {
            match tokio::time::timeout(limit, task).await {
                Ok(joined) => joined.map(Some).map_err(stopped_unexpectedly),
                Err(_) => Ok(None),
            }
        })
    }
}

fn shut_down() -> CliError {
    CliError::new("the async runtime was already shut down")
}

fn stopped_unexpectedly(err: tokio::task::JoinError) -> CliError {
    CliError::new(format!("the work stopped unexpectedly: {err}"))
}

impl Drop for CommandRuntime {
    fn drop(&mut self) {
        // Drops every task (and so the calls and their commands) on the workers that are free;
        // a worker or blocking thread still stuck after the wait is left to the process's exit.
        if let Some(work) = self.work.take() {
            work.shutdown_timeout(SHUTDOWN_WAIT);
        }
        // Then the protocol's tasks, and with them the session, which kills the processes its
        // tools started.
        if let Some(watch) = self.watch.take() {
            watch.shutdown_timeout(SHUTDOWN_WAIT);
        }
        // Commands whose futures sat on a stuck thread were not dropped: killed here, before
        // the process exits and leaves them orphaned.
        cy_tools_sandbox::kill_every_group();
    }
}
