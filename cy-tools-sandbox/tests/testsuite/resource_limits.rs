//! Resource limits for executed code: a CPU hog, a memory hog and a fork bomb in
//! `execute_code` stop at their caps, on both backends, and the host stays fine. Also: the
//! limits a command actually runs under, for the terminal, background processes and code.

use std::time::{Duration, Instant};

use cy_tools::services::{ExecOptions, ResourceLimits, Sandbox};
use cy_tools_sandbox::{ExecLimits, LocalSandbox};
use serde_json::json;

use crate::support::backend::{Backend, on_each_backend};
use crate::support::code_session::{self, Session};
use crate::support::process::dead;

/// Caps small enough to hit in a test in a second.
const TIGHT: ResourceLimits = ResourceLimits {
    cpu_time: Some(Duration::from_secs(1)),
    memory: Some(256 << 20),
    processes: Some(16),
};

fn tight() -> ExecLimits {
    ExecLimits {
        resources: TIGHT,
        ..ExecLimits::default()
    }
}

/// A session whose runs are held to [`TIGHT`], on `backend`.
fn tight_session(backend: Backend) -> Session {
    match backend {
        Backend::Local => code_session::local_with(tight()),
        Backend::Remote => {
            code_session::remote_with(|config| config.limits = tight(), |executor| executor)
        }
    }
}

/// A value from `/proc/self/limits` text: the soft and hard limit of the row starting `name`.
fn limit_row(limits: &str, name: &str) -> (String, String) {
    let row = limits
        .lines()
        .find(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("no `{name}` in {limits}"));
    let mut cols = row[name.len()..].split_whitespace();
    (
        cols.next().unwrap().to_string(),
        cols.next().unwrap().to_string(),
    )
}

/// Whether this host can hold a command to a process count: a non-root user has
/// `RLIMIT_NPROC`; root needs the pids cgroup, which a command then finds itself in.
///
/// With `CY_LIMITS_REQUIRE_ENFORCED` set (CI sets it), a host that cannot is a failure, not a
/// skip, so the fork-bomb tests cannot pass by not running.
async fn process_count_enforced() -> bool {
    if !rustix::process::geteuid().is_root() {
        return true;
    }
    pids_cgroup_works().await
}

/// Whether a command here finds itself in a pids cgroup of its own (root, and a pids
/// hierarchy to make one in).
///
/// With `CY_LIMITS_REQUIRE_ENFORCED` set (CI sets it, and runs as root), either missing is a
/// failure: the cgroup tests cannot pass by not running.
async fn pids_cgroup_works() -> bool {
    let required = std::env::var_os("CY_LIMITS_REQUIRE_ENFORCED").is_some();
    if !rustix::process::geteuid().is_root() {
        assert!(
            !required,
            "CY_LIMITS_REQUIRE_ENFORCED is set, but the tests do not run as root, so no pids cgroup can be made for a command: run them as root (CI does), or unset the variable"
        );
        return false;
    }
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let out = env
        .exec("cat /proc/self/cgroup", ExecOptions::default())
        .await
        .unwrap();
    let enforced = out.stdout.contains("/cy-tools-");
    assert!(
        enforced || !required,
        "CY_LIMITS_REQUIRE_ENFORCED is set, but this root host cannot create a pids cgroup (a command's /proc/self/cgroup names none of cy-tools'): {}",
        out.stdout
    );
    enforced
}

/// Forks children that sleep, at most 100 (so even unenforced it stays bounded), and reports
/// how many it got and the error that stopped it.
const FORK_BOMB: &str = r#"
import os, time
n = 0
err = None
for _ in range(100):
    try:
        pid = os.fork()
    except OSError as e:
        err = e.errno
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    n += 1
print(n, err)
"#;

#[tokio::test]
async fn commands_run_under_the_safe_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let out = env
        .exec("cat /proc/self/limits", ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(
        limit_row(&out.stdout, "Max cpu time"),
        ("600".into(), "601".into())
    );
    assert_eq!(
        limit_row(&out.stdout, "Max data size"),
        ("4294967296".into(), "4294967296".into())
    );
}

#[tokio::test]
async fn a_call_may_set_its_own_limits_or_none() {
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let tight = ExecOptions {
        resources: Some(TIGHT),
        ..ExecOptions::default()
    };
    let out = env.exec("cat /proc/self/limits", tight).await.unwrap();
    assert_eq!(
        limit_row(&out.stdout, "Max cpu time"),
        ("1".into(), "2".into())
    );
    assert_eq!(
        limit_row(&out.stdout, "Max data size"),
        ("268435456".into(), "268435456".into())
    );
    let none = ExecOptions {
        resources: Some(ResourceLimits::NONE),
        ..ExecOptions::default()
    };
    let out = env.exec("cat /proc/self/limits", none).await.unwrap();
    let host = std::fs::read_to_string("/proc/self/limits").unwrap();
    for row in ["Max cpu time", "Max data size", "Max processes"] {
        assert_eq!(limit_row(&out.stdout, row), limit_row(&host, row), "{row}");
    }
}

