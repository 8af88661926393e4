use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use super::*;

/// Whether a missing cgroup feature must fail the test (CI runs as root, on a host with them).
fn required() -> bool {
    std::env::var_os("CY_LIMITS_REQUIRE_ENFORCED").is_some()
}

#[test]
fn the_v1_pids_hierarchy_comes_first_and_the_freezer_last() {
    let own = "9:name=systemd:/\n6:freezer:/f\n8:pids:/docker/abc\n4:memory:/x\n";
    let found = places(own);
    let found: Vec<(&Path, bool, Kill)> = found
        .iter()
        .map(|t| (t.base.as_path(), t.counts, t.kill))
        .collect();
    assert_eq!(
        found,
        [
            (
                Path::new("/sys/fs/cgroup/pids/docker/abc"),
                true,
                Kill::OneByOne
            ),
            (Path::new("/sys/fs/cgroup/freezer/f"), false, Kill::Freeze),
        ]
    );
}

#[test]
fn a_views_budget_and_a_runs_cap_hold_and_both_are_removed() {
    let view = ViewCgroup::new(Some(20));
    let Some(run) = RunCgroup::create(&view, Some(7)) else {
        // CI runs as root with a pids hierarchy and sets the variable: there a missing
        // cgroup is a failure, so this test cannot pass by not running.
        assert!(
            !required(),
            "CY_LIMITS_REQUIRE_ENFORCED is set, but this host cannot make a pids cgroup: run as root on a host with a pids cgroup hierarchy (v1 `pids` or v2 with the `pids` controller), or unset the variable"
        );
        eprintln!("skipped: this host cannot make a pids cgroup");
        return;
    };
    assert!(run.counts());
    let dir = run.dirs[0].clone();
    let view_dir = dir.parent().unwrap().to_path_buf();
    let read = |p: &Path| fs::read_to_string(p.join("pids.max")).unwrap();
    assert_eq!(read(&dir).trim(), "7");
    assert_eq!(read(&view_dir).trim(), "20");
    let dirs = run.dirs.clone();
    drop(run);
    assert!(dirs.iter().all(|d| !d.exists()), "{dirs:?}");
    drop(view);
    assert!(!view_dir.exists());
}

/// A shell put into cgroup `dir` before it runs anything: once told to, it starts a process
/// that leaves its group and session (`setsid`) and whose parent exits (a double fork), then
/// waits. The pids of both, as the shell prints them.
fn family_in(dir: &Path) -> (Child, Vec<u32>) {
    let mut shell = Command::new("/bin/sh")
        .args([
            "-c",
            "read go; (setsid sh -c 'echo $$; exec sleep 300' &); sleep 0.2; echo $$; exec sleep 300",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    fs::write(dir.join("cgroup.procs"), shell.id().to_string()).unwrap();
    shell.stdin.take().unwrap().write_all(b"go\n").unwrap();
    let mut out = shell.stdout.take().unwrap();
    let mut text = String::new();
    let start = Instant::now();
    while text.lines().count() < 2 {
        let mut buf = [0u8; 64];
        let n = std::io::Read::read(&mut out, &mut buf).unwrap();
        assert!(n > 0 && start.elapsed() < Duration::from_secs(10), "{text}");
        text.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    let pids = text.lines().map(|l| l.trim().parse().unwrap()).collect();
    (shell, pids)
}

fn alive(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(") ").map(|(_, r)| r.chars().next()))
        .is_some_and(|state| state != Some('Z') && state != Some('X'))
}

/// Each way of emptying a cgroup kills a double-forked `setsid` child, on the hierarchy that
/// has that way here.
#[test]
fn every_kill_way_reaches_a_process_that_left_its_session() {
    let ways = [
        ("/sys/fs/cgroup/unified", Kill::Switch),
        ("/sys/fs/cgroup/freezer", Kill::Freeze),
        ("/sys/fs/cgroup/pids", Kill::OneByOne),
    ];
    for (root, way) in ways {
        let dir = Path::new(root).join(format!("cy-tools-test-{}-{:?}", std::process::id(), way));
        if fs::create_dir(&dir).is_err() {
            assert!(
                !required(),
                "CY_LIMITS_REQUIRE_ENFORCED is set, but no cgroup can be made under {root}: run as root on a host with that hierarchy, or unset the variable"
            );
            eprintln!("skipped {way:?}: no cgroup can be made under {root}");
            continue;
        }
        let (mut shell, pids) = family_in(&dir);
        assert!(pids.iter().all(|&p| alive(p)), "{pids:?}");
        kill_all(&dir, way);
        let _ = shell.wait();
        let start = Instant::now();
        while pids.iter().any(|&p| alive(p)) && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let left: Vec<u32> = pids.iter().copied().filter(|&p| alive(p)).collect();
        let removed = remove_when_empty(&dir, Duration::from_secs(5));
        assert!(left.is_empty(), "{way:?} left {left:?} running");
        assert!(removed, "{way:?}: {} was not emptied", dir.display());
    }
}

/// A folder of a live host in another pid namespace, whose pid means nothing here, is left
/// alone; one of a gone host of this namespace is emptied and removed.
#[test]
fn only_gone_hosts_of_this_namespace_are_swept() {
    let Some(own) = HostId::own() else {
        panic!("this process has no /proc/self/ns/pid");
    };
    let parent = Path::new("/sys/fs/cgroup/pids");
    // A pid that does not exist here: the largest possible, minus one.
    let unused = fs::read_to_string("/proc/sys/kernel/pid_max")
        .map_or(4_194_304, |m| m.trim().parse::<u32>().unwrap_or(4_194_304))
        - 1;
    assert!(host::start_time(unused).is_none());
    let other_ns = HostId {
        pid_ns: own.pid_ns + 1,
        pid: unused,
        start: 1,
    };
    let gone_here = HostId {
        pid_ns: own.pid_ns,
        pid: unused,
        start: 1,
    };
    let live = parent.join(other_ns.folder()).join("view-0").join("run-0");
    let dead = parent.join(gone_here.folder()).join("view-0").join("run-0");
    if fs::create_dir_all(&live).is_err() {
        assert!(
            !required(),
            "CY_LIMITS_REQUIRE_ENFORCED is set, but no cgroup can be made under {}: run as root on a host with a v1 pids hierarchy, or unset the variable",
            parent.display()
        );
        eprintln!("skipped: no v1 pids hierarchy to write to");
        return;
    }
    fs::create_dir_all(&dead).unwrap();
    let (mut other, other_pids) = family_in(&live);
    let (mut gone, gone_pids) = family_in(&dead);
    sweep_stale(parent, &own, Kill::OneByOne);
    let _ = gone.wait();
    let still = other_pids.iter().all(|&p| alive(p));
    let live_kept = live.exists();
    let dead_removed = !parent.join(gone_here.folder()).exists();
    let gone_killed = gone_pids.iter().all(|&p| !alive(p));
    // Cleaned up whatever the outcome.
    kill_all(&parent.join(other_ns.folder()), Kill::OneByOne);
    let _ = other.wait();
    remove_when_empty(&parent.join(other_ns.folder()), Duration::from_secs(5));
    remove_when_empty(&parent.join(gone_here.folder()), Duration::from_secs(5));
    assert!(
        still && live_kept,
        "a live host of another pid namespace was swept"
    );
    assert!(
        gone_killed && dead_removed,
        "a gone host's command was left"
    );
}
