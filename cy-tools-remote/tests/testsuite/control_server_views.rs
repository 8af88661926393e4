//! The sandbox endpoint's workspace views do not pile up: a view whose processes have ended
//! is released once its session has been idle for the server's `view_idle_timeout` (with its
//! descriptors and `/tmp/cy-run-*` folder), at most `max_views` are kept, and a large write's
//! staging file left behind by a failed or abandoned client is removed.

use std::path::Path;
use std::time::{Duration, Instant};

use cy_tools::services::{ExecOptions, Sandbox, ServiceErrorKind};
use cy_tools_remote::RemoteSandbox;
use cy_tools_remote::control_server::ControlServerConfig;

use crate::support::alone::alone;
use crate::support::loopback_server::{Server, TOKEN};
use crate::support::raw_http::{exchange, post_head};

const IDLE: Duration = Duration::from_millis(300);
/// Room for a loaded machine on top of the idle timeout; still far from "never".
const MARGIN: Duration = Duration::from_secs(5);

fn short_idle(config: &mut ControlServerConfig) {
    config.view_idle_timeout = IDLE;
}

fn sandbox(server: &Server, name: &str) -> RemoteSandbox {
    RemoteSandbox::new(&server.endpoint(), name, TOKEN).unwrap()
}

/// Waits until `done` holds, at most [`MARGIN`] past the idle timeout; whether it did.
async fn eventually(done: impl FnMut() -> bool) -> bool {
    within(IDLE + MARGIN, done).await
}

/// Waits until `done` holds, at most `limit`; whether it did.
async fn within(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

fn count(dir: &Path, prefix: &str) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter(|e| {
                    e.as_ref()
                        .is_ok_and(|e| e.file_name().to_string_lossy().starts_with(prefix))
                })
                .count()
        })
        .unwrap_or(0)
}

fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

const SESSIONS: usize = 30;
const SLOWER_IDLE: Duration = Duration::from_secs(4);

#[test]
fn views_whose_processes_ended_are_released_after_the_idle_timeout() {
    // Descriptors and temporary folders are the whole process's, which the tests beside it
    // would change.
    let tmp = tempfile::tempdir().unwrap();
    alone!(views_released_in_a_process_of_its_own)
        .env("TMPDIR", tmp.path())
        .run();
}

#[test]
#[ignore = "run by `views_whose_processes_ended_are_released_after_the_idle_timeout` in a process of its own"]
fn views_released_in_a_process_of_its_own() {
    let tmp = std::env::temp_dir();
    let root = tempfile::tempdir_in(&tmp).unwrap();
    // Long enough for every session to start its process before the first view goes.
    let server = Server::start(root.path(), |config| {
        config.view_idle_timeout = SLOWER_IDLE;
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let before = open_descriptors();
        for n in 0..SESSIONS {
            let env = sandbox(&server, &format!("ws-{n}"));
            env.processes()
                .unwrap()
                .start("true", ExecOptions::default())
                .await
                .unwrap();
        }
        let kept = count(&tmp, "cy-run-");
        let with_views = open_descriptors();
        assert_eq!(kept, SESSIONS, "a private temporary folder per view");
        // Within the idle timeout a session finds its ended process.
        let info = sandbox(&server, "ws-0")
            .processes()
            .unwrap()
            .status("p1")
            .await
            .unwrap();
        assert!(!info.running);
        assert!(
            within(SLOWER_IDLE + MARGIN, || count(&tmp, "cy-run-") == 0).await,
            "{} of {SESSIONS} views are still kept (their /tmp/cy-run-* folders) {:?} after their last request",
            count(&tmp, "cy-run-"),
            SLOWER_IDLE + MARGIN
        );
        // Released: a later request finds a fresh view, without the ended process.
        let err = sandbox(&server, "ws-1")
            .processes()
            .unwrap()
            .status("p1")
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ServiceErrorKind::NotFound);
        // The clients' connections close once idle; what stays open is a few at most.
        let closed = eventually(|| open_descriptors() <= before + 8).await;
        println!(
            "descriptors: {before} before, {with_views} with {SESSIONS} views kept, {} after they were released",
            open_descriptors()
        );
        assert!(
            closed,
            "{} descriptors open after the views were released, {before} before",
            open_descriptors()
        );
    });
}

