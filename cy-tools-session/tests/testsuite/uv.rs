//! `uv` as the default runner: a session's default command (`{python} {file}`) runs a script
//! with `uv run --script`, which installs its inline dependencies (PEP 723) when the session
//! may use the network and stays offline when it may not; without `uv` on the commands'
//! `PATH`, code runs with `python3` and the host's log says so.
//!
//! `uv` is found through `CY_UV` (its path; `.ci/run` installs it from PyPI into
//! `target/uv-venv` and sets it) or on the default commands' `PATH`. Without it these tests
//! say so and pass, unless `CY_UV_REQUIRE=1`, which makes that a failure.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use cy_tools::{CancellationToken, SessionSpec, ToolCall, ToolRegistry};
use cy_tools_sandbox::ExecLimits;
use cy_tools_sandbox::Isolation;
use cy_tools_sandbox::executor::PythonRunner;
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::SqliteStore;
use serde_json::json;

/// A script that needs `iniconfig` (small, pure Python, and not in Debian's `python3`),
/// declared inline.
const NEEDS_INICONFIG: &str = r#"# /// script
# dependencies = ["iniconfig>=2,<3"]
# ///
import iniconfig
print("b =", iniconfig.IniConfig("x.ini", data="[a]\nb = 1\n")["a"]["b"])
"#;

/// Whether `uv` runs the script (it sets `UV` for what it runs) and which Python.
const WHO_RUNS: &str = "import os, sys\nprint('UV' in os.environ, sys.version_info[0])\n";

/// The folder `uv` is in, or `None` (after saying why) when the test should pass without it.
fn uv_dir() -> Option<PathBuf> {
    let found = match std::env::var_os("CY_UV") {
        Some(path) => Some(PathBuf::from(path)),
        None => std::env::split_paths(&ExecLimits::default().path)
            .map(|dir| dir.join("uv"))
            .find(|uv| uv.is_file()),
    };
    match found {
        Some(uv) if uv.is_file() => Some(uv.parent().unwrap().to_path_buf()),
        _ => {
            let why = "uv is not installed: set `CY_UV` to its path (`.ci/run` installs it into `target/uv-venv`), or put it in /usr/local/bin";
            assert!(
                std::env::var_os("CY_UV_REQUIRE").is_none(),
                "cannot run, and CY_UV_REQUIRE is set: {why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// Limits whose commands' `PATH` starts with `uv_dir`, confined by `isolation`.
fn limits(uv_dir: &std::path::Path, isolation: Isolation) -> ExecLimits {
    let default = ExecLimits::default();
    ExecLimits {
        path: format!("{}:{}", uv_dir.display(), default.path),
        isolation,
        ..default
    }
}

/// Runs `code` with `execute_code` in a fresh session of the default executor under `limits`.
async fn run(limits: ExecLimits, code: &str) -> (bool, String) {
    run_in(limits, code, false).await
}

/// The same, with code mode on or off.
async fn run_in(limits: ExecLimits, code: &str, code_mode: bool) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("sessions.db")).unwrap();
    let factory =
        LocalSessionFactory::with_sqlite(Arc::new(ToolRegistry::linked().unwrap()), store)
            .with_exec_limits(limits);
    let workspace = dir.path().join("w");
    let session = factory
        .create(
            SessionSpec::root("s-1", "acme", workspace.to_str().unwrap())
                .with_tools(["read_file"])
                .with_code_mode(code_mode),
        )
        .await
        .unwrap();
    let result = session
        .execute(
            "execute_code",
            ToolCall::new("c1", json!({"code": code, "timeout_ms": 120_000})),
            &CancellationToken::new(),
        )
        .await;
    (result.is_error, crate::support::outcome::text(&result))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uv_installs_a_scripts_inline_dependency_when_the_session_allows_the_network() {
    let Some(uv) = uv_dir() else { return };
    let (failed, text) = run(limits(&uv, Isolation::Network), NEEDS_INICONFIG).await;
    assert!(!failed, "{text}");
    assert_eq!(text, "b = 1");
}

/// Code mode runs the code through a bootstrap beside it (`cy-tools-sandbox`'s `executor/bootstrap.rs`), which carries
/// the code's inline metadata, so uv still installs what the code asks for.
#[cfg(feature = "code-mode")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_code_mode_uv_still_installs_the_inline_dependency() {
    let Some(uv) = uv_dir() else { return };
    let code = format!("{NEEDS_INICONFIG}import cy_sdk\nprint(cy_sdk.tools())\n");
    let (failed, text) = run_in(limits(&uv, Isolation::Network), &code, true).await;
    assert!(!failed, "{text}");
    assert_eq!(text, "b = 1\n['read_file']");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uv_runs_offline_when_the_session_has_no_network() {
    let Some(uv) = uv_dir() else { return };
    let (failed, text) = run(limits(&uv, Isolation::Strict), WHO_RUNS).await;
    assert!(!failed, "{text}");
    assert_eq!(text, "True 3");
    // The dependency is not in this fresh workspace's cache, and uv may not fetch it.
    // The run itself ran (uv, which exited 1): a normal result saying why.
    let (failed, text) = run(limits(&uv, Isolation::Strict), NEEDS_INICONFIG).await;
    assert!(!failed, "{text}");
    assert!(
        text.starts_with("the code exited with exit code 1\n"),
        "{text}"
    );
    assert!(text.contains("the network was disabled"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_uv_code_runs_with_python3_and_the_log_says_so() {
    // No folder of this `PATH` has `uv` (checked), but it has `python3`.
    let path = "/usr/bin:/bin";
    assert!(
        std::env::split_paths(path).all(|dir| !dir.join("uv").exists()),
        "this test needs a PATH without uv"
    );
    let log = Arc::new(Mutex::new(Vec::new()));
    let writer = {
        let log = Arc::clone(&log);
        move || Captured(Arc::clone(&log))
    };
    let subscriber = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_max_level(tracing::Level::INFO)
        .finish();
    let runner =
        tracing::subscriber::with_default(subscriber, || PythonRunner::detect(path, false));
    assert_eq!(runner, PythonRunner::Python3);
    let logged = String::from_utf8(log.lock().unwrap().clone()).unwrap();
    assert!(
        logged.contains("`uv` is not on the commands' PATH `/usr/bin:/bin`, so code runs with `python3` and a script's inline dependencies (PEP 723) are not installed"),
        "{logged}"
    );

    let limits = ExecLimits {
        path: path.to_string(),
        ..ExecLimits::default()
    };
    let (failed, text) = run(limits.clone(), WHO_RUNS).await;
    assert!(!failed, "{text}");
    assert_eq!(text, "False 3");
    let (failed, text) = run(limits, NEEDS_INICONFIG).await;
    assert!(!failed, "the code ran and failed: {text}");
    assert!(
        text.starts_with("the code exited with exit code 1\n"),
        "{text}"
    );
    assert!(text.contains("No module named 'iniconfig'"), "{text}");
}

struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().write_all(bytes)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
