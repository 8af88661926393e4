//! `execute_code` whose Python process is killed from outside (`kill -9`) mid-run, through a
//! real session on the local executor: the call returns at once with an error result that
//! says what happened, the rest of the run's process group is killed, the session's next call
//! works, and the log records the failed call.

use std::time::{Duration, Instant};

use cy_tools::{CancellationToken, SessionSpec, ToolCall};
use cy_tools_session::LocalSessionFactory;
use serde_json::json;

use crate::support::process::SLEEPER;
use crate::support::process::{
    cmdline, group_members, group_of, kill9, parent_of, read_pids, running, stops, wait_for_async,
};
use crate::support::reaper::Reaper;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_killed_mid_run_is_reported_and_leaves_nothing_running() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    let factory = LocalSessionFactory::embedded(dir.path().join("state")).unwrap();
    // The default executor: `python3 {file}`, through the sandbox's `/bin/sh -c`.
    let spec = SessionSpec::root("s-exec", "acme", workspace.to_str().unwrap());
    let session = factory.create(spec).await.unwrap();
    let cancel = CancellationToken::new();
    let mut reaper = Reaper::new();

    let run = session.execute(
        "execute_code",
        ToolCall::new("c1", json!({"code": SLEEPER, "timeout_ms": 60_000})),
        &cancel,
    );
    let mut run = std::pin::pin!(run);
    let pids_file = workspace.join("pids.txt");
    let (python, sleeper) = tokio::select! {
        result = &mut run => panic!("the run ended on its own: {}", result.text_content()),
        pids = wait_for_async("the script's pids", || read_pids(&pids_file, 2)) => (pids[0], pids[1]),
    };
    // The run's shell leads the process group that holds python and its child.
    let shell = parent_of(python).unwrap();
    let group = group_of(python).unwrap();
    reaper.group(group);
    assert_eq!(group, shell, "the run's shell leads its group");
    assert_eq!(group_of(sleeper), Some(group));
    assert!(
        cmdline(python)
            .unwrap()
            .rsplit('/')
            .next()
            .is_some_and(|script| script.len() == 19 && script.ends_with(".py")),
        "{:?}",
        cmdline(python)
    );
    assert_eq!(
        {
            let mut members = group_members(group);
            members.sort_unstable();
            members
        },
        {
            let mut expected = vec![shell, python, sleeper];
            expected.sort_unstable();
            expected
        }
    );

    let killed_at = Instant::now();
    kill9(python);
    let result = tokio::time::timeout(Duration::from_secs(10), &mut run)
        .await
        .expect("the call returns once its python is killed");
    let took = killed_at.elapsed();
    assert!(took < Duration::from_secs(3), "{took:?}");
    // `python3 {file}` runs under `/bin/sh -c`, which does not `exec` it, so the run's
    // status is the shell's exit code 128 + 9 (`dash` says `Killed`): an exit code, so a
    // normal result, and the notice says what that code means.
    assert!(!result.is_error);
    assert_eq!(
        crate::support::outcome::text(&result),
        "the code exited with exit code 137\nstdout:\nstarted\nstderr:\nKilled\n[exit code 137 is how the shell reports a process killed by signal 9 (SIGKILL): something outside the command killed it, or the host ran out of memory]"
    );
    // The shell, python and python's child are all gone: nothing of the run is left.
    for pid in [python, shell, sleeper] {
        assert!(stops(pid), "process {pid} of the killed run still runs");
    }
    assert!(group_members(group).is_empty());

    let next = session
        .execute(
            "execute_code",
            ToolCall::new("c2", json!({"code": "print(6 * 7)"})),
            &cancel,
        )
        .await;
    assert!(!next.is_error, "{}", next.text_content());
    assert_eq!(crate::support::outcome::text(&next), "42");

    let log: Vec<(String, bool)> = session
        .entries()
        .await
        .unwrap()
        .into_iter()
        .map(|e| (e.call_id, e.result.is_error))
        .collect();
    // The killed run exited (137, from its shell): recorded as the normal result it was.
    assert_eq!(log, [("c1".to_string(), false), ("c2".to_string(), false)]);
    assert!(!running(python));
}
