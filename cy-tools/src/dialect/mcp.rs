//! MCP `Tool` declarations.

use serde_json::{Map, Value, json};

use super::ToolParts;

pub(super) fn declare(tool: &ToolParts<'_>) -> Value {
    let a = tool.annotations;
    let mut annotations = Map::new();
    if let Some(title) = a.title {
        annotations.insert("title".into(), json!(title));
    }
    annotations.insert("readOnlyHint".into(), json!(a.read_only));
    annotations.insert("destructiveHint".into(), json!(a.destructive));
    annotations.insert("idempotentHint".into(), json!(a.idempotent));
    annotations.insert("openWorldHint".into(), json!(a.open_world));
    let mut declaration = json!({
        "name": tool.name,
        "description": tool.description,
        "inputSchema": tool.parameters,
        "annotations": annotations,
    });
    if let Some(title) = a.title {
        declaration["title"] = json!(title);
    }
    if let Some(output) = tool.output_schema {
        declaration["outputSchema"] = output.clone();
    }
    declaration
}
