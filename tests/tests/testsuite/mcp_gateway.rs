//! `cy-tools mcp --spec` as a gateway: the spec's built-in tools and the tools of the MCP
//! servers it names (`@modelcontextprotocol/server-everything` and `mcp-server-time`, installed
//! by `.ci/run`), served together, driven by the official Python MCP client through
//! `tests/py/mcp_gateway_check.py` (its docstring lists the checks) over stdio and over both
//! HTTP modes: list, call through, bad arguments, approval asked and declined, a client that
//! cannot be asked, an upstream killed mid-call.
//!
//! An upstream server whose tool list changes (the tests' fault server) has the change reach the
//! gateway's clients: told over stdio and the session-bearing HTTP mode, the new list on the
//! next `tools/list` for the others.
//!
//! The interpreter comes from `CY_MCP_PYTHON`, as for `mcp_python_client`; the servers from
//! `CY_MCP_SERVERS` and `CY_MCP_TIME_VENV` (a test without them skips, unless
//! `CY_MCP_SERVERS_REQUIRE` is set).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cy_tools_test_support::mcp_servers::{fault_server, installed};
use serde_json::json;

use crate::mcp_python_client::{check, python};
use crate::support::app::app;
use crate::support::http_mcp::{HttpMcp, TOKEN};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/py/mcp_gateway_check.py")
}

/// A spec file (in a folder of its own, outside the workspace) naming `read_file` and the two
/// upstream servers, or `None` when they are not installed.
pub(crate) fn gateway_spec(folder: &Path) -> Option<PathBuf> {
    let modules = installed("CY_MCP_SERVERS")?;
    let venv = installed("CY_MCP_TIME_VENV")?;
    let everything = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    let spec = json!({
        "tools": ["read_file"],
        "mcp_servers": [
            {"name": "everything", "command": "node",
             "args": [everything, "stdio"], "read_only": [modules]},
            {"name": "time", "command": venv.join("bin/python"),
             "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
             "read_only": [venv], "tools": ["get_current_time"]},
        ],
    });
    let path = folder.join("gateway.json");
    std::fs::write(&path, spec.to_string()).unwrap();
    Some(path)
}

#[test]
fn the_official_client_reaches_upstream_servers_through_the_gateway_over_stdio() {
    let Some(python) =
        python("the_official_client_reaches_upstream_servers_through_the_gateway_over_stdio")
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
        &["stdio"],
        workspace.path(),
        &["mcp", "--approve", "destructive", "--spec"],
        &spec,
    );
    check(&output, "the gateway over stdio");
}

#[test]
fn the_official_client_reaches_upstream_servers_through_the_gateway_over_http() {
    let Some(python) =
        python("the_official_client_reaches_upstream_servers_through_the_gateway_over_http")
    else {
        return;
    };
    let (workspace, specs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let Some(spec) = gateway_spec(specs.path()) else {
        return;
    };
    let spec = spec.to_string_lossy();
    // `--tools` names the servers' tools as the session does: narrowed like any other.
    let tools = "read_file,everything__echo,everything__get-sum,everything__trigger-long-running-operation,time__get_current_time";
    let stateless = HttpMcp::start(workspace.path(), tools, &["--spec", &spec]);
    let sessions = HttpMcp::start(
        workspace.path(),
        tools,
        &["--spec", &spec, "--http-sessions"],
    );
    let output = Command::new(python)
        .arg(script())
        .arg("http")
        .arg(&stateless.url)
        .arg(&sessions.url)
        .arg(sessions.pid().to_string())
        .env("CY_TOOLS_MCP_TOKEN", TOKEN)
        .output()
        .unwrap();
    check(&output, "the gateway over HTTP");
}

/// The output of the check `script` run in `modes` by `python` against `cy-tools mcp` over
/// stdio: `mcp_args` (ending in `--spec`), then `spec`, in `workspace`.
pub(crate) fn over_stdio(
    python: &Path,
    script: &Path,
    modes: &[&str],
    workspace: &Path,
    mcp_args: &[&str],
    spec: &Path,
) -> Output {
    Command::new(python)
        .arg(script)
        .args(modes)
        .arg(workspace)
        .arg(app().get_program())
        .args(mcp_args)
        .arg(spec)
        .arg("--root")
        .arg(workspace)
        .output()
        .unwrap()
}

/// A spec file naming `read_file` and the tests' fault server, whose `change` changes its tool
/// list and says so.
fn changing_spec(folder: &Path) -> PathBuf {
    let (script, dir) = fault_server();
    let spec = json!({
        "tools": ["read_file"],
        "mcp_servers": [{"name": "fault", "command": "python3", "args": [script], "read_only": [dir]}],
    });
    let path = folder.join("changing.json");
    std::fs::write(&path, spec.to_string()).unwrap();
    path
}

#[test]
fn an_upstream_tool_list_change_reaches_the_gateways_clients_over_stdio() {
    let Some(python) =
        python("an_upstream_tool_list_change_reaches_the_gateways_clients_over_stdio")
    else {
        return;
    };
    let (workspace, specs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let spec = changing_spec(specs.path());
    let output = over_stdio(
        &python,
        &script(),
        &["changes", "stdio"],
        workspace.path(),
        &["mcp", "--spec"],
        &spec,
    );
    check(&output, "tool list changes over stdio");
}

#[test]
fn an_upstream_tool_list_change_reaches_the_gateways_clients_over_http() {
    let Some(python) =
        python("an_upstream_tool_list_change_reaches_the_gateways_clients_over_http")
    else {
        return;
    };
    let (workspace, specs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let spec = changing_spec(specs.path());
    let spec = spec.to_string_lossy();
    let extra = ["--spec", &spec, "--approve", "none"];
    let stateless = HttpMcp::start(workspace.path(), "", &extra);
    let sessions = HttpMcp::start(
        workspace.path(),
        "",
        &[&extra[..], &["--http-sessions"]].concat(),
    );
    let output = Command::new(python)
        .arg(script())
        .args(["changes", "http"])
        .arg(&stateless.url)
        .arg(&sessions.url)
        .env("CY_TOOLS_MCP_TOKEN", TOKEN)
        .output()
        .unwrap();
    check(&output, "tool list changes over HTTP");
}
