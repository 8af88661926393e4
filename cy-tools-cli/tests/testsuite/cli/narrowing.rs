//! Narrowing a code-mode session: the code `execute_code` runs reaches exactly the tools the
//! serving session exposes, by the typed module, by name and by a raw line on the SDK channel;
//! `execute_code`'s description lists only those; and on resume the spec file's `tools` and
//! `mcp --tools` narrow the stored list, never widen it. Through `mcp --tools`, a narrower
//! `--spec` and `call --spec`, for stored and unstored sessions.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// Tries `write_file` every way code can, and reads `seed.txt` (which it may), printing one
/// `PROBE {...}` line of what happened.
const PROBE: &str = r#"
import json, os, socket, cy_sdk
out = {"listed": cy_sdk.tools(), "typed": hasattr(cy_sdk.tools, "write_file")}
try:
    cy_sdk.call("write_file", path="by-name.txt", content="x")
    out["by_name"] = "ran"
except cy_sdk.ToolError as err:
    out["by_name"] = str(err)
raw = socket.socket(fileno=os.dup(int(os.environ["CY_SDK_FD"])))
line = {"tool": "write_file", "arguments": {"path": "raw.txt", "content": "x"}}
raw.sendall(json.dumps(line).encode() + b"\n")
out["raw"] = json.loads(raw.makefile("rb").readline())
out["read"] = cy_sdk.tools.read_file("seed.txt")
print("PROBE " + json.dumps(out))
"#;

const REFUSED: &str = "tool `write_file` is not in this session's toolset; the tools this code may call are `read_file`";

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

/// A folder with the workspace `w` (holding `seed.txt`), and the specs `wide.json` (with
/// `write_file`) and `narrow.json` (without) for session `id`, both in code mode.
fn setup(id: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("w")).unwrap();
    std::fs::write(dir.path().join("w/seed.txt"), "seed").unwrap();
    for (file, tools) in [
        (
            "wide.json",
            json!(["read_file", "write_file", "execute_code"]),
        ),
        ("narrow.json", json!(["read_file", "execute_code"])),
    ] {
        let spec = json!({"session_id": id, "workspace": "w", "tools": tools, "code_mode": true});
        std::fs::write(dir.path().join(file), spec.to_string()).unwrap();
    }
    dir
}

/// Stores session `id` with `write_file` (`wide.json`), writing `created.txt` through it.
fn store_wide(dir: &Path) {
    let args = json!({"path": "created.txt", "content": "x"}).to_string();
    let output = cy_tools(
        dir,
        &[
            "call",
            "write_file",
            &args,
            "--spec",
            "wide.json",
            "--store",
            "store",
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(dir.join("w/created.txt").exists());
}

/// The `PROBE` line in `text`, parsed.
fn probe_line(text: &str) -> Value {
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix("PROBE "))
        .unwrap_or_else(|| panic!("no PROBE line in {text:?}"));
    serde_json::from_str(line).unwrap()
}

/// The probe found `write_file` out of reach every way, and `read_file` in reach; nothing was
/// written.
fn assert_write_unreachable(dir: &Path, probe: &Value) {
    assert_eq!(probe["listed"], json!(["read_file"]), "{probe}");
    assert_eq!(probe["typed"], false, "{probe}");
    assert_eq!(probe["by_name"], REFUSED, "{probe}");
    assert_eq!(probe["raw"], json!({ "error": REFUSED }), "{probe}");
    assert_eq!(probe["read"], "     1\tseed", "{probe}");
    assert!(!dir.join("w/by-name.txt").exists());
    assert!(!dir.join("w/raw.txt").exists());
}

/// `cy-tools mcp ARGS` on stdio: the tools it lists (name and description), and the text of
/// one `execute_code` call of `PROBE`.
fn over_mcp(dir: &Path, args: &[&str]) -> (Vec<(String, String)>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .arg("mcp")
        .args(args)
        .current_dir(dir)
        .env_remove("CY_TOOLS_LOG")
        .env_remove("CY_TOOLS_STORE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    let mut next = || -> Value {
        let line = lines.next().expect("an answer").unwrap();
        serde_json::from_str(&line).unwrap()
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "narrowing", "version": "0"}}}),
    );
    next();
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut ask = |message: Value| -> Value {
        send(message);
        next()
    };
    let list = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let tools = list["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{list}"))
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["description"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let called = ask(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "execute_code", "arguments": {"code": PROBE}}}));
    let text = called["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{called}"))
        .to_string();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    (tools, text)
}

