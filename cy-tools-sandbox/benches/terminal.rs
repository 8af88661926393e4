//! The `terminal` tool running `true` against spawning the same process directly with tokio,
//! in one run:
//!
//! * `tokio_true`: `tokio::process::Command::new("true").output()`;
//! * `tokio_sh_c_true`: `/bin/sh -c true` the same way: the baseline, since `terminal` runs every
//!   command through `/bin/sh -c`;
//! * `sandbox_exec`: `SandboxView::exec("true")` (clean environment, process group, exit watch,
//!   capped capture);
//! * `terminal_tool`: the bound `terminal` tool through `BoundTool::execute`.
//!
//! All four capture stdout and stderr through pipes and wait for the exit status, on the same
//! current-thread Tokio runtime. Goal: `terminal_tool` ≤ 1.5 × `tokio_sh_c_true`.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use cy_tools::{
    CancellationToken, SessionIdentity, ToolCall, ToolContext,
    binding::bind_tool,
    services::{ExecOptions, Sandbox},
};
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::tools::terminal::TERMINAL;
use serde_json::json;
use tokio::process::Command;

fn terminal_true(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let context =
        ToolContext::new(SessionIdentity::root("bench", "bench")).with_env(Arc::new(env.clone()));
    let tool = bind_tool(&TERMINAL, context).unwrap();
    let cancel = CancellationToken::new();
    let args = json!({"command": "true"});

    let check = runtime.block_on(tool.execute(ToolCall::new("c", args.clone()), &cancel));
    assert_eq!(
        check.text_content(),
        "exit code: 0\nstdout: (empty)\nstderr: (empty)"
    );

    let tokio_true = || {
        let output = runtime
            .block_on(async { Command::new("true").output().await })
            .unwrap();
        assert!(output.status.success());
        black_box(output);
    };
    let tokio_sh_c_true = || {
        let output = runtime
            .block_on(async { Command::new("/bin/sh").args(["-c", "true"]).output().await })
            .unwrap();
        assert!(output.status.success());
        black_box(output);
    };
    let sandbox_exec = || {
        let result = runtime
            .block_on(env.exec("true", ExecOptions::default()))
            .unwrap();
        assert!(result.success());
        black_box(result);
    };
    let terminal_tool = || {
        let result = runtime.block_on(tool.execute(ToolCall::new("c", args.clone()), &cancel));
        assert!(!result.is_error);
        black_box(result);
    };
    let variants: [(&str, &dyn Fn()); 4] = [
        ("tokio_true", &tokio_true),
        ("tokio_sh_c_true", &tokio_sh_c_true),
        ("sandbox_exec", &sandbox_exec),
        ("terminal_tool", &terminal_tool),
    ];

    let mut group = c.benchmark_group("terminal_true");
    // Longer than the default, so a burst of load from other work on the machine weighs less.
    group.measurement_time(Duration::from_secs(10));
    for (name, run) in variants {
        group.bench_function(name, |b| b.iter(run));
    }
    group.finish();
}

criterion_group!(benches, terminal_true);
criterion_main!(benches);
