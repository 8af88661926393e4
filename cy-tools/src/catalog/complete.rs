//! Completion of a prompt's argument or a resource template's variable: what the function's
//! completer offers, or the values the argument's schema enumerates.

use serde_json::Value;

use crate::definition::Schema;

/// What completes an argument: `completer(argument, typed)` answers the values to offer for
/// the argument named `argument` when `typed` has been typed so far. What it answers is cut to
/// the values beginning with `typed` and to [`MAX_VALUES`].
///
/// ```
/// fn languages(argument: &str, _typed: &str) -> Vec<String> {
///     match argument {
///         "language" => ["python", "perl", "rust"].map(String::from).to_vec(),
///         _ => Vec::new(),
///     }
/// }
/// let _: cy_tools::catalog::Completer = languages;
/// ```
pub type Completer = fn(&str, &str) -> Vec<String>;

/// The most values one completion answers (MCP's limit).
pub const MAX_VALUES: usize = 100;

/// `values` beginning with `typed`, at most [`MAX_VALUES`] of them.
pub(crate) fn filtered(values: Vec<String>, typed: &str) -> Vec<String> {
    values
        .into_iter()
        .filter(|v| v.starts_with(typed))
        .take(MAX_VALUES)
        .collect()
}

/// What to offer for `argument` when `typed` has been typed: `completer`'s values when there is
/// one, else those `schema` enumerates (none when the schema could not be made).
pub(crate) fn offer(
    completer: Option<Completer>,
    schema: Result<&Schema, String>,
    argument: &str,
    typed: &str,
) -> Vec<String> {
    match (completer, schema) {
        (Some(completer), _) => filtered(completer(argument, typed), typed),
        (None, Ok(schema)) => from_schema(schema, argument, typed),
        (None, Err(_)) => Vec::new(),
    }
}

/// The string values the schema of `argument` enumerates (a Rust enum's variants, an
/// `Option` of one, `oneOf` constants), beginning with `typed`.
pub(crate) fn from_schema(schema: &Schema, argument: &str, typed: &str) -> Vec<String> {
    let root = schema.value();
    let Some(property) = root.get("properties").and_then(|p| p.get(argument)) else {
        return Vec::new();
    };
    let mut values = Vec::new();
    collect(root, property, &mut values, 0);
    filtered(values, typed)
}

fn collect(root: &Value, schema: &Value, out: &mut Vec<String>, depth: usize) {
    // A `$ref` loop cannot run away.
    if depth > 8 {
        return;
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str)
        && let Some(target) = reference
            .strip_prefix("#/")
            .and_then(|path| root.pointer(&format!("/{path}")))
    {
        collect(root, target, out, depth + 1);
    }
    if let Some(Value::String(value)) = schema.get("const") {
        out.push(value.clone());
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        out.extend(values.iter().filter_map(Value::as_str).map(str::to_string));
    }
    for key in ["anyOf", "oneOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect(root, branch, out, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::from_schema;
    use crate::definition::schema;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Style {
        Formal,
        Friendly,
        Terse,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        style: Style,
        maybe: Option<Style>,
        free: String,
    }

    #[test]
    fn enums_complete_by_prefix() {
        let schema = schema::generate::<Args>().unwrap();
        assert_eq!(from_schema(&schema, "style", "f"), ["formal", "friendly"]);
        assert_eq!(from_schema(&schema, "maybe", "t"), ["terse"]);
        assert!(from_schema(&schema, "free", "").is_empty());
        assert!(from_schema(&schema, "nope", "").is_empty());
    }
}