/// Served as `[execute_code, read_file]`, `execute_code` describing `read_file` only, the
/// probe finding `write_file` out of reach.
fn assert_served_narrow(dir: &Path, args: &[&str]) {
    let (tools, text) = over_mcp(dir, args);
    let names: Vec<&str> = tools.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["execute_code", "read_file"], "{args:?}");
    let description = &tools[0].1;
    assert!(description.contains("- read_file("), "{description}");
    assert!(!description.contains("write_file"), "{description}");
    assert_write_unreachable(dir, &probe_line(&text));
}

#[test]
fn a_stored_session_served_with_fewer_tools_gives_its_code_no_more() {
    let dir = setup("s-narrow");
    store_wide(dir.path());
    // `--tools` over the stored list, with the stored (wide) spec and with the narrow one.
    for spec in ["wide.json", "narrow.json"] {
        assert_served_narrow(
            dir.path(),
            &[
                "--spec",
                spec,
                "--store",
                "store",
                "--tools",
                "read_file,execute_code",
            ],
        );
    }
    // The narrow spec's `tools` alone.
    assert_served_narrow(dir.path(), &["--spec", "narrow.json", "--store", "store"]);
    // And the store still holds the wide session: served wide, its code writes.
    let (tools, text) = over_mcp(dir.path(), &["--spec", "wide.json", "--store", "store"]);
    assert!(tools.iter().any(|(name, _)| name == "write_file"));
    assert_eq!(probe_line(&text)["by_name"], "ran");
}

#[test]
fn call_with_a_narrower_spec_cannot_reach_a_stored_tool_it_leaves_out() {
    let dir = setup("s-call");
    store_wide(dir.path());
    let args = json!({"path": "direct.txt", "content": "x"}).to_string();
    let direct = cy_tools(
        dir.path(),
        &[
            "call",
            "write_file",
            &args,
            "--spec",
            "narrow.json",
            "--store",
            "store",
        ],
    );
    assert_eq!(direct.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&direct.stderr).trim_end(),
        "error: tool `write_file` is not in the session spec's tools (`execute_code`, `read_file`); add it to `tools` in `narrow.json` or use one of those"
    );
    assert!(!dir.path().join("w/direct.txt").exists());

    let code = json!({ "code": PROBE }).to_string();
    let through_code = cy_tools(
        dir.path(),
        &[
            "call",
            "execute_code",
            &code,
            "--spec",
            "narrow.json",
            "--store",
            "store",
        ],
    );
    let stdout = String::from_utf8_lossy(&through_code.stdout);
    assert_eq!(through_code.status.code(), Some(0), "{stdout}");
    assert_write_unreachable(dir.path(), &probe_line(&stdout));
}

#[test]
fn a_wider_spec_does_not_widen_a_stored_session() {
    let dir = setup("s-never-wider");
    // Stored narrow (without `write_file`), then named with the wide spec.
    let code = json!({"code": "print('created')"}).to_string();
    let created = cy_tools(
        dir.path(),
        &[
            "call",
            "execute_code",
            &code,
            "--spec",
            "narrow.json",
            "--store",
            "store",
        ],
    );
    assert_eq!(created.status.code(), Some(0));
    let args = json!({"path": "wider.txt", "content": "x"}).to_string();
    let direct = cy_tools(
        dir.path(),
        &[
            "call",
            "write_file",
            &args,
            "--spec",
            "wide.json",
            "--store",
            "store",
        ],
    );
    assert_eq!(direct.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&direct.stderr).contains(
            "tool `write_file` is not one of stored session `s-never-wider`'s tools (`execute_code`, `read_file`)"
        ),
        "{}",
        String::from_utf8_lossy(&direct.stderr)
    );
    assert!(!dir.path().join("w/wider.txt").exists());
    assert_served_narrow(dir.path(), &["--spec", "wide.json", "--store", "store"]);
}

#[test]
fn an_unstored_session_served_with_fewer_tools_gives_its_code_no_more() {
    let dir = setup("s-unstored");
    assert_served_narrow(
        dir.path(),
        &["--spec", "wide.json", "--tools", "read_file,execute_code"],
    );
    assert_served_narrow(dir.path(), &["--spec", "narrow.json"]);
    assert_served_narrow(
        dir.path(),
        &[
            "--code-mode",
            "--root",
            "w",
            "--tools",
            "read_file,execute_code",
        ],
    );
    let code = json!({ "code": PROBE }).to_string();
    let output = cy_tools(
        dir.path(),
        &["call", "execute_code", &code, "--spec", "narrow.json"],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert_write_unreachable(dir.path(), &probe_line(&stdout));
}
