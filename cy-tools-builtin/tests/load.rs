//! A bounded load test on loopback: many sessions live at once, sharing one SQLite store, each
//! making a mix of file-tool, `execute_code` and code-mode calls (Python calling the session's
//! own tools through `cy_sdk`).
//!
//! It checks that no session sees anything of another (every answer, listing, search hit and
//! file holds only its own id; each workspace holds exactly the files its session wrote, and
//! nothing lies outside the workspaces), that the store holds exactly the expected record of
//! every call (nested code-mode calls under their parent), that every call is answered before a
//! deadline, and that no process or descriptor is left behind. It prints the throughput and the
//! p50/p99 latency per kind of call (run with `-- --nocapture`).
//!
//! What is concurrent: every session is created, then all start together (a barrier) as
//! separate tasks on a multi-threaded runtime, so all sessions are live and each has one call
//! in flight at a time. A session's calls are sequential, as a model's are. Python processes
//! are unbounded unless `CY_LOAD_PROCS` caps them (a semaphore shared by all sessions; the time
//! a call waits for it is reported apart and is not in its latency).
//!
//! Scale: `CY_LOAD_SESSIONS` (default 40), `CY_LOAD_CALLS` (default 20), `CY_LOAD_PROCS`
//! (default unbounded), `CY_LOAD_DEADLINE_S` (default 300 + 1 per session). The full run is
//! `scripts/load-test` (1,000 sessions, release build).

mod load_common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cy_tools::{ExecutorSpec, SessionSpec, ToolCall, ToolRegistry};
use cy_tools_builtin::SqliteStore;
use cy_tools_builtin::session::LocalSessionFactory;
use load_common::workload::{Call, Kind, Script, clip, session_id};
use load_common::{Config, LoadSession, Samples};
use serde_json::Value;
use tokio::sync::{Barrier, Semaphore};
use tokio::task::JoinSet;

