//! Code mode: what one tool call from Python costs over the SDK socket, against a separate
//! `execute_code` call per operation.
//!
//! * `code_mode/execute_code_per_operation`: one `execute_code` call (through the toolset, with
//!   code mode on) whose program does one thing, `print(1)`: the cost of one operation when each
//!   operation is its own run;
//! * `code_mode/import_cy_sdk_one_call`: the same run, importing `cy_sdk` and making one call
//!   (the fixed cost of using the SDK in a run: the import, the connection, one round trip);
//! * `code_mode/sdk_calls_x100_in_one_execution`: one `execute_code` run whose program makes 100
//!   `cy_sdk.call("noop")` round trips (divide by 100, less the run, for one call);
//! * before criterion runs, one execution makes 1,000 `noop` calls and times each on the Python
//!   side (`time.perf_counter_ns`); their median and p99 are printed.
//!
//! Reproduce: `cargo bench -p cy-tools-builtin --bench code_mode`, then
//! `python3 scripts/criterion_report.py code_mode/execute_code_per_operation
//! code_mode/import_cy_sdk_one_call code_mode/sdk_calls_x100_in_one_execution`.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use cy_tools::prelude::*;
use cy_tools::{
    CancellationToken, Session, SessionIdentity, ToolCall, ToolContext, ToolRegistry, Toolset,
    services::{CodeExecutor, Sandbox},
};
use cy_tools_code_mode::CodeModeExecutor;
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::executor::LocalExecutor;
use serde_json::json;

/// Do nothing and answer `ok`.
#[tool(read_only, open_world = false)]
async fn noop() -> String {
    "ok".to_string()
}

const TIMED: &str = r#"
import time, cy_sdk
times = []
for _ in range(1000):
    start = time.perf_counter_ns()
    cy_sdk.call("noop")
    times.append(time.perf_counter_ns() - start)
times.sort()
print("%d %d" % (times[len(times) // 2], times[int(len(times) * 0.99)]))
"#;

const HUNDRED: &str = "import cy_sdk\nfor _ in range(100):\n    cy_sdk.call('noop')\nprint(1)";

fn code_mode(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let env: Arc<dyn Sandbox> = Arc::new(LocalSandbox::new(dir.path()).unwrap().env());
    let executor = Arc::new(CodeModeExecutor::new(Arc::new(LocalExecutor::new(
        Arc::clone(&env),
    ))));
    let context = ToolContext::new(SessionIdentity::root("bench", "bench"))
        .with_env(env)
        .with_executor(executor.clone() as Arc<dyn CodeExecutor>);
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["execute_code", "noop"], &context);
    let session = Arc::new(Session::new(Arc::new(context), tools.clone()));
    executor.bind(&session).unwrap();
    let run = |tools: &Toolset, code: &str| {
        let result = runtime.block_on(tools.execute(
            "execute_code",
            ToolCall::new("b", json!({ "code": code })),
            &CancellationToken::new(),
        ));
        assert!(!result.is_error, "{}", result.text_content());
        result.text_content()
    };

    let timed = run(&tools, TIMED);
    let (median, p99) = timed.split_once(' ').unwrap();
    let us = |ns: &str| ns.parse::<f64>().unwrap() / 1000.0;
    println!(
        "code_mode/sdk_call_noop (1,000 calls in one execution, timed in Python): median {:.1} µs, p99 {:.1} µs",
        us(median),
        us(p99)
    );

    let mut group = c.benchmark_group("code_mode");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(15));
    group.bench_function("execute_code_per_operation", |b| {
        b.iter(|| black_box(run(&tools, "print(1)")));
    });
    group.bench_function("import_cy_sdk_one_call", |b| {
        b.iter(|| black_box(run(&tools, "import cy_sdk\ncy_sdk.call('noop')\nprint(1)")));
    });
    group.bench_function("sdk_calls_x100_in_one_execution", |b| {
        b.iter(|| black_box(run(&tools, HUNDRED)));
    });
    group.finish();
}

criterion_group!(benches, code_mode);
criterion_main!(benches);
