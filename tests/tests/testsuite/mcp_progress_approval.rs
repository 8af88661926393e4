//! Progress notifications and approval by elicitation, end to end: `cy-tools mcp` over stdio
//! driven by the official Python MCP client through `tests/py/mcp_progress_approval_check.py`
//! (its docstring lists the checks): with the `initialize` handshake (2025-11-25, the server
//! asks by `elicitation/create`) and without (2026-07-28, the question comes back as an
//! `input_required` result with a signed `requestState`). The interpreter comes from `CY_MCP_PYTHON`, as for
//! `mcp_python_client`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::mcp_python_client::python;
use crate::support::app::app;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/py/mcp_progress_approval_check.py")
}

fn run(check: &str, modes: &str, server_args: &[&str], test: &str) {
    let Some(python) = python(test) else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let output = Command::new(python)
        .arg(script())
        .arg(check)
        .arg(modes)
        .arg(workspace.path())
        .arg(app().get_program())
        .arg("mcp")
        .args(server_args)
        .arg("--root")
        .arg(workspace.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{check} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
    print!("{stdout}");
}

#[test]
fn a_progress_callback_receives_increasing_values_before_the_result() {
    run(
        "progress",
        "legacy,auto",
        &["--tools", "execute_code,search_text"],
        "a_progress_callback_receives_increasing_values_before_the_result",
    );
}

#[test]
fn a_destructive_call_runs_only_when_the_client_approves_it() {
    run(
        "approval",
        "legacy,auto",
        &[
            "--tools",
            "read_file,write_file",
            "--approve",
            "destructive",
        ],
        "a_destructive_call_runs_only_when_the_client_approves_it",
    );
}

#[test]
fn a_forged_misbound_or_replayed_approval_state_is_refused() {
    run(
        "state",
        "auto",
        &[
            "--tools",
            "read_file,write_file",
            "--approve",
            "destructive",
        ],
        "a_forged_misbound_or_replayed_approval_state_is_refused",
    );
}

#[test]
fn the_calls_of_code_mode_go_through_approval_too() {
    run(
        "nested",
        "legacy,auto",
        &[
            "--tools",
            "execute_code,write_file",
            "--code-mode",
            "--approve",
            "destructive",
        ],
        "the_calls_of_code_mode_go_through_approval_too",
    );
}
