//! `--code-mode` on the command line: `call execute_code` whose code lists, reads and writes
//! through `cy_sdk.tools` and gets a `ToolError` for a bad argument; nested `execute_code`
//! refused; and a stored session created with code mode in one process that still has it when
//! another process resumes it.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

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

fn code(code: &str) -> String {
    json!({ "code": code }).to_string()
}

/// Printed JSON of a call that succeeded.
fn printed(output: &Output) -> Value {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "stderr: {stderr}");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "not JSON ({err}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

const LIST_READ_WRITE: &str = r#"
import json, cy_sdk
from cy_sdk import tools
listing = tools.list_directory(path=".")
text = tools.read_file("notes.txt")
tools.write_file("upper.txt", content=text.upper())
try:
    tools.read_file("notes.txt", limit="ten")
except cy_sdk.ToolError as err:
    bad = str(err)
print(json.dumps({"listing": listing, "text": text, "bad": bad}))
"#;

#[test]
fn call_execute_code_in_code_mode_uses_the_typed_tools() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let root = dir.path().to_str().unwrap();
    let output = cy_tools(
        dir.path(),
        &[
            "call",
            "execute_code",
            &code(LIST_READ_WRITE),
            "--code-mode",
            "--root",
            root,
        ],
    );
    // The tools this session cannot have (no chat, no coordinator) are left out quietly.
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    let out = printed(&output);
    assert!(
        out["listing"].as_str().unwrap().contains("notes.txt"),
        "{out}"
    );
    assert_eq!(out["text"], "     1\talpha\n     2\tbeta");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("upper.txt")).unwrap(),
        "     1\tALPHA\n     2\tBETA"
    );
    // The model's message for the same call.
    let direct = cy_tools(
        dir.path(),
        &[
            "call",
            "read_file",
            r#"{"path": "notes.txt", "limit": "ten"}"#,
            "--root",
            root,
        ],
    );
    assert_eq!(direct.status.code(), Some(1));
    assert_eq!(
        out["bad"].as_str().unwrap(),
        String::from_utf8_lossy(&direct.stderr).trim_end()
    );
    assert!(out["bad"].as_str().unwrap().contains("`limit`"), "{out}");

    // Without `--code-mode` there is no module.
    let plain = cy_tools(
        dir.path(),
        &[
            "call",
            "execute_code",
            &code("import cy_sdk"),
            "--root",
            root,
        ],
    );
    // The code ran and failed to import it: a normal result, on stdout.
    assert_eq!(plain.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&plain.stdout)
            .contains("ModuleNotFoundError: No module named 'cy_sdk'")
    );
}

#[test]
fn nested_execute_code_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let nested = r#"
import json, cy_sdk
try:
    cy_sdk.call("execute_code", code="print(1)")
except cy_sdk.ToolError as err:
    print(json.dumps({"refused": str(err), "typed": hasattr(cy_sdk.tools, "execute_code")}))
"#;
    let out = printed(&cy_tools(
        dir.path(),
        &[
            "call",
            "execute_code",
            &code(nested),
            "--code-mode",
            "--root",
            root,
        ],
    ));
    assert_eq!(
        out,
        json!({
            "refused": "`execute_code` cannot be called from code that `execute_code` runs: this session does not allow nesting; do the work in this program instead",
            "typed": false,
        })
    );
}

#[test]
fn a_stored_session_keeps_code_mode_in_another_process() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("w");
    std::fs::create_dir(&workspace).unwrap();
    let store = dir.path().join("store");
    let spec = dir.path().join("session.json");
    std::fs::write(
        &spec,
        json!({"session_id": "s-code", "workspace": "w", "tools": ["read_file", "write_file"]})
            .to_string(),
    )
    .unwrap();
    let (spec, store) = (spec.to_str().unwrap(), store.to_str().unwrap());
    let write = code(
        "import cy_sdk\ncy_sdk.tools.write_file('a.txt', content='first process')\nprint('written')",
    );
    // Created here, with code mode.
    let created = cy_tools(
        dir.path(),
        &[
            "call",
            "execute_code",
            &write,
            "--code-mode",
            "--spec",
            spec,
            "--store",
            store,
        ],
    );
    assert_eq!(
        String::from_utf8_lossy(&created.stdout).trim_end(),
        "written",
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
    // Resumed by another process that does not ask for it: the stored spec has it.
    let read = code("import cy_sdk\nprint(cy_sdk.tools.read_file('a.txt'))");
    let resumed = cy_tools(
        dir.path(),
        &[
            "call",
            "execute_code",
            &read,
            "--spec",
            spec,
            "--store",
            store,
        ],
    );
    assert_eq!(
        String::from_utf8_lossy(&resumed.stdout).trim_end(),
        "     1\tfirst process",
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );

    // A session stored without code mode is not given it by a later `--code-mode`.
    std::fs::write(
        dir.path().join("plain.json"),
        json!({"session_id": "s-plain", "workspace": "w", "tools": ["read_file"]}).to_string(),
    )
    .unwrap();
    let plain = dir.path().join("plain.json");
    let plain = plain.to_str().unwrap();
    let first = cy_tools(
        dir.path(),
        &[
            "call",
            "read_file",
            r#"{"path": "a.txt"}"#,
            "--spec",
            plain,
            "--store",
            store,
        ],
    );
    assert_eq!(first.status.code(), Some(0));
    let refused = cy_tools(
        dir.path(),
        &[
            "call",
            "execute_code",
            &read,
            "--code-mode",
            "--spec",
            plain,
            "--store",
            store,
        ],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr).trim_end(),
        "error: stored session `s-plain` was created without code mode, and a stored session keeps its settings; leave out --code-mode (and `code_mode` in the session file), or use another `session_id`"
    );
}
