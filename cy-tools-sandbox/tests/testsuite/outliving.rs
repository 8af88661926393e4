//! Nothing a command started outlives it: a double-forked child that called `setsid()` (out of
//! the command's process group and session) is gone when the call ends, when the call is
//! cancelled, when its background process is killed and when its session ends. And a session's
//! concurrent commands share one process budget.
//!
//! Both need a cgroup: as root (CI) with `CY_LIMITS_REQUIRE_ENFORCED` set, a host that cannot
//! make one fails these tests rather than skipping them.

use std::path::Path;
use std::time::Duration;

use cy_tools::{
    CancellationToken,
    services::{ExecOptions, ResourceLimits, Sandbox},
};
use cy_tools_sandbox::{ExecLimits, LocalSandbox};

use crate::support::process::{cgroups_catch_setsid, dead, pids_in, running};

/// Starts a process that leaves the command's group and session, whose parent exits at once
/// (so it is nobody's child in the command), and records its pid in `escaped.pid`.
const ESCAPE: &str =
    "(setsid sh -c 'echo $$ > escaped.pid.tmp; mv escaped.pid.tmp escaped.pid; exec sleep 300' &)";

/// Whether this host can make the cgroups that catch such a process: root with a cgroup tree.
/// Elsewhere the tests skip, unless `CY_LIMITS_REQUIRE_ENFORCED` is set.
fn cgroups_here() -> bool {
    if cgroups_catch_setsid() {
        return true;
    }
    assert!(
        std::env::var_os("CY_LIMITS_REQUIRE_ENFORCED").is_none(),
        "CY_LIMITS_REQUIRE_ENFORCED is set, but these tests do not run as root on a host with a cgroup tree, so no cgroup catches a process that left its session: run them as root (CI does), or unset the variable"
    );
    eprintln!(
        "skipped: no cgroup can be made here, and a process that calls setsid() outlives its command"
    );
    false
}

/// The escaped process's pid, once it has written it.
async fn escaped(root: &Path) -> u32 {
    let pid = pids_in(root, "escaped.pid", 1).await[0];
    assert!(running(pid), "the escaped process {pid} is not running");
    pid
}

/// Kills `pid` if a test fails with it still running, so no `sleep 300` is left behind.
struct Leftover(u32);

impl Drop for Leftover {
    fn drop(&mut self) {
        if running(self.0)
            && let Some(pid) = rustix::process::Pid::from_raw(self.0 as i32)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

#[tokio::test]
async fn a_setsid_child_is_gone_when_its_terminal_call_ends() {
    if !cgroups_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let command = format!("{ESCAPE}; while [ ! -f escaped.pid ]; do sleep 0.05; done");
    let out = env.exec(&command, ExecOptions::default()).await.unwrap();
    assert_eq!(out.exit_code, Some(0), "{out:?}");
    // It ran (the command waited for its pid file); it may be dead already.
    let pid = pids_in(dir.path(), "escaped.pid", 1).await[0];
    let _leftover = Leftover(pid);
    assert!(dead(pid), "the setsid child {pid} outlived its call");
}

#[tokio::test]
async fn a_setsid_child_is_gone_when_its_call_is_cancelled() {
    if !cgroups_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let cancel = CancellationToken::new();
    let options = ExecOptions {
        cancel: Some(cancel.clone()),
        ..ExecOptions::default()
    };
    let command = format!("{ESCAPE}; sleep 300");
    let root = dir.path().to_path_buf();
    let (result, pid) = tokio::join!(env.exec(&command, options), async {
        let pid = escaped(&root).await;
        cancel.cancel();
        pid
    });
    let _leftover = Leftover(pid);
    assert!(result.is_err(), "{result:?}");
    assert!(
        dead(pid),
        "the setsid child {pid} outlived its cancelled call"
    );
}

#[tokio::test]
async fn a_setsid_child_is_gone_when_its_background_process_is_killed() {
    if !cgroups_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let table = env.processes().unwrap();
    let started = table
        .start(&format!("{ESCAPE}; sleep 300"), ExecOptions::default())
        .await
        .unwrap();
    let pid = escaped(dir.path()).await;
    let _leftover = Leftover(pid);
    table.kill(&started.id).await.unwrap();
    assert!(
        dead(pid),
        "the setsid child {pid} outlived its killed process"
    );
}

#[tokio::test]
async fn a_setsid_child_is_gone_when_its_session_ends() {
    if !cgroups_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    // The background process has exited by the time the session ends: only its escaped child
    // is left, which no process group reaches.
    env.processes()
        .unwrap()
        .start(&format!("{ESCAPE}; sleep 300"), ExecOptions::default())
        .await
        .unwrap();
    let pid = escaped(dir.path()).await;
    let _leftover = Leftover(pid);
    drop(env);
    assert!(dead(pid), "the setsid child {pid} outlived its session");
}

/// Starts `n` children that each append a line to `file` and then sleep: each line is a fork
/// that succeeded.
fn forks(n: u32, file: &str) -> String {
    format!(
        "i=0; while [ $i -lt {n} ]; do sh -c 'echo x >> {file}; exec sleep 5' & i=$((i+1)); done; wait"
    )
}

fn lines(root: &Path, file: &str) -> usize {
    std::fs::read_to_string(root.join(file)).map_or(0, |t| t.lines().count())
}

#[tokio::test]
async fn a_sessions_concurrent_commands_share_one_process_budget() {
    if !cgroups_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let limits = ExecLimits {
        resources: ResourceLimits {
            processes: Some(16),
            ..ExecLimits::default().resources
        },
        ..ExecLimits::default()
    };
    let env = LocalSandbox::new(dir.path())
        .unwrap()
        .with_limits(limits)
        .env();
    let root = dir.path();
    // The first command holds 10 processes (and its shell) while the second tries for 10 more:
    // with one budget of 16 for both, the second gets a few at most.
    let (a, b) = (forks(10, "a.count"), forks(10, "b.count"));
    let first = env.exec(&a, ExecOptions::default());
    let second = async {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while lines(root, "a.count") < 10 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the first command never forked"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        env.exec(&b, ExecOptions::default()).await
    };
    let (first, second) = tokio::join!(first, second);
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_eq!(lines(root, "a.count"), 10, "{first:?}");
    let got = lines(root, "b.count");
    assert!(
        got <= 4,
        "the second command started {got} of 10 processes while the first held 11 of the session's 16: each command has a budget of its own ({second:?})"
    );
}
