//! The built-ins as a strict converter sees them: OpenAI's strict function tools (and the
//! Agents SDK's conversion of an MCP tool into one) make every property required and close
//! every object (`additionalProperties: false`). A field the model may leave out must then
//! accept `null` (or declare a default the model can send instead), or the model has no way
//! to leave it out. Each built-in's MCP schema goes through those rules, every optional field
//! must take `null` or its default, and each built-in a local session can run is called so.

use cy_tools::{ToolRegistry, definition::Definition, dialect::Dialect};
use cy_tools_builtin as _;
use serde_json::{Map, Value, json};

/// The strict form of `schema`, as the Agents SDK's `ensure_strict_json_schema` makes it:
/// every object closed, with all its properties required, through properties, items,
/// `anyOf`/`oneOf`/`allOf` and `$defs`. Returns the optional fields it made required, as
/// JSON pointers.
fn strict(schema: &mut Value, at: &str, optional: &mut Vec<String>) {
    let Value::Object(node) = schema else { return };
    if let Some(Value::Object(properties)) = node.get("properties") {
        let required: Vec<Value> = node
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for name in properties.keys() {
            if !required.contains(&json!(name)) {
                optional.push(format!("{at}/properties/{name}"));
            }
        }
        let all: Vec<Value> = properties.keys().map(|k| json!(k)).collect();
        node.insert("required".into(), Value::Array(all));
        node.insert("additionalProperties".into(), json!(false));
    }
    for key in ["properties", "$defs", "definitions"] {
        if let Some(Value::Object(children)) = node.get_mut(key) {
            for (name, child) in children.iter_mut() {
                strict(child, &format!("{at}/{key}/{name}"), optional);
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(children)) = node.get_mut(key) {
            for (i, child) in children.iter_mut().enumerate() {
                strict(child, &format!("{at}/{key}/{i}"), optional);
            }
        }
    }
    if let Some(items) = node.get_mut("items") {
        strict(items, &format!("{at}/items"), optional);
    }
}

/// Arguments for a strict schema's root: each originally optional field `null` (its default,
/// when it declares one), each required
/// one a plain value of its type (its first `enum` value, a string, 1, false, [], or such an
/// object).
fn nulls_for_optional(schema: &Value, optional: &[String], at: &str) -> Value {
    let mut args = Map::new();
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (name, property) in properties {
            let pointer = format!("{at}/properties/{name}");
            let value = if optional.contains(&pointer) {
                // A default the model can send is as good as leaving the field out.
                property.get("default").cloned().unwrap_or(Value::Null)
            } else {
                sample(property, optional, &pointer)
            };
            args.insert(name.clone(), value);
        }
    }
    Value::Object(args)
}

fn sample(schema: &Value, optional: &[String], at: &str) -> Value {
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    let kind = match schema.get("type") {
        Some(Value::Array(kinds)) => kinds.iter().find(|k| *k != "null").cloned(),
        other => other.cloned(),
    };
    match kind.as_ref().and_then(Value::as_str) {
        Some("string") => json!("probe.txt"),
        Some("integer" | "number") => json!(1),
        Some("boolean") => json!(false),
        Some("array") => json!([]),
        Some("object") => nulls_for_optional(schema, optional, at),
        _ => Value::Null,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_optional_field_of_a_builtin_stays_optional_under_strict_conversion() {
    let registry = ToolRegistry::linked().unwrap();
    let builtins: Vec<(&str, &dyn Definition)> = registry
        .definitions()
        .filter(|(name, _)| {
            registry.origin(name).is_some_and(|o| {
                o.starts_with("cy_tools_sandbox::") || o.starts_with("cy_tools_session::")
            })
        })
        .collect();
    assert!(builtins.len() >= 8, "the built-ins are not linked");
    let workspace = tempfile::tempdir().unwrap();
    let mut called = Vec::new();
    let mut checked_nulls = 0;
    for (name, definition) in builtins {
        let declared = Dialect::Mcp.export_definition(name, definition).unwrap();
        let mut schema = declared["inputSchema"].clone();
        let mut optional = Vec::new();
        strict(&mut schema, "", &mut optional);
        let args = nulls_for_optional(&schema, &optional, "");
        // The strict schema takes the arguments (a strict model can send them), and so does
        // the tool's own, with every optional field null.
        for (which, against) in [("strict", &schema), ("declared", &declared["inputSchema"])] {
            let validator = jsonschema::validator_for(against).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&args)
                .map(|e| format!("{}: {e}", e.instance_path()))
                .collect();
            assert!(
                errors.is_empty(),
                "`{name}` refuses nulls for its optional fields under its {which} schema: {errors:?}\nargs: {args}\nschema: {against:#}"
            );
        }
        checked_nulls += optional.len();
        // Called for real where a local session can run it: the arguments are taken (the
        // call may still fail for what they ask, such as a missing file).
        let Ok(session) = cy_tools_builtin::local_session(workspace.path(), &[name]) else {
            continue;
        };
        let result = session.call(name, args.clone()).await;
        let text = result.text_content();
        assert!(
            !text.starts_with("invalid arguments"),
            "`{name}` refused {args}: {text}"
        );
        called.push(name);
    }
    assert!(
        checked_nulls >= 10,
        "only {checked_nulls} optional fields checked"
    );
    for expected in ["execute_code", "terminal", "read_file", "list_directory"] {
        assert!(
            called.contains(&expected),
            "`{expected}` was not called: {called:?}"
        );
    }
}

#[test]
fn the_conversion_catches_an_optional_field_that_refuses_null() {
    // The check can fail: `execute_code`'s former schema (an optional `filename` that is a
    // string only) is refused once strict.
    let mut schema = json!({
        "type": "object",
        "properties": {"code": {"type": "string"}, "filename": {"type": "string"}},
        "required": ["code"]
    });
    let mut optional = Vec::new();
    strict(&mut schema, "", &mut optional);
    assert_eq!(optional, ["/properties/filename"]);
    assert_eq!(schema["required"], json!(["code", "filename"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    let args = nulls_for_optional(&schema, &optional, "");
    assert_eq!(args, json!({"code": "probe.txt", "filename": null}));
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(!validator.is_valid(&args));
}
