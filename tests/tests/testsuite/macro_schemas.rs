//! One reviewed snapshot per `#[tool]` example: what a provider is shown (name, description,
//! annotations, declared capabilities, timeout and the canonical parameter schema).

use cy_tools::definition::Definition;
use cy_tools_tests::{files, misc, search};
use serde_json::{Value, json};

fn shown(tool: &dyn Definition) -> Value {
    json!({
        "name": tool.name(),
        "description": tool.description(),
        "annotations": tool.annotations(),
        "capabilities": tool.capabilities().to_string(),
        "timeout_ms": tool.timeout().map(|t| t.as_millis() as u64),
        "parameters": tool.schema().expect("schema").value(),
    })
}

#[test]
fn read_lines() {
    insta::assert_json_snapshot!("read_lines", shown(&files::READ_LINES));
}

#[test]
fn save_text() {
    insta::assert_json_snapshot!("save_text", shown(&files::SAVE_TEXT));
}

#[test]
fn find_lines() {
    insta::assert_json_snapshot!("find_lines", shown(&search::FIND_LINES));
}

#[test]
fn ping() {
    insta::assert_json_snapshot!("ping", shown(&misc::PING));
}

#[test]
fn add_numbers() {
    insta::assert_json_snapshot!("add_numbers", shown(&misc::ADD));
}

#[test]
fn notify() {
    insta::assert_json_snapshot!("notify", shown(&misc::NOTIFY));
}

#[test]
fn wait_for_cancel() {
    insta::assert_json_snapshot!("wait_for_cancel", shown(&misc::WAIT_FOR_CANCEL));
}

#[test]
fn echo() {
    insta::assert_json_snapshot!("echo", shown(&misc::ECHO));
}

#[test]
fn count_chars() {
    insta::assert_json_snapshot!("count_chars", shown(&misc::COUNT_CHARS));
}
