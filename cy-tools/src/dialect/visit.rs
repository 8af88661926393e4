//! Visiting every subschema of a schema, with the field path it describes.

use serde_json::Value;

/// Calls `f` on `node` and on every subschema below it, parents first, with a dotted field
/// path (`items[]` for array items). Stops at the first error.
pub(crate) fn each_schema<E>(
    node: &mut Value,
    path: &str,
    f: &mut impl FnMut(&mut serde_json::Map<String, Value>, &str) -> Result<(), E>,
) -> Result<(), E> {
    let Value::Object(map) = node else {
        return Ok(());
    };
    f(map, path)?;
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            let child = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            each_schema(prop, &child, f)?;
        }
    }
    if let Some(items) = map.get_mut("items") {
        each_schema(items, &format!("{path}[]"), f)?;
    }
    if let Some(extra @ Value::Object(_)) = map.get_mut("additionalProperties") {
        each_schema(extra, &format!("{path}{{}}"), f)?;
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(options)) = map.get_mut(key) {
            for option in options {
                each_schema(option, path, f)?;
            }
        }
    }
    if let Some(Value::Object(defs)) = map.get_mut("$defs") {
        for (name, def) in defs.iter_mut() {
            each_schema(def, &format!("$defs.{name}"), f)?;
        }
    }
    Ok(())
}
