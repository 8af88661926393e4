//! A spec file's `mcp_servers` on the command line: `call` runs a server's tool
//! (`time__get_current_time` of `mcp-server-time`, installed by `.ci/run`), code mode's code
//! calls it through `cy_sdk.tools` like any other tool, a stored session is created with its
//! servers and resumed with them, and names that are no tool of theirs are told apart.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use cy_tools::session::SpecStore as _;
use cy_tools_session::store::SqliteStore;
use serde_json::json;

use crate::support::mcp_servers::installed;

/// A folder holding the workspace `w` and the spec `spec.json` naming the time server (and
/// `tools`, when given), or `None` when the server is not installed.
pub(crate) fn with_time_server(tools: Option<&[&str]>) -> Option<(tempfile::TempDir, PathBuf)> {
    let venv = installed("CY_MCP_TIME_VENV")?;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("w")).unwrap();
    let mut spec = json!({
        "workspace": "w",
        "mcp_servers": [{"name": "time", "command": venv.join("bin/python"),
            "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
            "read_only": [venv], "tools": ["get_current_time"]}],
    });
    if let Some(tools) = tools {
        spec["tools"] = json!(tools);
    }
    let path = dir.path().join("spec.json");
    std::fs::write(&path, spec.to_string()).unwrap();
    Some((dir, path))
}

fn cy_tools(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(args)
        .current_dir(dir)
        .env_remove("CY_TOOLS_LOG")
        .env_remove("CY_TOOLS_STORE")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn call_runs_a_servers_tool_from_the_spec() {
    let Some((dir, spec)) = with_time_server(Some(&["read_file"])) else {
        return;
    };
    let spec = spec.to_str().unwrap();
    let args = r#"{"timezone": "Asia/Tokyo"}"#;
    let output = cy_tools(
        dir.path(),
        &["call", "time__get_current_time", args, "--spec", spec],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let printed = text(&output.stdout);
    assert!(
        printed.contains("\"timezone\": \"Asia/Tokyo\""),
        "{printed}"
    );

    // Checked against the server's schema before it is sent: the field is named.
    let output = cy_tools(
        dir.path(),
        &[
            "call",
            "time__get_current_time",
            r#"{"zone": 3}"#,
            "--spec",
            spec,
        ],
    );
    // An error result: printed on stderr, exit code 1.
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("unknown field `zone`; valid fields are `timezone`"),
        "{}",
        text(&output.stderr)
    );

    // A tool the server does not have (or the spec's entry leaves out) is named with those it has.
    let output = cy_tools(
        dir.path(),
        &["call", "time__convert_time", "{}", "--spec", spec],
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr).trim_end(),
        "error: unknown tool `time__convert_time`; the MCP servers' tools are `time__get_current_time`"
    );
}

#[test]
fn a_servers_tool_in_the_specs_tools_is_told_where_it_goes() {
    let Some((dir, spec)) = with_time_server(Some(&["read_file", "time__get_current_time"])) else {
        return;
    };
    let output = cy_tools(dir.path(), &["mcp", "--spec", spec.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let err = text(&output.stderr);
    assert!(
        err.contains("`time__get_current_time`, an MCP server's tool")
            && err.contains("`tools` on its `mcp_servers` entry"),
        "{err}"
    );
}

#[test]
fn code_mode_calls_a_servers_tool_through_cy_sdk() {
    let Some((dir, spec)) = with_time_server(None) else {
        return;
    };
    let code = "import cy_sdk\nprint('now:', cy_sdk.tools.time__get_current_time(timezone='Europe/Paris'))";
    let args = json!({ "code": code }).to_string();
    let output = cy_tools(
        dir.path(),
        &[
            "call",
            "execute_code",
            &args,
            "--code-mode",
            "--spec",
            spec.to_str().unwrap(),
        ],
    );
    let printed = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{printed}{}",
        text(&output.stderr)
    );
    assert!(
        printed.starts_with("now:") && printed.contains("Europe/Paris"),
        "{printed}"
    );
}

#[test]
fn a_stored_session_keeps_its_servers_and_resumes_with_them() {
    let Some((dir, spec)) = with_time_server(Some(&["read_file"])) else {
        return;
    };
    let (spec, store) = (spec.to_str().unwrap(), dir.path().join("store"));
    let store = store.to_str().unwrap();
    for zone in ["UTC", "America/New_York"] {
        // Created the first time, resumed the second: its servers are started again.
        let args = json!({ "timezone": zone }).to_string();
        let output = cy_tools(
            dir.path(),
            &[
                "call",
                "time__get_current_time",
                &args,
                "--spec",
                spec,
                "--store",
                store,
            ],
        );
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert!(
            text(&output.stdout).contains(zone),
            "{}",
            text(&output.stdout)
        );
    }
    // The store holds the servers with the session, for any worker resuming it.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let stored = runtime.block_on(async {
        let store = SqliteStore::open(dir.path().join("store/sessions.db")).unwrap();
        store.load_spec("cli").await.unwrap().unwrap()
    });
    let names: Vec<&str> = stored.mcp_servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["time"]);
    // And the session's own tools beside them.
    let output = cy_tools(
        dir.path(),
        &[
            "call",
            "read_file",
            r#"{"path": "missing.txt"}"#,
            "--spec",
            spec,
            "--store",
            store,
        ],
    );
    assert!(
        text(&output.stderr).contains("no file or folder `missing.txt`"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn only_the_servers_whose_tools_are_served_are_started() {
    let Some((dir, spec)) = with_time_server(None) else {
        return;
    };
    // A second server that cannot start: a call of the first's tool does not start it.
    let mut written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&spec).unwrap()).unwrap();
    written["mcp_servers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "broken", "command": "no-such-mcp-server"}));
    std::fs::write(&spec, written.to_string()).unwrap();
    let spec = spec.to_str().unwrap();
    let args = r#"{"timezone": "UTC"}"#;
    let output = cy_tools(
        dir.path(),
        &["call", "time__get_current_time", args, "--spec", spec],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // Serving every tool starts both, and the one that cannot start is named.
    let output = cy_tools(dir.path(), &["mcp", "--spec", spec]);
    assert_eq!(output.status.code(), Some(2));
    let err = text(&output.stderr);
    assert!(
        err.starts_with("error: session spec `mcp_servers`: ") && err.contains("`broken`"),
        "{err}"
    );
}
