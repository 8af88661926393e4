//! A command's process group: killed as a whole, and never signalled once its leader may have
//! been reaped.
//!
//! Every command starts as the leader of a new process group, so one `kill(-pgid, SIGKILL)`
//! reaches the shell and everything it started (grandchildren included), unless a process
//! deliberately leaves the group (`setsid`). A process group id is only safe to signal while the
//! group still has a member: the kernel does not hand out a pid that is still in use as a group
//! id, and the leader counts as a member until it is reaped. So the leader's exit is observed
//! without reaping it ([`watch_exit`]), the stragglers are killed ([`ProcessGroup::finish`]),
//! and only then is the leader reaped. From that point the group is never signalled again, so
//! a recycled pid can never be hit.

use std::io;
use std::sync::Mutex;

use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};
use tokio::sync::oneshot;

/// The process group of one command; the whole group is killed when this is dropped.
#[derive(Debug)]
pub(crate) struct ProcessGroup {
    pgid: Option<Pid>,
    /// Whether the group may still be signalled. Held while signalling, so a kill can never
    /// overlap the final [`ProcessGroup::finish`] and land after the leader is reaped.
    live: Mutex<bool>,
}

impl ProcessGroup {
    /// The group led by `pid`, a child started with `process_group(0)`.
    pub(crate) fn new(pid: u32) -> Self {
        ProcessGroup {
            pgid: i32::try_from(pid).ok().and_then(Pid::from_raw),
            live: Mutex::new(true),
        }
    }

    /// Sends `SIGKILL` to every process in the group, unless the group is finished.
    pub(crate) fn kill(&self) {
        let live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        if *live {
            self.signal();
        }
    }

    /// Kills whatever is left of the group after its leader exited, and stops signalling it:
    /// call it once the leader has exited and before reaping it.
    pub(crate) fn finish(&self) {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        if *live {
            self.signal();
            *live = false;
        }
    }

    fn signal(&self) {
        if let Some(pgid) = self.pgid {
            // ESRCH (the group is already gone) is the only expected failure, and harmless.
            let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Resolves when child `pid` has exited, leaving it unreaped (a zombie) so its process group
/// id stays reserved until the caller has killed the rest of the group and reaped it.
///
/// The wait runs on a small thread of its own rather than the runtime's blocking pool: a
/// background process may run for hours, and a pool thread blocked on it would hold up the
/// runtime's shutdown.
///
/// # Errors
/// The thread cannot be started (the host is out of threads or memory).
pub(crate) fn watch_exit(pid: u32) -> io::Result<oneshot::Receiver<()>> {
    let (tx, rx) = oneshot::channel();
    let pid = i32::try_from(pid)
        .ok()
        .and_then(Pid::from_raw)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "invalid pid"))?;
    std::thread::Builder::new()
        .name("cy-exit-watch".into())
        .stack_size(64 * 1024)
        .spawn(move || {
            // Interrupted waits are retried; anything else means it exited, or is no longer
            // our child to wait for (reaped elsewhere): either way there is nothing to watch.
            while let Err(rustix::io::Errno::INTR) = rustix::process::waitid(
                WaitId::Pid(pid),
                WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
            ) {}
            let _ = tx.send(());
        })?;
    Ok(rx)
}
