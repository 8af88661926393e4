//! A tool as a Python function: its name, arguments, type hints and defaults, read from the
//! tool's JSON Schema. [`tools_module`](super::tools_module) writes the functions out.

use cy_tools::BoundTool;
use serde_json::{Map, Value};

/// One tool as the generated module presents it.
pub(super) struct PyFunction {
    /// The Python name (the tool's name, made an identifier if it is not one).
    pub name: String,
    /// The tool's name, as the host knows it.
    pub tool: String,
    /// What the tool does, for the docstring.
    pub description: String,
    /// Required arguments first (the schema's `required` order), then the optional ones,
    /// keyword-only, by name: the schema's properties are unordered, so a position means only
    /// what `required` says it means.
    pub params: Vec<PyParam>,
    /// The return annotation: the `TypedDict` of a tool whose output schema is an object with
    /// properties, the hint of one whose structured result is wrapped (a list, a number);
    /// else anything, since a tool without an output schema may still answer JSON.
    pub returns: String,
    /// The fields of the result's `TypedDict` (the JSON key and its hint), when `returns`
    /// names one.
    pub result_fields: Vec<(String, String)>,
    /// Where the tool comes from: the MCP server it is a tool of, and its name there.
    pub server: Option<(String, String)>,
}

/// One argument.
pub(super) struct PyParam {
    /// The Python name (`from_` for the property `from`).
    pub name: String,
    /// The property's name in the arguments sent to the tool.
    pub property: String,
    /// The type hint.
    pub hint: String,
    /// `None` for a required argument, else the default's Python literal (`None` when the
    /// schema gives none, or gives one that is not a plain value; the tool applies its own).
    pub default: Option<String>,
    /// The property's description.
    pub description: String,
}

impl PyFunction {
    /// The function for `tool`, named `name` (already made a unique identifier).
    pub(super) fn of(tool: &BoundTool, name: String) -> Self {
        let schema = tool.parameters();
        let empty = Map::new();
        let properties = schema["properties"].as_object().unwrap_or(&empty);
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut params = Vec::with_capacity(properties.len());
        for property in required.iter().filter(|r| properties.contains_key(**r)) {
            params.push(param(schema, property, &properties[*property], true));
        }
        for (property, value) in properties {
            if !required.contains(&property.as_str()) {
                params.push(param(schema, property, value, false));
            }
        }
        uniquify(&mut params);
        let (returns, result_fields) = match tool.output_schema() {
            None => ("_t.Any".to_string(), Vec::new()),
            Some(output) => result_type(&name, output),
        };
        PyFunction {
            name,
            tool: tool.name().to_string(),
            description: tool.description().trim().to_string(),
            params,
            returns,
            result_fields,
            server: server_of(tool),
        }
    }

    /// The module path a program reaches the function by: `cy_sdk.servers.time.get_current_time`
    /// for an MCP server's tool, `cy_sdk.tools.read_file` for the others.
    pub(super) fn path(&self) -> String {
        match &self.server {
            Some((server, tool)) => {
                format!("cy_sdk.servers.{}.{}", identifier(server), identifier(tool))
            }
            None => format!("cy_sdk.tools.{}", self.name),
        }
    }

    /// `read_file(path, *, limit=None, offset=1)`: the call's shape without the hints.
    pub(super) fn short_signature(&self) -> String {
        let mut parts = Vec::with_capacity(self.params.len() + 1);
        let mut star = false;
        for p in &self.params {
            match &p.default {
                None => parts.push(p.name.clone()),
                Some(default) => {
                    if !star {
                        parts.push("*".to_string());
                        star = true;
                    }
                    parts.push(format!("{}={default}", p.name));
                }
            }
        }
        format!("{}({})", self.name, parts.join(", "))
    }
}

/// The MCP server a tool comes from and its name there (see
/// [`Definition::mcp_server`](cy_tools::definition::Definition::mcp_server)).
fn server_of(tool: &BoundTool) -> Option<(String, String)> {
    let (server, name) = tool.definition().mcp_server()?;
    Some((server.to_string(), name.to_string()))
}

/// The return annotation of a tool with an output schema, and the fields of its `TypedDict`:
/// `{function}_Result` for an object schema with properties; for a wrapped result (the tool
/// answers a list or a number, sent as `{"result": value}`, which the code receives unwrapped)
/// the inner value's hint; else a plain dict.
fn result_type(
    function: &str,
    output: &cy_tools::definition::OutputSchema,
) -> (String, Vec<(String, String)>) {
    let root = output.value();
    if output.wraps_result() {
        return (hint(root, &root["properties"]["result"], 0), Vec::new());
    }
    let Some(properties) = root["properties"].as_object().filter(|p| !p.is_empty()) else {
        return ("_t.Dict[str, _t.Any]".to_string(), Vec::new());
    };
    let fields = properties
        .iter()
        .map(|(key, schema)| (key.clone(), hint(root, schema, 0)))
        .collect();
    (format!("{function}_Result"), fields)
}

fn param(root: &Value, property: &str, schema: &Value, required: bool) -> PyParam {
    let mut hint = hint(root, schema, 0);
    let default = if required {
        None
    } else {
        let literal = schema.get("default").and_then(literal);
        if literal.as_deref().is_none_or(|l| l == "None") && !hint.starts_with("_t.Optional[") {
            hint = format!("_t.Optional[{hint}]");
        }
        Some(literal.unwrap_or_else(|| "None".to_string()))
    };
    PyParam {
        name: identifier(property),
        property: property.to_string(),
        hint,
        default,
        description: schema["description"]
            .as_str()
            .unwrap_or_default()
            .trim()
            .to_string(),
    }
}

