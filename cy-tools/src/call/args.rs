//! Turning what a model sent as arguments into a checked JSON object, and naming what is wrong.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::problem::{ArgProblem, ArgsError, ProblemKind};
use super::result::ToolResult;
use super::taking::Taking;
use crate::definition::Schema;

/// Accepts the argument payload forms models actually send: an object; `null`, an empty string
/// or whitespace for "no arguments"; and an object encoded as a JSON string (some models
/// double-encode). Anything else is refused with what to send instead.
pub(crate) fn normalize(arguments: Value) -> Result<Map<String, Value>, ArgsError> {
    payload(arguments)
        .map_err(|message| ArgsError::one(ArgProblem::new(ProblemKind::Payload, "", message)))
}

fn payload(arguments: Value) -> Result<Map<String, Value>, String> {
    match arguments {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        Value::String(text) if text.trim().is_empty() => Ok(Map::new()),
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(Value::Null) => Ok(Map::new()),
            Ok(other) => Err(format!(
                "arguments must be a JSON object, got {}",
                kind_of(&other)
            )),
            Err(err) => Err(format!(
                "arguments must be a JSON object, got a string that is not JSON ({err})"
            )),
        },
        other => Err(format!(
            "arguments must be a JSON object, got {}",
            kind_of(&other)
        )),
    }
}

/// [`normalize`] in place: `arguments` becomes the object the call runs with, or stays as it
/// was when it is no payload a model may send.
pub(crate) fn normalize_in_place(arguments: &mut Value) -> Result<(), ArgsError> {
    if arguments.is_object() {
        return Ok(());
    }
    // Only a payload that is no object yet (`null`, a string) pays for a copy, kept as it was
    // when it is refused.
    *arguments = Value::Object(normalize(arguments.clone())?);
    Ok(())
}

/// Refuses root fields the schema does not declare, listing every one at once.
pub(crate) fn check_fields(args: &Map<String, Value>, schema: &Schema) -> Result<(), ArgsError> {
    // Every call passes here and almost every one passes: no list made for that.
    if args.keys().all(|k| schema.has_property(k)) {
        return Ok(());
    }
    let unknown: Vec<&String> = args.keys().filter(|k| !schema.has_property(k)).collect();
    let text = match unknown.as_slice() {
        [] => return Ok(()),
        [one] => format!("unknown field `{one}`"),
        many => format!(
            "unknown fields {}",
            many.iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let problems = unknown
        .into_iter()
        .map(|name| ArgProblem::new(ProblemKind::UnknownField, name.as_str(), "unknown field"))
        .collect();
    Err(ArgsError::new(text, problems))
}

/// Deserializes checked arguments into `P`, naming the field path on failure.
///
/// An empty object also deserializes a unit type (`()`, `struct NoArgs;`), which serde only
/// accepts as `null`: a tool without parameters is called with `{}`.
pub(crate) fn deserialize<P: DeserializeOwned>(mut args: Value) -> Result<P, ArgsError> {
    // Fast path without path tracking, moving the strings out rather than copying them; only a
    // failure pays for a second, tracked pass (over what is left, see `Taking`).
    if let Ok(params) = P::deserialize(Taking(&mut args)) {
        return Ok(params);
    }
    if args.as_object().is_some_and(Map::is_empty)
        && let Ok(unit) = P::deserialize(Value::Null)
    {
        return Ok(unit);
    }
    let err = match serde_path_to_error::deserialize::<_, P>(&args) {
        Ok(params) => return Ok(params),
        Err(err) => err,
    };
    let raw = err.inner().to_string();
    let mut path = err.path().to_string();
    // serde_path_to_error's path already ends in the unknown field itself; name its parent,
    // since the message names the field.
    if let Some(field) = raw
        .strip_prefix("unknown field `")
        .and_then(|rest| rest.split('`').next())
    {
        if let Some(parent) = path.strip_suffix(field).and_then(|p| p.strip_suffix('.')) {
            path = parent.to_string();
        } else if path == field {
            path = ".".to_string();
        }
    }
    if path == "." {
        path.clear();
    }
    Err(rephrase(&raw, path))
}

/// The answer to a call with invalid arguments: the message the model sees, and as `details`
/// the same as data, for callers that are programs:
/// `{"error": "invalid_arguments", "tool", "problems": [{kind, path, expected?, got?, message}],
/// "valid_fields": [{name, type, required}]}`.
pub(crate) fn invalid(tool: &str, error: &ArgsError, schema: &Schema) -> ToolResult {
    let text = if schema.properties().is_empty() {
        format!(
            "invalid arguments for `{tool}`: {error}; this tool takes no arguments, send `{{}}`"
        )
    } else {
        format!(
            "invalid arguments for `{tool}`: {error}; valid fields are {}",
            schema.field_list()
        )
    };
    let details = serde_json::json!({
        "error": "invalid_arguments",
        "tool": tool,
        "problems": error.problems(),
        "valid_fields": schema.fields(),
    });
    ToolResult::error(text).with_details(details)
}

/// serde's message at `path`, reworded to lead with what was expected, in JSON's terms.
fn rephrase(message: &str, path: String) -> ArgsError {
    if let Some(field) = message.strip_prefix("missing field ") {
        // The text names the object the field is missing from, as serde's path does; the data
        // names the field itself.
        let text = format!("missing required field {field}");
        let text = if path.is_empty() {
            text
        } else {
            format!("`{path}`: {text}")
        };
        let name = field.trim_matches('`');
        let at = if path.is_empty() {
            name.to_string()
        } else {
            format!("{path}.{name}")
        };
        let problem = ArgProblem::new(ProblemKind::MissingField, at, "missing required field");
        return ArgsError::new(text, vec![problem]);
    }
    ArgsError::one(problem_at(message, path))
}

fn problem_at(message: &str, path: String) -> ArgProblem {
    let invalid = message
        .strip_prefix("invalid type: ")
        .map(|rest| (ProblemKind::InvalidType, rest))
        .or_else(|| {
            message
                .strip_prefix("invalid value: ")
                .map(|rest| (ProblemKind::InvalidValue, rest))
        });
    if let Some((kind, rest)) = invalid
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        let expected = json_terms(expected);
        return ArgProblem::new(kind, path, format!("expected {expected}, got {got}"))
            .with_expected_got(expected, got);
    }
    if let Some(rest) = message.strip_prefix("unknown variant ")
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        return ArgProblem::new(
            ProblemKind::InvalidValue,
            path,
            format!("unknown value {got}, expected {expected}"),
        )
        .with_expected_got(expected, got);
    }
    if let Some(rest) = message.strip_prefix("unknown field ")
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        return ArgProblem::new(
            ProblemKind::UnknownField,
            path,
            format!("unknown field {got}, expected {expected}"),
        )
        .with_expected_got(expected, got);
    }
    ArgProblem::new(ProblemKind::Other, path, message)
}

