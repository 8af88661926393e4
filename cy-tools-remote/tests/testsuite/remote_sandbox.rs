//! What only the remote sandbox meets: the control server's token, body limit and run cap on
//! its sandbox endpoint, files larger than one request (chunked both ways), background
//! processes kept by the server between requests, and a child's narrower view.

use std::time::Duration;

use cy_tools::services::{ExecOptions, Sandbox, ServiceErrorKind};
use cy_tools_remote::RemoteSandbox;

use crate::support::loopback_server::{Server, TOKEN};

fn sandbox(server: &Server) -> RemoteSandbox {
    RemoteSandbox::new(&server.endpoint(), "ws", TOKEN).unwrap()
}

#[tokio::test]
async fn a_wrong_token_is_refused_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), |_| {});
    let intruder = RemoteSandbox::new(&server.endpoint(), "ws", "not-the-token-at-all").unwrap();
    let err = intruder.write("a.txt", b"x".to_vec()).await.unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::PermissionDenied);
    assert_eq!(
        err.to_string(),
        format!(
            "the control server at {} answered 401 Unauthorized: missing or wrong bearer token; send `Authorization: Bearer <token>` with the token the server was started with (its `CY_CONTROL_TOKEN`)",
            server.endpoint()
        )
    );
    assert!(!server.root.join("ws").exists());
}

#[tokio::test]
async fn large_files_go_in_chunks_within_the_body_limit() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), |config| config.max_body_bytes = 64 * 1024);
    // 3 MB of varied bytes: 94 chunks of 32 KiB each way, every one under the 64 KiB limit.
    let contents: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let env = sandbox(&server).with_chunk_bytes(32 * 1024);
    env.write("big/data.bin", contents.clone()).await.unwrap();
    assert_eq!(
        std::fs::read(server.root.join("ws/big/data.bin")).unwrap(),
        contents
    );
    assert_eq!(env.read("big/data.bin").await.unwrap(), contents);
    assert_eq!(
        env.read_range("big/data.bin", 1_000_000, 100_000)
            .await
            .unwrap(),
        contents[1_000_000..1_100_000]
    );
    // No staging file is left behind.
    let names: Vec<String> = std::fs::read_dir(server.root.join("ws"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["big"]);

    // A chunk too large for the server's limit is refused with what to do.
    let err = sandbox(&server)
        .with_chunk_bytes(1024 * 1024)
        .write("big/other.bin", vec![1; 100_000])
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "the control server at {} answered 413 Payload Too Large: the request is over this server's limit of 65536 bytes; send file data in smaller chunks (`RemoteSandbox::with_chunk_bytes`)",
            server.endpoint()
        )
    );
}

#[tokio::test]
async fn operations_count_against_the_run_cap() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), |config| config.max_concurrent_runs = 1);
    let env = sandbox(&server);
    let busy = env.exec("sleep 2", ExecOptions::default());
    let mut busy = std::pin::pin!(busy);
    // Let the command start and take the one run.
    let _ = tokio::time::timeout(Duration::from_millis(500), &mut busy).await;
    let err = env.list_dir(".").await.unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
    assert_eq!(
        err.to_string(),
        format!(
            "the control server at {} answered 429 Too Many Requests: this server is already running 1 run at once, its limit; wait for a run to finish, then retry",
            server.endpoint()
        )
    );
    assert!(busy.await.unwrap().success());
    assert!(env.list_dir(".").await.unwrap().is_empty());
}

#[tokio::test]
async fn background_processes_live_on_the_server_between_requests() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), |_| {});
    let started = sandbox(&server)
        .processes()
        .unwrap()
        .start("read line; echo got $line", ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(started.id, "p1");
    // Another client of the same workspace (a resumed session) finds it.
    let again = sandbox(&server);
    let table = again.processes().unwrap();
    assert!(table.status("p1").await.unwrap().running);
    table.write_stdin("p1", b"hello\n".to_vec()).await.unwrap();
    let mut seen = String::new();
    for _ in 0..500 {
        seen.push_str(&table.output("p1").await.unwrap().stdout);
        if seen.ends_with('\n') {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(seen, "got hello\n");
    assert_eq!(table.list().await.unwrap().len(), 1);
    assert_eq!(
        table.status("p9").await.unwrap_err().kind(),
        ServiceErrorKind::NotFound
    );
}

#[tokio::test]
async fn a_child_view_works_in_its_folder_on_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), |_| {});
    let root = sandbox(&server);
    let child = root.scoped("subagents/worker-1").unwrap();
    assert_eq!(child.describe(), "/workspace/subagents/worker-1");
    child.write("mine.txt", b"child".to_vec()).await.unwrap();
    let pwd = child.exec("pwd", ExecOptions::default()).await.unwrap();
    assert_eq!(
        pwd.stdout.trim_end(),
        server
            .root
            .join("ws/subagents/worker-1")
            .display()
            .to_string()
    );
    assert_eq!(
        root.read("subagents/worker-1/mine.txt").await.unwrap(),
        b"child"
    );
    let err = child.read("../../secret.txt").await.unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::OutsideSandbox);
}
