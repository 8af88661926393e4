//! `cy-tools mcp` with the switches for hundreds of tools, over the gateway spec of
//! `mcp_gateway` (the built-in `read_file`, `server-everything` and `mcp-server-time`), driven by
//! the official Python MCP client through `tests/py/mcp_hundreds_check.py` (its docstring lists
//! the checks): `--tool-search` over stdio and the session-bearing HTTP mode (a search tells the
//! client, which lists and calls what it found), and `--code-only` (the client is listed
//! `execute_code` alone, whose code reaches the servers' tools).
//!
//! The interpreter comes from `CY_MCP_PYTHON`, the servers from `CY_MCP_SERVERS` and
//! `CY_MCP_TIME_VENV`, as for `mcp_gateway`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::mcp_gateway::{gateway_spec, over_stdio};
use crate::mcp_python_client::{check, python};
use crate::support::http_mcp::{HttpMcp, TOKEN};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/py/mcp_hundreds_check.py")
}

#[test]
fn the_official_client_searches_tools_and_calls_what_it_found_over_stdio() {
    let Some(python) =
        python("the_official_client_searches_tools_and_calls_what_it_found_over_stdio")
    else {
        return;
    };
    let (workspace, specs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let Some(spec) = gateway_spec(specs.path()) else {
        return;
    };
    let output = over_stdio(
        &python,
        &script(),
        &["search", "stdio"],
        workspace.path(),
        &[
            "mcp",
            "--tool-search",
            "--always",
            "read_file",
            "--approve",
            "none",
            "--spec",
        ],
        &spec,
    );
    check(&output, "tool search over stdio");
}

#[test]
fn the_official_client_searches_tools_and_calls_what_it_found_over_http_sessions() {
    let Some(python) =
        python("the_official_client_searches_tools_and_calls_what_it_found_over_http_sessions")
    else {
        return;
    };
    let (workspace, specs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let Some(spec) = gateway_spec(specs.path()) else {
        return;
    };
    let spec = spec.to_string_lossy();
    let server = HttpMcp::start(
        workspace.path(),
        "",
        &[
            "--spec",
            &spec,
            "--http-sessions",
            "--tool-search",
            "--always",
            "read_file",
            "--approve",
            "none",
        ],
    );
    let output = Command::new(python)
        .arg(script())
        .args(["search", "http"])
        .arg(&server.url)
        .env("CY_TOOLS_MCP_TOKEN", TOKEN)
        .output()
        .unwrap();
    check(&output, "tool search over HTTP sessions");
}

#[test]
fn the_official_client_is_listed_execute_code_alone_in_code_only_mode() {
    let Some(python) = python("the_official_client_is_listed_execute_code_alone_in_code_only_mode")
    else {
        return;
    };
    let (workspace, specs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let Some(spec) = gateway_spec(specs.path()) else {
        return;
    };
    let output = over_stdio(
        &python,
        &script(),
        &["code-only", "stdio"],
        workspace.path(),
        &["mcp", "--code-only", "--approve", "none", "--spec"],
        &spec,
    );
    check(&output, "code-only over stdio");
}
