//! A worker killed with SIGKILL in the middle of a call leaves a consistent log (every call
//! it finished, each once, whole; nothing of the one it was in) and another worker process
//! resumes the session and goes on.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cy_tools::{CancellationToken, ToolCall};
use serde_json::json;

use super::{connect, factory, runtime, spec};
use crate::support::alone::alone;
use crate::support::postgres::{URL_VAR, tenant, url};

const ROLE: &str = "CY_PG_ROLE";
const DIR: &str = "CY_PG_DIR";
const TENANT: &str = "CY_PG_TENANT";
const SESSION: &str = "s-killed";
/// Calls the first worker finishes before the one it is killed in.
const FINISHED: usize = 25;

async fn role(role: &str, dir: &Path, url: &str, t: &str) {
    let store = connect(url).await;
    let factory = factory(&store, t);
    let cancel = CancellationToken::new();
    if role == "doomed" {
        let session = factory
            .create(
                spec(SESSION, t, &dir.join("workspace")).with_tools(["write_file", "read_file"]),
            )
            .await
            .unwrap();
        let content = "x".repeat(16 * 1024);
        for n in 0..FINISHED {
            let args = json!({"path": format!("f{n}.txt"), "content": content});
            let result = session
                .execute("write_file", ToolCall::new(format!("w{n}"), args), &cancel)
                .await;
            assert!(!result.is_error, "{}", result.text_content());
        }
        // The call it dies in: it says it started, then takes its time.
        let code = "echo $$ > in-call.tmp; mv in-call.tmp in-call; sleep 30";
        session
            .execute(
                "execute_code",
                ToolCall::new("dying", json!({"code": code, "filename": "d.sh"})),
                &cancel,
            )
            .await;
        panic!("the worker should have been killed during its last call");
    }
    let session = factory.resume(SESSION).await.unwrap();
    let read = session
        .execute(
            "read_file",
            ToolCall::new("after", json!({"path": "f24.txt", "limit": 1})),
            &cancel,
        )
        .await;
    assert!(!read.is_error, "{}", read.text_content());
    std::fs::write(dir.join("resumed"), "").unwrap();
}

#[test]
#[ignore = "run by `a_worker_killed_mid_call_leaves_a_consistent_log_and_another_resumes`"]
fn kill9_role() {
    let var = |name: &str| {
        std::env::var(name).unwrap_or_else(|_| {
            panic!("`{name}` is not set: run `a_worker_killed_mid_call_leaves_a_consistent_log_and_another_resumes` instead")
        })
    };
    let (r, dir, t, url) = (
        var(ROLE),
        PathBuf::from(var(DIR)),
        var(TENANT),
        var(URL_VAR),
    );
    runtime().block_on(role(&r, &dir, &url, &t));
}

#[test]
fn a_worker_killed_mid_call_leaves_a_consistent_log_and_another_resumes() {
    let Some(url) = url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let t = tenant("kill9");
    let worker = |role: &str| {
        alone!(kill9_role)
            .env(ROLE, role)
            .env(DIR, dir.path())
            .env(TENANT, &t)
    };
    let mut doomed = worker("doomed").command().spawn().unwrap();
    let started = Instant::now();
    while !dir.path().join("workspace/in-call").exists() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the worker never reached its last call"
        );
        assert!(
            doomed.try_wait().unwrap().is_none(),
            "the worker exited on its own"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    doomed.kill().unwrap(); // SIGKILL
    let status = doomed.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(9));
    // Its command may outlive it, in a process group of its own: not this test's to keep.
    let pid = std::fs::read_to_string(dir.path().join("workspace/in-call")).unwrap();
    let _ = std::process::Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", pid.trim())])
        .stderr(std::process::Stdio::null())
        .status();

    let check = |extra: &[&str]| {
        runtime().block_on(async {
            let store = connect(&url).await;
            let session = factory(&store, &t).resume(SESSION).await.unwrap();
            let entries = session.entries().await.unwrap();
            let mut expected: Vec<String> = (0..FINISHED).map(|n| format!("w{n}")).collect();
            expected.extend(extra.iter().map(|s| s.to_string()));
            let calls: Vec<&str> = entries.iter().map(|e| e.call_id.as_str()).collect();
            assert_eq!(
                calls, expected,
                "every finished call once, in order; none of the killed one"
            );
            assert!(entries.iter().take(FINISHED).all(|e| !e.result.is_error
                && e.arguments["content"].as_str().map(str::len) == Some(16 * 1024)));
            assert_eq!(
                store.tenant(&t).call_count().await.unwrap(),
                expected.len() as u64
            );
        });
    };
    check(&[]);
    // Another worker process resumes it and goes on.
    worker("resumer").run();
    assert!(dir.path().join("resumed").exists());
    check(&["after"]);
}
