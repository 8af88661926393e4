//! The wire format of the SDK channel: one JSON object per line each way.
//!
//! Request: `{"token": "...", "tool": "read_file", "arguments": {...}}`, or
//! `{"token": "...", "op": "tools"}` to list the callable tools.
//! Response: `{"ok": <text or JSON>}` or `{"error": "<model-facing message>"}`.

use cy_tools::{ToolResult, call::Content};
use serde::Deserialize;
use serde_json::{Value, json};

/// One request, its token already checked and removed.
#[derive(Debug, Deserialize)]
pub(super) struct Request {
    #[serde(default)]
    pub tool: Option<String>,
    #[serde(default)]
    pub arguments: Option<Value>,
    #[serde(default)]
    pub op: Option<String>,
}

/// `{"error": message}`.
pub(super) fn error(message: impl Into<String>) -> Value {
    json!({ "error": message.into() })
}

/// `{"ok": value}`.
pub(super) fn ok(value: Value) -> Value {
    json!({ "ok": value })
}

/// A tool result as the code receives it: an error result is its model-facing text; a result
/// with structured content is that JSON (the first block, or all of them as a list); anything
/// else is its text.
pub(super) fn from_result(result: &ToolResult) -> Value {
    if result.is_error {
        return error(result.text_content());
    }
    let json: Vec<&Value> = result
        .content
        .iter()
        .filter_map(|c| match c {
            Content::Json { value } => Some(value),
            _ => None,
        })
        .collect();
    match json.as_slice() {
        [] => ok(Value::String(result.text_content())),
        [one] => ok((*one).clone()),
        many => ok(Value::Array(many.iter().map(|v| (*v).clone()).collect())),
    }
}
