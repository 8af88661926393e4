//! OpenAI function calling: envelope, and structured-outputs rules under `strict`.

use serde_json::Value;

use super::{
    Names, check_name_and_description, check_root_object, declares_object, property_names,
    required_names, subschemas,
};

const SUPPORTED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "anyOf",
    "$defs",
    "$ref",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

pub fn check(decl: &Value, strict: bool) -> Vec<String> {
    let mut out = Vec::new();
    if decl["type"] != "function" {
        out.push("envelope: `type` must be \"function\"".to_string());
    }
    let function = &decl["function"];
    check_name_and_description(function, Names::Provider, &mut out);
    let params = &function["parameters"];
    check_root_object(params, &mut out);
    let mut total_properties = 0;
    for (path, depth, node) in subschemas(params) {
        // Seen in practice: a `$ref` with sibling keywords is rejected.
        if node.contains_key("$ref") && node.len() > 1 {
            out.push(format!("{path}: `$ref` has sibling keywords"));
        }
        if !strict {
            continue;
        }
        for key in node.keys() {
            if !SUPPORTED.contains(&key.as_str()) {
                out.push(format!(
                    "{path}: keyword `{key}` is not supported in strict mode"
                ));
            }
        }
        if let Some(Value::String(f)) = node.get("format")
            && !FORMATS.contains(&f.as_str())
        {
            out.push(format!("{path}: format `{f}` is not supported"));
        }
        if depth > 10 {
            out.push(format!("{path}: nested deeper than 10 levels"));
        }
        if node
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e.len() > 1000)
        {
            out.push(format!("{path}: more than 1000 enum values"));
        }
        if declares_object(node) {
            if node.get("additionalProperties") != Some(&Value::Bool(false)) {
                out.push(format!(
                    "{path}: objects need `additionalProperties: false`"
                ));
            }
            let props = property_names(node);
            total_properties += props.len();
            if required_names(node) != props {
                out.push(format!("{path}: every property must be in `required`"));
            }
        }
    }
    if strict {
        if function["strict"] != true {
            out.push("envelope: `strict` must be true".to_string());
        }
        if total_properties > 5000 {
            out.push("(root): more than 5000 properties".to_string());
        }
    }
    out
}
