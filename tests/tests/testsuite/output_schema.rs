//! A tool returning `Json<T>` declares `T`'s schema as its MCP `outputSchema`: as it is when
//! `T` is an object, under a `result` property otherwise (a list, an enum, a number). (A `T`
//! without `JsonSchema` does not compile: `ui-tests`.) A tool returning any other `Serialize`
//! type declares none.

use cy_tools::definition::Definition;
use cy_tools::dialect::Dialect;
use cy_tools::prelude::*;
use serde::Serialize;
use serde_json::json;

use crate::support::conformance;

/// Counts of a text.
#[derive(Serialize, schemars::JsonSchema)]
pub struct Stats {
    /// Words.
    pub words: u32,
    /// Lines.
    pub lines: u32,
}

/// Count the words and lines of a text.
#[tool(read_only, register = false)]
pub async fn text_stats(
    /// The text.
    text: String,
) -> Result<Json<Stats>, ToolError> {
    Ok(Json(Stats {
        words: text.split_whitespace().count() as u32,
        lines: text.lines().count() as u32,
    }))
}

/// Return a list.
#[tool(register = false)]
pub async fn listed() -> Json<Vec<u32>> {
    Json(vec![1, 2])
}

/// How a count went.
#[derive(Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Counted this many.
    Counted(u32),
    /// Nothing to count.
    Empty,
}

/// Count, or not.
#[tool(register = false)]
pub fn outcome(
    /** Whether to count. */
    count: bool,
) -> Json<Outcome> {
    Json(if count {
        Outcome::Counted(2)
    } else {
        Outcome::Empty
    })
}

/// Return a number, as structured JSON.
#[tool(register = false)]
pub async fn answer() -> Result<Json<i64>, ToolError> {
    Ok(Json(42))
}

/// Return a number, as text.
#[tool(register = false)]
pub async fn plain_answer() -> i64 {
    42
}

#[test]
fn an_object_payload_becomes_the_output_schema() {
    let schema = TEXT_STATS.output_schema().expect("an output schema");
    assert!(!schema.wraps_result());
    let schema = schema.value();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["words"]["description"], "Words.");
    assert_eq!(schema["required"], json!(["words", "lines"]));
    assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
    let decl = Dialect::Mcp
        .export_definition("text_stats", &TEXT_STATS)
        .unwrap();
    assert_eq!(&decl["outputSchema"], schema);
    assert!(conformance::check(Dialect::Mcp, &decl).is_empty());
}

#[test]
fn other_payloads_are_declared_under_result() {
    for (name, tool) in [
        ("listed", &LISTED as &dyn Definition),
        ("outcome", &OUTCOME),
        ("answer", &ANSWER),
    ] {
        let schema = tool.output_schema().expect("an output schema");
        assert!(schema.wraps_result(), "{name}");
        assert_eq!(schema.value()["type"], "object", "{name}");
        assert_eq!(schema.value()["required"], json!(["result"]), "{name}");
        let decl = Dialect::Mcp.export_definition(name, tool).unwrap();
        assert_eq!(&decl["outputSchema"], schema.value(), "{name}");
        assert!(conformance::check(Dialect::Mcp, &decl).is_empty(), "{name}");
    }
    assert_eq!(
        LISTED.output_schema().unwrap().value()["properties"]["result"],
        json!({"type": "array", "items": {"type": "integer", "format": "uint32", "minimum": 0}})
    );
    // The enum's definitions stay reachable from the wrapped schema.
    let outcome = OUTCOME.output_schema().unwrap().value();
    assert!(
        outcome["properties"]["result"]["oneOf"].is_array(),
        "{outcome}"
    );
    // A plain return declares none: it is text.
    assert!(PLAIN_ANSWER.output_schema().is_none());
}

#[tokio::test]
async fn the_structured_result_matches_the_declared_schema() {
    let tool = cy_tools::binding::bind_tool(
        &TEXT_STATS,
        ToolContext::new(SessionIdentity::root("s", "t")),
    )
    .unwrap();
    let result = tool
        .execute(
            ToolCall::new("c", json!({"text": "a b\nc"})),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(
        result.content,
        vec![Content::json(json!({"words": 3, "lines": 2}))]
    );
}

#[tokio::test]
async fn a_sync_tool_returning_an_enum_runs_and_answers_json() {
    let tool = cy_tools::binding::bind_tool(&OUTCOME, ToolContext::local()).unwrap();
    let cancel = CancellationToken::new();
    let counted = tool
        .execute(ToolCall::new("c", json!({"count": true})), &cancel)
        .await;
    assert_eq!(counted.content, vec![Content::json(json!({"counted": 2}))]);
    let empty = tool
        .execute(ToolCall::new("c", json!({"count": false})), &cancel)
        .await;
    assert_eq!(empty.content, vec![Content::json(json!("empty"))]);
    let plain = cy_tools::binding::bind_tool(&PLAIN_ANSWER, ToolContext::local()).unwrap();
    assert_eq!(
        plain
            .execute(ToolCall::new("c", json!({})), &cancel)
            .await
            .text_content(),
        "42"
    );
}
