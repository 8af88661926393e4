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

mod backend;
mod checks;
mod config;
mod figures;
mod postgres;
mod process;
mod session;
mod workload;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cy_tools::{SessionSpec, ToolCall, session::ExecutorSpec};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::SqliteStore;
use serde_json::Value;
use tokio::sync::{Barrier, Semaphore};
use tokio::task::JoinSet;

use crate::support::alone::alone;
use backend::Backend;
use checks::{Expected, FOLLOW_ON, SessionFacts};
use config::Config;
use figures::Samples;
use session::LoadSession;
use workload::{Call, Kind, Script, session_id};

#[test]
fn sessions_under_load_stay_isolated_and_every_call_is_answered_and_recorded() {
    // What the run must give back (descriptors, children) is counted for the whole process,
    // which the tests beside it would change.
    alone!(load_in_a_process_of_its_own).run();
}

#[test]
#[ignore = "run by `sessions_under_load_stay_isolated_and_every_call_is_answered_and_recorded` in a process of its own"]
fn load_in_a_process_of_its_own() {
    let config = Config::from_env();
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let (report, failures) = runtime.block_on(async {
        let store = SqliteStore::open(dir.path().join("sessions.db")).unwrap();
        let outcome = run(&config, dir.path(), &Backend::sqlite(store)).await;
        (outcome.report, outcome.failures)
    });
    // A run stopped at its deadline may leave blocking work behind; do not wait on it forever.
    runtime.shutdown_timeout(Duration::from_secs(10));
    println!("{report}");
    assert!(failures.is_empty(), "{}", checks::summary(&failures));
}

/// Counters shared by every session.
#[derive(Default)]
struct Shared {
    answered: AtomicUsize,
    in_flight: AtomicUsize,
    peak_in_flight: AtomicUsize,
    python: AtomicUsize,
    peak_python: AtomicUsize,
    peak_threads: AtomicUsize,
    /// Calls answered, per session.
    progress: Vec<AtomicUsize>,
}

fn rise(now: &AtomicUsize, peak: &AtomicUsize) {
    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
    peak.fetch_max(n, Ordering::SeqCst);
}

/// What one session did.
struct SessionRun {
    n: usize,
    id: String,
    workspace: PathBuf,
    session: Option<LoadSession>,
    script: Script,
    /// The records its calls must have left, in order.
    expected: Vec<Expected>,
    /// The arguments of each top-level call.
    arguments: Vec<(String, Value)>,
    samples: Samples,
    waits: Vec<Duration>,
    failures: Vec<String>,
}

impl SessionRun {
    fn new(dir: &Path, n: usize) -> Self {
        let id = session_id(n);
        SessionRun {
            n,
            workspace: checks::workspace(dir, &id),
            script: Script::new(&id),
            id,
            session: None,
            expected: Vec::new(),
            arguments: Vec::new(),
            samples: Samples::default(),
            waits: Vec::new(),
            failures: Vec::new(),
        }
    }

    fn facts(&self) -> SessionFacts<'_> {
        SessionFacts {
            n: self.n,
            id: &self.id,
            workspace: &self.workspace,
            expected: &self.expected,
            arguments: &self.arguments,
            files: self.script.files(),
        }
    }
}

/// What a run measured and found.
pub struct Outcome {
    /// The figures, as printed.
    pub report: String,
    pub failures: Vec<String>,
    /// Latency of every top-level call.
    pub samples: Samples,
    /// When the calls started and how long they took (all sessions together).
    pub calls_started: std::time::SystemTime,
    pub calls_took: Duration,
    /// Top-level calls answered, and the nested code-mode calls they made.
    pub answered: usize,
    pub nested: usize,
    /// Records the store must hold for this process's sessions, at least and at most.
    pub bounds: (usize, usize),
}

