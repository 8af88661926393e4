//! `cy-tools agent` resuming a stored session with a narrower spec file: the session is served
//! with only the spec's `tools` (and `execute_code`), never more, as `call` and `mcp` serve it,
//! so neither the model nor the code it runs in code mode reaches a stored tool left out.

use std::path::Path;

use serde_json::{Value, json};

use super::cli::{agent, text, workspace};
use super::cli_terminal::call_then_answer;
use crate::support::fake_model::FakeApi;

/// The tools the first request declared, and the tool message the second carried.
fn run(dir: &Path, spec: &str, tool: &str, args: Value) -> (Vec<String>, String) {
    let api = FakeApi::start(call_then_answer(tool, args, "Done."));
    let output = agent(dir, &api, &["--spec", spec, "--store", "state", "go"]);
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
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    let result = messages.iter().find(|m| m["role"] == "tool").unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    (declared, result)
}

#[test]
fn a_narrower_spec_file_narrows_a_stored_session_for_the_model_and_its_code() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("wide.json"),
        r#"{"session_id": "s-1", "tools": ["read_file", "write_file"], "code_mode": true}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("narrow.json"),
        r#"{"session_id": "s-1", "tools": ["read_file"]}"#,
    )
    .unwrap();
    // Created wide: the model is offered `write_file`.
    let (declared, _) = run(
        dir.path(),
        "wide.json",
        "read_file",
        json!({ "path": "notes.txt" }),
    );
    assert!(declared.contains(&"write_file".to_string()), "{declared:?}");

    // Resumed narrow: not offered, and a call to it is refused, the file not written.
    let (declared, result) = run(
        dir.path(),
        "narrow.json",
        "write_file",
        json!({ "path": "direct.txt", "content": "x" }),
    );
    assert!(
        declared.contains(&"read_file".to_string())
            && declared.contains(&"execute_code".to_string())
            && !declared.contains(&"write_file".to_string()),
        "{declared:?}"
    );
    assert!(result.contains("write_file"), "{result}");
    assert!(!dir.path().join("w/direct.txt").exists(), "{result}");

    // Nor can the code: not as a typed function, not through `cy_sdk.call`.
    let code = "import cy_sdk\n\
        print('typed:', hasattr(cy_sdk.tools, 'write_file'))\n\
        try:\n    cy_sdk.call('write_file', path='code.txt', content='x')\n    print('called')\n\
        except cy_sdk.ToolError as e:\n    print('refused:', e)\n";
    let (_, result) = run(
        dir.path(),
        "narrow.json",
        "execute_code",
        json!({ "code": code }),
    );
    assert!(
        result.contains("typed: False") && result.contains("refused:"),
        "{result}"
    );
    assert!(!dir.path().join("w/code.txt").exists(), "{result}");
}
