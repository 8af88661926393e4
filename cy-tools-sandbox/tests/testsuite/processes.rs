//! The local sandbox's background process table: ids, status, output since the last read from
//! a bounded buffer, stdin, kill of the whole group, reaping, and every process killed when the
//! session's view is dropped.

use std::path::Path;
use std::time::{Duration, Instant};

use cy_tools::services::{ExecOptions, ProcessInfo, ProcessTable, Sandbox, ServiceErrorKind};
use cy_tools_sandbox::{ExecLimits, LocalSandbox, SandboxView};
use tempfile::TempDir;

use crate::support::process::{SHELL_FAMILY, dead, pids_in};

fn sandbox() -> (TempDir, SandboxView) {
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    (dir, env)
}

/// Polls `table` until process `id` has ended, collecting all its output.
async fn finish(table: &dyn ProcessTable, id: &str) -> (ProcessInfo, String, String, u64) {
    let until = Instant::now() + Duration::from_secs(10);
    let (mut stdout, mut stderr, mut dropped) = (String::new(), String::new(), 0);
    loop {
        let output = table.output(id).await.unwrap();
        stdout.push_str(&output.stdout);
        stderr.push_str(&output.stderr);
        dropped += output.dropped_bytes;
        if !output.info.running {
            return (output.info, stdout, stderr, dropped);
        }
        assert!(Instant::now() < until, "process `{id}` never ended");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Polls `table` until process `id` has written `want` to stdout, returning what it wrote.
async fn read_until(table: &dyn ProcessTable, id: &str, want: &str) -> String {
    let until = Instant::now() + Duration::from_secs(10);
    let mut seen = String::new();
    while !seen.contains(want) {
        seen.push_str(&table.output(id).await.unwrap().stdout);
        assert!(Instant::now() < until, "never saw {want:?}; saw {seen:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    seen
}

#[tokio::test]
async fn processes_get_ids_in_start_order_and_report_how_they_ended() {
    let (_dir, env) = sandbox();
    let table = env.processes().unwrap();
    assert!(table.list().await.unwrap().is_empty());
    let first = table
        .start("echo out; echo err >&2; exit 3", ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(first.id, "p1");
    assert_eq!(first.command, "echo out; echo err >&2; exit 3");
    assert!(first.running);
    assert!(first.pid.is_some());
    assert_eq!(first.exit_code, None);
    let second = table
        .start("sleep 30", ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(second.id, "p2");

    let (info, stdout, stderr, dropped) = finish(table, "p1").await;
    assert_eq!(
        (stdout.as_str(), stderr.as_str(), dropped),
        ("out\n", "err\n", 0)
    );
    assert_eq!(info.exit_code, Some(3));
    assert_eq!(info.pid, None);
    assert_eq!(table.status("p1").await.unwrap(), info);
    // Read once: nothing new comes after.
    let again = table.output("p1").await.unwrap();
    assert_eq!((again.stdout.as_str(), again.stderr.as_str()), ("", ""));

    let listed: Vec<(String, bool)> = table
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|p| (p.id, p.running))
        .collect();
    assert_eq!(
        listed,
        [("p1".to_string(), false), ("p2".to_string(), true)]
    );
}

#[tokio::test]
async fn output_is_what_is_new_since_the_last_read() {
    let (_dir, env) = sandbox();
    let table = env.processes().unwrap();
    table
        .start("echo one; read go; echo two", ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(read_until(table, "p1", "one\n").await, "one\n");
    assert_eq!(table.output("p1").await.unwrap().stdout, "");
    table.write_stdin("p1", b"go\n".to_vec()).await.unwrap();
    let (info, stdout, _, _) = finish(table, "p1").await;
    assert_eq!(stdout, "two\n");
    assert_eq!(info.exit_code, Some(0));
}

#[tokio::test]
async fn stdin_given_at_start_and_written_later_both_arrive() {
    let (_dir, env) = sandbox();
    let table = env.processes().unwrap();
    let options = ExecOptions {
        stdin: Some(b"first\n".to_vec()),
        ..ExecOptions::default()
    };
    table.start("cat", options).await.unwrap();
    assert_eq!(read_until(table, "p1", "first\n").await, "first\n");
    table.write_stdin("p1", b"second\n".to_vec()).await.unwrap();
    assert_eq!(read_until(table, "p1", "second\n").await, "second\n");
    table.kill("p1").await.unwrap();
}

#[tokio::test]
async fn writing_to_a_process_that_ended_is_refused() {
    let (_dir, env) = sandbox();
    let table = env.processes().unwrap();
    table.start("true", ExecOptions::default()).await.unwrap();
    finish(table, "p1").await;
    let err = table
        .write_stdin("p1", b"late\n".to_vec())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::InvalidInput);
    assert_eq!(
        err.to_string(),
        "process `p1` has exited, so it reads no more input; start it again to send it input"
    );

    table
        .start("exec 0<&-; sleep 30", ExecOptions::default())
        .await
        .unwrap();
    // Give the shell a moment to close its input.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let err = table.write_stdin("p2", b"x\n".to_vec()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "process `p2` closed its standard input, so it reads no more input"
    );
}

#[tokio::test]
async fn kill_ends_the_whole_group() {
    let (dir, env) = sandbox();
    let table = env.processes().unwrap();
    table
        .start(SHELL_FAMILY, ExecOptions::default())
        .await
        .unwrap();
    let pids = pids_in(dir.path(), "family.pid", 2).await;
    let info = table.kill("p1").await.unwrap();
    assert!(!info.running);
    assert_eq!(info.exit_code, None);
    assert_eq!(info.pid, None);
    for pid in pids {
        assert!(dead(pid), "process {pid} survived kill");
    }
    let output = table.output("p1").await.unwrap();
    assert_eq!(output.stderr, "[the process was killed by signal 9]");
    // Killing it again changes nothing.
    assert_eq!(table.kill("p1").await.unwrap(), info);
}

#[tokio::test]
async fn an_ended_process_is_reaped_and_its_leftovers_killed() {
    let (dir, env) = sandbox();
    let table = env.processes().unwrap();
    let info = table
        .start(
            "sleep 30 & echo $! > bg.pid; echo $$ >> bg.pid",
            ExecOptions::default(),
        )
        .await
        .unwrap();
    let leader = info.pid.unwrap();
    let (info, _, _, _) = finish(table, "p1").await;
    assert_eq!(info.exit_code, Some(0));
    let pids = pids_in(dir.path(), "bg.pid", 2).await;
    assert_eq!(pids[1], leader);
    // The leader was this process's child: reaped, it is gone entirely, not a zombie.
    assert!(!Path::new(&format!("/proc/{leader}")).exists());
    assert!(dead(pids[0]), "the background sleep outlived its process");
}

#[tokio::test]
async fn dropping_the_view_kills_every_process() {
    let (dir, env) = sandbox();
    let table = env.processes().unwrap();
    table
        .start(SHELL_FAMILY, ExecOptions::default())
        .await
        .unwrap();
    table
        .start("echo $$ > lone.pid; exec sleep 30", ExecOptions::default())
        .await
        .unwrap();
    let mut pids = pids_in(dir.path(), "family.pid", 2).await;
    pids.extend(pids_in(dir.path(), "lone.pid", 1).await);
    let clone = env.clone();
    drop(env);
    // A clone keeps the view, and its processes, alive.
    tokio::time::sleep(Duration::from_millis(100)).await;
    for pid in &pids {
        assert!(Path::new(&format!("/proc/{pid}")).exists());
    }
    drop(clone);
    for pid in pids {
        assert!(dead(pid), "process {pid} outlived the session");
    }
}

#[tokio::test]
async fn unread_output_is_bounded_and_the_dropped_bytes_counted() {
    let dir = tempfile::tempdir().unwrap();
    let limits = ExecLimits {
        process_buffer: 64 * 1024,
        ..ExecLimits::default()
    };
    let env = LocalSandbox::new(dir.path())
        .unwrap()
        .with_limits(limits)
        .env();
    let table = env.processes().unwrap();
    table
        .start(
            "head -c 300000 /dev/zero | tr '\\0' a; echo; echo end",
            ExecOptions::default(),
        )
        .await
        .unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while table.status("p1").await.unwrap().running {
        assert!(Instant::now() < until);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let output = table.output("p1").await.unwrap();
    // The newest 64 KiB are kept: the tail of the `a`s, a newline and `end`.
    assert_eq!(output.stdout.len(), 64 * 1024);
    assert!(output.stdout.ends_with("aaaa\nend\n"));
    assert_eq!(output.dropped_bytes, 300_000 + 5 - 64 * 1024);
    assert_eq!(table.output("p1").await.unwrap().dropped_bytes, 0);
}

#[tokio::test]
async fn processes_start_in_the_view_with_a_clean_environment() {
    let (dir, env) = sandbox();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    let table = env.processes().unwrap();
    let options = ExecOptions {
        cwd: Some("sub".into()),
        ..ExecOptions::default().env("MODE", "bg")
    };
    table.start("pwd; env | sort", options).await.unwrap();
    let (_, stdout, _, _) = finish(table, "p1").await;
    let limits = env.limits();
    // `TMPDIR`, its private temporary folder, comes last in sorted order.
    let (stdout, tmp) = stdout.split_once("TMPDIR=").unwrap();
    assert!(tmp.contains("/cy-run-"), "{tmp}");
    assert_eq!(
        stdout,
        format!(
            "{root}/sub\nHOME={root}\nLANG={lang}\nMODE=bg\nPATH={path}\nPWD={root}/sub\n",
            root = root.display(),
            lang = limits.lang,
            path = limits.path
        )
    );
}

#[tokio::test]
async fn unknown_ids_and_bad_folders_are_refused_clearly() {
    let (_dir, env) = sandbox();
    let table = env.processes().unwrap();
    let err = table.status("p1").await.unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::NotFound);
    assert_eq!(
        err.to_string(),
        "no background process `p1` in this session (none has been started yet); use an id that starting a process returned"
    );
    table.start("true", ExecOptions::default()).await.unwrap();
    table.start("true", ExecOptions::default()).await.unwrap();
    let expected = "no background process `p7` in this session (its processes are `p1`, `p2`); use an id that starting a process returned";
    assert_eq!(table.output("p7").await.unwrap_err().to_string(), expected);
    assert_eq!(table.kill("p7").await.unwrap_err().to_string(), expected);
    assert_eq!(
        table
            .write_stdin("p7", b"x".to_vec())
            .await
            .unwrap_err()
            .to_string(),
        expected
    );

    let options = ExecOptions {
        cwd: Some("missing".into()),
        ..ExecOptions::default()
    };
    let err = table.start("true", options).await.unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::NotFound);
    let options = ExecOptions {
        cwd: Some("/etc".into()),
        ..ExecOptions::default()
    };
    let err = table.start("true", options).await.unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::OutsideSandbox);
    assert_eq!(table.list().await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_session_runs_a_bounded_number_of_processes() {
    let (_dir, env) = sandbox();
    let table = env.processes().unwrap();
    for _ in 0..64 {
        table
            .start("sleep 30", ExecOptions::default())
            .await
            .unwrap();
    }
    let err = table
        .start("sleep 30", ExecOptions::default())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "this session already runs 64 background processes, the most it may; kill the ones you no longer need and start this one again"
    );
    table.kill("p1").await.unwrap();
    let info = table.start("true", ExecOptions::default()).await.unwrap();
    assert_eq!(info.id, "p65");
}
