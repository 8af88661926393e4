//! Google Gemini function declarations: `parameters` (an OpenAPI 3.0 subset) and
//! `parametersJsonSchema`.

use serde_json::{Map, Value, json};

use super::visit::each_schema;
use super::{
    Dialect, DialectError, ToolParts, const_to_enum, is_free_form_map, refs, retain_keywords,
    simplify_combinators,
};

/// Keywords of the OpenAPI subset `parameters` accepts.
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
/// Formats Gemini documents; others (schemars' `uint64`, say) are dropped.
const FORMATS: &[&str] = &["int32", "int64", "float", "double", "date-time", "enum"];

pub(super) fn declare(tool: &ToolParts<'_>) -> Result<Value, DialectError> {
    let dialect = Dialect::Gemini;
    let mut schema = refs::inline(tool.parameters, dialect.name())?;
    each_schema(&mut schema, "", &mut |node, path| convert(node, path))?;
    let mut declaration = json!({"name": tool.name, "description": tool.description});
    // Gemini rejects an object schema without properties: a tool without parameters is
    // declared without `parameters` at all.
    let empty = schema
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    if !empty {
        declaration["parameters"] = schema;
    }
    Ok(declaration)
}

pub(super) fn declare_json_schema(tool: &ToolParts<'_>) -> Value {
    json!({
        "name": tool.name,
        "description": tool.description,
        "parametersJsonSchema": tool.parameters,
    })
}

fn convert(node: &mut Map<String, Value>, path: &str) -> Result<(), DialectError> {
    let dialect = Dialect::Gemini;
    simplify_combinators(dialect, node, path)?;
    const_to_enum(node);
    // `type: [t, "null"]` → `type: t, nullable: true`; several types → `anyOf`.
    if let Some(Value::Array(types)) = node.get("type").cloned() {
        let nullable = types.iter().any(|t| t == "null");
        let others: Vec<Value> = types.into_iter().filter(|t| t != "null").collect();
        node.remove("type");
        match others.as_slice() {
            [] => {}
            [one] => {
                node.insert("type".into(), one.clone());
            }
            many => {
                let options = many.iter().map(|t| json!({"type": t})).collect();
                node.insert("anyOf".into(), Value::Array(options));
            }
        }
        if nullable {
            node.insert("nullable".into(), Value::Bool(true));
        }
    }
    // `anyOf: [X, {type: null}]` → X with `nullable: true`.
    if let Some(Value::Array(options)) = node.get_mut("anyOf") {
        let before = options.len();
        options.retain(|o| o.get("type") != Some(&json!("null")));
        let had_null = options.len() < before;
        if options.len() == 1
            && let Some(Value::Object(only)) = options.pop()
        {
            node.remove("anyOf");
            for (key, value) in only {
                node.entry(key).or_insert(value);
            }
        }
        if had_null {
            node.insert("nullable".into(), Value::Bool(true));
        }
    }
    if let Some(Value::Array(values)) = node.get_mut("enum") {
        values.retain(|v| !v.is_null());
        if values.iter().any(|v| !v.is_string()) {
            return Err(DialectError::new(
                dialect,
                path,
                "Gemini enums take strings only; use string values (for example `#[serde(rename_all = \"snake_case\")]` on a unit enum)",
            ));
        }
        node.insert("type".into(), json!("string"));
    }
    if is_free_form_map(node) {
        return Err(DialectError::new(
            dialect,
            path,
            "a map (an object with free-form keys) cannot be expressed for Gemini; use a list of key/value objects",
        ));
    }
    if let Some(Value::String(format)) = node.get("format")
        && !FORMATS.contains(&format.as_str())
    {
        node.remove("format");
    }
    retain_keywords(node, KEYWORDS);
    Ok(())
}
