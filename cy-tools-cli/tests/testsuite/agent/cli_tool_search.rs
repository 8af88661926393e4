//! `cy-tools agent --tool-search` against a fake OpenAI-compatible provider: the model is
//! declared the `--always` tools and `search_tools`; the search the command answers names what
//! it found, which is declared from the next turn on and called. Refused for an `--always` tool
//! the session lacks and with `--code-only`.

use serde_json::{Value, json};

use super::cli::{agent, text, workspace};
use crate::support::fake_model::{FakeApi, Reply};

/// An OpenAI answer calling `tool` with `arguments`.
fn call(id: &str, tool: &str, arguments: Value) -> Reply {
    let body = json!({"id": id, "object": "chat.completion", "model": "gpt-fake",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
            "content": null, "tool_calls": [{"id": id, "type": "function",
                "function": {"name": tool, "arguments": arguments.to_string()}}]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10}});
    Reply::Json {
        status: 200,
        headers: Vec::new(),
        body: body.to_string(),
    }
}

fn answer(text: &str) -> Reply {
    let body = json!({"id": "done", "object": "chat.completion", "model": "gpt-fake",
        "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5}});
    Reply::Json {
        status: 200,
        headers: Vec::new(),
        body: body.to_string(),
    }
}

/// The names of the tools a request declared.
fn declared(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

/// The content of the tool message answering `id` in a request.
fn tool_message(body: &Value, id: &str) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .unwrap_or_else(|| panic!("no tool message for {id}: {body}"))["content"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn the_model_searches_then_calls_the_tool_it_found() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("spec.json"),
        r#"{"tools": ["read_file", "write_file", "list_directory", "find_files"]}"#,
    )
    .unwrap();
    let api = FakeApi::start(vec![
        call(
            "call_1",
            "search_tools",
            json!({"query": "list directory", "limit": 1}),
        ),
        call("call_2", "list_directory", json!({"path": "."})),
        answer("The folder has the notes."),
    ]);
    let output = agent(
        dir.path(),
        &api,
        &[
            "--spec",
            "spec.json",
            "--tool-search",
            "--always",
            "read_file",
            "list the folder",
        ],
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let requests = api.requests();
    assert_eq!(requests.len(), 3, "{stderr}");
    assert_eq!(declared(&requests[0].body), ["read_file", "search_tools"]);
    let found = tool_message(&requests[1].body, "call_1");
    assert!(found.contains("list_directory"), "{found}");
    let next = declared(&requests[1].body);
    assert!(
        next.contains(&"list_directory".to_string()) && !next.contains(&"write_file".to_string()),
        "{next:?}"
    );
    let listing = tool_message(&requests[2].body, "call_2");
    assert!(listing.contains("notes.txt"), "{listing}");
}

#[test]
fn tool_search_is_refused_for_a_tool_the_session_lacks_and_with_code_only() {
    let dir = workspace();
    std::fs::write(dir.path().join("spec.json"), r#"{"tools": ["read_file"]}"#).unwrap();
    let api = FakeApi::start(Vec::new());
    let refused = agent(
        dir.path(),
        &api,
        &[
            "--spec",
            "spec.json",
            "--tool-search",
            "--always",
            "terminal",
            "hi",
        ],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        text(&refused.stderr).trim_end(),
        "error: `--always terminal`: `terminal` is not one of the tools served (`execute_code`, `read_file`); name tools served, or add it to the spec file's `tools`"
    );
    let refused = agent(
        dir.path(),
        &api,
        &["--spec", "spec.json", "--tool-search", "--code-only", "hi"],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        text(&refused.stderr).trim_end(),
        "error: the argument '--tool-search' cannot be used with '--code-only'; run `cy-tools --help` for usage"
    );
    assert!(api.requests().is_empty());
}
