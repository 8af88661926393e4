//! A control server's limits hold for every request: a client asking for no memory cap, a
//! hundred thousand processes or a terabyte of output gets the host's caps instead, on a
//! command and on a background process alike.

use std::time::Duration;

use cy_tools::services::{ExecOptions, ResourceLimits, Sandbox};
use cy_tools_remote::RemoteSandbox;
use cy_tools_sandbox::ExecLimits;

use crate::support::loopback_server::{Server, TOKEN};

/// The host's caps, as `--cpu-seconds 10 --memory-mb 128 --max-processes 8` give them, and a
/// 1000-byte output cap.
fn host_limits() -> ExecLimits {
    ExecLimits {
        output_limit: 1000,
        resources: ResourceLimits {
            cpu_time: Some(Duration::from_secs(10)),
            memory: Some(128 << 20),
            processes: Some(8),
        },
        ..ExecLimits::default()
    }
}

/// What a client asks for to lift every cap: none on CPU or memory, 100000 processes, 1 TiB
/// of output.
fn lifted() -> ExecOptions {
    ExecOptions {
        output_limit: Some(1 << 40),
        resources: Some(ResourceLimits {
            cpu_time: None,
            memory: None,
            processes: Some(100_000),
        }),
        ..ExecOptions::default()
    }
}

fn start(root: &std::path::Path) -> (Server, RemoteSandbox) {
    let server = Server::start(root, |config| config.limits = host_limits());
    let env = RemoteSandbox::new(&server.endpoint(), "ws", TOKEN).unwrap();
    (server, env)
}

/// The soft and hard value of `/proc/self/limits` row `name` in `text`.
fn row<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let line = text
        .lines()
        .find(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("no `{name}` in {text}"));
    line[name.len()..].split_whitespace().take(2).collect()
}

const LIMITS: &str = "grep -E '^Max (cpu time|data size)' /proc/self/limits";

#[tokio::test]
async fn a_command_asking_for_no_caps_runs_under_the_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, env) = start(dir.path());
    let out = env.exec(LIMITS, lifted()).await.unwrap();
    assert!(out.success(), "{out:?}");
    assert_eq!(row(&out.stdout, "Max data size"), ["134217728"; 2]);
    // The hard CPU limit is a second above the soft one, for `SIGKILL` after `SIGXCPU`.
    assert_eq!(row(&out.stdout, "Max cpu time"), ["10", "11"]);

    // Lower caps than the host's are the client's to ask for.
    let lower = ExecOptions {
        resources: Some(ResourceLimits {
            cpu_time: Some(Duration::from_secs(3)),
            memory: Some(64 << 20),
            processes: Some(4),
        }),
        ..ExecOptions::default()
    };
    let out = env.exec(LIMITS, lower).await.unwrap();
    assert_eq!(row(&out.stdout, "Max data size"), ["67108864"; 2]);
    assert_eq!(row(&out.stdout, "Max cpu time"), ["3", "4"]);
}

#[tokio::test]
async fn a_background_process_asking_for_no_caps_runs_under_the_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, env) = start(dir.path());
    let table = env.processes().unwrap();
    let started = table.start(LIMITS, lifted()).await.unwrap();
    let mut seen = String::new();
    for _ in 0..500 {
        let output = table.output(&started.id).await.unwrap();
        seen.push_str(&output.stdout);
        if !table.status(&started.id).await.unwrap().running && seen.contains("data size") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(row(&seen, "Max data size"), ["134217728"; 2]);
    assert_eq!(row(&seen, "Max cpu time"), ["10", "11"]);
}

#[tokio::test]
async fn a_terabyte_output_cap_gets_the_hosts_thousand_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, env) = start(dir.path());
    let out = env
        .exec("head -c 200000 /dev/zero | tr '\\0' a", lifted())
        .await
        .unwrap();
    assert!(out.truncated, "{} bytes came back", out.stdout.len());
    assert_eq!(out.stdout.split('\n').next().unwrap(), "a".repeat(1000));
    assert!(
        out.stdout.len() < 1400,
        "{} bytes came back for a 1000-byte cap",
        out.stdout.len()
    );
}

/// Forks up to 40 children that sleep, and prints how many it got and the errno that stopped
/// it.
const FORKS: &str = r#"python3 -c '
import os, time
n, err = 0, None
for _ in range(40):
    try:
        pid = os.fork()
    except OSError as e:
        err = e.errno
        break
    if pid == 0:
        time.sleep(20)
        os._exit(0)
    n += 1
print(n, err)
'"#;

#[tokio::test]
async fn a_hundred_thousand_processes_asked_for_are_the_hosts_eight() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, env) = start(dir.path());
    let cgroup = env
        .exec("cat /proc/self/cgroup", ExecOptions::default())
        .await
        .unwrap();
    // As `resource_limits`: root is held to a process count only by a pids cgroup.
    let enforced = !rustix::process::geteuid().is_root() || cgroup.stdout.contains("/cy-tools-");
    if !enforced {
        assert!(
            std::env::var_os("CY_LIMITS_REQUIRE_ENFORCED").is_none(),
            "CY_LIMITS_REQUIRE_ENFORCED is set, but this root host gives a command no pids cgroup: {}",
            cgroup.stdout
        );
        eprintln!("skipped: this host cannot hold a command to a process count");
        return;
    }
    let out = env.exec(FORKS, lifted()).await.unwrap();
    let mut words = out.stdout.split_whitespace();
    let forked: u32 = words.next().unwrap().parse().unwrap();
    // The shell and Python count as well: at most 8 in all.
    assert!(forked < 8, "{forked} forks of 40 went through: {out:?}");
    assert_eq!(words.next(), Some("11"), "not EAGAIN: {out:?}");
}
