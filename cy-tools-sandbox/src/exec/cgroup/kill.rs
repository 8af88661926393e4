//! Emptying a cgroup: every process in it (and in its descendants) killed, whatever it did to
//! leave its process group (`setsid`, a double fork).
//!
//! Three ways, best first. cgroup v2's `cgroup.kill` kills the whole subtree in one write, and
//! nothing in it can fork meanwhile. The v1 freezer stops every member first, so the list of
//! pids read next cannot change (a frozen process neither forks nor exits); each is then sent
//! `SIGKILL`, which it acts on as soon as it is thawed, before running another instruction of
//! its own. With neither, the pids in `cgroup.procs` are killed round after round until none is
//! left; the cgroup's process limit bounds how many a fork loop can make between two rounds. A
//! listed pid is a member at that moment; it could only be another process by exiting and being
//! reused between the read and the kill, microseconds apart.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process};

/// How a tree's cgroups are emptied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kill {
    /// cgroup v2: write `1` to `cgroup.kill`.
    Switch,
    /// cgroup v1 freezer: freeze, kill the listed pids, thaw.
    Freeze,
    /// Kill the listed pids until none is left.
    OneByOne,
}

/// How long the freezer is given to stop a cgroup's members.
const FREEZE_WAIT: Duration = Duration::from_millis(200);

/// How long killing round after round may go on.
const ROUNDS_FOR: Duration = Duration::from_secs(2);

/// Kills every process in cgroup `dir` and its descendants, the `kill` way.
pub(super) fn kill_all(dir: &Path, kill: Kill) {
    match kill {
        Kill::Switch => {
            if fs::write(dir.join("cgroup.kill"), "1").is_ok() {
                return;
            }
        }
        Kill::Freeze => {
            let frozen = set_frozen(dir, true);
            kill_listed(dir);
            if frozen {
                set_frozen(dir, false);
            }
        }
        Kill::OneByOne => {}
    }
    let start = Instant::now();
    while kill_listed(dir) > 0 && start.elapsed() < ROUNDS_FOR {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Sends `SIGKILL` to every pid listed in `dir` and its descendants; how many were listed.
fn kill_listed(dir: &Path) -> usize {
    let mut listed = 0;
    for cgroup in subtree(dir) {
        let Ok(procs) = fs::read_to_string(cgroup.join("cgroup.procs")) else {
            continue;
        };
        for pid in procs.lines().filter_map(|p| p.trim().parse::<i32>().ok()) {
            listed += 1;
            if let Some(pid) = Pid::from_raw(pid) {
                let _ = kill_process(pid, Signal::KILL);
            }
        }
    }
    listed
}

/// Freezes (or thaws) v1 freezer cgroup `dir` and its descendants; whether it got there.
fn set_frozen(dir: &Path, frozen: bool) -> bool {
    let state = if frozen { "FROZEN" } else { "THAWED" };
    if fs::write(dir.join("freezer.state"), state).is_err() {
        return false;
    }
    let start = Instant::now();
    loop {
        match fs::read_to_string(dir.join("freezer.state")) {
            Ok(now) if now.trim() == state => return true,
            Ok(_) if start.elapsed() < FREEZE_WAIT => {
                std::thread::sleep(Duration::from_millis(1));
            }
            _ => return false,
        }
    }
}

/// `dir` and every cgroup below it, deepest first (the order they can be removed in).
pub(super) fn subtree(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                found.extend(subtree(&entry.path()));
            }
        }
    }
    found.push(dir.to_path_buf());
    found
}

/// Removes `dir` and the cgroups below it, retrying for `within` while their last processes
/// die; whether all are gone.
pub(super) fn remove_when_empty(dir: &Path, within: Duration) -> bool {
    let start = Instant::now();
    loop {
        let mut left = false;
        for cgroup in subtree(dir) {
            match fs::remove_dir(&cgroup) {
                Ok(()) => {}
                Err(err) if err.kind() == io::ErrorKind::NotFound => {}
                Err(_) => left = true,
            }
        }
        if !left {
            return true;
        }
        if start.elapsed() >= within {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
