//! Whether a schema generated from a Rust type says more than the type, so that a typed
//! definition needs a validator at all.

use serde_json::Value;

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

#[cfg(test)]
mod tests {
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