/// The figures, and every failure, of the sessions `backend` gives this process.
async fn run(config: &Config, dir: &Path, backend: &Backend) -> Outcome {
    let mine = backend.sessions(config.sessions);
    let fds_before = process::open_fds();
    let shared = Arc::new(Shared {
        progress: (0..config.sessions).map(|_| AtomicUsize::new(0)).collect(),
        ..Shared::default()
    });
    let python = config.procs.map(|n| Arc::new(Semaphore::new(n)));
    let barrier = Arc::new(Barrier::new(mine.len() + 1));
    let started = Instant::now();
    let mut tasks = JoinSet::new();
    for &n in &mine {
        tasks.spawn(session_task(
            n,
            SessionRun::new(dir, n),
            backend.factory(n).clone(),
            backend.tenant(n).to_string(),
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
        let failure = format!(
            "HANG: the sessions were not all created within the deadline of {:?}",
            config.deadline
        );
        return Outcome {
            report: String::new(),
            failures: vec![failure],
            samples: Samples::default(),
            calls_started: std::time::SystemTime::now(),
            calls_took: Duration::ZERO,
            answered: 0,
            nested: 0,
            bounds: (0, 0),
        };
    }
    let created = started.elapsed();
    let calls_started = Instant::now();
    let calls_started_at = std::time::SystemTime::now();
    // Sampled, to show how much of Tokio's blocking pool (512 threads) the run takes.
    let sampler = {
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            loop {
                let threads = process::threads();
                shared.peak_threads.fetch_max(threads, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    let mut runs = Vec::new();
    let mut failures = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, tasks.join_next()).await {
            Ok(Some(Ok(run))) => runs.push(run),
            Ok(Some(Err(err))) => failures.push(format!("a session task failed: {err}")),
            Ok(None) => break,
            Err(_) => {
                tasks.abort_all();
                failures.extend(stuck(config, &mine, &shared));
                break;
            }
        }
    }
    let calls_took = calls_started.elapsed();
    sampler.abort();
    runs.sort_by(|a, b| a.id.cmp(&b.id));

    let calls = mine.len() * config.calls;
    let answered = shared.answered.load(Ordering::SeqCst);
    let nested = runs
        .iter()
        .flat_map(|r| &r.expected)
        .filter(|e| e.record.1.is_some())
        .count();
    if failures.is_empty() {
        failures.extend(runs.iter().flat_map(|r| r.failures.clone()));
        if answered != calls {
            failures.push(format!("UNANSWERED: {answered} calls answered of {calls}"));
        }
    }
    let facts: Vec<SessionFacts<'_>> = runs.iter().map(SessionRun::facts).collect();
    let bounds = checks::bounds(&facts);
    if failures.is_empty() {
        failures.extend(checks::store(backend, &facts).await);
        failures.extend(checks::files(dir, &facts));
    }
    drop(facts);
    let mut samples = Samples::default();
    let mut waits = Vec::new();
    for run in &mut runs {
        samples.merge(std::mem::take(&mut run.samples));
        waits.append(&mut run.waits);
    }
    drop(runs);
    if failures.is_empty() {
        failures.extend(checks::leftovers(fds_before + backend.kept_descriptors()).await);
    }

    let mut report = format!(
        "load: {} sessions x {} calls = {calls} calls, {answered} answered (+{nested} nested code-mode calls), {}; python runs in flight: {}\n",
        mine.len(),
        config.calls,
        backend.label(),
        config
            .procs
            .map_or("unbounded".to_string(), |n| format!("at most {n}"))
    );
    let secs = calls_took.as_secs_f64();
    report += &format!(
        "load: sessions created in {:.2} s; calls took {secs:.2} s: {:.1} calls/s ({:.1} tool calls/s with the nested ones)\n",
        created.as_secs_f64(),
        answered as f64 / secs,
        (answered + nested) as f64 / secs,
    );
    report += &format!(
        "load: peak calls in flight {}, peak python runs in flight {}, peak threads {}; load average now {}\n",
        shared.peak_in_flight.load(Ordering::SeqCst),
        shared.peak_python.load(Ordering::SeqCst),
        shared.peak_threads.load(Ordering::SeqCst),
        figures::load_average()
    );
    report += &format!(
        "load: {:<16} {:>7} {:>10} {:>10} {:>10}\n",
        "kind", "calls", "p50 ms", "p99 ms", "max ms"
    );
    for kind in Kind::ALL {
        if let Some(kind_samples) = samples.by_kind.get(&kind) {
            let line = figures::summary(kind_samples);
            report += &format!("load: {:<16} {line}\n", kind.label());
        }
    }
    let line = figures::summary(&samples.all());
    report += &format!("load: {:<16} {line}\n", "overall");
    if config.procs.is_some() {
        let line = figures::summary(&waits);
        report += &format!("load: {:<16} {line}\n", "(python wait)");
    }
    Outcome {
        report,
        failures,
        samples,
        calls_started: calls_started_at,
        calls_took,
        answered,
        nested,
        bounds,
    }
}

#[allow(clippy::too_many_arguments)]
async fn session_task(
    n: usize,
    mut run: SessionRun,
    factory: LocalSessionFactory,
    tenant: String,
    calls: usize,
    shared: Arc<Shared>,
    python: Option<Arc<Semaphore>>,
    barrier: Arc<Barrier>,
) -> SessionRun {
    let spec = SessionSpec::root(&run.id, tenant, run.workspace.to_str().unwrap_or_default())
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
            run.failures.push(format!("{}: NOT CREATED: {err}", run.id));
            return run;
        }
    };
    for k in 0..calls {
        let call: Call = run.script.call(k);
        let call_id = format!("{}-c{k}", run.id);
        let is_python = call.kind.runs_python();
        let permit = match (&python, is_python) {
            (Some(semaphore), true) => {
                let waited = Instant::now();
                let permit = Arc::clone(semaphore).acquire_owned().await.ok();
                run.waits.push(waited.elapsed());
                permit
            }
            _ => None,
        };
        if is_python {
            rise(&shared.python, &shared.peak_python);
        }
        rise(&shared.in_flight, &shared.peak_in_flight);
        let began = Instant::now();
        let arguments = call.arguments.clone();
        let result = session
            .execute(
                call.kind,
                call.tool,
                ToolCall::new(call_id.clone(), arguments),
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

        // A code-mode run that failed may have stopped before some of its calls.
        for (i, tool) in call.nested.iter().enumerate() {
            run.expected.push(Expected {
                record: (
                    format!("{call_id}/sdk-{}", i + 1),
                    Some(call_id.clone()),
                    (*tool).to_string(),
                ),
                optional: result.is_error,
            });
        }
        run.expected.push(Expected {
            record: (call_id.clone(), None, call.tool.to_string()),
            optional: false,
        });
        run.arguments
            .push((call_id.clone(), call.arguments.clone()));
        if let Err(err) = run.script.check(k, &call, &result) {
            let follow_on = if run.failures.is_empty() {
                ""
            } else {
                FOLLOW_ON
            };
            run.failures.push(format!(
                "{call_id} ({}){follow_on}: {err}",
                call.kind.label()
            ));
            // Later calls are checked against the workspace as this one left it.
            run.script.resync(workload::tree(&run.workspace));
        }
    }
    run.session = Some(session);
    run
}

/// Which sessions had not finished at the deadline, and at which call.
fn stuck(config: &Config, mine: &[usize], shared: &Shared) -> Vec<String> {
    let answered = shared.answered.load(Ordering::SeqCst);
    let mut out = vec![format!(
        "HANG: {answered} of {} calls answered within the deadline of {:?}",
        mine.len() * config.calls,
        config.deadline
    )];
    for &n in mine {
        let done = shared.progress[n].load(Ordering::SeqCst);
        if done < config.calls {
            let next = Script::new(&session_id(n)).call(done).kind;
            out.push(format!(
                "{}: HANG: waiting on call {done} ({})",
                session_id(n),
                next.label()
            ));
        }
    }
    out
}
