//! `RunSlots`: executors sharing slots run at most that many code runs at once; a run waits for
//! a slot up to its timeout, then is refused with what to do; cancelling a waiting run ends it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cy_tools::{
    CancellationToken, SessionSpec, ToolCall, ToolRegistry,
    services::{CodeExecutor, CodeOptions, ServiceErrorKind},
    session::ExecutorSpec,
};
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::executor::{LocalExecutor, RunSlots};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::SqliteStore;
use serde_json::json;
use tempfile::TempDir;

/// An executor running shell scripts in a sandbox of its own, on `slots`.
fn executor(slots: &RunSlots) -> (TempDir, LocalExecutor) {
    let dir = tempfile::tempdir().unwrap();
    let env = Arc::new(LocalSandbox::new(dir.path()).unwrap().env());
    let executor = LocalExecutor::new(env)
        .with_command("sh {file}")
        .unwrap()
        .with_slots(slots.clone());
    (dir, executor)
}

fn options(timeout_ms: u64, cancel: CancellationToken) -> CodeOptions {
    CodeOptions {
        filename: Some("run.sh".into()),
        timeout: Some(Duration::from_millis(timeout_ms)),
        cancel,
        ..CodeOptions::default()
    }
}

#[tokio::test]
async fn runs_beyond_the_slots_wait_their_turn() {
    let slots = RunSlots::new(2);
    let runs: Vec<_> = (0..6).map(|_| executor(&slots)).collect();
    let started = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for (_, executor) in &runs {
        let executor = executor.clone();
        set.spawn(async move {
            executor
                .execute(
                    "sleep 0.3; echo done",
                    options(20_000, CancellationToken::new()),
                )
                .await
        });
    }
    while let Some(result) = set.join_next().await {
        assert_eq!(result.unwrap().unwrap().stdout, "done\n");
    }
    // Six runs of 300 ms on two slots take three rounds.
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(900), "{took:?}");
    assert_eq!(slots.available(), 2);
}

#[tokio::test]
async fn a_run_that_finds_no_slot_within_its_timeout_is_refused() {
    let slots = RunSlots::new(1);
    let (_a, busy) = executor(&slots);
    let (_b, waiting) = executor(&slots);
    let long = busy.execute("sleep 2", options(20_000, CancellationToken::new()));
    let short = async {
        // Let the long run take the only slot first.
        tokio::time::sleep(Duration::from_millis(100)).await;
        waiting
            .execute("echo never", options(300, CancellationToken::new()))
            .await
    };
    let (long, short) = tokio::join!(long, short);
    long.unwrap();
    let err = short.unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
    assert_eq!(
        err.to_string(),
        "all 1 code-run slots of this host stayed busy for 300 ms (other sessions' runs), so the code did not run; run it again in a moment, or give the host more run slots"
    );
}

#[tokio::test]
async fn cancelling_a_waiting_run_ends_it_at_once() {
    let slots = RunSlots::new(1);
    let (_a, busy) = executor(&slots);
    let (dir, waiting) = executor(&slots);
    let cancel = CancellationToken::new();
    let long = busy.execute("sleep 1", options(20_000, CancellationToken::new()));
    let cancelled = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let trigger = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            trigger.cancel();
        });
        let started = Instant::now();
        let result = waiting
            .execute("echo ran > ran.txt", options(20_000, cancel.clone()))
            .await;
        (result, started.elapsed())
    };
    let (long, (result, took)) = tokio::join!(long, cancelled);
    long.unwrap();
    assert_eq!(
        result.unwrap_err().to_string(),
        "the run was cancelled while it waited for a free run slot; nothing of it ran"
    );
    assert!(took < Duration::from_millis(800), "{took:?}");
    assert!(!dir.path().join("ran.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_factorys_sessions_share_its_slots() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("sessions.db")).unwrap();
    let factory =
        LocalSessionFactory::with_sqlite(Arc::new(ToolRegistry::linked().unwrap()), store)
            .with_run_slots(RunSlots::new(1));
    let session = |id: &str| {
        let workspace = dir.path().join(id);
        let spec = SessionSpec::root(id, "acme", workspace.to_str().unwrap()).with_executor(
            ExecutorSpec::Local {
                command: "sh {file}".to_string(),
            },
        );
        factory.create(spec)
    };
    let (a, b) = (session("s-a").await.unwrap(), session("s-b").await.unwrap());
    let cancel = CancellationToken::new();
    let long = a.execute(
        "execute_code",
        ToolCall::new("a1", json!({"code": "sleep 2", "filename": "run.sh"})),
        &cancel,
    );
    let short = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        b.execute(
            "execute_code",
            ToolCall::new(
                "b1",
                json!({"code": "echo hi", "filename": "run.sh", "timeout_ms": 300}),
            ),
            &cancel,
        )
        .await
    };
    let (long, short) = tokio::join!(long, short);
    assert!(!long.is_error, "{}", long.text_content());
    assert!(short.is_error);
    assert!(
        short
            .text_content()
            .contains("all 1 code-run slots of this host stayed busy for 300 ms"),
        "{}",
        short.text_content()
    );
}
