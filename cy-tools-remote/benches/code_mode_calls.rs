//! Code mode's nested calls: one tool call from Python through the generated module
//! (`cy_sdk.tools.echo(text=...)`), through `cy_sdk.call("echo", text=...)`, and the same tool
//! run directly from Rust (`Session::execute`), locally and with the code on a control server
//! (every nested call relayed back over the run's connection).
//!
//! Before criterion runs, for each executor, one execution makes 2,000 calls alternating in
//! blocks of 100 between the typed function and `cy_sdk.call` (1,000 each, so load from other
//! work falls on both alike), each timed in Python with `time.perf_counter_ns`; and 1,000 direct
//! calls are timed in Rust. Their p50 and p99 are printed. Criterion then times one direct call
//! and whole runs of 100 calls each way.
//!
//! Reproduce: `cargo bench -p cy-tools-builtin --bench code_mode_calls` (the percentiles are
//! printed first; `-- --bench none` prints them alone and skips criterion).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use cy_tools::prelude::*;
use cy_tools::{
    CancellationToken, Session, SessionIdentity, ToolCall, ToolContext, ToolRegistry,
    services::{CodeExecutor, Sandbox},
};
use cy_tools_code_mode::CodeModeExecutor;
use cy_tools_remote::RemoteExecutor;
use cy_tools_remote::control_server::{ControlServer, ControlServerConfig};
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::executor::LocalExecutor;
use serde_json::json;

/// Answer the text it is given.
#[tool(read_only, open_world = false)]
async fn echo(
    /// The text.
    text: String,
) -> String {
    text
}

const TIMED: &str = r#"
import time, cy_sdk
typed, named = [], []
for _ in range(10):
    for _ in range(100):
        start = time.perf_counter_ns()
        cy_sdk.tools.echo(text="hello")
        typed.append(time.perf_counter_ns() - start)
    for _ in range(100):
        start = time.perf_counter_ns()
        cy_sdk.call("echo", text="hello")
        named.append(time.perf_counter_ns() - start)
def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]
print("%d %d %d %d" % (pct(typed, 0.5), pct(typed, 0.99), pct(named, 0.5), pct(named, 0.99)))
"#;

const TYPED_X100: &str =
    "import cy_sdk\nfor _ in range(100):\n    cy_sdk.tools.echo(text='hello')\nprint(1)";
const NAMED_X100: &str =
    "import cy_sdk\nfor _ in range(100):\n    cy_sdk.call('echo', text='hello')\nprint(1)";
const TOKEN: &str = "bench-code-mode-calls-token-0123456789";

/// A code-mode session with `execute_code` and `echo`, its code run by `inner` (or locally).
fn session(env: &Arc<dyn Sandbox>, inner: Option<Arc<dyn CodeExecutor>>) -> Session {
    let inner = inner.unwrap_or_else(|| Arc::new(LocalExecutor::new(Arc::clone(env))));
    let executor = Arc::new(CodeModeExecutor::new(inner));
    let context = ToolContext::new(SessionIdentity::root("bench", "bench"))
        .with_env(Arc::clone(env))
        .with_executor(executor.clone() as Arc<dyn CodeExecutor>);
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["execute_code", "echo"], &context);
    executor
        .attach(Session::new(Arc::new(context), tools))
        .unwrap()
}

fn run(runtime: &tokio::runtime::Runtime, session: &Session, code: &str) -> String {
    let result = runtime.block_on(session.execute(
        "execute_code",
        ToolCall::new("b", json!({ "code": code })),
        &CancellationToken::new(),
    ));
    assert!(!result.is_error, "{}", result.text_content());
    result.text_content()
}

fn direct(runtime: &tokio::runtime::Runtime, session: &Session) {
    let result = runtime.block_on(session.execute(
        "echo",
        ToolCall::new("d", json!({ "text": "hello" })),
        &CancellationToken::new(),
    ));
    assert!(!result.is_error);
}

fn percentiles(mut ns: Vec<u128>) -> (f64, f64) {
    ns.sort_unstable();
    let at = |p: f64| {
        let i = ((ns.len() as f64 * p) as usize).min(ns.len() - 1);
        ns[i] as f64 / 1000.0
    };
    (at(0.5), at(0.99))
}

fn code_mode_calls(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let env: Arc<dyn Sandbox> = Arc::new(LocalSandbox::new(dir.path()).unwrap().env());
    let local = session(&env, None);
    let server_root = tempfile::tempdir().unwrap();
    let remote = runtime.block_on(async {
        let config = ControlServerConfig {
            token: Some(TOKEN.into()),
            ..ControlServerConfig::new("127.0.0.1:0".parse().unwrap(), server_root.path())
        };
        let server = ControlServer::bind(config).await.unwrap();
        let addr = server.local_addr().unwrap();
        tokio::spawn(server.run());
        RemoteExecutor::new(&format!("http://{addr}"), "bench", TOKEN).unwrap()
    });
    let remote = session(&env, Some(Arc::new(remote)));

    let mut times = Vec::with_capacity(1000);
    for _ in 0..1000 {
        let start = Instant::now();
        direct(&runtime, &local);
        times.push(start.elapsed().as_nanos());
    }
    let (p50, p99) = percentiles(times);
    println!(
        "code_mode_calls/direct_execute (1,000 calls, timed in Rust): p50 {p50:.1} µs, p99 {p99:.1} µs"
    );
    for (name, session) in [("local", &local), ("remote", &remote)] {
        let out = run(&runtime, session, TIMED);
        let us: Vec<f64> = out
            .split(' ')
            .map(|n| n.parse::<f64>().unwrap() / 1000.0)
            .collect();
        println!(
            "code_mode_calls/{name} (1,000 calls each, timed in Python): typed p50 {:.1} µs, p99 {:.1} µs; cy_sdk.call p50 {:.1} µs, p99 {:.1} µs",
            us[0], us[1], us[2], us[3]
        );
    }

    let mut group = c.benchmark_group("code_mode_calls");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("direct_execute", |b| {
        b.iter(|| direct(&runtime, black_box(&local)));
    });
    for (name, session) in [("local", &local), ("remote", &remote)] {
        group.bench_function(format!("{name}/typed_x100_in_one_execution"), |b| {
            b.iter(|| black_box(run(&runtime, session, TYPED_X100)));
        });
        group.bench_function(format!("{name}/call_x100_in_one_execution"), |b| {
            b.iter(|| black_box(run(&runtime, session, NAMED_X100)));
        });
    }
    group.finish();
}

criterion_group!(benches, code_mode_calls);
criterion_main!(benches);
