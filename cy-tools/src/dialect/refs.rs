//! Inlining `$ref`s into a self-contained schema, and finding recursion.

use serde_json::{Map, Value};

use super::DialectError;

/// Replaces every local `$ref` (`#/$defs/Name`) by the definition it names and drops `$defs`.
/// Sibling keywords of a `$ref` (schemars puts a field's `description` there) are kept beside
/// the inlined definition's own keywords, the sibling winning.
///
/// # Errors
/// A recursive type (it cannot be inlined), or a `$ref` that is not local or names nothing.
pub(crate) fn inline(schema: &Value, rule_owner: &str) -> Result<Value, DialectError> {
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut stack = Vec::new();
    let mut out = inline_node(schema, &defs, &mut stack, "", rule_owner)?;
    if let Value::Object(map) = &mut out {
        map.remove("$defs");
    }
    Ok(out)
}

fn inline_node(
    node: &Value,
    defs: &Map<String, Value>,
    stack: &mut Vec<String>,
    path: &str,
    dialect: &str,
) -> Result<Value, DialectError> {
    match node {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                let name = def_name(reference).ok_or_else(|| DialectError {
                    tool: String::new(),
                    dialect: dialect.to_string(),
                    field: field(path),
                    rule: format!("`$ref` `{reference}` is not a local `#/$defs/...` reference"),
                })?;
                if stack.iter().any(|n| n == name) {
                    return Err(DialectError {
                        tool: String::new(),
                        dialect: dialect.to_string(),
                        field: field(path),
                        rule: format!(
                            "type `{name}` is recursive, and recursive schemas cannot be expressed here; bound the nesting with a non-recursive type"
                        ),
                    });
                }
                let target = defs.get(name).ok_or_else(|| DialectError {
                    tool: String::new(),
                    dialect: dialect.to_string(),
                    field: field(path),
                    rule: format!("`$ref` names `{name}`, which is not in `$defs`"),
                })?;
                stack.push(name.to_string());
                let mut inlined = inline_node(target, defs, stack, path, dialect)?;
                stack.pop();
                if let Value::Object(target_map) = &mut inlined {
                    for (key, value) in map {
                        if key != "$ref" {
                            target_map.insert(
                                key.clone(),
                                inline_node(value, defs, stack, path, dialect)?,
                            );
                        }
                    }
                }
                return Ok(inlined);
            }
            let mut out = Map::new();
            for (key, value) in map {
                if key == "$defs" {
                    continue;
                }
                let child_path = if key == "items" {
                    format!("{path}[]")
                } else {
                    path.to_string()
                };
                let value = if key == "properties" {
                    match value {
                        Value::Object(props) => {
                            let mut inlined = Map::new();
                            for (name, prop) in props {
                                let prop_path = if path.is_empty() {
                                    name.clone()
                                } else {
                                    format!("{path}.{name}")
                                };
                                inlined.insert(
                                    name.clone(),
                                    inline_node(prop, defs, stack, &prop_path, dialect)?,
                                );
                            }
                            Value::Object(inlined)
                        }
                        other => other.clone(),
                    }
                } else {
                    inline_node(value, defs, stack, &child_path, dialect)?
                };
                out.insert(key.clone(), value);
            }
            Ok(Value::Object(out))
        }
        Value::Array(items) => items
            .iter()
            .map(|item| inline_node(item, defs, stack, path, dialect))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        other => Ok(other.clone()),
    }
}

fn def_name(reference: &str) -> Option<&str> {
    reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))
}

/// The field a path names, for messages: `(root)` for the root.
pub(crate) fn field(path: &str) -> String {
    if path.is_empty() {
        "(root)".to_string()
    } else {
        path.to_string()
    }
}
