//! Provider rules from `shared/design/DIALECTS.md`, checked on exported declarations.
//!
//! Written independently of the exporters in `cy_tools::dialect`: a checker that shared their
//! code could not catch their mistakes. Each function returns every violation it finds, as
//! `field: rule` lines.

mod anthropic;
mod gemini;
mod mcp;
mod openai;

use cy_tools::dialect::Dialect;
use serde_json::Value;

/// Every violation of `dialect`'s rules in one tool declaration.
pub fn check(dialect: Dialect, declaration: &Value) -> Vec<String> {
    match dialect {
        Dialect::OpenAi => openai::check(declaration, false),
        Dialect::OpenAiStrict => openai::check(declaration, true),
        Dialect::Anthropic => anthropic::check(declaration, false),
        Dialect::AnthropicStrict => anthropic::check(declaration, true),
        Dialect::Gemini => gemini::check(declaration),
        Dialect::GeminiJsonSchema => gemini::check_json_schema(declaration),
        Dialect::Mcp => mcp::check(declaration),
    }
}

/// The tool names a provider takes, as its documentation states them.
#[derive(Clone, Copy)]
pub enum Names {
    /// OpenAI and Anthropic: `^[a-zA-Z0-9_-]{1,64}$`.
    Provider,
    /// Gemini: a letter or `_` first, then letters, digits, `_`, `.` or `-`; 64 at most.
    Gemini,
    /// MCP 2025-11-25: `^[A-Za-z0-9_.-]{1,128}$`.
    Mcp,
}

impl Names {
    fn rule(self) -> &'static str {
        match self {
            Names::Provider => "^[a-zA-Z0-9_-]{1,64}$",
            Names::Gemini => "^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$",
            Names::Mcp => "^[A-Za-z0-9_.-]{1,128}$",
        }
    }

    pub fn accept(self, name: &Value) -> bool {
        let Some(n) = name.as_str() else {
            return false;
        };
        let (max, dots) = match self {
            Names::Provider => (64, false),
            Names::Gemini => (64, true),
            Names::Mcp => (128, true),
        };
        let first_ok = match self {
            Names::Gemini => n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'),
            _ => true,
        };
        !n.is_empty()
            && n.len() <= max
            && first_ok
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (dots && b == b'.'))
    }
}

/// Checks shared by every envelope: a name the provider takes and a non-empty description.
pub fn check_name_and_description(decl: &Value, names: Names, out: &mut Vec<String>) {
    if !names.accept(&decl["name"]) {
        out.push(format!("name: `{}` is not {}", decl["name"], names.rule()));
    }
    if decl["description"]
        .as_str()
        .is_none_or(|d| d.trim().is_empty())
    {
        out.push("description: missing or empty".to_string());
    }
}

/// Every subschema with its path and nesting depth (objects and arrays count as a level).
pub fn subschemas(schema: &Value) -> Vec<(String, usize, &serde_json::Map<String, Value>)> {
    let mut out = Vec::new();
    walk(schema, "(root)".to_string(), 0, &mut out);
    out
}

fn walk<'a>(
    node: &'a Value,
    path: String,
    depth: usize,
    out: &mut Vec<(String, usize, &'a serde_json::Map<String, Value>)>,
) {
    let Value::Object(map) = node else {
        return;
    };
    out.push((path.clone(), depth, map));
    if let Some(Value::Object(props)) = map.get("properties") {
        for (name, prop) in props {
            walk(prop, format!("{path}.{name}"), depth + 1, out);
        }
    }
    if let Some(items) = map.get("items") {
        walk(items, format!("{path}[]"), depth + 1, out);
    }
    if let Some(extra @ Value::Object(_)) = map.get("additionalProperties") {
        walk(extra, format!("{path}{{}}"), depth + 1, out);
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(options)) = map.get(key) {
            for (i, option) in options.iter().enumerate() {
                walk(option, format!("{path}/{key}[{i}]"), depth, out);
            }
        }
    }
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = map.get(key) {
            for (name, def) in defs {
                walk(def, format!("#/{key}/{name}"), 0, out);
            }
        }
    }
}

/// Whether a node declares an object (by `type`, or by having `properties`).
pub fn declares_object(node: &serde_json::Map<String, Value>) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => node.contains_key("properties"),
    }
}

/// Property names of an object node, sorted.
pub fn property_names(node: &serde_json::Map<String, Value>) -> Vec<String> {
    let mut names: Vec<String> = node
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// `required` of an object node, sorted.
pub fn required_names(node: &serde_json::Map<String, Value>) -> Vec<String> {
    let mut names: Vec<String> = node
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The root of a parameter schema must be `"type": "object"` (not a union).
pub fn check_root_object(schema: &Value, out: &mut Vec<String>) {
    if schema.get("type") != Some(&Value::String("object".into())) {
        out.push(format!(
            "(root): type must be \"object\", got {}",
            schema.get("type").unwrap_or(&Value::Null)
        ));
    }
    for banned in ["anyOf", "oneOf", "allOf"] {
        if schema.get(banned).is_some() {
            out.push(format!("(root): must be an object, not `{banned}`"));
        }
    }
}
