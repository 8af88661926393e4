//! What a tool may return: every type that converts itself (`IntoToolResult`), and any
//! `serde::Serialize` type besides, sent as JSON (a string, number, boolean or `null` as its
//! text).

use std::collections::BTreeMap;

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

/// A number.
#[tool]
async fn number() -> i64 {
    -3
}

/// A boolean, from a plain function.
#[tool]
fn boolean() -> bool {
    true
}

/// Nothing, maybe.
#[tool]
async fn maybe() -> Option<u8> {
    None
}

/// A list.
#[tool]
async fn list() -> Vec<String> {
    vec!["a".into(), "b".into()]
}

/// A map.
#[tool]
async fn map() -> BTreeMap<String, u8> {
    BTreeMap::from([("a".into(), 1)])
}

/// A point.
#[derive(serde::Serialize)]
struct Point {
    x: i32,
    y: i32,
}

/// A struct of its own, or an error.
#[tool]
async fn point(/** Whether to fail. */ fail: bool) -> Result<Point, ToolError> {
    if fail {
        return Err(ToolError::new("no point here; ask for another"));
    }
    Ok(Point { x: 1, y: 2 })
}

/// A number, or an error.
#[tool]
fn halve(/** An even number. */ n: u32) -> Result<u32, String> {
    if n % 2 == 1 {
        return Err(format!("{n} is odd; give an even number"));
    }
    Ok(n / 2)
}

fn main() {
    let context = ToolContext::new(SessionIdentity::root("s", "t"));
    let names = [
        "unit", "string", "value", "json", "full", "parse", "number", "boolean", "maybe", "list",
        "map", "point", "halve",
    ];
    let tools = ToolRegistry::linked().unwrap().build(&names, &context);
    assert_eq!(tools.len(), names.len());
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
    let full = call("full", empty.clone());
    assert!(full.is_error);
    assert_eq!(full.text_content(), "no");
    assert_eq!(
        call("parse", serde_json::json!({"text": "12"})).text_content(),
        "12"
    );
    let failed = call("parse", serde_json::json!({"text": "x"}));
    assert!(failed.is_error);
    assert_eq!(failed.text_content(), "invalid digit found in string");

    assert_eq!(call("number", empty.clone()), ToolResult::text("-3"));
    assert_eq!(call("boolean", empty.clone()), ToolResult::text("true"));
    assert_eq!(call("maybe", empty.clone()), ToolResult::text("null"));
    assert_eq!(
        call("list", empty.clone()),
        ToolResult::json(serde_json::json!(["a", "b"]))
    );
    assert_eq!(
        call("map", empty.clone()),
        ToolResult::json(serde_json::json!({"a": 1}))
    );
    assert_eq!(
        call("point", serde_json::json!({"fail": false})),
        ToolResult::json(serde_json::json!({"x": 1, "y": 2}))
    );
    let no_point = call("point", serde_json::json!({"fail": true}));
    assert!(no_point.is_error);
    assert_eq!(no_point.text_content(), "no point here; ask for another");
    assert_eq!(call("halve", serde_json::json!({"n": 4})), ToolResult::text("2"));
    assert_eq!(
        call("halve", serde_json::json!({"n": 3})),
        ToolResult::error("3 is odd; give an even number")
    );
}
