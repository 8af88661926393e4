//! The escape corpus: what a hostile model's commands and code try in order to leave their
//! workspace, run through `terminal`, `process` and `execute_code`, locally and on a control
//! server. None may succeed. And ordinary work (Python with its standard library, asyncio,
//! subprocess, git, a C compiler) still runs confined.
//!
//! The host around the workspace holds what the attempts go after: a secret file and a `.ssh`
//! key outside it, a neighbouring session's folder, a TCP service on loopback, a Unix socket
//! service (by path and abstract), and the test process itself (the runtime: its environment,
//! its descriptors, its signals). Each attempt prints whatever it got; the test fails if any
//! secret's marker shows up in an output or a file appears where an attempt wrote.
//!
//! Kernel support (Landlock ABI 6) is required when `CY_ISOLATION_REQUIRE` is set (CI sets
//! it); without it the tests say so and return.

mod corpus;
mod escapes;
mod host;
mod metadata;

use std::sync::Arc;

use cy_tools::{
    BoundTool, CancellationToken, SessionIdentity, ToolCall, ToolContext,
    binding::bind_tool,
    services::{ExecOptions, Sandbox},
};
use cy_tools_sandbox::executor::LocalExecutor;
use cy_tools_sandbox::tools::execute_code::EXECUTE_CODE;
use cy_tools_sandbox::tools::terminal::TERMINAL;
use cy_tools_sandbox::{ExecLimits, LocalSandbox};

use host::{Host, MARKERS};

/// Kernel support for isolation, or why the test returns without running.
pub(super) fn isolation_available() -> bool {
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let probe = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(env.exec("true", ExecOptions::default()));
    match probe {
        Ok(_) => true,
        Err(err) if std::env::var_os("CY_ISOLATION_REQUIRE").is_some() => {
            panic!("CY_ISOLATION_REQUIRE is set and commands cannot be confined here: {err}")
        }
        Err(err) => {
            eprintln!("skipped: commands cannot be confined on this host: {err}");
            false
        }
    }
}

pub(super) fn check(label: &str, output: &str, host: &Host) {
    for marker in MARKERS {
        assert!(
            !output.contains(marker),
            "{label}: an escape succeeded (`{marker}` in its output):\n{output}"
        );
    }
    let written = host.written();
    assert!(written.is_empty(), "{label}: wrote outside: {written:?}");
}

pub(super) async fn call(tool: &BoundTool, args: serde_json::Value) -> String {
    let result = tool
        .execute(ToolCall::new("c", args), &CancellationToken::new())
        .await;
    crate::support::outcome::text(&result)
}

pub(super) fn tools(
    host: &Host,
    executor: Option<Arc<dyn cy_tools::services::CodeExecutor>>,
) -> (BoundTool, BoundTool, Arc<dyn Sandbox>) {
    let env: Arc<dyn Sandbox> = Arc::new(
        LocalSandbox::new(host.workspace())
            .unwrap()
            .with_limits(ExecLimits::default())
            .env(),
    );
    let executor = executor.unwrap_or_else(|| Arc::new(LocalExecutor::new(Arc::clone(&env))));
    let context = ToolContext::new(SessionIdentity::root("s-escape", "acme"))
        .with_env(Arc::clone(&env))
        .with_executor(executor);
    (
        bind_tool(&TERMINAL, context.clone()).unwrap(),
        bind_tool(&EXECUTE_CODE, context).unwrap(),
        env,
    )
}
