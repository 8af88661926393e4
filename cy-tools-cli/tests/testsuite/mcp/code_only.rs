//! `cy-tools mcp --code-only` through the binary: the client is listed `execute_code` alone,
//! described with the tools its code may call, and the code reaches them (typed, searched,
//! described); a tool called directly is unknown. With a store the setting is kept: another
//! process resuming the session serves it the same without the flag, a session stored
//! without it is not given it, and `call` of another tool is refused with what to do. A spec
//! file's `"code_only": true` is served, and with the spec's MCP server (`mcp-server-time`,
//! installed by `.ci/run`) the code reaches the server's tools through
//! `cy_sdk.servers.time`; stored, another process's `--tools` narrows what the code reaches to
//! the server's tool named.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::support::mcp_client::Peer;

/// `cy-tools mcp ARGS` over stdio, run in `dir`, killed when dropped.
pub(crate) struct Mcp {
    _child: tokio::process::Child,
    pub(crate) peer: Peer<tokio::process::ChildStdin>,
    /// The answer to `initialize`.
    pub(crate) init: Value,
}

impl Mcp {
    pub(crate) async fn start(dir: &Path, args: &[&str]) -> Mcp {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_cy-tools"))
            .arg("mcp")
            .args(args)
            .current_dir(dir)
            .env_remove("CY_TOOLS_LOG")
            .env_remove("CY_TOOLS_STORE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut peer = Peer::new(stdin, stdout);
        let init = peer.initialize().await;
        assert_eq!(init["result"]["serverInfo"]["name"], "cy-tools", "{init}");
        Mcp {
            _child: child,
            peer,
            init,
        }
    }

    /// The tools `tools/list` declares now.
    pub(crate) async fn listed(&mut self, id: u64) -> Vec<Value> {
        let response = self.peer.request(id, "tools/list", json!({})).await;
        response["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("no tools in {response}"))
            .clone()
    }

    pub(crate) async fn names(&mut self, id: u64) -> Vec<String> {
        self.listed(id)
            .await
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }

    /// The text of a call's result, which must not be an error.
    pub(crate) async fn text(&mut self, id: u64, tool: &str, arguments: Value) -> String {
        let answer = self.peer.call(id, tool, arguments).await;
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

fn run_code(code: &str) -> Value {
    json!({ "code": code })
}

/// What the code sees: a typed call, a search, a description, and which functions exist.
const DISCOVER: &str = r#"
import json, cy_sdk
found = cy_sdk.search("list the files of a folder")
print(json.dumps({
    "read": cy_sdk.tools.read_file("notes.txt"),
    "found": found[0]["tool"],
    "described": "def read_file(" in cy_sdk.describe("read_file"),
    "write_file": hasattr(cy_sdk.tools, "write_file"),
}))
"#;

#[tokio::test]
async fn code_only_lists_execute_code_alone_and_its_code_reaches_the_tools() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\n").unwrap();
    let root = dir.path().to_str().unwrap();
    // `--tools` names what the code may call; `execute_code` is what is served.
    let mut mcp = Mcp::start(
        dir.path(),
        &[
            "--code-only",
            "--tools",
            "read_file,list_directory",
            "--root",
            root,
        ],
    )
    .await;
    let listed = mcp.listed(1).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["name"], "execute_code");
    let description = listed[0]["description"].as_str().unwrap();
    assert!(
        description.contains("`import cy_sdk`, then call `cy_sdk.tools.NAME(...)`"),
        "{description}"
    );
    assert!(
        description.contains("\n- list_directory(") && description.contains("\n- read_file("),
        "{description}"
    );

    let printed = mcp.text(2, "execute_code", run_code(DISCOVER)).await;
    let seen: Value = serde_json::from_str(printed.trim_end())
        .unwrap_or_else(|err| panic!("not JSON ({err}): {printed}"));
    assert_eq!(
        seen,
        json!({"read": "     1\talpha", "found": "list_directory", "described": true, "write_file": false})
    );

    // The model's view is the client's: the tools are reached from the code only.
    let direct = mcp
        .peer
        .call(3, "read_file", json!({"path": "notes.txt"}))
        .await;
    assert_eq!(
        direct["error"]["message"], "unknown tool `read_file`; valid tools are `execute_code`",
        "{direct}"
    );
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

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr)
        .trim_end()
        .to_string()
}

#[tokio::test]
async fn a_spec_files_code_only_is_served_and_call_of_another_tool_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("w");
    std::fs::create_dir(&workspace).unwrap();
    std::fs::write(workspace.join("notes.txt"), "alpha\n").unwrap();
    let spec = dir.path().join("session.json");
    std::fs::write(
        &spec,
        json!({"workspace": "w", "tools": ["read_file", "list_directory"], "code_only": true})
            .to_string(),
    )
    .unwrap();
    let spec = spec.to_str().unwrap();
    // The spec's `tools` lack `execute_code`: code-only mode serves it all the same.
    let mut mcp = Mcp::start(dir.path(), &["--spec", spec]).await;
    assert_eq!(mcp.names(1).await, ["execute_code"]);
    let read = run_code("import cy_sdk\nprint(cy_sdk.tools.read_file('notes.txt'))");
    assert_eq!(
        mcp.text(2, "execute_code", read.clone()).await.trim_end(),
        "     1\talpha"
    );

