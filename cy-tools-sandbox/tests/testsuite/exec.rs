//! `Sandbox::exec` on the local sandbox: clean environment, stdin, exit codes, output caps, and
//! the whole process group killed at the timeout, on cancellation, on drop and after the
//! command's leader exits.

use std::path::Path;
use std::time::{Duration, Instant};

use cy_tools::{
    CancellationToken,
    services::{ExecOptions, Sandbox, ServiceErrorKind},
};
use cy_tools_sandbox::{LocalSandbox, SandboxView};
use tempfile::TempDir;

use crate::support::alone::alone;
use crate::support::process::{SHELL_FAMILY, dead, pids_in};

fn sandbox() -> (TempDir, SandboxView) {
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    (dir, env)
}

#[tokio::test]
async fn runs_in_the_workspace_with_home_set_to_it() {
    let (dir, env) = sandbox();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    let result = env
        .exec(
            "pwd; echo $HOME; echo made > out.txt",
            ExecOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        result.stdout,
        format!("{}\n{}\n", root.display(), root.display())
    );
    assert_eq!(result.stderr, "");
    assert_eq!(result.exit_code, Some(0));
    assert!(result.success());
    assert!(!result.timed_out && !result.truncated);
    assert_eq!(
        std::fs::read_to_string(root.join("out.txt")).unwrap(),
        "made\n"
    );

    let options = ExecOptions {
        cwd: Some("sub".into()),
        ..ExecOptions::default()
    };
    let result = env.exec("pwd", options).await.unwrap();
    assert_eq!(result.stdout, format!("{}/sub\n", root.display()));
}

