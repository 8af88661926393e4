//! `cy-tools mcp` driven by the official Python MCP client (`mcp` on PyPI, 2.x), through
//! `tests/py/mcp_client_check.py`: list tools, call `read_file` and `execute_code`, an invalid
//! call, a failing call and an unknown tool, with exact results, under both the SDK's default
//! negotiation and the `initialize` handshake.
//!
//! The application's server is its own binary, `cy-tools-app`: the same command line
//! (`cy_tools_builtin::cli::main`) with the built-ins plus this crate's tools linked in, the way
//! an application crate ships one. The Python client calls its `word_stats` and `word_lengths`,
//! whose structured results must arrive as `structuredContent` with a text copy (the list as
//! `{"result": [...]}`, which the SDK checks against the declared output schema), and
//! `record_clip`, whose audio, embedded resource and resource link must arrive block for block
//! and whose log messages at the level the client asked for. The built-in server is the same
//! binary serving built-ins only.
//!
//! The Python interpreter comes from `CY_MCP_PYTHON` (`.ci/run` makes a venv with `mcp`
//! installed). Without it the two client checks are skipped with a message on the test process's
//! stderr (past libtest's capture, so it shows), except under `CI=true`, where that is a failure.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cy_tools::{ToolRegistry, dialect::Dialect};

use crate::support::app::app;

/// The interpreter named by `CY_MCP_PYTHON`; its absence fails the run under CI, and elsewhere
/// says which check is skipped.
pub(crate) fn python(check: &str) -> Option<PathBuf> {
    match std::env::var_os("CY_MCP_PYTHON") {
        Some(path) => {
            let path = PathBuf::from(path);
            assert!(
                path.exists(),
                "CY_MCP_PYTHON is `{}`, which does not exist",
                path.display()
            );
            Some(path)
        }
        None if std::env::var("CI").is_ok_and(|ci| ci == "true") => panic!(
            "CY_MCP_PYTHON is not set under CI=true: `.ci/run` must create the MCP client venv and export it"
        ),
        None => {
            // Straight to stderr: libtest captures `eprintln!` of a passing test.
            let _ = writeln!(
                std::io::stderr(),
                "test {check} ... skipped: set CY_MCP_PYTHON to a Python with `mcp` 2.x installed (`bash .ci/run` makes one in target/mcp-venv)"
            );
            None
        }
    }
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/py/mcp_client_check.py")
}

/// Asserts that `output`, of the check script run for `what`, succeeded, showing what the
/// script printed when it did not; then prints its stdout (the checks it passed).
pub(crate) fn check(output: &Output, what: &str) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{what} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
    print!("{stdout}");
}

#[test]
fn official_client_drives_the_builtin_server() {
    let Some(python) = python("official_client_drives_the_builtin_server") else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let output = Command::new(python)
        .arg(script())
        .arg("builtin")
        .arg(workspace.path())
        .arg(app().get_program())
        .args([
            "mcp",
            "--tools",
            "read_file,execute_code,list_directory",
            "--root",
        ])
        .arg(workspace.path())
        .output()
        .unwrap();
    check(&output, "the Python MCP client against `cy-tools mcp`");
}

#[test]
fn official_client_drives_an_application_server() {
    let Some(python) = python("official_client_drives_an_application_server") else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let output = Command::new(python)
        .arg(script())
        .arg("app")
        .arg(workspace.path())
        .arg(app().get_program())
        .args([
            "mcp",
            "--tools",
            "read_file,word_lengths,word_stats,record_clip,touch_file",
            "--root",
        ])
        .arg(workspace.path())
        .output()
        .unwrap();
    check(
        &output,
        "the Python MCP client against an application's server",
    );
}

/// `cy-tools mcp --code-mode`: the client sees `execute_code` described with the functions of
/// `cy_sdk.tools`, and its code writes and reads a file through two of them.
#[test]
fn official_client_runs_code_mode() {
    let Some(python) = python("official_client_runs_code_mode") else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let output = Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/py/mcp_code_mode_check.py"))
        .arg(workspace.path())
        .arg(app().get_program())
        .args([
            "mcp",
            "--code-mode",
            "--tools",
            "read_file,write_file,execute_code",
            "--root",
        ])
        .arg(workspace.path())
        .output()
        .unwrap();
    check(
        &output,
        "the Python MCP client against `cy-tools mcp --code-mode`",
    );
}

/// `schema` of an application tool in a dialect that cannot express it: the exporter's error,
/// on one line, and exit code 2.
#[test]
fn app_cli_reports_a_dialect_error_in_one_line() {
    let registry = ToolRegistry::linked().unwrap();
    let definition = registry.definition("outline").unwrap();
    let refusal = Dialect::Gemini
        .export_definition("outline", definition)
        .expect_err("a recursive parameter type has no Gemini form");
    let output = app()
        .args(["schema", "outline", "--dialect", "gemini"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(output.stdout, b"");
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!("error: {refusal}\n")
    );
    // The same tool in a dialect that can express it.
    let output = app()
        .args(["schema", "outline", "--dialect", "gemini-json-schema"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        printed,
        Dialect::GeminiJsonSchema
            .export_definition("outline", definition)
            .unwrap()
    );
}
