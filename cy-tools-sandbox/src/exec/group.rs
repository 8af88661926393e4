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
//!
//! A process that left the group (`setsid`, a double fork) is out of reach of the group's
//! signal, but not of the command's cgroup, when the host could make one: every kill and the
//! final [`ProcessGroup::finish`] empty the cgroup too (see [`RunCgroup::kill`]), which is safe
//! at any time as it names no pid.

use std::io;
use std::sync::{Arc, Mutex, Weak};

use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};
use tokio::sync::oneshot;

use super::cgroup::RunCgroup;

/// The process group of one command; the whole group is killed when this is dropped.
#[derive(Debug)]
pub(crate) struct ProcessGroup {
    shared: Arc<Shared>,
}

/// What [`kill_every_group`] needs of a group too.
#[derive(Debug)]
struct Shared {
    pgid: Option<Pid>,
    /// Whether the group may still be signalled. Held while signalling, so a kill can never
    /// overlap the final [`ProcessGroup::finish`] and land after the leader is reaped.
    live: Mutex<bool>,
    /// The command's cgroups, if it has them: emptied with the group, removed once dropped.
    cgroup: Option<RunCgroup>,
}

/// Every group of this process not yet dropped. A group is normally killed when the future
/// running its command is dropped; a process exiting while that future cannot be dropped (the
/// thread polling it is stuck in a tool's blocking call) kills the rest through this.
static GROUPS: Mutex<Vec<Weak<Shared>>> = Mutex::new(Vec::new());

impl ProcessGroup {
    /// The group led by `pid`, a child started with `process_group(0)`, whose processes are
    /// all in `cgroup` when it has one.
    pub(crate) fn new(pid: u32, cgroup: Option<RunCgroup>) -> Self {
        let shared = Arc::new(Shared {
            pgid: i32::try_from(pid).ok().and_then(Pid::from_raw),
            live: Mutex::new(true),
            cgroup,
        });
        let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
        groups.retain(|group| group.strong_count() > 0);
        groups.push(Arc::downgrade(&shared));
        drop(groups);
        ProcessGroup { shared }
    }

    /// Sends `SIGKILL` to every process in the group, unless the group is finished, and to
    /// every process in its cgroup.
    pub(crate) fn kill(&self) {
        self.shared.kill();
    }

    /// Kills whatever is left of the group and its cgroup after its leader exited, and stops
    /// signalling the group: call it once the leader has exited and before reaping it.
    pub(crate) fn finish(&self) {
        let mut live = self.shared.live.lock().unwrap_or_else(|e| e.into_inner());
        if *live {
            self.shared.signal();
            *live = false;
        }
        drop(live);
        self.shared.kill_cgroup();
    }
}

impl Shared {
    fn kill(&self) {
        let live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        if *live {
            self.signal();
        }
        drop(live);
        self.kill_cgroup();
    }

    fn kill_cgroup(&self) {
        if let Some(cgroup) = &self.cgroup {
            cgroup.kill();
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

/// Kills every command group of this process that is not finished: the last step of a
/// process that exits. Safe whatever the groups' owners are doing, as each kill holds the
/// group's lock as finishing a group does (a finished group, whose leader may be reaped,
/// is never signalled).
///
/// A host that exits on a signal calls this first (the `cy-tools` command line does on
/// `SIGINT` and `SIGTERM`), since an exit skips the destructors that would kill each group.
pub fn kill_every_group() {
    let groups: Vec<Arc<Shared>> = GROUPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter_map(Weak::upgrade)
        .collect();
    for group in groups {
        group.kill();
    }
}

/// Watches a child for its exit without reaping it (it stays a zombie), so its process group
/// id stays reserved until the caller has killed the rest of the group and reaped it.
pub(crate) enum ExitWatch {
    /// Checks the child with `waitid(WNOHANG | WNOWAIT)` at start and after every `SIGCHLD`
    /// the runtime's signal driver reports: no thread, no blocking.
    Signal {
        pid: Pid,
        sigchld: tokio::signal::unix::Signal,
    },
    /// A small thread blocked in `waitid(WNOWAIT)`, when the runtime has no signal driver.
    Thread(oneshot::Receiver<()>),
}

impl ExitWatch {
    /// Resolves once the process has exited (or can no longer be watched).
    pub(crate) async fn exited(self) {
        match self {
            ExitWatch::Signal { pid, mut sigchld } => loop {
                match rustix::process::waitid(
                    WaitId::Pid(pid),
                    WaitIdOptions::EXITED | WaitIdOptions::NOWAIT | WaitIdOptions::NOHANG,
                ) {
                    Ok(None) => {}
                    Err(rustix::io::Errno::INTR) => continue,
                    // Exited, or no longer our child to wait for (reaped elsewhere).
                    Ok(Some(_)) | Err(_) => return,
                }
                // The stream was registered before the first check, so an exit between the
                // check and this wait is not missed. `None`: the runtime is shutting down.
                if sigchld.recv().await.is_none() {
                    return;
                }
            },
            ExitWatch::Thread(rx) => {
                let _ = rx.await;
            }
        }
    }
}

/// Starts watching child `pid` (unreaped, so the pid is still ours) for its exit.
///
/// # Errors
/// Neither a signal stream nor a thread could be had (the host is out of threads or memory).
pub(crate) fn watch_exit(pid: u32) -> io::Result<ExitWatch> {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(Pid::from_raw)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "invalid pid"))?;
    match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::child()) {
        Ok(sigchld) => Ok(ExitWatch::Signal { pid, sigchld }),
        Err(_) => watch_with_thread(pid).map(ExitWatch::Thread),
    }
}

/// The fallback: a thread blocked in `waitid`. Not the runtime's blocking pool: a background
/// process may run for hours, and a pool thread blocked on it would hold up runtime shutdown.
fn watch_with_thread(pid: Pid) -> io::Result<oneshot::Receiver<()>> {
    let (tx, rx) = oneshot::channel();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn both_watches_see_an_exit_and_leave_the_child_to_reap() {
        for thread in [false, true] {
            let mut child = tokio::process::Command::new("/bin/sh")
                .args(["-c", "exit 7"])
                .spawn()
                .unwrap();
            let pid = child.id().unwrap();
            let watch = if thread {
                ExitWatch::Thread(watch_with_thread(Pid::from_raw(pid as i32).unwrap()).unwrap())
            } else {
                let watch = watch_exit(pid).unwrap();
                assert!(matches!(watch, ExitWatch::Signal { .. }));
                watch
            };
            watch.exited().await;
            // Exited but not reaped: still in the process table, as a zombie.
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
            assert!(stat.rsplit_once(") ").unwrap().1.starts_with('Z'), "{stat}");
            let status = child.try_wait().unwrap().unwrap();
            assert_eq!(status.code(), Some(7));
            assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
        }
    }
}
