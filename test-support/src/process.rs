//! Processes as the tests see them from outside: looked up in `/proc`, signalled, and waited
//! for with a deadline (never a fixed sleep as synchronisation), with the pids scripts write.

use std::path::Path;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

/// The longest any single wait in these tests may take before the test fails.
pub const WAIT: Duration = Duration::from_secs(10);

/// A shell that starts a grandchild, which records both pids (one a line, in `family.pid`), and
/// then both sleep.
pub const SHELL_FAMILY: &str =
    "sh -c 'echo $$ >> family.pid; exec sleep 30' & echo $$ >> family.pid; sleep 30";

/// Python that starts a child process, records both pids in `pids.txt`, says so, then loops
/// forever: a run to cancel or time out, whose whole family must then be gone.
pub const FAMILY: &str = r#"import os, subprocess
child = subprocess.Popen(["sleep", "300"])
with open("pids.txt", "w") as f:
    f.write(f"{os.getpid()} {child.pid}\n")
print("started", flush=True)
while True:
    pass
"#;

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

/// The two pids [`FAMILY`] writes to `file`, once it has.
pub async fn family_pids(file: &Path) -> Vec<u32> {
    wait_for_async("the run's pids", || read_pids(file, 2)).await
}

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
/// newline (scripts write it whole, in one write or through a rename, so a partial read is
/// caught).
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

/// Waits (up to 5 s) for `file` in `root` to hold at least `count` pids, as shells appending
/// one a line write them.
pub async fn pids_in(root: &Path, file: &str, count: usize) -> Vec<u32> {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        if let Ok(text) = std::fs::read_to_string(root.join(file)) {
            let pids: Vec<u32> = text
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect();
            if pids.len() >= count {
                return pids;
            }
        }
        assert!(Instant::now() < until, "`{file}` never got its pids");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// `/proc/<pid>/stat` split after the command name (which may hold spaces): state, ppid,
/// pgrp, ...
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

/// Whether `pid` stops running within `within`: it is gone, or a zombie waiting for a parent
/// that may not be this process.
fn stops_within(pid: u32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while running(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Waits (up to [`WAIT`]) for `pid` to stop running; false if it still runs then.
pub fn stops(pid: u32) -> bool {
    stops_within(pid, WAIT)
}

/// Whether `pid` is dead within 5 s: a killed process takes a moment to die.
pub fn dead(pid: u32) -> bool {
    stops_within(pid, Duration::from_secs(5))
}

/// Sends `SIGKILL` to `pid`.
pub fn kill9(pid: u32) {
    signal(pid, Signal::KILL);
}

/// Sends `signal` to `pid`.
pub fn signal(pid: u32, signal: Signal) {
    let pid = Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
}

/// Whether the sandbox's commands here get cgroups, which catch a process that left its
/// command's group and session: root, with a cgroup tree to make them in.
pub fn cgroups_catch_setsid() -> bool {
    let tree = [
        "/sys/fs/cgroup/unified",
        "/sys/fs/cgroup/pids",
        "/sys/fs/cgroup",
    ]
    .iter()
    .any(|p| Path::new(p).join("cgroup.procs").exists());
    rustix::process::geteuid().is_root() && tree
}
