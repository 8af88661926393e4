//! A session moves between two worker processes sharing the PostgreSQL store: worker A creates
//! it and works; worker B, running at the same time, resumes it with the same tools, workspace
//! and log; `signal` on A wakes `wait_for_signal` on B.
//!
//! Both workers are this binary's `worker_role`, run in processes of their own; they hand each
//! other the turn through files in a shared folder, and each writes a report the parent checks.

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use cy_tools::{CancellationToken, ToolCall};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{connect, factory, runtime, spec};
use crate::support::alone::alone;
use crate::support::postgres::{tenant, url};

const ROLE: &str = "CY_PG_ROLE";
const DIR: &str = "CY_PG_DIR";
const TENANT: &str = "CY_PG_TENANT";
const SESSION: &str = "s-moving";
const TOOLS: [&str; 5] = [
    "write_file",
    "read_file",
    "list_directory",
    "signal",
    "wait_for_signal",
];

#[derive(Debug, Serialize, Deserialize)]
struct Report {
    pid: u32,
    /// (name, description, parameters) of every tool, in order.
    tools: Vec<(String, String, Value)>,
    /// Every answer the worker got, by call id.
    answers: Vec<(String, String)>,
    /// Milliseconds since the epoch: when A sent the signal, when B woke with it.
    at_ms: u64,
}

fn now_ms() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// Waits (up to 60 s) for the file `name` in `dir`, the other worker's go-ahead.
fn await_file(dir: &Path, name: &str) {
    let started = Instant::now();
    while !dir.join(name).exists() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "`{name}` never came"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

async fn role(role: &str, dir: &Path, url: &str, t: &str) {
    let store = connect(url).await;
    let factory = factory(&store, t);
    let cancel = CancellationToken::new();
    let mut answers = Vec::new();
    let mut call = async |session: &cy_tools::Session, id: &str, tool: &str, args: Value| {
        let result = session
            .execute(tool, ToolCall::new(id, args), &cancel)
            .await;
        assert!(!result.is_error, "{id} ({tool}): {}", result.text_content());
        answers.push((id.to_string(), result.text_content()));
    };
    let (session, at_ms) = if role == "a" {
        let session = factory
            .create(spec(SESSION, t, &dir.join("workspace")).with_tools(TOOLS))
            .await
            .unwrap();
        call(
            &session,
            "c1",
            "write_file",
            json!({"path": "notes.txt", "content": "written on A\n"}),
        )
        .await;
        call(
            &session,
            "c2",
            "execute_code",
            json!({"code": "echo made on A > made.txt; echo ok", "filename": "a.sh"}),
        )
        .await;
        std::fs::write(dir.join("created"), "").unwrap();
        // B has resumed and waits.
        await_file(dir, "waiting");
        // Give B's wait a moment to be parked on its notification, not on its first look.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let sent = now_ms();
        call(
            &session,
            "c4",
            "signal",
            json!({"to": SESSION, "name": "go", "payload": "from A"}),
        )
        .await;
        (session, sent)
    } else {
        await_file(dir, "created");
        let session = factory.resume(SESSION).await.unwrap();
        call(&session, "c3", "read_file", json!({"path": "made.txt"})).await;
        std::fs::write(dir.join("waiting"), "").unwrap();
        call(
            &session,
            "c5",
            "wait_for_signal",
            json!({"name": "go", "timeout_ms": 30000}),
        )
        .await;
        (session, now_ms())
    };
    let tools = session
        .tools()
        .iter()
        .map(|t| {
            (
                t.name().to_string(),
                t.description().to_string(),
                t.parameters().clone(),
            )
        })
        .collect();
    let report = Report {
        pid: std::process::id(),
        tools,
        answers,
        at_ms,
    };
    std::fs::write(
        dir.join(format!("{role}.json")),
        serde_json::to_vec(&report).unwrap(),
    )
    .unwrap();
}

#[test]
#[ignore = "run by `a_session_moves_between_two_worker_processes`, as each worker, in processes of their own"]
fn worker_role() {
    let var = |name: &str| {
        std::env::var(name).unwrap_or_else(|_| {
            panic!(
                "`{name}` is not set: run `a_session_moves_between_two_worker_processes` instead"
            )
        })
    };
    let (r, dir, t) = (var(ROLE), PathBuf::from(var(DIR)), var(TENANT));
    let url = var(crate::support::postgres::URL_VAR);
    runtime().block_on(role(&r, &dir, &url, &t));
}

fn spawn(role: &str, dir: &Path, t: &str) -> Child {
    alone!(worker_role)
        .env(ROLE, role)
        .env(DIR, dir)
        .env(TENANT, t)
        .command()
        .spawn()
        .unwrap()
}

#[test]
fn a_session_moves_between_two_worker_processes() {
    let Some(url) = url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let t = tenant("workers");
    let mut a = spawn("a", dir.path(), &t);
    let mut b = spawn("b", dir.path(), &t);
    let (a_status, b_status) = (a.wait().unwrap(), b.wait().unwrap());
    assert!(
        a_status.success() && b_status.success(),
        "worker A: {a_status}, worker B: {b_status}"
    );
    let read = |role: &str| -> Report {
        serde_json::from_slice(&std::fs::read(dir.path().join(format!("{role}.json"))).unwrap())
            .unwrap()
    };
    let (on_a, on_b) = (read("a"), read("b"));
    assert_ne!(on_a.pid, on_b.pid);
    assert_eq!(
        on_a.tools, on_b.tools,
        "names, descriptions and schemas, in order"
    );
    let names: Vec<&str> = on_a.tools.iter().map(|t| t.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "execute_code",
            "write_file",
            "read_file",
            "list_directory",
            "signal",
            "wait_for_signal"
        ]
    );
    // B worked in A's workspace, and A's signal woke B's wait.
    assert_eq!(on_b.answers[0].1, "     1\tmade on A");
    assert_eq!(
        on_b.answers[1].1,
        format!("signal `go` from session `{SESSION}`: from A")
    );
    let latency = on_b.at_ms.saturating_sub(on_a.at_ms);
    println!("cross-process wake-up: {latency} ms from A's `signal` call to B's wait answering");
    assert!(latency < 5_000, "B woke {latency} ms after A signalled");

    // One log, both workers' calls in the order they ended.
    runtime().block_on(async {
        let store = connect(&url).await;
        let session = factory(&store, &t).resume(SESSION).await.unwrap();
        let log: Vec<(String, String)> = session
            .entries()
            .await
            .unwrap()
            .into_iter()
            .map(|e| (e.call_id, e.tool))
            .collect();
        let pairs = |calls: &[(&str, &str)]| -> Vec<(String, String)> {
            calls
                .iter()
                .map(|(c, t)| (c.to_string(), t.to_string()))
                .collect()
        };
        // A call is recorded when it ends. B's wait ends once A's signal is stored, which is
        // before A's `signal` call records itself, so those two may be logged either way round.
        let signalled = [("c4", "signal"), ("c5", "wait_for_signal")];
        let woken = [("c5", "wait_for_signal"), ("c4", "signal")];
        let start = [
            ("c1", "write_file"),
            ("c2", "execute_code"),
            ("c3", "read_file"),
        ];
        assert!(
            log == pairs(&[&start[..], &signalled[..]].concat())
                || log == pairs(&[&start[..], &woken[..]].concat()),
            "the log holds both workers' calls in order, and only them: {log:?}"
        );
    });
}
