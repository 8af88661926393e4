//! A tool whose parameters are a hand-written JSON Schema 2020-12, declared to MCP clients with
//! its `$schema`, `$defs` and `$ref` as written (the provider dialects inline and strip them).

use cy_tools::definition::RawToolDefinition;
use cy_tools::{BoxFuture, CallInfo, Ctx, ToolResult};
use serde_json::{Value, json};

/// The tool's name, as the suite looks it up.
pub const NAME: &str = "json_schema_2020_12_tool";

fn schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"}
        },
        "additionalProperties": false
    })
}

fn run<'a>(args: Value, _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move { ToolResult::text(format!("received {args}")) })
}

/// Echoes a name and an address, checked against the schema above.
pub static JSON_SCHEMA_2020_12_TOOL: RawToolDefinition = RawToolDefinition::new(
    NAME,
    "Tool with JSON Schema 2020-12 features: echoes a name and an address.",
    schema,
    run,
);
