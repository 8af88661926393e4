//! What only the local executor has: its run command is configurable (and must name the
//! script). Its default runner, `uv`, is in `uv.rs`.

use std::sync::Arc;

use cy_tools::{
    ToolRegistry,
    services::{CodeExecutor, CodeOptions, ServiceErrorKind},
};
use cy_tools_sandbox::ExecLimits;
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::executor::LocalExecutor;

#[test]
fn execute_code_is_always_registered() {
    let registry = ToolRegistry::linked().unwrap();
    assert!(registry.names().contains(&"execute_code"));
}

#[tokio::test]
async fn the_run_command_is_configurable_and_must_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let env = Arc::new(LocalSandbox::new(dir.path()).unwrap().env());
    let err = LocalExecutor::new(env.clone())
        .with_command("python3 main.py")
        .unwrap_err();
    assert_eq!(err.kind(), ServiceErrorKind::InvalidInput);
    assert_eq!(
        err.to_string(),
        "the run command `python3 main.py` has no `{file}`: write where the script's path goes, as in `python3 {file}`"
    );
    // A path with a quote and a `$` stays one word; the run is held to its sandbox's limits.
    let env = Arc::new(
        LocalSandbox::new(dir.path())
            .unwrap()
            .with_limits(ExecLimits {
                output_limit: 12,
                ..ExecLimits::default()
            })
            .env(),
    );
    let executor = LocalExecutor::new(env)
        .with_command("python3 -I {file} --flag")
        .unwrap();
    let options = CodeOptions {
        filename: Some("it's $HOME.py".into()),
        ..CodeOptions::default()
    };
    let result = executor
        .execute(
            "import sys\nprint(sys.argv[1:], sys.flags.isolated)",
            options,
        )
        .await
        .unwrap();
    assert_eq!(result.exit_code, Some(0));
    assert!(result.truncated);
    assert_eq!(
        result.stdout,
        "['--flag'] 1\n[output cut: showed the first 12 of 13 bytes; write the output to a file and read it in parts, or narrow it with `grep`, `head` or `tail`]"
    );
}