    // `call` runs what a client is served: `execute_code`, whose code reaches the others.
    let called = cy_tools(
        dir.path(),
        &["call", "execute_code", &read.to_string(), "--spec", spec],
    );
    assert_eq!(called.status.code(), Some(0), "{}", stderr(&called));
    assert_eq!(
        String::from_utf8_lossy(&called.stdout).trim_end(),
        "     1\talpha"
    );
    let refused = cy_tools(
        dir.path(),
        &[
            "call",
            "read_file",
            r#"{"path": "notes.txt"}"#,
            "--spec",
            spec,
        ],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        stderr(&refused),
        "error: `read_file` is not served in code-only mode (`--code-only`, or the session spec's `code_only`): `execute_code` alone is, and its code calls the other tools (`import cy_sdk`, then `cy_sdk.search(\"words\")`, `cy_sdk.describe(\"read_file\")`); call `execute_code` with such code, or leave those out to call `read_file` directly"
    );
}

#[tokio::test]
async fn a_stored_code_only_session_is_served_the_same_by_another_process() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("w");
    std::fs::create_dir(&workspace).unwrap();
    std::fs::write(workspace.join("notes.txt"), "alpha\n").unwrap();
    let store = dir.path().join("store");
    let spec = dir.path().join("session.json");
    std::fs::write(
        &spec,
        json!({"session_id": "s-only", "workspace": "w", "tools": ["read_file", "write_file"]})
            .to_string(),
    )
    .unwrap();
    let (spec, store) = (spec.to_str().unwrap(), store.to_str().unwrap());
    let write = run_code(
        "import cy_sdk\ncy_sdk.tools.write_file('a.txt', content='first process')\nprint('written')",
    );
    {
        // Created here, in code-only mode.
        let mut first = Mcp::start(
            dir.path(),
            &["--code-only", "--spec", spec, "--store", store],
        )
        .await;
        assert_eq!(first.names(1).await, ["execute_code"]);
        assert_eq!(
            first.text(2, "execute_code", write).await.trim_end(),
            "written"
        );
    }
    // Another process, without the flag: the stored spec has it.
    let mut second = Mcp::start(dir.path(), &["--spec", spec, "--store", store]).await;
    assert_eq!(second.names(1).await, ["execute_code"]);
    let read = run_code(
        "import cy_sdk\nprint(cy_sdk.tools.read_file('a.txt'))\nprint(hasattr(cy_sdk.tools, 'list_directory'))",
    );
    assert_eq!(
        second.text(2, "execute_code", read).await.trim_end(),
        "     1\tfirst process\nFalse"
    );
    // Served with fewer tools (`--tools` names what the code may call): the code reaches no
    // others.
    let mut narrowed = Mcp::start(
        dir.path(),
        &["--tools", "read_file", "--spec", spec, "--store", store],
    )
    .await;
    assert_eq!(narrowed.names(1).await, ["execute_code"]);
    let reach = run_code(
        "import cy_sdk\nprint(hasattr(cy_sdk.tools, 'read_file'), hasattr(cy_sdk.tools, 'write_file'))",
    );
    assert_eq!(
        narrowed.text(2, "execute_code", reach).await.trim_end(),
        "True False"
    );
    let outside = cy_tools(
        dir.path(),
        &[
            "mcp", "--tools", "terminal", "--spec", spec, "--store", store,
        ],
    );
    assert_eq!(outside.status.code(), Some(2));
    assert_eq!(
        stderr(&outside),
        format!(
            "error: tool `terminal` is not in the session spec's tools (`execute_code`, `read_file`, `write_file`); add it to `tools` in `{spec}` or use one of those"
        )
    );
    let refused = cy_tools(
        dir.path(),
        &[
            "call",
            "read_file",
            r#"{"path": "a.txt"}"#,
            "--spec",
            spec,
            "--store",
            store,
        ],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        stderr(&refused),
        "error: `read_file` is not served in code-only mode (stored session `s-only` was created in it, and a stored session keeps its settings): `execute_code` alone is, and its code calls the other tools (`import cy_sdk`, then `cy_sdk.search(\"words\")`, `cy_sdk.describe(\"read_file\")`); call `execute_code` with such code, or use another `session_id` to call `read_file` directly"
    );

    // A session stored without code-only mode is not given it by a later `--code-only`.
    let plain = dir.path().join("plain.json");
    std::fs::write(
        &plain,
        json!({"session_id": "s-plain", "workspace": "w", "tools": ["read_file"]}).to_string(),
    )
    .unwrap();
    let plain = plain.to_str().unwrap();
    let first = cy_tools(
        dir.path(),
        &[
            "call",
            "read_file",
            r#"{"path": "notes.txt"}"#,
            "--spec",
            plain,
            "--store",
            store,
        ],
    );
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let refused = cy_tools(
        dir.path(),
        &["mcp", "--code-only", "--spec", plain, "--store", store],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        stderr(&refused),
        "error: stored session `s-plain` was created without code-only mode, and a stored session keeps its settings; leave out --code-only (and `code_only` in the session file), or use another `session_id`"
    );
}