#[tokio::test]
async fn the_sandbox_default_holds_background_processes_too() {
    let dir = tempfile::tempdir().unwrap();
    let limits = ExecLimits {
        resources: TIGHT,
        ..ExecLimits::default()
    };
    let env = LocalSandbox::new(dir.path())
        .unwrap()
        .with_limits(limits)
        .env();
    let table = env.processes().unwrap();
    let info = table
        .start(
            "grep -E 'cpu time|data size' /proc/self/limits",
            ExecOptions::default(),
        )
        .await
        .unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    let mut seen = String::new();
    while Instant::now() < until && seen.lines().count() < 2 {
        seen.push_str(&table.output(&info.id).await.unwrap().stdout);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(limit_row(&seen, "Max cpu time"), ("1".into(), "2".into()));
    assert_eq!(
        limit_row(&seen, "Max data size"),
        ("268435456".into(), "268435456".into())
    );
}

#[tokio::test]
async fn a_command_can_count_on_its_process_limit_in_a_cgroup() {
    if !pids_cgroup_works().await {
        eprintln!("skipped: no pids cgroup on this host (the limit is RLIMIT_NPROC instead)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let tight = ExecOptions {
        resources: Some(TIGHT),
        ..ExecOptions::default()
    };
    // The command says which cgroup it is in (its cgroup files are out of its reach: it is
    // confined), and the test reads that cgroup's limit while the command still holds it.
    let table = env.processes().unwrap();
    table
        .start(
            "grep :pids: /proc/self/cgroup | cut -d: -f3 > cgroup.txt; sleep 30",
            tight,
        )
        .await
        .unwrap();
    let file = dir.path().join("cgroup.txt");
    let deadline = Instant::now() + Duration::from_secs(10);
    let cgroup = loop {
        match std::fs::read_to_string(&file) {
            Ok(text) if text.ends_with('\n') => break text.trim().to_string(),
            _ => assert!(
                Instant::now() < deadline,
                "the command never said its cgroup"
            ),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let max = std::fs::read_to_string(format!("/sys/fs/cgroup/pids{cgroup}/pids.max")).unwrap();
    assert_eq!(max.trim(), "16", "{cgroup}");
    table.kill("p1").await.unwrap();
}

/// Every process whose command line names `needle`, from `/proc`.
fn processes_naming(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(needle) && !dead(pid) {
            found.push(pid);
        }
    }
    found
}

on_each_backend! {
    async fn cpu_hog_stops_at_its_cpu_limit(backend: Backend) {
        let s = &tight_session(backend);
        let started = Instant::now();
        let result = s
            .run(json!({"code": "while True:\n    pass", "timeout_ms": 60_000}))
            .await;
        let elapsed = started.elapsed();
        let text = result.text_content();
        // The shell either ran python as its child (and reports its death as 128 + 24: an exit
        // code, so a normal result) or became python (and was killed itself: an error result).
        // Either way the notice says what happened.
        assert_eq!(result.is_error, text.contains("killed by a signal before it finished"), "{text}");
        let by_shell = "[exit code 152 is how the shell reports a process killed by signal 24 (SIGXCPU): a process of it used up its CPU-time limit of 1 s; make it do less work, or raise the limit]";
        let itself = "[the command was killed by signal 24 (SIGXCPU): a process of it used up its CPU-time limit of 1 s; make it do less work, or raise the limit]";
        assert!(text.contains(by_shell) || text.contains(itself), "{text}");
        // One CPU second, however busy the machine; far from the 60 s timeout.
        assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");
    }

    async fn memory_hog_gets_memory_error(backend: Backend) {
        let s = &tight_session(backend);
        let code = "blocks = []\nfor _ in range(64):\n    blocks.append(bytearray(64 << 20))\nprint('allocated it all')";
        let result = s.run(json!({"code": code})).await;
        let text = result.text_content();
        // Python ran out of its memory and exited with the error: the code ran, so a normal
        // result whose exit code and traceback say so.
        assert!(!result.is_error, "{text}");
        assert!(text.starts_with("the code exited with exit code 1\n"), "{text}");
        assert!(text.contains("MemoryError"), "{text}");
        assert!(!text.contains("allocated it all"), "{text}");
    }

    async fn fork_bomb_stops_at_the_process_limit(backend: Backend) {
        let s = &tight_session(backend);
        if !process_count_enforced().await {
            eprintln!(
                "skipped: this host runs as root and cannot create a pids cgroup, so no process limit can hold"
            );
            return;
        }
        let started = Instant::now();
        let out = s.ok(json!({"code": FORK_BOMB, "timeout_ms": 20_000})).await;
        let counts = out
            .lines()
            .find(|l| l.ends_with(" 11"))
            .unwrap_or_else(|| panic!("fork never failed with EAGAIN: {out}"));
        let forked: u32 = counts.split(' ').next().unwrap().parse().unwrap();
        // 16 tasks in all: the shell may have exec'd into python or be waiting for it.
        assert!((10..16).contains(&forked), "{out}");
        // The sleeping children die with the run (its group is killed when python exits).
        assert!(started.elapsed() < Duration::from_secs(15));
    }

    async fn true_fork_bomb_is_contained_and_killed(backend: Backend) {
        let s = &tight_session(backend);
        if !process_count_enforced().await {
            eprintln!(
                "skipped: this host runs as root and cannot create a pids cgroup, so no process limit can hold"
            );
            return;
        }
        // Every process forks forever: only the process cap bounds it, and the timeout ends it.
        let code =
            "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass";
        let started = Instant::now();
        let result = s
            .run(json!({"code": code, "timeout_ms": 3000, "filename": "bomb.py"}))
            .await;
        let text = result.text_content();
        assert!(result.is_error, "{text}");
        assert!(
            text.starts_with("the code timed out after 3000 ms and was killed"),
            "{text}"
        );
        assert!(started.elapsed() < Duration::from_secs(20));
        let left = processes_naming(&s.script("bomb.py"));
        assert!(left.is_empty(), "the bomb left processes {left:?}");
    }
}
