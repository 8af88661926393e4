//! The `cy-tools` binary: each subcommand, what it prints and its exit code, and the one-line
//! errors (bad JSON, an unknown tool, a folder that is not there, a bad session spec).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use cy_tools::{ToolRegistry, dialect::Dialect};
// Linked so `ToolRegistry::linked()` here sees the same built-ins as the binary.
use cy_tools_cli as _;
use serde_json::{Value, json};

fn cy_tools(args: &[&str]) -> Output {
    cy_tools_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

fn cy_tools_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(args)
        .current_dir(dir)
        .env_remove("CY_TOOLS_LOG")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// The process failed with `code` and said exactly one line on stderr, which is returned.
fn one_line_error(output: &Output, code: i32) -> String {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(code), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err:?}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
    err.trim_end().to_string()
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    dir
}

/// The tools the binary links: every registration here but this test binary's own `#[tool]`
/// functions, which the binary does not have.
fn linked_names() -> Vec<String> {
    let registry = ToolRegistry::linked().unwrap();
    let this_binary = format!("{}::", module_path!().split("::").next().unwrap());
    registry
        .names()
        .into_iter()
        .filter(|name| {
            registry
                .origin(name)
                .is_some_and(|origin| !origin.starts_with(&this_binary))
        })
        .map(String::from)
        .collect()
}

