//! Session construction with the SQLite store, for a spec of 16 tools (the 14 built-ins that a
//! root session with chat and subagents gets, plus two application tools defined here):
//!
//! * `sessions/create_16_tools_sqlite`: `LocalSessionFactory::create(spec)`: check the spec,
//!   open its workspace folder (a new one per session), insert the spec (one SQLite
//!   transaction, WAL), build the context (local executor, keyed log, coordinator, chat,
//!   child factory) and bind the 16 tools through the registry in the design's order;
//! * `sessions/resume_16_tools_sqlite`: `resume(id)` of stored sessions, round robin over 1000:
//!   load and decode the spec, reopen the workspace, rebuild the context and the toolset;
//! * `sessions/bind_16_tools_baseline`: `ToolRegistry::build` of the same 16 names for a
//!   ready context: the part of the work that is pure binding, measured in the same run.
//!
//! Run on one core (`taskset -c 0`), with a current-thread Tokio runtime; the store's work runs
//! on Tokio's blocking pool, on the same core. Sessions per second = 1 / median.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};
use cy_tools::prelude::*;
use cy_tools::{
    SessionSpec,
    session::{ExecutorSpec, SubagentProfile},
};
use cy_tools_session::store::SqliteStore;
use cy_tools_session::{LocalChat, LocalSessionFactory, SubagentRun, SubagentRunner};

/// Repeat a text (an application tool, so the spec has 16).
#[tool(read_only)]
async fn echo(
    /// The text.
    text: String,
) -> String {
    text
}

/// Add two integers (an application tool, so the spec has 16).
#[tool(read_only)]
async fn add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> String {
    (a + b).to_string()
}

/// Never runs: it is wired in so the real delegation tools are bound.
struct NoLoop;

impl SubagentRunner for NoLoop {
    fn run<'a>(
        &'a self,
        _run: SubagentRun<'a>,
    ) -> cy_tools::BoxFuture<'a, Result<String, cy_tools::services::ServiceError>> {
        Box::pin(async { Ok(String::new()) })
    }
}

const TOOLS: [&str; 12] = [
    "read_file",
    "write_file",
    "edit_file",
    "list_directory",
    "find_files",
    "search_text",
    "terminal",
    "process",
    "signal",
    "wait_for_signal",
    "echo",
    "add",
];

fn spec(id: &str, workspace: &std::path::Path) -> SessionSpec {
    SessionSpec::root(id, "bench", workspace.to_str().unwrap())
        .with_tools(TOOLS)
        .with_chat(true)
        .with_executor(ExecutorSpec::Local {
            command: "sh {file}".into(),
        })
        .with_subagent(SubagentProfile::new("worker", ["read_file", "write_file"]))
}

fn sessions(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(1)
        .build()
        .unwrap();
    let registry = Arc::new(ToolRegistry::linked().unwrap());
    let store = SqliteStore::open(dir.path().join("sessions.db")).unwrap();
    let factory = LocalSessionFactory::with_sqlite(Arc::clone(&registry), store)
        .with_chat(Arc::new(LocalChat::in_memory()))
        .with_runner(Arc::new(NoLoop));

    let check = runtime
        .block_on(factory.create(spec("check", &dir.path().join("w/check"))))
        .unwrap();
    assert_eq!(check.tools().len(), 16, "{:?}", check.tools().names());
    let names: Vec<String> = check
        .tools()
        .names()
        .iter()
        .map(|n| n.to_string())
        .collect();

    let mut group = c.benchmark_group("sessions");
    let next = AtomicU64::new(0);
    group.bench_function("create_16_tools_sqlite", |b| {
        b.iter(|| {
            let n = next.fetch_add(1, Ordering::Relaxed);
            let id = format!("c-{n}");
            let session = runtime
                .block_on(factory.create(spec(&id, &dir.path().join("w").join(&id))))
                .unwrap();
            black_box(session);
        });
    });

    const STORED: u64 = 1000;
    for n in 0..STORED {
        let id = format!("r-{n}");
        runtime
            .block_on(factory.create(spec(&id, &dir.path().join("w").join(&id))))
            .unwrap();
    }
    let next = AtomicU64::new(0);
    group.bench_function("resume_16_tools_sqlite", |b| {
        b.iter(|| {
            let id = format!("r-{}", next.fetch_add(1, Ordering::Relaxed) % STORED);
            let session = runtime.block_on(factory.resume(&id)).unwrap();
            debug_assert_eq!(session.tools().len(), 16);
            black_box(session);
        });
    });

    // Binding alone: the toolset of an already built session, rebound by name to its context.
    let context = Arc::clone(check.context());
    group.bench_function("bind_16_tools_baseline", |b| {
        b.iter(|| {
            let tools = registry.build(&names, Arc::clone(&context));
            debug_assert_eq!(tools.len(), 16);
            black_box(tools);
        });
    });
    group.finish();
}

criterion_group!(benches, sessions);
criterion_main!(benches);
