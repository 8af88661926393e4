//! Anthropic tool use, plain and `strict`.

use serde_json::{Value, json};

use super::visit::each_schema;
use super::{
    Dialect, DialectError, ToolParts, const_to_enum, is_free_form_map, is_object, refs,
    simplify_combinators,
};
use crate::binding::Toolset;

/// Keywords strict mode does not accept; they are dropped from the export.
const STRICT_UNSUPPORTED: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
];
const MAX_STRICT_TOOLS: usize = 20;
const MAX_OPTIONAL_PARAMETERS: usize = 24;
const MAX_UNION_PARAMETERS: usize = 16;

pub(super) fn declare(tool: &ToolParts<'_>, strict: bool) -> Result<Value, DialectError> {
    if !strict {
        return Ok(json!({
            "name": tool.name,
            "description": tool.description,
            "input_schema": tool.parameters,
        }));
    }
    let dialect = Dialect::AnthropicStrict;
    let mut schema = refs::inline(tool.parameters, dialect.name())?;
    each_schema(&mut schema, "", &mut |node, path| {
        simplify_combinators(dialect, node, path)?;
        const_to_enum(node);
        node.retain(|k, _| !STRICT_UNSUPPORTED.contains(&k.as_str()));
        if node
            .get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|n| n > 1)
        {
            node.remove("minItems");
        }
        if let Some(Value::Array(values)) = node.get("enum")
            && values.iter().any(|v| v.is_object() || v.is_array())
        {
            return Err(DialectError::new(
                dialect,
                path,
                "enum values must be strings, numbers, booleans or null in strict mode",
            ));
        }
        if is_object(node) {
            if is_free_form_map(node) {
                return Err(DialectError::new(
                    dialect,
                    path,
                    "a map (an object with free-form keys) cannot be expressed in strict mode; use a list of key/value objects",
                ));
            }
            node.insert("additionalProperties".into(), Value::Bool(false));
        }
        Ok(())
    })?;
    Ok(json!({
        "name": tool.name,
        "description": tool.description,
        "input_schema": schema,
        "strict": true,
    }))
}

/// Anthropic's per-request limits on strict tools.
pub(super) fn check_request_limits(tools: &Toolset) -> Result<(), DialectError> {
    let dialect = Dialect::AnthropicStrict;
    let whole = |rule: String| DialectError {
        tool: "(toolset)".to_string(),
        ..DialectError::new(dialect, "", rule)
    };
    if tools.len() > MAX_STRICT_TOOLS {
        return Err(whole(format!(
            "a request may carry {MAX_STRICT_TOOLS} strict tools and this toolset has {}; split it or declare some tools non-strict",
            tools.len()
        )));
    }
    let (mut optional, mut unions) = (0, 0);
    for tool in tools {
        let schema = tool.parameters();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(Value::Object(props)) = schema.get("properties") {
            for (name, prop) in props {
                if !required.contains(&name.as_str()) {
                    optional += 1;
                }
                let union = prop.get("anyOf").is_some()
                    || prop.get("oneOf").is_some()
                    || prop.get("type").is_some_and(Value::is_array);
                if union {
                    unions += 1;
                }
            }
        }
    }
    if optional > MAX_OPTIONAL_PARAMETERS {
        return Err(whole(format!(
            "a request may carry {MAX_OPTIONAL_PARAMETERS} optional parameters across its strict tools and this toolset has {optional}"
        )));
    }
    if unions > MAX_UNION_PARAMETERS {
        return Err(whole(format!(
            "a request may carry {MAX_UNION_PARAMETERS} parameters with union types across its strict tools and this toolset has {unions}"
        )));
    }
    Ok(())
}