#[tokio::test]
async fn code_only_reaches_a_spec_servers_tools_from_the_code() {
    let Some((dir, spec)) = crate::cli::mcp_servers::with_time_server(Some(&["read_file"])) else {
        return;
    };
    let spec = spec.to_str().unwrap();
    let mut mcp = Mcp::start(dir.path(), &["--code-only", "--spec", spec]).await;
    let listed = mcp.listed(1).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["name"], "execute_code");
    let code = r#"
import json, cy_sdk
now = cy_sdk.servers.time.get_current_time(timezone="Asia/Tokyo")
print(json.dumps({
    "timezone": now["timezone"],
    "found": cy_sdk.search("current time")[0]["path"],
    "sources": [s["module"] for s in cy_sdk.sources()],
}))
"#;
    let printed = mcp.text(2, "execute_code", run_code(code)).await;
    let seen: Value = serde_json::from_str(printed.trim_end())
        .unwrap_or_else(|err| panic!("not JSON ({err}): {printed}"));
    assert_eq!(seen["timezone"], "Asia/Tokyo", "{seen}");
    assert_eq!(
        seen["found"], "cy_sdk.servers.time.get_current_time",
        "{seen}"
    );
    assert_eq!(
        seen["sources"],
        json!(["cy_sdk.tools", "cy_sdk.servers.time"]),
        "{seen}"
    );
}

#[tokio::test]
async fn a_stored_code_only_session_with_a_server_is_narrowed_to_the_tools_named() {
    let Some((dir, spec)) = crate::cli::mcp_servers::with_time_server(Some(&["read_file"])) else {
        return;
    };
    // Stored under an id: created by the first process, resumed by the next.
    let mut stored: Value = serde_json::from_str(&std::fs::read_to_string(&spec).unwrap()).unwrap();
    stored["session_id"] = json!("s-gateway");
    std::fs::write(&spec, stored.to_string()).unwrap();
    let (spec, store) = (spec.to_str().unwrap(), dir.path().join("store"));
    let store = store.to_str().unwrap();
    let reach = run_code(
        "import cy_sdk\nprint(sorted(f for f in dir(cy_sdk.tools) if not f.startswith('_')))",
    );
    {
        let mut created = Mcp::start(
            dir.path(),
            &["--code-only", "--spec", spec, "--store", store],
        )
        .await;
        assert_eq!(created.names(1).await, ["execute_code"]);
        assert_eq!(
            created
                .text(2, "execute_code", reach.clone())
                .await
                .trim_end(),
            "['read_file', 'time__get_current_time']"
        );
    }
    // Another process serving the server's tool alone: the code reaches it and nothing else.
    let mut narrowed = Mcp::start(
        dir.path(),
        &[
            "--tools",
            "time__get_current_time",
            "--spec",
            spec,
            "--store",
            store,
        ],
    )
    .await;
    assert_eq!(narrowed.names(1).await, ["execute_code"]);
    assert_eq!(
        narrowed.text(2, "execute_code", reach).await.trim_end(),
        "['time__get_current_time']"
    );
    let unknown = cy_tools(
        dir.path(),
        &[
            "mcp",
            "--tools",
            "time__convert_time",
            "--spec",
            spec,
            "--store",
            store,
        ],
    );
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        stderr(&unknown),
        "error: tool `time__convert_time` is not one of stored session `s-gateway`'s tools (`execute_code`, `read_file`, `time__get_current_time`); the stored session keeps the tools it was created with: name some of those, or use another `session_id`"
    );
}
