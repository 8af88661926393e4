//! `cy-tools mcp --http` driven by the official Python MCP client (`mcp` 2.x) over streamable
//! HTTP, through `tests/py/mcp_http_check.py`: list and call (results, an invalid call, an error
//! result, an unknown tool, titles, `outputSchema`, list caching), no token and a wrong token
//! (`401`), a client that goes away mid-call (its command is killed), and one client whose
//! requests alternate between two servers over the same workspace, an approval asked by one
//! replica and answered to the other, and progress notifications. Each in both negotiations:
//! 2026-07-28 (`server/discover`) and the `initialize` handshake (2025-11-25).
//!
//! The interpreter comes from `CY_MCP_PYTHON`, as for `mcp_python_client`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::mcp_python_client::python;
use crate::support::http_mcp::{HttpMcp, TOKEN};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/py/mcp_http_check.py")
}

/// Runs one check of the script against `servers`, failing with its output.
fn check(python: &Path, name: &str, workspace: &Path, servers: &[&HttpMcp]) {
    let output = Command::new(python)
        .arg(script())
        .arg(name)
        .arg(workspace)
        .args(servers.iter().map(|server| &server.url))
        .env("CY_TOOLS_MCP_TOKEN", TOKEN)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the Python MCP client's `{name}` check over HTTP failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    print!("{stdout}");
}

#[test]
fn official_client_lists_and_calls_over_http() {
    let Some(python) = python("official_client_lists_and_calls_over_http") else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let server = HttpMcp::start(
        workspace.path(),
        "read_file,word_lengths,word_stats,record_clip,touch_file",
        &[],
    );
    check(&python, "app", workspace.path(), &[&server]);
}

#[test]
fn official_client_without_the_token_gets_401() {
    let Some(python) = python("official_client_without_the_token_gets_401") else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let server = HttpMcp::start(workspace.path(), "read_file", &[]);
    check(&python, "token", workspace.path(), &[&server]);
}

#[test]
fn a_client_gone_mid_call_has_its_command_killed() {
    let Some(python) = python("a_client_gone_mid_call_has_its_command_killed") else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let server = HttpMcp::start(
        workspace.path(),
        "terminal",
        // The pid the command writes is the one outside. Not about approval (which has its
        // own test): the call runs without asking.
        &["--isolation", "none", "--approve", "none"],
    );
    check(&python, "disconnect", workspace.path(), &[&server]);
}

#[test]
fn two_replicas_answer_one_client_in_turn() {
    let Some(python) = python("two_replicas_answer_one_client_in_turn") else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let tools = "read_file,write_file,terminal";
    // Not about approval (which has its own test with replicas): calls run without asking.
    let first = HttpMcp::start(workspace.path(), tools, &["--approve", "none"]);
    let second = HttpMcp::start(workspace.path(), tools, &["--approve", "none"]);
    check(&python, "replicas", workspace.path(), &[&first, &second]);
}

#[test]
fn a_call_asked_about_by_one_replica_is_run_by_another() {
    let Some(python) = python("a_call_asked_about_by_one_replica_is_run_by_another") else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let tools = "read_file,write_file";
    // The default over HTTP: destructive calls ask. The replicas share the signing key.
    let key = [(
        "CY_TOOLS_MCP_STATE_KEY",
        "a-test-key-shared-by-both-replicas-0123",
    )];
    let first = HttpMcp::start_with_env(workspace.path(), tools, &[], &key);
    let second = HttpMcp::start_with_env(workspace.path(), tools, &[], &key);
    check(&python, "approval", workspace.path(), &[&first, &second]);
}

#[test]
fn an_answer_spent_on_one_replica_is_refused_by_another_sharing_the_store() {
    let Some(python) =
        python("an_answer_spent_on_one_replica_is_refused_by_another_sharing_the_store")
    else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let store = store.path().to_str().unwrap();
    let tools = "read_file,write_file";
    let key = [(
        "CY_TOOLS_MCP_STATE_KEY",
        "a-test-key-shared-by-both-replicas-0123",
    )];
    let extra = ["--store", store];
    let first = HttpMcp::start_with_env(workspace.path(), tools, &extra, &key);
    let second = HttpMcp::start_with_env(workspace.path(), tools, &extra, &key);
    check(&python, "replay", workspace.path(), &[&first, &second]);
}

#[test]
fn progress_reaches_a_client_over_http() {
    let Some(python) = python("progress_reaches_a_client_over_http") else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let server = HttpMcp::start(workspace.path(), "execute_code", &["--approve", "none"]);
    check(&python, "progress", workspace.path(), &[&server]);
}
