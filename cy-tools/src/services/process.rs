//! `ProcessTable`: a session's background processes, their state and their output.

use serde::{Deserialize, Serialize};

use super::{ExecOptions, ServiceError};
use crate::BoxFuture;

/// The state of one background process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessInfo {
    /// The session-local id (`p1`, `p2`, …).
    pub id: String,
    /// The command line it runs.
    pub command: String,
    /// The host pid, while known.
    pub pid: Option<u32>,
    /// Still running.
    pub running: bool,
    /// Exit code once finished; `None` while running or when killed by a signal.
    pub exit_code: Option<i32>,
}

/// Output a background process produced since the last read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessOutput {
    /// The process's state now.
    pub info: ProcessInfo,
    /// New standard output (lossy UTF-8).
    pub stdout: String,
    /// New standard error (lossy UTF-8).
    pub stderr: String,
    /// Bytes that were produced but dropped because the unread buffer was full.
    pub dropped_bytes: u64,
}

/// A session's background processes. Every process dies when the table is dropped, so a
/// session's processes end with the session.
pub trait ProcessTable: Send + Sync {
    /// Starts `command` in the background (same sandbox rules as `exec`; `timeout` is ignored).
    fn start<'a>(
        &'a self,
        command: &'a str,
        options: ExecOptions,
    ) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>>;

    /// The state of process `id`. Asynchronous, since a table on another host answers over
    /// the network.
    ///
    /// # Errors
    /// No process has that id.
    fn status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>>;

    /// Output since the last read of process `id`.
    ///
    /// # Errors
    /// No process has that id.
    fn output<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessOutput, ServiceError>>;

    /// Writes to the standard input of process `id`.
    fn write_stdin<'a>(
        &'a self,
        id: &'a str,
        data: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>>;

    /// Kills process `id` and everything it started.
    fn kill<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>>;

    /// Every process of the session, in start order.
    ///
    /// # Errors
    /// A table on another host cannot be reached.
    fn list(&self) -> BoxFuture<'_, Result<Vec<ProcessInfo>, ServiceError>>;
}