#[tokio::test]
async fn at_most_max_views_are_kept_and_one_more_is_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), |config| config.max_views = 4);
    for n in 0..4 {
        sandbox(&server, &format!("ws-{n}"))
            .processes()
            .unwrap()
            .start("sleep 30", ExecOptions::default())
            .await
            .unwrap();
    }
    let err = sandbox(&server, "ws-4").list_dir(".").await.unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
    assert_eq!(
        err.to_string(),
        format!(
            "the control server at {} answered 503 Service Unavailable: this server already keeps 4 workspace views, its `max_views`, and each is in use or runs a background process; retry when a session's processes have ended, or start the server with a higher `--max-views`",
            server.endpoint()
        )
    );
    // Once a view runs nothing, it makes room.
    sandbox(&server, "ws-2")
        .processes()
        .unwrap()
        .kill("p1")
        .await
        .unwrap();
    assert!(
        sandbox(&server, "ws-4")
            .list_dir(".")
            .await
            .unwrap()
            .is_empty()
    );
    // The others' processes live on.
    let status = sandbox(&server, "ws-0")
        .processes()
        .unwrap()
        .status("p1")
        .await
        .unwrap();
    assert!(status.running);
}

/// Stages 5 bytes as upload `upload` in workspace `name`, and commits nothing.
async fn stage(server: &Server, name: &str, upload: &str) {
    let body = serde_json::json!({"op": {"kind": "upload", "upload": upload, "offset": 0, "data": "aGVsbG8="}})
        .to_string();
    let head = post_head(
        &format!("/v1/sessions/{name}/sandbox"),
        TOKEN,
        body.len(),
        &[],
    );
    let (status, answer) = exchange(server.addr, &head, body.as_bytes()).await;
    assert_eq!(status, 200, "{answer}");
}

#[tokio::test]
async fn a_staging_file_no_part_reaches_is_removed_after_the_idle_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), short_idle);
    // One in a workspace nobody uses again, one in a workspace whose session goes on working.
    stage(&server, "idle", "0123abcd").await;
    stage(&server, "busy", "4567cdef").await;
    let idle = server.root.join("idle/.cy-upload-0123abcd");
    let busy = server.root.join("busy/.cy-upload-4567cdef");
    assert!(idle.exists() && busy.exists());
    let env = sandbox(&server, "busy");
    let working = async {
        loop {
            env.list_dir(".").await.unwrap();
            tokio::time::sleep(IDLE / 6).await;
        }
    };
    let removed = async { eventually(|| !idle.exists() && !busy.exists()).await };
    let removed = tokio::select! {
        removed = removed => removed,
        () = working => unreachable!(),
    };
    assert!(
        removed,
        "staging files still there {:?} after their last part: idle {}, busy {}",
        IDLE + MARGIN,
        idle.exists(),
        busy.exists()
    );
}

#[tokio::test]
async fn a_large_write_given_up_by_its_caller_leaves_no_staging_file() {
    let dir = tempfile::tempdir().unwrap();
    // The default idle timeout, ten minutes: only the client can clean up in time here.
    let server = Server::start(dir.path(), |_| {});
    let env = sandbox(&server, "ws").with_chunk_bytes(1024);
    env.write("keep.txt", b"x".to_vec()).await.unwrap();
    let ws = server.root.join("ws");
    // Boxed, so dropping it below drops the write itself (a pinned borrow would not).
    let mut write = Box::pin(env.write("big.bin", vec![7; 4_000_000]));
    // Given up once the first parts are staged.
    let staged = tokio::time::timeout(MARGIN, async {
        loop {
            tokio::select! {
                biased;
                _ = &mut write => panic!("the write finished before it could be given up"),
                () = tokio::time::sleep(Duration::from_millis(5)) => {}
            }
            if count(&ws, ".cy-upload-") > 0 {
                return;
            }
        }
    })
    .await;
    assert!(staged.is_ok(), "no part was ever staged");
    drop(write);
    assert!(
        eventually(|| count(&ws, ".cy-upload-") == 0).await,
        "the staging file of the write given up is still there"
    );
    assert!(!ws.join("big.bin").exists());
}