fn valid_tools_listed() -> String {
    linked_names()
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

// list

#[test]
fn list_prints_every_linked_tool_once_sorted_with_capabilities_and_annotations() {
    let output = cy_tools(&["list"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        ["NAME", "CAPABILITIES", "ANNOTATIONS", "DESCRIPTION"]
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split_whitespace().collect()).collect();
    let names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(names, linked_names());
    let read_file = rows.iter().find(|r| r[0] == "read_file").unwrap();
    assert_eq!(read_file[1], "env");
    assert_eq!(read_file[2], "read-only,idempotent,closed-world");
    assert_eq!(
        read_file[3..].join(" "),
        "Read a UTF-8 text file from the workspace, with line numbers (`cat -n` style)."
    );
    let terminal = rows.iter().find(|r| r[0] == "terminal").unwrap();
    assert_eq!(terminal[2], "destructive,open-world");
    let execute_code = rows.iter().find(|r| r[0] == "execute_code").unwrap();
    assert_eq!(execute_code[1], "execute_code");
}

// schema

#[test]
fn schema_prints_the_canonical_schema_and_each_dialect() {
    let registry = ToolRegistry::linked().unwrap();
    let definition = registry.definition("read_file").unwrap();
    let output = cy_tools(&["schema", "read_file"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let printed: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(&printed, definition.schema().unwrap().value());
    assert_eq!(printed["required"], json!(["path"]));

    for dialect in Dialect::ALL {
        let output = cy_tools(&["schema", "read_file", "--dialect", dialect.name()]);
        assert!(output.status.success(), "{dialect}: {}", stderr(&output));
        let printed: Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(
            printed,
            dialect.export_definition("read_file", definition).unwrap(),
            "{dialect}"
        );
    }
}

#[test]
fn schema_refuses_an_unknown_dialect_and_an_unknown_tool_in_one_line() {
    let err = one_line_error(&cy_tools(&["schema", "read_file", "--dialect", "gpt"]), 2);
    assert_eq!(
        err,
        "error: invalid value 'gpt' for '--dialect <DIALECT>': unknown dialect; valid dialects are \
         `openai`, `openai-strict`, `anthropic`, `anthropic-strict`, `gemini`, `gemini-json-schema`, `mcp`; \
         run `cy-tools --help` for usage"
    );
    let err = one_line_error(&cy_tools(&["schema", "reed_file"]), 2);
    assert_eq!(
        err,
        format!(
            "error: unknown tool `reed_file`; valid tools are {}",
            valid_tools_listed()
        )
    );
}

// call

#[test]
fn call_prints_the_result_of_a_tool_run_in_the_root_folder() {
    let dir = workspace();
    let root = dir.path().to_str().unwrap();
    let output = cy_tools(&[
        "call",
        "read_file",
        r#"{"path": "notes.txt"}"#,
        "--root",
        root,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "     1\talpha\n     2\tbeta\n");
    assert_eq!(stderr(&output), "");

    // No arguments means `{}`; the default root is the current folder.
    let output = cy_tools_in(dir.path(), &["call", "list_directory"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "notes.txt  (11 bytes)\nsrc/\n");
}

#[test]
fn call_json_prints_the_whole_result() {
    let dir = workspace();
    let output = cy_tools_in(
        dir.path(),
        &[
            "call",
            "read_file",
            r#"{"path":"notes.txt","limit":1}"#,
            "--json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["is_error"], false);
    assert_eq!(result["content"][0]["type"], "text");
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("     1\talpha\n"),
        "{result}"
    );
}

#[test]
fn call_runs_code_with_execute_code() {
    let dir = workspace();
    let output = cy_tools_in(
        dir.path(),
        &["call", "execute_code", r#"{"code":"print(6*7)"}"#],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "42\n");
}

#[test]
fn a_tool_error_exits_1_with_the_message_on_stderr() {
    let dir = workspace();
    let output = cy_tools_in(dir.path(), &["call", "read_file", r#"{"path":"nope.txt"}"#]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "");
    assert_eq!(
        stderr(&output),
        "no file or folder `nope.txt` in the workspace; list the folder to see what is there\n"
    );

    // Arguments the schema refuses are a tool error too: the model-facing message.
    let output = cy_tools_in(dir.path(), &["call", "read_file", r#"{"path":3}"#]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).starts_with(
            "invalid arguments for `read_file`: `path`: expected a string, got integer `3`"
        ),
        "{}",
        stderr(&output)
    );

    // Code that ran and exited 3 is no tool error: its exit code is the result.
    let output = cy_tools_in(
        dir.path(),
        &["call", "execute_code", r#"{"code":"raise SystemExit(3)"}"#],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "the code exited with exit code 3\nstdout: (empty)\nstderr: (empty)\n"
    );
}

#[test]
fn bad_json_names_the_position_and_shows_an_example() {
    let err = one_line_error(&cy_tools(&["call", "read_file", r#"{"path": "a.txt""#]), 2);
    assert_eq!(
        err,
        r#"error: the arguments are not valid JSON: EOF while parsing an object at line 1 column 16; pass one JSON object in single quotes, for example: cy-tools call read_file '{"path":"..."}'"#
    );
    let err = one_line_error(&cy_tools(&["call", "list_directory", "{path: 1}"]), 2);
    assert!(
        err.contains("key must be a string at line 1 column 2"),
        "{err}"
    );
    assert!(err.ends_with("cy-tools call list_directory '{}'"), "{err}");
}

#[test]
fn an_unknown_tool_lists_the_valid_ones() {
    let err = one_line_error(&cy_tools(&["call", "reed_file", "{}"]), 2);
    assert_eq!(
        err,
        format!(
            "error: unknown tool `reed_file`; valid tools are {}",
            valid_tools_listed()
        )
    );
}

#[test]
fn a_missing_root_is_one_line() {
    let err = one_line_error(
        &cy_tools(&["call", "list_directory", "{}", "--root", "/no/such/folder"]),
        2,
    );
    assert_eq!(
        err,
        "error: workspace folder `/no/such/folder` cannot be used: No such file or directory (os error 2); pass an existing folder with --root"
    );
}

// --spec

#[test]
fn a_session_spec_sets_the_workspace_and_limits_the_tools() {
    let dir = workspace();
    let spec = dir.path().join("session.json");
    std::fs::write(
        &spec,
        r#"{"session_id": "s-9", "tenant": "acme", "workspace": "src", "tools": ["write_file", "read_file"]}"#,
    )
    .unwrap();
    let spec_arg = spec.to_str().unwrap();
    // `workspace` is relative to the spec file, wherever the command runs from.
    let output = cy_tools(&[
        "call",
        "write_file",
        r#"{"path":"main.py","content":"print(1)\n"}"#,
        "--spec",
        spec_arg,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/main.py")).unwrap(),
        "print(1)\n"
    );

    let err = one_line_error(
        &cy_tools(&["call", "list_directory", "{}", "--spec", spec_arg]),
        2,
    );
    assert_eq!(
        err,
        format!(
            "error: tool `list_directory` is not in the session spec's tools (`write_file`, `read_file`); add it to `tools` in `{spec_arg}` or use one of those"
        )
    );
}

#[test]
fn a_bad_session_spec_is_one_line_naming_the_problem() {
    let dir = workspace();
    let spec = dir.path().join("session.json");
    let spec_arg = spec.to_str().unwrap();
    let example = r#"expected for example {"session_id": "s-1", "tenant": "acme", "workspace": ".", "tools": ["read_file"], "code_mode": false}"#;

    std::fs::write(&spec, r#"{"session": "s-1"}"#).unwrap();
    let err = one_line_error(
        &cy_tools(&["call", "list_directory", "--spec", spec_arg]),
        2,
    );
    assert_eq!(
        err,
        format!(
            "error: invalid session spec `{spec_arg}`: field `session`: unknown field `session`, expected one of `identity`, `session_id`, `tenant`, `workspace`, `workspace_host`, `tools`, `resources`, `prompts`, `executor`, `chat`, `code_mode`, `code_only`, `subagents`, `max_depth`, `approve`, `mcp_servers` at line 1 column 10; {example}"
        )
    );

    // The file is a `SessionSpec`: a field only a session factory serves is refused by name.
    std::fs::write(&spec, r#"{"tools": ["list_directory"], "chat": true}"#).unwrap();
    let err = one_line_error(
        &cy_tools(&["call", "list_directory", "--spec", spec_arg]),
        2,
    );
    assert_eq!(
        err,
        format!(
            "error: session spec `{spec_arg}`: `chat` is not served by the command line, which serves a root session's tools in a folder of this host with the local executor; remove it, or build the session with `cy_tools_session::LocalSessionFactory` in an application"
        )
    );

    // Code-only mode is served, not dropped: the tool called must be `execute_code`.
    std::fs::write(&spec, r#"{"tools": ["list_directory"], "code_only": true}"#).unwrap();
    let err = one_line_error(
        &cy_tools(&["call", "list_directory", "--spec", spec_arg]),
        2,
    );
    assert!(
        err.starts_with("error: `list_directory` is not served in code-only mode (`--code-only`, or the session spec's `code_only`): `execute_code` alone is"),
        "{err}"
    );

    // A spec's MCP servers are started when a tool of theirs is served: one that cannot start
    // is named with why, and a call of a built-in does not start them.
    std::fs::write(
        &spec,
        r#"{"mcp_servers": [{"name": "time", "command": "mcp-server-time-not-installed"}]}"#,
    )
    .unwrap();
    let err = one_line_error(
        &cy_tools(&["call", "time__get_current_time", "--spec", spec_arg]),
        2,
    );
    assert!(
        err.starts_with("error: session spec `mcp_servers`: ") && err.contains("`time`"),
        "{err}"
    );
    let listed = cy_tools(&["call", "list_directory", "--spec", spec_arg]);
    assert!(listed.status.success(), "{listed:?}");
    std::fs::write(
        &spec,
        r#"{"mcp_servers": [{"name": "my_time", "command": "mcp-server-time"}]}"#,
    )
    .unwrap();
    let err = one_line_error(&cy_tools(&["mcp", "--spec", spec_arg]), 2);
    assert!(
        err.contains("MCP server name `my_time` is not valid"),
        "{err}"
    );

    std::fs::write(&spec, "{\n  \"tools\": \"read_file\"\n}").unwrap();
    let err = one_line_error(
        &cy_tools(&["call", "list_directory", "--spec", spec_arg]),
        2,
    );
    assert_eq!(
        err,
        format!(
            "error: invalid session spec `{spec_arg}`: field `tools`: invalid type: string \"read_file\", expected a sequence at line 2 column 22; {example}"
        )
    );

    std::fs::write(&spec, "{\"tools\": [}").unwrap();
    let err = one_line_error(
        &cy_tools(&["call", "list_directory", "--spec", spec_arg]),
        2,
    );
    assert!(err.contains("at line 1 column 12"), "{err}");

    let missing = dir.path().join("missing.json");
    let err = one_line_error(
        &cy_tools(&[
            "call",
            "list_directory",
            "--spec",
            missing.to_str().unwrap(),
        ]),
        2,
    );
    assert!(
        err.starts_with(&format!(
            "error: cannot read session spec `{}`",
            missing.display()
        )),
        "{err}"
    );
}

// usage

#[test]
fn usage_errors_are_one_line_and_help_is_not_an_error() {
    let err = one_line_error(&cy_tools(&["call"]), 2);
    assert_eq!(
        err,
        "error: the following required arguments were not provided: <TOOL>; run `cy-tools --help` for usage"
    );
    let err = one_line_error(&cy_tools(&["frobnicate"]), 2);
    assert!(
        err.starts_with("error: unrecognized subcommand 'frobnicate'"),
        "{err}"
    );

    let help = cy_tools(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    for subcommand in ["list", "schema", "call", "mcp", "control-server"] {
        assert!(stdout(&help).contains(subcommand), "{}", stdout(&help));
    }
}

// mcp

#[test]
fn mcp_serves_the_chosen_tools_over_stdio() {
    let dir = workspace();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(["mcp", "--tools", "read_file,list_directory", "--root"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "cli-test", "version": "0"}}}),
    );
    let init: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(init["id"], 1);
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["list_directory", "read_file"]);
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert!(lines.next().is_none(), "nothing else on stdout");
}

#[test]
fn mcp_refuses_an_unknown_tool_before_serving() {
    let err = one_line_error(&cy_tools(&["mcp", "--tools", "read_file,reed_file"]), 2);
    assert_eq!(
        err,
        format!(
            "error: unknown tool `reed_file`; valid tools are {}",
            valid_tools_listed()
        )
    );
}

// control-server

#[test]
fn control_server_needs_its_token() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(["control-server", "--bind", "127.0.0.1:0", "--root"])
        .arg(dir.path())
        .env_remove("CY_CONTROL_TOKEN")
        .output()
        .unwrap();
    let err = one_line_error(&output, 2);
    assert!(err.contains("CY_CONTROL_TOKEN"), "{err}");
}

#[test]
fn control_server_listens_and_refuses_a_request_without_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(["control-server", "--bind", "127.0.0.1:0", "--root"])
        .arg(dir.path())
        .env("CY_CONTROL_TOKEN", "a-long-shared-secret-for-tests")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("control server listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_string();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        stream,
        "POST /v1/sessions/s-1/execute HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        response.starts_with("HTTP/1.1 401"),
        "unexpected response: {response}"
    );
}

/// `mcp` without `--tools` serves every linked tool the session can run, and says in one line
/// how many it left out and where to see why (not one line per tool at every start).
#[test]
fn mcp_without_tools_notes_what_it_leaves_out_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    // No client: stdin is closed at once, so the server stops after its start.
    let output = cy_tools(&["mcp", "--root", dir.path().to_str().unwrap()]);
    let err = stderr(&output);
    let notes: Vec<&str> = err.lines().filter(|l| l.starts_with("note: ")).collect();
    assert_eq!(
        notes,
        [
            "note: 5 of the linked tools are left out, as this session cannot run them (`delegate`, `send_message`, `signal`, `wait_for_signal`, `workflow`); `cy-tools list` shows what each needs, and `CY_TOOLS_LOG=info` logs why"
        ],
        "{err}"
    );
}