/// serde names Rust types (`u64`, `i32`, `f64`); a model thinks in JSON's.
fn json_terms(expected: &str) -> String {
    match expected {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => "a non-negative integer".to_string(),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "an integer".to_string(),
        "f32" | "f64" => "a number".to_string(),
        "unit" => "null".to_string(),
        other => other.to_string(),
    }
}

fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(_) => "a string".to_string(),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        name: String,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct P {
        path: String,
        items: Vec<Inner>,
        mode: Option<Mode>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Fast,
        Slow,
    }

    fn obj(v: Value) -> Value {
        Value::Object(normalize(v).unwrap())
    }

    #[test]
    fn payload_forms() {
        assert!(normalize(Value::Null).unwrap().is_empty());
        assert!(normalize(json!("")).unwrap().is_empty());
        assert!(normalize(json!("  \n")).unwrap().is_empty());
        assert_eq!(normalize(json!("{\"a\":1}")).unwrap()["a"], json!(1));
        assert_eq!(
            normalize(json!([1])).unwrap_err().to_string(),
            "arguments must be a JSON object, got an array"
        );
        assert_eq!(
            normalize(json!("[1]")).unwrap_err().to_string(),
            "arguments must be a JSON object, got an array"
        );
        assert!(
            normalize(json!("{oops"))
                .unwrap_err()
                .to_string()
                .starts_with("arguments must be a JSON object, got a string that is not JSON (")
        );
        assert_eq!(
            normalize(json!(7)).unwrap_err().to_string(),
            "arguments must be a JSON object, got the number 7"
        );
    }

    #[test]
    fn type_errors_name_the_path() {
        let err = deserialize::<P>(obj(json!({"path": 3, "items": []})))
            .unwrap_err()
            .to_string();
        assert_eq!(err, "`path`: expected a string, got integer `3`");
        let err = deserialize::<P>(obj(json!({"path": "a", "items": [{"name": 1}]})))
            .unwrap_err()
            .to_string();
        assert_eq!(err, "`items[0].name`: expected a string, got integer `1`");
    }

    #[test]
    fn missing_unknown_and_enum_errors() {
        let err = deserialize::<P>(obj(json!({"items": []})))
            .unwrap_err()
            .to_string();
        assert_eq!(err, "missing required field `path`");
        let err = deserialize::<P>(obj(
            json!({"path": "a", "items": [{"name": "x", "nme": 1}]}),
        ))
        .unwrap_err()
        .to_string();
        assert_eq!(err, "`items[0]`: unknown field `nme`, expected `name`");
        let err = deserialize::<P>(obj(json!({"path": "a", "items": [], "mode": "medium"})))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "`mode`: unknown value `medium`, expected `fast` or `slow`"
        );
    }

    #[test]
    fn problems_carry_the_path_and_what_was_expected_and_sent() {
        let err = deserialize::<P>(obj(json!({"path": "a", "items": [{"name": 1}]}))).unwrap_err();
        let problem = &err.problems()[0];
        assert_eq!(problem.kind, ProblemKind::InvalidType);
        assert_eq!(problem.path, "items[0].name");
        assert_eq!(problem.expected.as_deref(), Some("a string"));
        assert_eq!(problem.got.as_deref(), Some("integer `1`"));

        let err = deserialize::<P>(obj(json!({"path": "a", "items": [{}]}))).unwrap_err();
        assert_eq!(err.to_string(), "`items[0]`: missing required field `name`");
        assert_eq!(err.problems()[0].path, "items[0].name");
        assert_eq!(err.problems()[0].kind, ProblemKind::MissingField);

        let err = normalize(json!([1])).unwrap_err();
        assert_eq!(err.problems()[0].kind, ProblemKind::Payload);
        assert_eq!(err.problems()[0].path, "");
    }
}
