//! Google Gemini: `parameters` in the OpenAPI subset, and `parametersJsonSchema`.

use serde_json::Value;

use super::{Names, check_name_and_description, check_root_object, subschemas};

const KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "example",
    "default",
    "anyOf",
    "propertyOrdering",
];
const TYPES: &[&str] = &["string", "number", "integer", "boolean", "array", "object"];

pub fn check(decl: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check_name_and_description(decl, Names::Gemini, &mut out);
    let Some(params) = decl.get("parameters") else {
        // A tool without parameters is declared without them.
        return out;
    };
    check_root_object(params, &mut out);
    for (path, _, node) in subschemas(params) {
        for key in node.keys() {
            if !KEYWORDS.contains(&key.as_str()) {
                out.push(format!(
                    "{path}: keyword `{key}` is outside the OpenAPI subset"
                ));
            }
        }
        match node.get("type") {
            None => {}
            Some(Value::String(t)) if TYPES.contains(&t.as_str()) => {}
            Some(other) => out.push(format!(
                "{path}: type must be one of {TYPES:?}, got {other}"
            )),
        }
        if node.get("type") == Some(&Value::String("object".into()))
            && node
                .get("properties")
                .and_then(Value::as_object)
                .is_none_or(|p| p.is_empty())
        {
            out.push(format!("{path}: an object needs properties"));
        }
        if let Some(Value::Array(values)) = node.get("enum")
            && values.iter().any(|v| !v.is_string())
        {
            out.push(format!("{path}: enum values must be strings"));
        }
    }
    out
}

pub fn check_json_schema(decl: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check_name_and_description(decl, Names::Gemini, &mut out);
    if decl.get("parameters").is_some() {
        out.push(
            "envelope: `parameters` and `parametersJsonSchema` are mutually exclusive".to_string(),
        );
    }
    check_root_object(&decl["parametersJsonSchema"], &mut out);
    out
}
