//! A pids cgroup per command: the one process-count limit that also holds for root.
//!
//! `RLIMIT_NPROC` counts every process of a user and the kernel ignores it for root, which is
//! what most sandbox hosts run as. A pids cgroup counts exactly the command's own processes
//! and threads, whoever runs them, and refuses `fork` past `pids.max`. The command joins its
//! cgroup from inside the shell (`echo $$ > cgroup.procs`) before anything of the command runs,
//! so nothing it starts is ever outside it.
//!
//! Runs get a folder each under `cy-tools-<host pid>/` in this process's own pids cgroup (v1
//! `pids` hierarchy, or v2 when `pids` is enabled for our subtree). Hosts that cannot write
//! there (an unprivileged user without a delegated cgroup, a read-only `/sys/fs/cgroup`) fall
//! back to rlimits, see [`super::resources`].
//!
//! The cgroup also knows a run's processes when the host does not: a host killed with `SIGKILL`
//! leaves its runs going, and the next host to start kills them ([`sweep_stale`]). The empty
//! `cy-tools-<pid>` folder a host leaves when it exits is removed the same way.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How long a run's cgroup folder is retried for removal while its last processes die.
const REMOVE_FOR: Duration = Duration::from_secs(10);

/// How long a starting host waits, at most, for the runs of dead hosts it killed to be reaped.
const SWEEP_WAIT: Duration = Duration::from_secs(2);

/// The cgroup of one command, removed (once empty) when dropped.
#[derive(Debug)]
pub(crate) struct RunCgroup {
    dir: PathBuf,
}

impl RunCgroup {
    /// A new cgroup allowing `max` processes, or `None` when this host cannot make one.
    pub(crate) fn create(max: u32) -> Option<RunCgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = base()?;
        let dir = base.join(format!("run-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
        fs::create_dir(&dir).ok()?;
        let run = RunCgroup { dir };
        fs::write(run.dir.join("pids.max"), max.to_string()).ok()?;
        Some(run)
    }

    /// The file a process writes its pid into to join.
    pub(crate) fn procs_file(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        // Empty as soon as the killed processes are reaped; that is usually already the case,
        // and otherwise a short-lived thread waits for it so the caller is not held up.
        if fs::remove_dir(&self.dir).is_ok() {
            return;
        }
        let dir = std::mem::take(&mut self.dir);
        let _ = std::thread::Builder::new()
            .name("cy-cgroup-rm".into())
            .stack_size(64 * 1024)
            .spawn(move || remove_when_empty(&dir, REMOVE_FOR));
    }
}

fn remove_when_empty(dir: &Path, within: Duration) -> bool {
    let start = std::time::Instant::now();
    loop {
        match fs::remove_dir(dir) {
            Ok(()) => return true,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return true,
            Err(_) if start.elapsed() < within => std::thread::sleep(Duration::from_millis(50)),
            Err(_) => return false,
        }
    }
}

/// This process's folder for run cgroups, made on first use; `None` when the host has none.
fn base() -> Option<&'static Path> {
    static BASE: OnceLock<Option<PathBuf>> = OnceLock::new();
    BASE.get_or_init(|| {
        let own = fs::read_to_string("/proc/self/cgroup").ok()?;
        candidates(&own).into_iter().find_map(|parent| {
            let base = parent.join(format!("cy-tools-{}", std::process::id()));
            sweep_stale(&parent);
            prepare(&base).ok().map(|()| base)
        })
    })
    .as_deref()
}

/// Where this process's pids cgroup may be, from the lines of `/proc/self/cgroup`: the v1
/// `pids` hierarchy first, then the v2 unified one.
fn candidates(own: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let path = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "pids") {
            found.insert(0, Path::new("/sys/fs/cgroup").join(controllers).join(path));
        } else if controllers.is_empty() {
            found.push(Path::new("/sys/fs/cgroup").join(path));
            found.push(Path::new("/sys/fs/cgroup/unified").join(path));
        }
    }
    found
}

