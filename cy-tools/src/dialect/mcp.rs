//! MCP `Tool` declarations.
//!
//! One borrowed [`Declaration`] serves both forms: a `Value` ([`declare`]) and JSON text
//! written straight from the tool's own schema ([`write_toolset`]), so a `tools/list` answer
//! does not copy every schema into a new tree only to serialize it.

use serde::Serialize;
use serde_json::Value;

use super::ToolParts;
use crate::definition::OutputSchema;

/// An MCP `Tool`, borrowing everything from the tool it declares.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Declaration<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_schema: Option<&'a Value>,
    annotations: Annotations<'a>,
}

/// MCP's tool annotations; every hint is stated, so a client never falls back to its defaults.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Annotations<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    read_only_hint: bool,
    destructive_hint: bool,
    idempotent_hint: bool,
    open_world_hint: bool,
}

fn declaration<'a>(tool: &'a ToolParts<'a>) -> Declaration<'a> {
    let a = tool.annotations;
    Declaration {
        name: tool.name,
        title: a.title,
        description: tool.description,
        input_schema: tool.mcp_parameters,
        output_schema: tool.output_schema.map(OutputSchema::value),
        annotations: Annotations {
            title: a.title,
            read_only_hint: a.read_only,
            destructive_hint: a.destructive,
            idempotent_hint: a.idempotent,
            open_world_hint: a.open_world,
        },
    }
}

pub(super) fn declare(tool: &ToolParts<'_>) -> Value {
    // Only strings, bools and JSON values: serializing into a `Value` cannot fail.
    serde_json::to_value(declaration(tool)).unwrap_or_default()
}

/// The JSON array of the tools' declarations, written from their borrowed parts.
pub(super) fn write_toolset(tools: &[ToolParts<'_>]) -> String {
    let declarations: Vec<Declaration<'_>> = tools.iter().map(declaration).collect();
    // As above: nothing in a declaration can fail to serialize.
    serde_json::to_string(&declarations).unwrap_or_default()
}
