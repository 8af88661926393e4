//! `cy-tools agent` creating a session in code mode, as `--code-mode` or the spec file's
//! `"code_mode": true` asks (as `call` and `mcp` do): the model is sent an `execute_code` whose
//! description lists the session's functions, and the code it sends calls the session's tools
//! through `cy_sdk.tools`. A stored session keeps its own setting. In code-only mode
//! (`--code-only`, the spec file's `"code_only": true`) `execute_code` is the one tool the
//! model is sent, and its code still reaches the others.

use std::path::Path;
use std::process::Output;

use cy_tools::session::SpecStore;
use cy_tools_session::store::SqliteStore;
use serde_json::json;

use super::cli::{agent, text, workspace};
use super::cli_terminal::call_then_answer;
use crate::support::fake_model::FakeApi;

/// Code that reads `notes.txt` through the session's `read_file`, as the model sends it.
const CODE: &str = "import cy_sdk\nprint('read:', cy_sdk.tools.read_file('notes.txt'))";

/// What a run that calls `execute_code` with [`CODE`] and then answers showed and sent.
struct Ran {
    output: Output,
    /// `execute_code`'s description in the first request.
    description: String,
    /// The names of the tools the first request declared.
    declared: Vec<String>,
    /// The tool message the second request carried, `execute_code`'s result.
    result: String,
}

/// `cy-tools agent` in `dir` with `extra` (then the task) against a model that calls
/// `execute_code` with [`CODE`], then answers.
fn run_code(dir: &Path, extra: &[&str]) -> Ran {
    let api = FakeApi::start(call_then_answer(
        "execute_code",
        json!({ "code": CODE }),
        "The notes greet.",
    ));
    let mut args = extra.to_vec();
    args.push("read the notes in code");
    let output = agent(dir, &api, &args);
    let requests = api.requests();
    assert_eq!(
        requests.len(),
        2,
        "stderr: {}\nrequests: {requests:?}",
        text(&output.stderr)
    );
    let declared = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    let description = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "execute_code")
        .map(|t| t["function"]["description"].as_str().unwrap().to_string())
        .expect("execute_code is declared");
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["tool_call_id"], "call_1");
    Ran {
        output,
        description,
        declared,
        result: tool["content"].as_str().unwrap().to_string(),
    }
}

/// The run ended on the answer, `execute_code` listed `read_file` and its code called it.
fn assert_code_mode(ran: &Ran) {
    let stderr = text(&ran.output.stderr);
    assert_eq!(ran.output.status.code(), Some(0), "{stderr}");
    assert!(
        ran.description.contains("Code mode is on")
            && ran.description.contains("cy_sdk.tools.NAME(...)")
            && ran.description.contains("\n- read_file(path"),
        "{}",
        ran.description
    );
    // `read_file`'s numbered lines, printed by the code.
    assert!(
        ran.result.starts_with("read:") && ran.result.contains("1\thello from the notes"),
        "{}",
        ran.result
    );
    assert!(stderr.contains("<- execute_code (ok)"), "{stderr}");
}

