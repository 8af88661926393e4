//! A tool returning `Json<T>` declares `T`'s schema as its MCP `outputSchema` when `T` is an
//! object with a schema; other payloads (a list, or a type without `JsonSchema`) declare none.

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

/// Serializable, but without a schema.
#[derive(Serialize)]
pub struct Opaque {
    /// Anything.
    pub value: u32,
}

/// Return an opaque value.
#[tool(register = false)]
pub async fn opaque() -> Json<Opaque> {
    Json(Opaque { value: 1 })
}

/// Return a list.
#[tool(register = false)]
pub async fn listed() -> Json<Vec<u32>> {
    Json(vec![1, 2])
}

#[test]
fn an_object_payload_becomes_the_output_schema() {
    let schema = TEXT_STATS.output_schema().expect("an output schema");
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
fn other_payloads_declare_no_output_schema() {
    assert!(OPAQUE.output_schema().is_none());
    assert!(LISTED.output_schema().is_none());
    let decl = Dialect::Mcp.export_definition("listed", &LISTED).unwrap();
    assert!(decl.get("outputSchema").is_none());
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
