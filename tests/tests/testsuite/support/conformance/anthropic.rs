//! Anthropic tool use: envelope, and the rules of `strict`.

use serde_json::Value;

use super::{Names, check_name_and_description, check_root_object, declares_object, subschemas};

const STRICT_BANNED: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
];

pub fn check(decl: &Value, strict: bool) -> Vec<String> {
    let mut out = Vec::new();
    check_name_and_description(decl, Names::Provider, &mut out);
    let schema = &decl["input_schema"];
    check_root_object(schema, &mut out);
    if !strict {
        return out;
    }
    if decl["strict"] != true {
        out.push("envelope: `strict` must be true".to_string());
    }
    for (path, _, node) in subschemas(schema) {
        if node.contains_key("$ref") || node.contains_key("$defs") {
            out.push(format!(
                "{path}: `$ref`/`$defs` (and recursion) are not allowed in strict mode"
            ));
        }
        for key in STRICT_BANNED {
            if node.contains_key(*key) {
                out.push(format!("{path}: `{key}` is not allowed in strict mode"));
            }
        }
        if node
            .get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|n| n > 1)
        {
            out.push(format!("{path}: `minItems` may only be 0 or 1"));
        }
        if let Some(Value::Array(values)) = node.get("enum")
            && values.iter().any(|v| v.is_object() || v.is_array())
        {
            out.push(format!("{path}: enum values must be primitives"));
        }
        if declares_object(node) && node.get("additionalProperties") != Some(&Value::Bool(false)) {
            out.push(format!(
                "{path}: objects need `additionalProperties: false`"
            ));
        }
    }
    out
}
