//! `cy-tools agent` with a spec file naming an MCP server (`mcp-server-time`, installed by
//! `.ci/run`): the model is offered the server's tool beside the session's own, and its call
//! runs on the server.

use serde_json::json;

use super::cli::{agent, text};
use super::cli_terminal::call_then_answer;
use crate::support::fake_model::FakeApi;

#[test]
fn the_model_calls_a_servers_tool_named_by_the_spec() {
    let Some((dir, _)) = crate::cli::mcp_servers::with_time_server(Some(&["read_file"])) else {
        return;
    };
    let api = FakeApi::start(call_then_answer(
        "time__get_current_time",
        json!({"timezone": "Asia/Tokyo"}),
        "It is late in Tokyo.",
    ));
    let output = agent(
        dir.path(),
        &api,
        &["--spec", "spec.json", "what time is it in Tokyo"],
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let requests = api.requests();
    assert_eq!(requests.len(), 2, "{stderr}");
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        offered.contains(&"read_file") && offered.contains(&"time__get_current_time"),
        "{offered:?}"
    );
    let messages = requests[1].body["messages"].as_array().unwrap();
    let result = messages.iter().find(|m| m["role"] == "tool").unwrap();
    let content = result["content"].as_str().unwrap();
    assert!(content.contains("Asia/Tokyo"), "{content}");
}