#[test]
fn sessions_under_load_stay_isolated_and_every_call_is_answered_and_recorded() {
    let config = Config::from_env();
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let outcome = runtime.block_on(run(&config, dir.path()));
    // A run stopped at its deadline may leave blocking work behind; do not wait on it forever.
    runtime.shutdown_timeout(Duration::from_secs(10));
    match outcome {
        Ok(report) => println!("{report}"),
        Err(failures) => panic!(
            "{} failures, the first ones:\n{}",
            failures.len(),
            failures
                .iter()
                .take(20)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

/// Counters shared by every session.
#[derive(Default)]
struct Shared {
    answered: AtomicUsize,
    in_flight: AtomicUsize,
    peak_in_flight: AtomicUsize,
    python: AtomicUsize,
    peak_python: AtomicUsize,
    /// Calls answered, per session.
    progress: Vec<AtomicUsize>,
}

fn rise(now: &AtomicUsize, peak: &AtomicUsize) {
    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
    peak.fetch_max(n, Ordering::SeqCst);
}

/// One record the store must hold: call id, parent call, tool.
type Expected = (String, Option<String>, String);

/// What one session did.
struct SessionRun {
    id: String,
    workspace: PathBuf,
    session: Option<LoadSession>,
    script: Script,
    /// The records its calls must have left, in order, and the arguments of the top-level ones.
    expected: Vec<Expected>,
    arguments: Vec<(String, Value)>,
    samples: Samples,
    waits: Vec<Duration>,
    failures: Vec<String>,
}

async fn run(config: &Config, dir: &Path) -> Result<String, Vec<String>> {
    let store = SqliteStore::open(dir.join("sessions.db")).unwrap();
    let registry = Arc::new(ToolRegistry::linked().unwrap());
    let factory = LocalSessionFactory::with_sqlite(registry, store.clone());
    let fds_before = load_common::open_fds();
    let shared = Arc::new(Shared {
        progress: (0..config.sessions).map(|_| AtomicUsize::new(0)).collect(),
        ..Shared::default()
    });
    let python = config.procs.map(|n| Arc::new(Semaphore::new(n)));
    let barrier = Arc::new(Barrier::new(config.sessions + 1));
    let started = Instant::now();
    let mut tasks = JoinSet::new();
    for n in 0..config.sessions {
        let id = session_id(n);
        let workspace = dir.join("w").join(&id);
        tasks.spawn(session_task(
            n,
            SessionRun {
                id,
                workspace,
                session: None,
                script: Script::new(&session_id(n)),
                expected: Vec::new(),
                arguments: Vec::new(),
                samples: Samples::default(),
                waits: Vec::new(),
                failures: Vec::new(),
            },
            factory.clone(),
            config.calls,
            Arc::clone(&shared),
            python.clone(),
            Arc::clone(&barrier),
        ));
    }
    let deadline = tokio::time::Instant::from_std(started + config.deadline);
    // Every session is created before any call is made.
    if tokio::time::timeout_at(deadline, barrier.wait())
        .await
        .is_err()
    {
        return Err(vec![format!(
            "the sessions were not all created within the deadline of {:?}",
            config.deadline
        )]);
    }
    let created = started.elapsed();
    let calls_started = Instant::now();
    let mut runs = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, tasks.join_next()).await {
            Ok(Some(joined)) => {
                runs.push(joined.map_err(|err| vec![format!("a session task failed: {err}")])?)
            }
            Ok(None) => break,
            Err(_) => {
                tasks.abort_all();
                return Err(stuck(config, &shared));
            }
        }
    }
    let calls_took = calls_started.elapsed();
    runs.sort_by(|a, b| a.id.cmp(&b.id));

    let mut failures: Vec<String> = runs.iter().flat_map(|r| r.failures.clone()).collect();
    let answered = shared.answered.load(Ordering::SeqCst);
    let calls = config.sessions * config.calls;
    if answered != calls {
        failures.push(format!("{answered} calls answered of {calls}"));
    }
    failures.extend(check_store(&store, &runs).await);
    failures.extend(check_files(dir, &runs));
    let nested: usize = runs.iter().map(|r| r.expected.len()).sum::<usize>() - calls;

    let mut samples = Samples::default();
    let mut waits = Vec::new();
    for run in &mut runs {
        samples.merge(std::mem::take(&mut run.samples));
        waits.append(&mut run.waits);
    }
    drop(runs);
    failures.extend(check_leftovers(fds_before).await);
    if !failures.is_empty() {
        return Err(failures);
    }

    let mut report = format!(
        "load: {} sessions x {} calls = {calls} calls (+{nested} nested code-mode calls), one SQLite store; python runs in flight: {}\n",
        config.sessions,
        config.calls,
        config
            .procs
            .map_or("unbounded".to_string(), |n| format!("at most {n}"))
    );
    report += &format!(
        "load: sessions created in {:.2} s; calls took {:.2} s: {:.1} calls/s ({:.1} tool calls/s with the nested ones)\n",
        created.as_secs_f64(),
        calls_took.as_secs_f64(),
        calls as f64 / calls_took.as_secs_f64(),
        (calls + nested) as f64 / calls_took.as_secs_f64(),
    );
    report += &format!(
        "load: peak calls in flight {}, peak python runs in flight {}; load average {}\n",
        shared.peak_in_flight.load(Ordering::SeqCst),
        shared.peak_python.load(Ordering::SeqCst),
        load_common::load_average()
    );
    report += &format!(
        "load: {:<16} {:>7} {:>10} {:>10} {:>10}\n",
        "kind", "calls", "p50 ms", "p99 ms", "max ms"
    );
    for kind in Kind::ALL {
        if let Some(kind_samples) = samples.by_kind.get(&kind) {
            report += &format!(
                "load: {:<16} {}\n",
                kind.label(),
                load_common::summary(kind_samples)
            );
        }
    }
    report += &format!(
        "load: {:<16} {}\n",
        "overall",
        load_common::summary(&samples.all())
    );
    if config.procs.is_some() {
        report += &format!(
            "load: {:<16} {}\n",
            "(python wait)",
            load_common::summary(&waits)
        );
    }
    Ok(report)
}

async fn session_task(
    n: usize,
    mut run: SessionRun,
    factory: LocalSessionFactory,
    calls: usize,
    shared: Arc<Shared>,
    python: Option<Arc<Semaphore>>,
    barrier: Arc<Barrier>,
) -> SessionRun {
    let spec = SessionSpec::root(&run.id, "load", run.workspace.to_str().unwrap_or_default())
        .with_executor(ExecutorSpec::Local {
            command: "python3 {file}".to_string(),
        })
        .with_tools([
            "write_file",
            "read_file",
            "edit_file",
            "list_directory",
            "search_text",
            "find_files",
        ]);
    let created = match factory.create(spec).await {
        Ok(session) => LoadSession::new(&factory, session),
        Err(err) => Err(err.to_string()),
    };
    // Waited for even on failure, or the others would wait forever.
    barrier.wait().await;
    let session = match created {
        Ok(session) => session,
        Err(err) => {
            run.failures.push(format!("{}: not created: {err}", run.id));
            return run;
        }
    };
    for k in 0..calls {
        let call: Call = run.script.call(k);
        let call_id = format!("{}-c{k}", run.id);
        let permit = match (&python, call.kind.runs_python()) {
            (Some(semaphore), true) => {
                let waited = Instant::now();
                let permit = Arc::clone(semaphore).acquire_owned().await.ok();
                run.waits.push(waited.elapsed());
                permit
            }
            _ => None,
        };
        let is_python = call.kind.runs_python();
        if is_python {
            rise(&shared.python, &shared.peak_python);
        }
        rise(&shared.in_flight, &shared.peak_in_flight);
        let began = Instant::now();
        let result = session
            .execute(
                call.kind,
                call.tool,
                ToolCall::new(call_id.clone(), call.arguments.clone()),
            )
            .await;
        run.samples.add(call.kind, began.elapsed());
        shared.in_flight.fetch_sub(1, Ordering::SeqCst);
        if is_python {
            shared.python.fetch_sub(1, Ordering::SeqCst);
        }
        drop(permit);
        shared.answered.fetch_add(1, Ordering::SeqCst);
        shared.progress[n].fetch_add(1, Ordering::SeqCst);

        for (i, tool) in call.nested.iter().enumerate() {
            run.expected.push((
                format!("{call_id}/sdk-{}", i + 1),
                Some(call_id.clone()),
                (*tool).to_string(),
            ));
        }
        run.expected
            .push((call_id.clone(), None, call.tool.to_string()));
        run.arguments
            .push((call_id.clone(), call.arguments.clone()));
        if let Err(err) = run.script.check(k, &call, &result) {
            run.failures
                .push(format!("{call_id} ({}): {err}", call.kind.label()));
        }
    }
    run.session = Some(session);
    run
}

/// Which sessions had not finished at the deadline, and at which call.
fn stuck(config: &Config, shared: &Shared) -> Vec<String> {
    let answered = shared.answered.load(Ordering::SeqCst);
    let mut out = vec![format!(
        "HANG: {answered} of {} calls answered within the deadline of {:?}",
        config.sessions * config.calls,
        config.deadline
    )];
    for (n, done) in shared.progress.iter().enumerate() {
        let done = done.load(Ordering::SeqCst);
        if done < config.calls {
            let next = Script::new(&session_id(n)).call(done).kind;
            out.push(format!(
                "{} is waiting on call {done} ({})",
                session_id(n),
                next.label()
            ));
        }
    }
    out
}

/// The store holds exactly the expected records, session by session, and no others.
async fn check_store(store: &SqliteStore, runs: &[SessionRun]) -> Vec<String> {
    use cy_tools::ExecutionLog;
    let mut failures = Vec::new();
    let mut total = 0;
    for run in runs {
        total += run.expected.len();
        let entries = match store.entries(&run.id).await {
            Ok(entries) => entries,
            Err(err) => {
                failures.push(format!("{}: the log cannot be read: {err}", run.id));
                continue;
            }
        };
        let got: Vec<Expected> = entries
            .iter()
            .map(|e| (e.call_id.clone(), e.parent_call.clone(), e.tool.clone()))
            .collect();
        if got != run.expected {
            failures.push(format!(
                "LOST OR WRONG RECORDS: {} has {} records, expected {}: {}",
                run.id,
                got.len(),
                run.expected.len(),
                clip(&format!("{got:?}"))
            ));
            continue;
        }
        for entry in &entries {
            if entry.session_id != run.id || entry.result.is_error {
                failures.push(format!("{}: record {} is {entry:?}", run.id, entry.call_id));
            }
        }
        for (call_id, arguments) in &run.arguments {
            let entry = entries.iter().find(|e| &e.call_id == call_id);
            if entry.map(|e| &e.arguments) != Some(arguments) {
                failures.push(format!(
                    "{}: record {call_id} holds other arguments",
                    run.id
                ));
            }
        }
    }
    match store.call_count().await {
        Ok(count) if count == total as u64 => {}
        Ok(count) => failures.push(format!("the store holds {count} records, expected {total}")),
        Err(err) => failures.push(format!("the store cannot be counted: {err}")),
    }
    match store.integrity_check().await {
        Ok(answer) if answer == "ok" => {}
        other => failures.push(format!("the store's integrity check: {other:?}")),
    }
    failures
}

/// Each workspace holds exactly its session's files, and nothing lies outside the workspaces.
fn check_files(dir: &Path, runs: &[SessionRun]) -> Vec<String> {
    let mut failures = Vec::new();
    for run in runs {
        let got = load_common::tree(&run.workspace);
        if &got != run.script.files() {
            let extra: Vec<&String> = got
                .keys()
                .filter(|p| !run.script.files().contains_key(*p))
                .collect();
            let missing: Vec<&String> = run
                .script
                .files()
                .keys()
                .filter(|p| !got.contains_key(*p))
                .collect();
            failures.push(format!(
                "{}: the workspace differs from what the session wrote: extra {extra:?}, missing {missing:?}, or other contents",
                run.id
            ));
        }
    }
    let names = |path: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(path)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let outside: Vec<String> = names(dir)
        .into_iter()
        .filter(|n| {
            !matches!(
                n.as_str(),
                "w" | "sessions.db" | "sessions.db-wal" | "sessions.db-shm"
            )
        })
        .collect();
    if !outside.is_empty() {
        failures.push(format!("files outside the workspaces: {outside:?}"));
    }
    let ids: Vec<String> = runs.iter().map(|r| r.id.clone()).collect();
    if names(&dir.join("w")) != ids {
        failures
            .push("the workspaces folder holds something besides one folder per session".into());
    }
    failures
}

/// Once every session is dropped: no child process left, no descriptor left open.
async fn check_leftovers(fds_before: usize) -> Vec<String> {
    let mut failures = Vec::new();
    let waited = Instant::now();
    // Children are reaped in the background; give that a moment.
    while !load_common::children().is_empty() && waited.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let children = load_common::children();
    if !children.is_empty() {
        failures.push(format!(
            "{} child processes left: {:?}",
            children.len(),
            clip(&format!("{children:?}"))
        ));
    }
    // The runtime's own descriptors (the signal driver's, for one) may open during the run.
    let fds = load_common::open_fds();
    if fds > fds_before + 16 {
        failures.push(format!(
            "{fds} descriptors open after the run, {fds_before} before"
        ));
    }
    failures
}
