//! A tool asking in the middle of its call, driven by the official Python MCP client through
//! `tests/py/mcp_ask_check.py`: `ask_model` samples the client's model, `ask_user` elicits a
//! form with defaults and enums, answered accept, decline and cancel; over stdio and over the
//! session-bearing HTTP mode (`--http-sessions`), in both negotiations (a 2026-07-28 client,
//! which has no server-to-client requests, gets an error result saying so).
//!
//! The interpreter comes from `CY_MCP_PYTHON`, as for `mcp_python_client`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::mcp_python_client::{check, python};
use crate::support::app::app;
use crate::support::http_mcp::{HttpMcp, TOKEN};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/py/mcp_ask_check.py")
}

#[test]
fn a_tool_asks_the_clients_model_and_user_over_stdio() {
    let Some(python) = python("a_tool_asks_the_clients_model_and_user_over_stdio") else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let output = Command::new(python)
        .arg(script())
        .arg("stdio")
        .arg(workspace.path())
        .arg(app().get_program())
        .args(["mcp", "--tools", "ask_model,ask_user", "--root"])
        .arg(workspace.path())
        .output()
        .unwrap();
    check(&output, "asking over stdio");
}

#[test]
fn a_tool_asks_the_clients_model_and_user_over_the_session_bearing_http_mode() {
    let Some(python) =
        python("a_tool_asks_the_clients_model_and_user_over_the_session_bearing_http_mode")
    else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let server = HttpMcp::start(workspace.path(), "ask_model,ask_user", &["--http-sessions"]);
    let output = Command::new(python)
        .arg(script())
        .arg("http")
        .arg(&server.url)
        .env("CY_TOOLS_MCP_TOKEN", TOKEN)
        .output()
        .unwrap();
    check(&output, "asking over the session-bearing HTTP mode");
}
