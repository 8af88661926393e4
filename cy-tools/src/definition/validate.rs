//! Validating arguments against a compiled JSON Schema, with messages in the typed path's form.

use serde_json::Value;

use crate::call::{ArgProblem, ArgsError, ProblemKind};

/// How many schema violations one error message lists before it stops.
const MAX_LISTED_VIOLATIONS: usize = 5;

/// Checks `args` against `validator`; the error lists up to five violations, each with the
/// field path (`items[0].name`) it concerns.
pub(crate) fn check(validator: &jsonschema::Validator, args: &Value) -> Result<(), ArgsError> {
    let mut violations: Vec<ArgProblem> = validator
        .iter_errors(args)
        .take(MAX_LISTED_VIOLATIONS + 1)
        .map(|err| {
            let path = pointer_to_path(err.instance_path().as_str());
            ArgProblem::new(ProblemKind::Constraint, path, err.to_string())
        })
        .collect();
    if violations.is_empty() {
        return Ok(());
    }
    let more = violations.len() > MAX_LISTED_VIOLATIONS;
    violations.truncate(MAX_LISTED_VIOLATIONS);
    let mut message = violations
        .iter()
        .map(|v| {
            if v.path.is_empty() {
                v.message.clone()
            } else {
                format!("`{}`: {}", v.path, v.message)
            }
        })
        .collect::<Vec<_>>()
        .join("; ");
    if more {
        message.push_str("; and more");
    }
    Err(ArgsError::new(message, violations))
}

/// Keywords that constrain values beyond what a Rust type (and so serde) enforces.
const CONSTRAINTS: &[&str] = &[
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "exclusiveMinimum",
    "exclusiveMaximum",
];

/// Whether a schema generated from a Rust type carries constraints serde does not check (from
/// `#[schemars(length(..), range(..), regex(..))]`, say). Bounds schemars writes for an integer
/// type itself (`format: uint8` with `minimum: 0, maximum: 255`) are the type's own, which
/// serde already enforces.
pub(crate) fn has_constraints_beyond_serde(schema: &Value) -> bool {
    let Value::Object(node) = schema else {
        return false;
    };
    if CONSTRAINTS.iter().any(|k| node.contains_key(*k)) {
        return true;
    }
    let integer_format = node
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| f.starts_with("int") || f.starts_with("uint"));
    if !integer_format && (node.contains_key("minimum") || node.contains_key("maximum")) {
        return true;
    }
    let children = ["properties", "$defs", "definitions"]
        .iter()
        .filter_map(|k| node.get(*k).and_then(Value::as_object))
        .flat_map(|m| m.values());
    let lists = ["anyOf", "oneOf", "allOf", "prefixItems"]
        .iter()
        .filter_map(|k| node.get(*k).and_then(Value::as_array))
        .flatten();
    let single = ["items", "additionalProperties", "not"]
        .iter()
        .filter_map(|k| node.get(*k));
    children
        .chain(lists)
        .chain(single)
        .any(has_constraints_beyond_serde)
}

/// `/items/0/name` → `items[0].name`, the form the typed path uses too.
fn pointer_to_path(pointer: &str) -> String {
    let mut out = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(&segment);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&segment);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::pointer_to_path;

    #[test]
    fn pointers_become_paths() {
        assert_eq!(pointer_to_path(""), "");
        assert_eq!(pointer_to_path("/items/0/name"), "items[0].name");
        assert_eq!(pointer_to_path("/a~1b"), "a/b");
    }
}

#[cfg(test)]
mod constraint_tests {
    use serde_json::json;

    use super::has_constraints_beyond_serde;

    #[test]
    fn only_constraints_beyond_the_type_count() {
        // schemars' own bounds for a `u8`, and a property that happens to be named `pattern`.
        let plain = json!({"type": "object", "properties": {
            "n": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
            "pattern": {"type": "string"},
            "items": {"type": "array", "items": {"type": "string"}}
        }});
        assert!(!has_constraints_beyond_serde(&plain));
        let nested = json!({"type": "object", "properties": {
            "filter": {"$ref": "#/$defs/F"}}, "$defs": {"F": {"type": "object", "properties": {
            "name": {"type": "string", "pattern": "^[a-z]+$"}}}}});
        assert!(has_constraints_beyond_serde(&nested));
        let ranged = json!({"type": "number", "minimum": 0.5});
        assert!(has_constraints_beyond_serde(&ranged));
    }
}
