//! MCP `Tool` declarations (specification 2026-07-28).

use serde_json::Value;

use super::{Names, check_name_and_description, check_root_object};

pub fn check(decl: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check_name_and_description(decl, Names::Mcp, &mut out);
    check_root_object(&decl["inputSchema"], &mut out);
    if decl["inputSchema"].get("properties").is_none() {
        // Clients validate `properties` even for a tool without parameters.
        out.push("inputSchema: `properties` is missing".to_string());
    }
    let annotations = &decl["annotations"];
    for hint in [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ] {
        if !annotations[hint].is_boolean() {
            out.push(format!("annotations: `{hint}` must be a boolean"));
        }
    }
    if let Some(title) = decl.get("title")
        && !title.is_string()
    {
        out.push("title: must be a string".to_string());
    }
    if let Some(schema) = decl.get("outputSchema") {
        check_root_object(schema, &mut out);
    }
    out
}
