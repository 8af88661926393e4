//! OpenAI function calling, plain and `strict`.

use serde_json::{Map, Value, json};

use super::visit::each_schema;
use super::{
    Dialect, DialectError, ToolParts, const_to_enum, is_free_form_map, is_object, refs,
    retain_keywords, simplify_combinators,
};

/// Keywords strict mode accepts.
const STRICT_KEYWORDS: &[&str] = &[
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
/// String formats strict mode accepts.
const STRICT_FORMATS: &[&str] = &[
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
const MAX_PROPERTIES: usize = 5000;
const MAX_NESTING: usize = 10;
const MAX_ENUM_VALUES: usize = 1000;

pub(super) fn declare(tool: &ToolParts<'_>, strict: bool) -> Result<Value, DialectError> {
    let dialect = if strict {
        Dialect::OpenAiStrict
    } else {
        Dialect::OpenAi
    };
    // A `$ref` with sibling keywords is rejected in practice: inline every non-recursive type.
    let mut parameters = match refs::inline(tool.parameters, dialect.name()) {
        Ok(inlined) => inlined,
        Err(err) if err.rule.contains("recursive") => strip_ref_siblings(tool.parameters.clone()),
        Err(err) => return Err(err),
    };
    if strict {
        make_strict(&mut parameters)?;
    }
    let mut function = json!({
        "name": tool.name,
        "description": tool.description,
        "parameters": parameters,
    });
    if strict {
        function["strict"] = Value::Bool(true);
    }
    Ok(json!({"type": "function", "function": function}))
}

/// Recursive types keep their `$ref`s (OpenAI allows recursion), without siblings.
fn strip_ref_siblings(mut schema: Value) -> Value {
    let _ = each_schema::<()>(&mut schema, "", &mut |node, _| {
        if node.contains_key("$ref") {
            node.retain(|k, _| k == "$ref");
        }
        Ok(())
    });
    schema
}

fn make_strict(schema: &mut Value) -> Result<(), DialectError> {
    let dialect = Dialect::OpenAiStrict;
    let mut properties = 0usize;
    each_schema(schema, "", &mut |node, path| {
        simplify_combinators(dialect, node, path)?;
        const_to_enum(node);
        if let Some(Value::String(format)) = node.get("format")
            && !STRICT_FORMATS.contains(&format.as_str())
        {
            node.remove("format");
        }
        retain_keywords(node, STRICT_KEYWORDS);
        if let Some(Value::Array(values)) = node.get("enum")
            && values.len() > MAX_ENUM_VALUES
        {
            return Err(DialectError::new(
                dialect,
                path,
                format!(
                    "an enum has {} values and the limit is {MAX_ENUM_VALUES}",
                    values.len()
                ),
            ));
        }
        if path.matches(['.', '[']).count() >= MAX_NESTING {
            return Err(DialectError::new(
                dialect,
                path,
                format!("objects nest deeper than {MAX_NESTING} levels; flatten the parameters"),
            ));
        }
        if !is_object(node) {
            return Ok(());
        }
        if is_free_form_map(node) {
            return Err(DialectError::new(
                dialect,
                path,
                "a map (an object with free-form keys) cannot be expressed in strict mode; use a list of key/value objects",
            ));
        }
        node.insert("additionalProperties".into(), Value::Bool(false));
        let props = node
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(props) = props else {
            return Ok(());
        };
        properties += props.len();
        let required: Vec<String> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        let Some(Value::Object(props)) = node.get_mut("properties") else {
            return Ok(());
        };
        // Strict mode requires every property; optional ones become "required but nullable".
        for (name, prop) in props.iter_mut() {
            if !required.contains(name) {
                make_nullable(prop);
            }
        }
        let all: Vec<Value> = props.keys().cloned().map(Value::String).collect();
        node.insert("required".into(), Value::Array(all));
        Ok(())
    })?;
    if properties > MAX_PROPERTIES {
        return Err(DialectError::new(
            dialect,
            "",
            format!("the schema has {properties} properties and the limit is {MAX_PROPERTIES}"),
        ));
    }
    Ok(())
}

/// Lets `schema` accept `null` too.
pub(super) fn make_nullable(schema: &mut Value) {
    let Value::Object(node) = schema else {
        return;
    };
    if let Some(Value::Array(values)) = node.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    match node.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = t.clone();
            node.insert("type".into(), json!([t, "null"]));
            return;
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(Value::String("null".into()));
            }
            return;
        }
        Some(_) => return,
        None => {}
    }
    if let Some(Value::Array(options)) = node.get_mut("anyOf") {
        if !options
            .iter()
            .any(|o| o.get("type") == Some(&json!("null")))
        {
            options.push(json!({"type": "null"}));
        }
        return;
    }
    if node.contains_key("enum") {
        return;
    }
    // A bare `$ref` or anything else: wrap it.
    let description = node.remove("description");
    let inner = Value::Object(std::mem::take(node));
    node.insert("anyOf".into(), json!([inner, {"type": "null"}]));
    if let Some(description) = description {
        node.insert("description".into(), description);
    }
}
