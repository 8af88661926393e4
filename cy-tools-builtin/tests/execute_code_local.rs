//! `execute_code` on the local executor, with real `python3`: the exact text the model sees.
//! `execute_code_remote.rs` runs the same behaviour through a control server.

mod execute_code_common;

use std::sync::Arc;

use cy_tools::{CodeExecutor, CodeOptions, ServiceErrorKind, ToolRegistry};
use cy_tools_builtin::ExecLimits;
use cy_tools_builtin::LocalSandbox;
use cy_tools_builtin::executor::LocalExecutor;
use execute_code_common as common;

#[tokio::test]
async fn prints_stdout_on_success() {
    common::prints_stdout_on_success(&common::local()).await;
}

#[tokio::test]
async fn an_exception_shows_its_traceback() {
    common::an_exception_shows_its_traceback(&common::local()).await;
}

#[tokio::test]
async fn a_non_zero_exit_shows_both_streams_and_the_code() {
    common::a_non_zero_exit_shows_both_streams_and_the_code(&common::local()).await;
}

#[tokio::test]
async fn an_endless_loop_is_killed_at_its_timeout_with_its_children() {
    common::an_endless_loop_is_killed_at_its_timeout_with_its_children(&common::local()).await;
}

#[tokio::test]
async fn huge_output_is_cut_with_a_notice() {
    common::huge_output_is_cut_with_a_notice(&common::local()).await;
}

#[tokio::test]
async fn files_the_code_writes_are_visible_to_read_file() {
    common::files_the_code_writes_are_visible_to_read_file(&common::local()).await;
}

#[tokio::test]
async fn the_host_environment_is_absent() {
    common::the_host_environment_is_absent(&common::local()).await;
}

#[tokio::test]
async fn refusals_read_alike() {
    common::refusals_read_alike(&common::local()).await;
}

#[tokio::test]
async fn cancelling_kills_the_run_and_its_children() {
    common::cancelling_kills_the_run_and_its_children(&common::local()).await;
}

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

/// `uv run python {file}` where `uv` is installed (on the clean `PATH` or the host's); a
/// machine without `uv` has nothing to check.
#[tokio::test]
async fn uv_run_python_works_where_uv_is_installed() {
    let Some(uv) = which("uv") else {
        eprintln!("uv is not installed: nothing to check");
        return;
    };
    let session = common::local();
    let env = Arc::new(LocalSandbox::new(&session.workspace).unwrap().env());
    let executor = LocalExecutor::new(env)
        .with_command(format!("'{uv}' run python {{file}}"))
        .unwrap();
    let result = executor
        .execute(
            "import sys\nprint(sys.version_info[0])",
            CodeOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result.stdout, "3\n", "{}", result.stderr);
    assert_eq!(result.exit_code, Some(0));
}

fn which(program: &str) -> Option<String> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .map(|found| found.display().to_string())
}