#[test]
fn a_new_session_is_in_code_mode_with_the_flag_or_the_spec_files_setting() {
    // The flag, the spec file naming the tools only.
    let dir = workspace();
    std::fs::write(dir.path().join("spec.json"), r#"{"tools": ["read_file"]}"#).unwrap();
    assert_code_mode(&run_code(
        dir.path(),
        &["--spec", "spec.json", "--code-mode"],
    ));

    // The spec file's `"code_mode": true`, no flag.
    let dir = workspace();
    std::fs::write(
        dir.path().join("spec.json"),
        r#"{"tools": ["read_file"], "code_mode": true}"#,
    )
    .unwrap();
    assert_code_mode(&run_code(dir.path(), &["--spec", "spec.json"]));

    // Without either, `execute_code` is plain: no functions, no `cy_sdk` to import.
    let dir = workspace();
    std::fs::write(dir.path().join("spec.json"), r#"{"tools": ["read_file"]}"#).unwrap();
    let plain = run_code(dir.path(), &["--spec", "spec.json"]);
    assert!(
        !plain.description.contains("Code mode is on"),
        "{}",
        plain.description
    );
    assert!(
        plain.result.contains("cy_sdk") && !plain.result.contains("hello from the notes"),
        "{}",
        plain.result
    );
}

#[test]
fn a_stored_session_is_created_in_code_mode_and_keeps_its_setting() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("spec.json"),
        r#"{"session_id": "s-code", "tools": ["read_file"]}"#,
    )
    .unwrap();
    let store = ["--spec", "spec.json", "--store", "state"];
    let flagged: Vec<&str> = store.iter().copied().chain(["--code-mode"]).collect();
    assert_code_mode(&run_code(dir.path(), &flagged));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let stored = runtime.block_on(async {
        let store = SqliteStore::open(dir.path().join("state/sessions.db")).unwrap();
        store.load_spec("s-code").await.unwrap().unwrap()
    });
    assert!(stored.code_mode, "{stored:?}");
    // Resumed without the flag, it is still in code mode.
    assert_code_mode(&run_code(dir.path(), &store));

    // A session stored without code mode is not run as if it had it.
    std::fs::write(
        dir.path().join("plain.json"),
        r#"{"session_id": "s-plain", "tools": ["read_file"]}"#,
    )
    .unwrap();
    let plain = ["--spec", "plain.json", "--store", "state"];
    run_code(dir.path(), &plain);
    let api = FakeApi::start(Vec::new());
    let refused = agent(
        dir.path(),
        &api,
        &[&plain[..], &["--code-mode", "hi"]].concat(),
    );
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("stored session `s-plain` was created without code mode"),
        "{stderr}"
    );
    assert!(api.requests().is_empty());
}

#[test]
fn in_code_only_mode_the_model_is_sent_execute_code_alone_and_a_stored_session_keeps_it() {
    // The flag, the spec file naming the tools the code reaches.
    let dir = workspace();
    std::fs::write(
        dir.path().join("spec.json"),
        r#"{"tools": ["read_file", "list_directory"]}"#,
    )
    .unwrap();
    let ran = run_code(dir.path(), &["--spec", "spec.json", "--code-only"]);
    assert_code_mode(&ran);
    assert_eq!(ran.declared, ["execute_code"]);
    assert!(
        ran.description.contains("\n- list_directory("),
        "{}",
        ran.description
    );

    // The spec file's `"code_only": true`, stored: resumed without the flag, it is the same.
    let dir = workspace();
    std::fs::write(
        dir.path().join("spec.json"),
        r#"{"session_id": "s-only", "tools": ["read_file"], "code_only": true}"#,
    )
    .unwrap();
    let store = ["--spec", "spec.json", "--store", "state"];
    let ran = run_code(dir.path(), &store);
    assert_code_mode(&ran);
    assert_eq!(ran.declared, ["execute_code"]);
    std::fs::write(
        dir.path().join("resume.json"),
        r#"{"session_id": "s-only", "tools": ["read_file"]}"#,
    )
    .unwrap();
    let ran = run_code(dir.path(), &["--spec", "resume.json", "--store", "state"]);
    assert_code_mode(&ran);
    assert_eq!(ran.declared, ["execute_code"]);

    // A session stored without it is not run as if it had it.
    let api = FakeApi::start(Vec::new());
    std::fs::write(
        dir.path().join("plain.json"),
        r#"{"session_id": "s-plain", "tools": ["read_file"]}"#,
    )
    .unwrap();
    run_code(dir.path(), &["--spec", "plain.json", "--store", "state"]);
    let refused = agent(
        dir.path(),
        &api,
        &[
            "--spec",
            "plain.json",
            "--store",
            "state",
            "--code-only",
            "hi",
        ],
    );
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("stored session `s-plain` was created without code-only mode"),
        "{stderr}"
    );
    assert!(api.requests().is_empty());
}