/// Makes `base` (or reuses it) and checks its children will have `pids.max`.
fn prepare(base: &Path) -> io::Result<()> {
    match fs::create_dir(base) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
        Err(err) => return Err(err),
    }
    if !base.join("pids.max").exists() {
        let _ = fs::remove_dir(base);
        return Err(io::Error::other("no pids controller here"));
    }
    // v2: children get the controller only when it is enabled below `base`; v1 has no such
    // file and every child has it.
    let subtree = base.join("cgroup.subtree_control");
    if subtree.exists() {
        fs::write(&subtree, "+pids")?;
    }
    Ok(())
}

/// Cleans up after hosts that are gone (`cy-tools-<pid>` of a dead pid): a host killed with
/// `SIGKILL` could not stop its runs, which then live on with no one to read their output. They
/// are killed, and their folders removed once empty.
fn sweep_stale(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    let mut stale = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("cy-tools-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            stale.push(entry.path());
        }
    }
    // Killing is a few system calls, done now so it happens even if this host is a one-shot
    // command that exits right away. So is a short wait for the killed runs to be reaped and
    // their folders removed: a one-shot host may be gone before a thread could do it. What is
    // still there after that is left to a thread (and to the next host).
    let mut runs = Vec::new();
    for host in &stale {
        if let Ok(entries) = fs::read_dir(host) {
            for run in entries.flatten().map(|r| r.path()).filter(|p| p.is_dir()) {
                kill_members(&run);
                runs.push(run);
            }
        }
    }
    if stale.is_empty() {
        return;
    }
    let start = std::time::Instant::now();
    runs.retain(|run| !remove_when_empty(run, SWEEP_WAIT.saturating_sub(start.elapsed())));
    stale.retain(|host| fs::remove_dir(host).is_err());
    if runs.is_empty() && stale.is_empty() {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("cy-cgroup-sweep".into())
        .stack_size(64 * 1024)
        .spawn(move || {
            for run in &runs {
                remove_when_empty(run, REMOVE_FOR);
            }
            for host in &stale {
                let _ = fs::remove_dir(host);
            }
        });
}

/// Kills every process in cgroup `dir`: at once with `cgroup.kill` (v2), else one by one from
/// `cgroup.procs`. A listed pid is a member at that moment; it could only be another process by
/// exiting and being reused between the read and the kill, microseconds apart.
fn kill_members(dir: &Path) {
    if fs::write(dir.join("cgroup.kill"), "1").is_ok() {
        return;
    }
    let Ok(procs) = fs::read_to_string(dir.join("cgroup.procs")) else {
        return;
    };
    for pid in procs.lines().filter_map(|p| p.trim().parse::<i32>().ok()) {
        if let Some(pid) = rustix::process::Pid::from_raw(pid) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_pids_hierarchy_comes_first_then_the_unified_one() {
        let own = "9:name=systemd:/\n8:pids:/docker/abc\n4:memory:/x\n0::/user.slice\n";
        assert_eq!(
            candidates(own),
            [
                PathBuf::from("/sys/fs/cgroup/pids/docker/abc"),
                PathBuf::from("/sys/fs/cgroup/user.slice"),
                PathBuf::from("/sys/fs/cgroup/unified/user.slice"),
            ]
        );
        assert_eq!(
            candidates("0::/\n"),
            [
                PathBuf::from("/sys/fs/cgroup/"),
                PathBuf::from("/sys/fs/cgroup/unified/")
            ]
        );
    }

    #[test]
    fn a_run_cgroup_caps_and_is_removed_when_empty() {
        let Some(run) = RunCgroup::create(7) else {
            // CI runs as root with a pids hierarchy and sets the variable: there a missing
            // cgroup is a failure, so this test cannot pass by not running.
            assert!(
                std::env::var_os("CY_LIMITS_REQUIRE_ENFORCED").is_none(),
                "CY_LIMITS_REQUIRE_ENFORCED is set, but this host cannot make a pids cgroup: run as root on a host with a pids cgroup hierarchy (v1 `pids` or v2 with the `pids` controller), or unset the variable"
            );
            eprintln!("skipped: this host cannot make a pids cgroup");
            return;
        };
        let dir = run.dir.clone();
        assert_eq!(
            fs::read_to_string(dir.join("pids.max")).unwrap().trim(),
            "7"
        );
        drop(run);
        assert!(!dir.exists());
    }
}
