//! Which keywords of one schema object jsonschema checks together, and so in which order it
//! reports their violations: a closed object walks its members with `properties` and a
//! one-name `required`, `properties` checks a two-name `required` first, and `type: "array"`
//! is checked with `items`.

use serde_json::{Map, Value};

/// Below this many `properties`, jsonschema checks a `required` of two names with them.
const FUSED_PROPERTIES_BELOW: usize = 15;

/// Which keywords of one schema object are checked together, as jsonschema groups them (and so
/// orders their messages).
pub(super) struct Shape {
    /// `additionalProperties` is `false` or a schema: it walks the members, with `properties`
    /// and `patternProperties`.
    pub(super) closed: bool,
    /// `additionalProperties: false` with `properties` and no `patternProperties`.
    pub(super) closed_by_false: bool,
    /// `properties` (fewer than 15) without `patternProperties`, not closed.
    pub(super) small_open: bool,
    /// `type: "array"` with `items` (a schema): `type`, `minItems` and `maxItems` are checked
    /// with `items`.
    pub(super) array: bool,
}

impl Shape {
    /// The shape of the schema object `map`.
    pub(super) fn of(map: &Map<String, Value>) -> Shape {
        let additional = map.get("additionalProperties");
        let closed = matches!(additional, Some(Value::Bool(false) | Value::Object(_)));
        let has_patterns = map.contains_key("patternProperties");
        let properties = map.get("properties");
        Shape {
            closed,
            closed_by_false: additional == Some(&Value::Bool(false))
                && properties.is_some()
                && !has_patterns,
            small_open: !closed
                && !has_patterns
                && properties
                    .and_then(Value::as_object)
                    .is_some_and(|p| p.len() < FUSED_PROPERTIES_BELOW),
            array: map.get("type") == Some(&Value::String("array".into()))
                && matches!(
                    map.get("items"),
                    Some(Value::Object(_) | Value::Bool(false))
                )
                && !["prefixItems", "contains", "uniqueItems"]
                    .iter()
                    .any(|k| map.contains_key(*k)),
        }
    }

    /// Whether a `required` of `count` names is checked by `properties` or
    /// `additionalProperties` rather than on its own.
    pub(super) fn fuses_required(&self, count: usize) -> bool {
        (self.closed_by_false && count == 1) || (self.small_open && count == 2)
    }

    /// The `required` pair `properties` checks, if it checks one.
    pub(super) fn fused_pair(&self, map: &Map<String, Value>) -> Box<[String]> {
        match map.get("required") {
            Some(Value::Array(names)) if self.small_open && names.len() == 2 => names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect(),
            _ => Box::default(),
        }
    }
}