/// The type hint of a property's schema; `_t.Any` where the schema says more than a hint can.
fn hint(root: &Value, schema: &Value, depth: u8) -> String {
    if depth > 4 {
        return "_t.Any".to_string();
    }
    if let Some(target) = schema["$ref"].as_str().and_then(|r| resolve(root, r)) {
        return hint(root, target, depth + 1);
    }
    if let Some(values) = schema["enum"].as_array().filter(|v| !v.is_empty())
        && let Some(literals) = values.iter().map(literal).collect::<Option<Vec<_>>>()
    {
        return format!("_t.Literal[{}]", literals.join(", "));
    }
    if let Some(value) = schema.get("const").and_then(literal) {
        return format!("_t.Literal[{value}]");
    }
    let alternatives: Vec<&Value> = match (&schema["type"], &schema["anyOf"], &schema["oneOf"]) {
        (Value::Array(types), _, _) => types.iter().collect(),
        (_, Value::Array(any), _) => any.iter().collect(),
        (_, _, Value::Array(one)) => one.iter().collect(),
        (Value::String(_), _, _) => return single(root, schema, depth),
        _ => return "_t.Any".to_string(),
    };
    let nullable = alternatives
        .iter()
        .any(|a| a.as_str() == Some("null") || a["type"].as_str() == Some("null"));
    let mut hints: Vec<String> = Vec::new();
    for alternative in alternatives {
        let one = match alternative {
            Value::String(kind) if kind == "null" => continue,
            Value::String(kind) => scalar(kind).unwrap_or("_t.Any").to_string(),
            Value::Object(_) if alternative["type"].as_str() == Some("null") => continue,
            other => hint(root, other, depth + 1),
        };
        if !hints.contains(&one) {
            hints.push(one);
        }
    }
    let inner = match hints.len() {
        0 => "None".to_string(),
        1 => hints.remove(0),
        _ => format!("_t.Union[{}]", hints.join(", ")),
    };
    if nullable && inner != "None" {
        format!("_t.Optional[{inner}]")
    } else {
        inner
    }
}

fn single(root: &Value, schema: &Value, depth: u8) -> String {
    match schema["type"].as_str() {
        Some("array") => format!("_t.List[{}]", hint(root, &schema["items"], depth + 1)),
        Some(kind) => scalar(kind).unwrap_or("_t.Any").to_string(),
        None => "_t.Any".to_string(),
    }
}

fn scalar(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "string" => "str",
        "integer" => "int",
        "number" => "float",
        "boolean" => "bool",
        "object" => "_t.Dict[str, _t.Any]",
        "array" => "_t.List[_t.Any]",
        "null" => "None",
        _ => return None,
    })
}

/// `#/$defs/Name` (or `#/definitions/Name`) in the root schema.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let path = reference.strip_prefix("#/")?;
    path.split('/').try_fold(root, |node, key| node.get(key))
}

/// A JSON value as a Python literal, for plain values only (a list or dict default would be
/// shared between calls).
fn literal(value: &Value) -> Option<String> {
    Some(match value {
        Value::Null => "None".to_string(),
        Value::Bool(true) => "True".to_string(),
        Value::Bool(false) => "False".to_string(),
        Value::Number(n) => n.to_string(),
        // JSON's string escapes are all valid in a Python string literal.
        Value::String(_) => value.to_string(),
        Value::Array(_) | Value::Object(_) => return None,
    })
}

/// `name` as a Python identifier: other characters become `_`, a leading digit or a keyword
/// gets a `_` (`from` → `from_`).
pub(super) fn identifier(name: &str) -> String {
    let mut id: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    if KEYWORDS.contains(&id.as_str()) {
        id.push('_');
    }
    id
}

const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Two properties that became the same identifier (`a-b`, `a_b`) get numbered.
fn uniquify(params: &mut [PyParam]) {
    for i in 1..params.len() {
        let mut n = 2;
        while params[..i].iter().any(|p| p.name == params[i].name) {
            params[i].name = format!("{}_{n}", identifier(&params[i].property));
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hints_follow_the_schema() {
        let root = json!({"$defs": {"Mode": {"enum": ["a", "b"]}}});
        let cases = [
            (json!({"type": "string"}), "str"),
            (json!({"type": ["integer", "null"]}), "_t.Optional[int]"),
            (
                json!({"enum": ["x", "y"], "type": "string"}),
                "_t.Literal[\"x\", \"y\"]",
            ),
            (json!({"$ref": "#/$defs/Mode"}), "_t.Literal[\"a\", \"b\"]"),
            (
                json!({"type": "array", "items": {"type": "number"}}),
                "_t.List[float]",
            ),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}),
                "_t.Optional[_t.Union[str, int]]",
            ),
            (json!({}), "_t.Any"),
        ];
        for (schema, expected) in cases {
            assert_eq!(hint(&root, &schema, 0), expected, "{schema}");
        }
    }

    #[test]
    fn names_become_identifiers() {
        assert_eq!(identifier("from"), "from_");
        assert_eq!(identifier("read-file"), "read_file");
        assert_eq!(identifier("2x"), "_2x");
        assert_eq!(identifier("path"), "path");
    }

    #[test]
    fn defaults_are_plain_literals() {
        assert_eq!(literal(&json!("a\"b\n")).unwrap(), r#""a\"b\n""#);
        assert_eq!(literal(&json!(false)).unwrap(), "False");
        assert_eq!(literal(&json!(1.5)).unwrap(), "1.5");
        assert!(literal(&json!([1])).is_none());
    }
}