#[tokio::test]
async fn the_environment_is_only_path_home_lang_and_what_the_caller_adds() {
    let (dir, env) = sandbox();
    let root = dir.path().canonicalize().unwrap();
    let limits = env.limits().clone();
    // `env` prints every variable the shell exported; dash adds only `PWD`.
    let result = env
        .exec("env | sort", ExecOptions::default().env("MODE", "test"))
        .await
        .unwrap();
    // `TMPDIR` is the view's private temporary folder (it is confined), the same for the
    // view's next command, and gone with the view.
    let (rest, tmp) = result.stdout.split_once("TMPDIR=").unwrap();
    let tmp = tmp.trim_end().to_string();
    assert!(tmp.contains("/cy-run-"), "{tmp}");
    let again = env
        .exec("echo $TMPDIR", ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(again.stdout.trim_end(), tmp);
    assert!(std::path::Path::new(&tmp).is_dir());
    let expected = format!(
        "HOME={root}\nLANG={lang}\nMODE=test\nPATH={path}\nPWD={root}\n",
        root = root.display(),
        lang = limits.lang,
        path = limits.path
    );
    assert_eq!(rest, expected);
    // The test process itself has these (cargo sets them), and none reaches the command.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    assert!(!result.stdout.contains("CARGO"));
    drop(env);
    assert!(
        !std::path::Path::new(&tmp).exists(),
        "{tmp} outlived its view"
    );
}

#[test]
fn host_secrets_do_not_reach_the_command() {
    // Environment variables cannot be set in this process without `unsafe`, which the
    // workspace forbids, so the check runs in a process of its own started with the secret.
    let stdout = alone!(secret_check_in_child_process)
        .env("CY_SECRET_TOKEN", "sk-cy-9f3a7c1e")
        .run();
    assert!(stdout.contains("secret check ran"), "{stdout}");
}

#[tokio::test]
#[ignore = "run by `host_secrets_do_not_reach_the_command` in a process of its own"]
async fn secret_check_in_child_process() {
    let secret = std::env::var("CY_SECRET_TOKEN").expect(
        "run by `host_secrets_do_not_reach_the_command`, which sets `CY_SECRET_TOKEN`; run that test instead",
    );
    let (_dir, env) = sandbox();
    let result = env
        .exec(
            "env; echo \"token=[$CY_SECRET_TOKEN]\"",
            ExecOptions::default(),
        )
        .await
        .unwrap();
    assert!(result.stdout.contains("token=[]\n"), "{}", result.stdout);
    assert!(!result.stdout.contains(&secret), "{}", result.stdout);
    assert!(
        !result.stdout.contains("CY_SECRET_TOKEN"),
        "{}",
        result.stdout
    );
    println!("secret check ran");
}

#[tokio::test]
async fn stdin_is_fed_then_closed() {
    let (_dir, env) = sandbox();
    let options = ExecOptions {
        stdin: Some(b"one\ntwo\n".to_vec()),
        ..ExecOptions::default()
    };
    let result = env.exec("wc -l; cat", options).await.unwrap();
    assert_eq!(result.stdout, "2\n");

    // Without stdin the command reads end-of-file at once rather than waiting.
    let result = env
        .exec("cat; echo done", ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(result.stdout, "done\n");

    // Input the command never reads does not hang the call.
    let options = ExecOptions {
        stdin: Some(vec![b'x'; 1024 * 1024]),
        ..ExecOptions::default()
    };
    let result = env.exec("echo ignored", options).await.unwrap();
    assert_eq!(result.stdout, "ignored\n");
    assert_eq!(result.exit_code, Some(0));
}

#[tokio::test]
async fn a_failing_command_reports_its_exit_code_and_stderr() {
    let (_dir, env) = sandbox();
    let result = env
        .exec(
            "echo partial; echo broken >&2; exit 3",
            ExecOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result.stdout, "partial\n");
    assert_eq!(result.stderr, "broken\n");
    assert_eq!(result.exit_code, Some(3));
    assert!(!result.success());

    let result = env
        .exec("no-such-command-cy", ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(result.exit_code, Some(127));
    assert!(
        result.stderr.contains("no-such-command-cy: not found"),
        "{}",
        result.stderr
    );
}

#[tokio::test]
async fn a_command_killed_by_a_signal_has_no_exit_code() {
    let (_dir, env) = sandbox();
    let result = env
        .exec("echo before; kill -9 $$", ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(result.stdout, "before\n");
    assert_eq!(result.exit_code, None);
    assert!(!result.timed_out);
    assert_eq!(
        result.stderr,
        "[the command was killed by signal 9 (SIGKILL): something outside the command killed it, or the host ran out of memory]"
    );
}

#[tokio::test]
async fn the_timeout_kills_the_whole_group_and_keeps_partial_output() {
    let (dir, env) = sandbox();
    let started = Instant::now();
    let result = env
        .exec(
            &format!("echo early; echo warn >&2; {SHELL_FAMILY}"),
            ExecOptions::default().timeout(Duration::from_millis(500)),
        )
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(result.timed_out);
    assert_eq!(result.exit_code, None);
    assert_eq!(result.stdout, "early\n");
    assert_eq!(result.stderr, "warn\n");
    let pids = pids_in(dir.path(), "family.pid", 2).await;
    for pid in pids {
        assert!(dead(pid), "process {pid} survived the timeout");
    }
}

#[tokio::test]
async fn a_timeout_above_the_maximum_is_refused_and_the_maximum_holds() {
    let dir = tempfile::tempdir().unwrap();
    let limits = cy_tools_sandbox::ExecLimits {
        max_timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let env = LocalSandbox::new(dir.path())
        .unwrap()
        .with_limits(limits)
        .env();
    let err = env
        .exec(
            "touch ran",
            ExecOptions::default().timeout(Duration::from_secs(60)),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::InvalidInput);
    assert_eq!(
        err.to_string(),
        "a timeout of 60 s is above this workspace's maximum of 300 ms; ask for at most 300 ms (300 ms), or split the work into shorter runs"
    );
    assert!(!dir.path().join("ran").exists(), "a refused command ran");
    let started = Instant::now();
    let result = env
        .exec(
            "sleep 30",
            ExecOptions::default().timeout(Duration::from_millis(300)),
        )
        .await
        .unwrap();
    assert!(result.timed_out);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn cancelling_kills_the_whole_group() {
    let (dir, env) = sandbox();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let root = dir.path().to_path_buf();
    let canceller = tokio::spawn(async move {
        let pids = pids_in(&root, "family.pid", 2).await;
        trigger.cancel();
        pids
    });
    let started = Instant::now();
    let err = env
        .exec(SHELL_FAMILY, ExecOptions::default().cancel(cancel))
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(err.kind(), ServiceErrorKind::Other);
    assert_eq!(
        err.to_string(),
        "the command was cancelled; it and every process it started were killed"
    );
    for pid in canceller.await.unwrap() {
        assert!(dead(pid), "process {pid} survived cancellation");
    }
}

#[tokio::test]
async fn dropping_the_call_kills_the_whole_group() {
    let (dir, env) = sandbox();
    let call = env.exec(SHELL_FAMILY, ExecOptions::default());
    let pids = {
        let root = dir.path().to_path_buf();
        tokio::select! {
            _ = call => panic!("the command ended on its own"),
            pids = pids_in(&root, "family.pid", 2) => pids,
        }
    };
    // `call` was dropped when the select finished.
    for pid in pids {
        assert!(dead(pid), "process {pid} survived the call being dropped");
    }
}

#[tokio::test]
async fn what_a_command_leaves_in_the_background_dies_when_it_exits() {
    let (dir, env) = sandbox();
    let started = Instant::now();
    let result = env
        .exec(
            "sleep 30 & echo $! > bg.pid; sh -c 'sleep 30' > /dev/null 2>&1 & echo $! >> bg.pid; echo done",
            ExecOptions::default(),
        )
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(result.stdout, "done\n");
    assert_eq!(result.exit_code, Some(0));
    for pid in pids_in(dir.path(), "bg.pid", 2).await {
        assert!(dead(pid), "background process {pid} outlived the command");
    }
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn an_output_flood_is_capped_with_memory_bounded() {
    // The bound is on this process's peak memory, which the tests beside it would raise.
    alone!(output_flood_in_a_process_of_its_own).run();
}

#[tokio::test]
#[ignore = "run by `an_output_flood_is_capped_with_memory_bounded` in a process of its own"]
async fn output_flood_in_a_process_of_its_own() {
    let (_dir, env) = sandbox();
    let before = peak_rss_kib();
    let options = ExecOptions {
        output_limit: Some(64 * 1024),
        ..ExecOptions::default().timeout(Duration::from_secs(4))
    };
    let started = Instant::now();
    let result = env.exec("yes; echo never", options).await.unwrap();
    let elapsed = started.elapsed();
    assert!(result.timed_out);
    assert!(result.truncated);
    assert!(
        elapsed >= Duration::from_secs(4) && elapsed < Duration::from_secs(9),
        "{elapsed:?}"
    );
    let (kept, notice) = result.stdout.split_at(64 * 1024);
    assert!(kept.bytes().all(|b| b == b'y' || b == b'\n'));
    let notice = notice.strip_prefix('\n').unwrap_or(notice);
    let total: u64 = notice
        .strip_prefix("[output cut: showed the first 65536 of ")
        .and_then(|rest| rest.split_once(' '))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected notice: {notice}"));
    assert_eq!(
        notice,
        format!(
            "[output cut: showed the first 65536 of {total} bytes; write the output to a file and read it in parts, or narrow it with `grep`, `head` or `tail`]"
        )
    );
    // The pipe was drained the whole time: far more passed through than was kept...
    assert!(total > 512 * 1024 * 1024, "only {total} bytes flowed");
    // ...and none of it stayed in memory.
    let grown_mib = (peak_rss_kib() - before) / 1024;
    assert!(
        grown_mib < 32,
        "peak memory grew by {grown_mib} MiB for {total} bytes"
    );
    assert_eq!(result.stderr, "");
}

#[tokio::test]
async fn an_unusable_working_directory_or_command_is_refused() {
    let (dir, env) = sandbox();
    std::fs::write(dir.path().join("file.txt"), "x").unwrap();
    let options = ExecOptions {
        cwd: Some("file.txt".into()),
        ..ExecOptions::default()
    };
    let err = env.exec("pwd", options).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "working directory `file.txt` is not a folder"
    );

    let options = ExecOptions {
        cwd: Some("../..".into()),
        ..ExecOptions::default()
    };
    let err = env.exec("pwd", options).await.unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::OutsideSandbox);

    let err = env
        .exec("echo a\0b", ExecOptions::default())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the command contains a NUL byte; remove it"
    );

    let err = env
        .exec("true", ExecOptions::default().env("A=B", "c"))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "environment variable `A=B` is not valid: a name is non-empty without `=` or NUL, a value has no NUL"
    );
}

#[tokio::test]
async fn a_process_that_leaves_the_group_cannot_hold_the_call_open() {
    // `setsid` puts the sleep in a session (and group) of its own, out of reach of the group
    // kill, still holding stdout: the call stops reading shortly after the shell exits. Where
    // the host makes cgroups (root), the command's cgroup catches it: it is killed with the
    // call, and the output ends with it (`outliving` has the tests of that).
    let caught = crate::support::process::cgroups_catch_setsid();
    let (dir, env) = sandbox();
    let started = Instant::now();
    let result = env
        .exec(
            "setsid sh -c 'echo $$ > escaped.pid; exec sleep 30' & while [ ! -s escaped.pid ]; do sleep 0.01; done; echo started",
            ExecOptions::default(),
        )
        .await
        .unwrap();
    let elapsed = started.elapsed();
    let escaped = pids_in_one(dir.path(), "escaped.pid").await;
    let gone = dead(escaped);
    // Where it escaped the sandbox's reach, the test ends it.
    std::process::Command::new("kill")
        .args(["-9", &escaped.to_string()])
        .status()
        .unwrap();
    assert!(elapsed < Duration::from_secs(6), "{elapsed:?}");
    assert_eq!(result.stdout, "started\n");
    assert_eq!(result.exit_code, Some(0));
    assert!(!result.timed_out);
    if caught {
        assert!(gone, "the cgroup did not catch the setsid process");
        assert_eq!(result.stderr, "");
    } else {
        assert_eq!(
            result.stderr,
            "[stopped reading output: a process that left the command's process group still holds it open]"
        );
    }
}

async fn pids_in_one(root: &Path, file: &str) -> u32 {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        if let Ok(text) = std::fs::read_to_string(root.join(file))
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        assert!(Instant::now() < until, "`{file}` never got its pid");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
