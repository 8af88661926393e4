//! `cy-tools mcp` as pydantic-ai sees it (its `MCPToolset`, on its offline `TestModel`: no model
//! provider, no network), through `tests/py/pydantic_ai_check.py`: a `terminal` command and an
//! `execute_code` run that exit non-zero are normal results the run goes on from (pydantic-ai
//! retries a tool error, and a second one ends the run), and a real tool error still ends it.
//!
//! The Python interpreter comes from `CY_PYDANTIC_AI_PYTHON` (`.ci/run` makes a venv with
//! `pydantic-ai-slim[mcp]` 2.x installed). Without it the check is skipped with a message on the
//! test process's stderr, except when `CY_PYDANTIC_AI_REQUIRE` is set (as `.ci/run` sets it),
//! where that is a failure.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::app::app;

/// The interpreter named by `CY_PYDANTIC_AI_PYTHON`; its absence fails the run when
/// `CY_PYDANTIC_AI_REQUIRE` is set, and elsewhere says the check is skipped.
fn python() -> Option<PathBuf> {
    match std::env::var_os("CY_PYDANTIC_AI_PYTHON") {
        Some(path) => {
            let path = PathBuf::from(path);
            assert!(
                path.exists(),
                "CY_PYDANTIC_AI_PYTHON is `{}`, which does not exist",
                path.display()
            );
            Some(path)
        }
        None if std::env::var_os("CY_PYDANTIC_AI_REQUIRE").is_some() => panic!(
            "CY_PYDANTIC_AI_PYTHON is not set and CY_PYDANTIC_AI_REQUIRE is: `.ci/run` must create the pydantic-ai venv and export it"
        ),
        None => {
            // Straight to stderr: libtest captures `eprintln!` of a passing test.
            let _ = writeln!(
                std::io::stderr(),
                "test a_failing_command_does_not_end_a_pydantic_ai_run ... skipped: set CY_PYDANTIC_AI_PYTHON to a Python with `pydantic-ai-slim[mcp]` 2.x installed (`bash .ci/run` makes one in target/pydantic-ai-venv)"
            );
            None
        }
    }
}

#[test]
fn a_failing_command_does_not_end_a_pydantic_ai_run() {
    let Some(python) = python() else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    let output = Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/py/pydantic_ai_check.py"))
        .arg(&root)
        .arg(app().get_program())
        .args([
            "mcp",
            "--tools",
            "terminal,execute_code,read_file",
            "--root",
        ])
        .arg(&root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the pydantic-ai check failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
    assert!(
        stdout.contains("ran: terminal exit 127, execute_code exit 1, no retries"),
        "{stdout}"
    );
    print!("{stdout}");
}
