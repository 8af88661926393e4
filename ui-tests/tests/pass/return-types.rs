//! Every return type `IntoToolResult` covers.

use cy_tools::prelude::*;

/// Unit.
#[tool]
async fn unit() {}

/// A string.
#[tool]
async fn string() -> String {
    String::from("s")
}

/// JSON.
#[tool]
async fn value() -> serde_json::Value {
    serde_json::json!({"a": 1})
}

/// A serializable value.
#[tool]
async fn json() -> Json<Vec<u8>> {
    Json(vec![1, 2])
}

/// A full result.
#[tool]
async fn full() -> ToolResult {
    ToolResult::error("no")
}

/// A fallible result with a std error.
#[tool]
async fn parse(
    /// Digits.
    text: String,
) -> Result<String, std::num::ParseIntError> {
    Ok(text.parse::<u32>()?.to_string())
}

fn main() {
    let context = ToolContext::new(SessionIdentity::root("s", "t"));
    let tools = ToolRegistry::linked().unwrap().build(
        &["unit", "string", "value", "json", "full", "parse"],
        &context,
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let call = |name: &str, args: serde_json::Value| {
        runtime.block_on(tools.execute(
            name,
            cy_tools::ToolCall::new("c", args),
            &CancellationToken::new(),
        ))
    };
    let empty = serde_json::json!({});
    assert_eq!(call("unit", empty.clone()).text_content(), "done");
    assert_eq!(call("string", empty.clone()).text_content(), "s");
    assert_eq!(
        call("value", empty.clone()).content,
        vec![Content::json(serde_json::json!({"a": 1}))]
    );
    assert_eq!(call("json", empty.clone()).text_content(), "[1,2]");
    let full = call("full", empty);
    assert!(full.is_error);
    assert_eq!(full.text_content(), "no");
    assert_eq!(
        call("parse", serde_json::json!({"text": "12"})).text_content(),
        "12"
    );
    let failed = call("parse", serde_json::json!({"text": "x"}));
    assert!(failed.is_error);
    assert_eq!(failed.text_content(), "invalid digit found in string");
}
