//! What the fault tests share: waiting with a deadline (never a fixed sleep as
//! synchronisation), reading pids a script wrote, looking processes up in `/proc`, and guards
//! that kill what a test started even when an assertion fails halfway.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

/// The longest any single wait in these tests may take before the test fails.
pub const WAIT: Duration = Duration::from_secs(10);

/// Polls `probe` every 10 ms until it gives a value; fails the test after [`WAIT`], saying
/// what was awaited.
pub fn wait_for<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// [`wait_for`] for async tests: yields to the runtime between probes.
pub async fn wait_for_async<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The whitespace-separated pids in `file`, once it holds `count` of them and ends with a
/// newline (scripts write it whole, through a rename, so a partial read is not possible).
pub fn read_pids(file: &Path, count: usize) -> Option<Vec<u32>> {
    let text = std::fs::read_to_string(file).ok()?;
    if !text.ends_with('\n') {
        return None;
    }
    let pids: Vec<u32> = text
        .split_whitespace()
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    (pids.len() == count).then_some(pids)
}

/// `/proc/<pid>/stat` split after the command name: state, ppid, pgrp, ...
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(") ")?;
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// Whether `pid` is a live process: present and not a zombie (a zombie has stopped running;
/// it only waits for a parent to collect its status).
pub fn running(pid: u32) -> bool {
    stat_fields(pid).is_some_and(|f| f[0] != "Z" && f[0] != "X")
}

/// The parent of `pid`.
pub fn parent_of(pid: u32) -> Option<u32> {
    stat_fields(pid)?.get(1)?.parse().ok()
}

/// The process group of `pid`.
pub fn group_of(pid: u32) -> Option<u32> {
    stat_fields(pid)?.get(2)?.parse().ok()
}

/// The command line of `pid`, arguments joined by spaces.
pub fn cmdline(pid: u32) -> Option<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    Some(
        raw.split(|b| *b == 0)
            .filter(|part| !part.is_empty())
            .map(|part| String::from_utf8_lossy(part).into_owned())
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// Every live process in process group `pgid`.
pub fn group_members(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| group_of(*pid) == Some(pgid) && running(*pid))
        .collect()
}

/// Waits (up to [`WAIT`]) for `pid` to stop running; false if it still runs then.
pub fn stops(pid: u32) -> bool {
    let deadline = Instant::now() + WAIT;
    while running(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Sends `SIGKILL` to `pid`.
pub fn kill9(pid: u32) {
    let pid = Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
    rustix::process::kill_process(pid, Signal::KILL).unwrap();
}

/// Sends `signal` to `pid`.
pub fn signal(pid: u32, signal: Signal) {
    let pid = Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
}

/// Kills, when dropped, every process group and process it was told about: what a test
/// started is gone even when an assertion fails first. A group is only signalled while one of
/// its members still runs.
#[derive(Default)]
pub struct Reaper {
    groups: Vec<u32>,
    pids: Vec<u32>,
}

impl Reaper {
    pub fn new() -> Self {
        Reaper::default()
    }

    /// Kill process group `pgid` (if a member still runs) on drop.
    pub fn group(&mut self, pgid: u32) {
        self.groups.push(pgid);
    }

    /// Stop `pid` (if it still runs) on drop: `SIGTERM`, then `SIGKILL` after 3 s.
    pub fn pid(&mut self, pid: u32) {
        self.pids.push(pid);
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        // Asked first (a cy-tools server stops the work it started on SIGTERM), then killed.
        for &pid in &self.pids {
            if running(pid)
                && let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw)
            {
                let _ = rustix::process::kill_process(pid, Signal::TERM);
            }
        }
        let deadline = Instant::now() + Duration::from_secs(3);
        while self.pids.iter().any(|&pid| running(pid)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        for &pid in &self.pids {
            if running(pid)
                && let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw)
            {
                let _ = rustix::process::kill_process(pid, Signal::KILL);
            }
        }
        for &pgid in &self.groups {
            if !group_members(pgid).is_empty()
                && let Some(pgid) = i32::try_from(pgid).ok().and_then(Pid::from_raw)
            {
                let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
            }
        }
    }
}

/// A child process of the test, stopped (`SIGTERM`, then `SIGKILL` after 3 s) and reaped on
/// drop, so a failing test leaves neither it nor a zombie behind.
pub struct ChildGuard(pub std::process::Child);

impl ChildGuard {
    pub fn id(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            signal(self.0.id(), Signal::TERM);
            let deadline = Instant::now() + Duration::from_secs(3);
            while let Ok(None) = self.0.try_wait() {
                if Instant::now() > deadline {
                    let _ = self.0.kill();
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let _ = self.0.wait();
    }
}

/// The folder of the run cgroup `pid` is in, when a cy-tools host put it in one (its pids
/// cgroup, `.../cy-tools-<host pid>/run-<n>`).
pub fn run_cgroup(pid: u32) -> Option<PathBuf> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
    text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        if !path.contains("/cy-tools-") {
            return None;
        }
        let path = path.trim_start_matches('/');
        let roots = if controllers.is_empty() {
            vec![
                Path::new("/sys/fs/cgroup").to_path_buf(),
                Path::new("/sys/fs/cgroup/unified").to_path_buf(),
            ]
        } else {
            vec![Path::new("/sys/fs/cgroup").join(controllers)]
        };
        roots.into_iter().map(|r| r.join(path)).find(|d| d.is_dir())
    })
}

/// Removes a run's cgroup folder once its processes are gone (retrying up to [`WAIT`] while
/// they are reaped), then its host's folder if that is empty: what a host killed with
/// `SIGKILL` cannot do for itself.
pub fn remove_run_cgroup(run: &Path) {
    let deadline = Instant::now() + WAIT;
    while std::fs::remove_dir(run).is_err() && run.exists() {
        assert!(
            Instant::now() < deadline,
            "cannot remove the run cgroup {}",
            run.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    if let Some(host) = run.parent() {
        let _ = std::fs::remove_dir(host);
    }
}

/// Python that starts `sleep 300` as its child, writes `<its pid> <the child's pid>\n` to
/// `pids.txt` (through a rename, so the file is never seen half-written), says `started`, and
/// sleeps (not a busy loop: the machines running these tests are small and shared).
pub const SLEEPER: &str = r#"import os, subprocess, time
child = subprocess.Popen(["sleep", "300"])
with open("pids.tmp", "w") as f:
    f.write(f"{os.getpid()} {child.pid}\n")
os.rename("pids.tmp", "pids.txt")
print("started", flush=True)
time.sleep(300)
"#;
