//! A tool that panics and a tool that never returns, end to end through a real session
//! (`LocalSessionFactory` over the SQLite store): each call gets an error result naming the
//! problem, the session goes on working, and the durable log records the failed calls as
//! errors, as a second process resuming the session would read them.
//!
//! The core's unit tests cover panics and timeouts inside `BoundTool`; this is the same fault
//! seen from a session and its store.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cy_tools::prelude::*;
use cy_tools::{CancellationToken, SessionSpec, ToolCall};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::SqliteStore;
use serde_json::json;

/// Panic with `reason`, as a buggy tool would.
#[tool(read_only, open_world = false)]
async fn explode(
    /// What went wrong.
    reason: String,
) -> String {
    // A value of the body's, so its drop on the way out of the panic can be seen.
    let _alive = Tracked;
    tokio::task::yield_now().await;
    panic!("exploded: {reason}");
}

/// Never answer; the tool's 300 ms timeout is all that ends a call.
#[tool(read_only, open_world = false, timeout = "300ms")]
async fn hang() -> String {
    let _alive = Tracked;
    STARTED.fetch_add(1, Ordering::SeqCst);
    std::future::pending::<String>().await
}

static STARTED: AtomicUsize = AtomicUsize::new(0);
static DROPPED: AtomicUsize = AtomicUsize::new(0);

/// Counts, when dropped, that a tool body's state was released.
struct Tracked;

impl Drop for Tracked {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, Ordering::SeqCst);
    }
}

const PANIC_TEXT: &str = "`explode` failed with an internal error (exploded: on purpose); this is a bug in the tool, not in your arguments: try another way to reach your goal";
const TIMEOUT_TEXT: &str = "`hang` timed out after 300ms and was stopped; retry with a smaller task or split the work into several calls";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_and_a_hanging_tool_fail_their_call_only_and_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let workspace = dir.path().join("workspace");
    let factory = LocalSessionFactory::embedded(&state).unwrap();
    let spec = SessionSpec::root("s-faults", "acme", workspace.to_str().unwrap()).with_tools([
        "explode",
        "hang",
        "write_file",
        "read_file",
    ]);
    let session = factory.create(spec).await.unwrap();
    let cancel = CancellationToken::new();
    let call = |id: &str, args| ToolCall::new(id, args);

    let before = session
        .execute(
            "write_file",
            call("c1", json!({"path": "a.txt", "content": "before\n"})),
            &cancel,
        )
        .await;
    assert!(!before.is_error, "{}", before.text_content());

    let dropped = DROPPED.load(Ordering::SeqCst);
    let panicked = session
        .execute(
            "explode",
            call("c2", json!({"reason": "on purpose"})),
            &cancel,
        )
        .await;
    assert!(panicked.is_error);
    assert_eq!(panicked.text_content(), PANIC_TEXT);
    assert_eq!(
        DROPPED.load(Ordering::SeqCst),
        dropped + 1,
        "the panicking body's state was released"
    );

    let between = session
        .execute("read_file", call("c3", json!({"path": "a.txt"})), &cancel)
        .await;
    assert_eq!(between.text_content(), "     1\tbefore");

    let started = Instant::now();
    let hung = session
        .execute("hang", call("c4", json!({})), &cancel)
        .await;
    let took = started.elapsed();
    assert!(hung.is_error);
    assert_eq!(hung.text_content(), TIMEOUT_TEXT);
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert_eq!(STARTED.load(Ordering::SeqCst), 1);
    assert_eq!(
        DROPPED.load(Ordering::SeqCst),
        dropped + 2,
        "the hanging body was dropped at its timeout, not left pending"
    );

    // The same tools fail the same way again: nothing was poisoned by the first failures.
    let again = session
        .execute(
            "explode",
            call("c5", json!({"reason": "on purpose"})),
            &cancel,
        )
        .await;
    assert_eq!(again.text_content(), PANIC_TEXT);
    let after = session
        .execute(
            "write_file",
            call("c6", json!({"path": "b.txt", "content": "after\n"})),
            &cancel,
        )
        .await;
    assert!(!after.is_error, "{}", after.text_content());
    assert_eq!(
        std::fs::read_to_string(workspace.join("b.txt")).unwrap(),
        "after\n"
    );

    let expected = [
        ("c1", "write_file", false, None),
        ("c2", "explode", true, Some(PANIC_TEXT)),
        ("c3", "read_file", false, None),
        ("c4", "hang", true, Some(TIMEOUT_TEXT)),
        ("c5", "explode", true, Some(PANIC_TEXT)),
        ("c6", "write_file", false, None),
    ];
    let check = |entries: Vec<cy_tools::services::LogEntry>| {
        assert_eq!(entries.len(), expected.len(), "{entries:#?}");
        for (entry, (id, tool, is_error, text)) in entries.iter().zip(expected) {
            assert_eq!(
                (
                    entry.call_id.as_str(),
                    entry.tool.as_str(),
                    entry.result.is_error
                ),
                (id, tool, is_error)
            );
            if let Some(text) = text {
                assert_eq!(entry.result.text_content(), text);
            }
        }
        let hang = &entries[3];
        assert!(
            hang.duration_us >= 300_000,
            "the timed-out call's duration is its real one: {} us",
            hang.duration_us
        );
    };
    check(session.entries().await.unwrap());
    drop(session);
    drop(factory);

    // Read back from the file by a fresh store, as another process would: durable, and sound.
    let store = SqliteStore::open(state.join("sessions.db")).unwrap();
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    let resumed = LocalSessionFactory::embedded(&state)
        .unwrap()
        .resume("s-faults")
        .await
        .unwrap();
    check(resumed.entries().await.unwrap());
}
