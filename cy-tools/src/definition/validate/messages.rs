//! What each violation says, word for word as jsonschema 0.61 words it: models (and tests) have
//! learned these sentences, so they do not change with the validator.

use serde_json::{Number, Value};

use super::tree::Types;

fn plural(count: u64, one: &'static str, many: &'static str) -> &'static str {
    if count == 1 { one } else { many }
}

/// A property name as JSON writes it: `"code"`.
fn quoted(name: &str) -> String {
    Value::String(name.to_string()).to_string()
}

pub(super) fn type_mismatch(instance: &Value, types: Types) -> String {
    let mut names = types.names();
    match (names.next(), types.0.count_ones()) {
        (Some(only), 1) => format!(r#"{instance} is not of type "{only}""#),
        (first, _) => {
            let listed: Vec<String> = first
                .into_iter()
                .chain(names)
                .map(|name| format!("\"{name}\""))
                .collect();
            format!("{instance} is not of types {}", listed.join(", "))
        }
    }
}

pub(super) fn not_const(expected: &Value) -> String {
    format!("{expected} was expected")
}

/// At most three options are shown; past that, two and a count of the rest.
pub(super) fn not_in_enum(instance: &Value, options: &Value) -> String {
    let options = options.as_array().map(Vec::as_slice).unwrap_or_default();
    let mut out = format!("{instance} is not one of ");
    if options.len() <= 3 {
        for (i, option) in options.iter().enumerate() {
            let separator = match i {
                0 => "",
                i if i == options.len() - 1 => " or ",
                _ => ", ",
            };
            out.push_str(separator);
            out.push_str(&option.to_string());
        }
    } else {
        let shown: Vec<String> = options[..2].iter().map(Value::to_string).collect();
        out.push_str(&shown.join(", "));
        out.push_str(&format!(" or {} other candidates", options.len() - 2));
    }
    out
}

pub(super) fn below_minimum(instance: &Value, limit: &Number) -> String {
    format!("{instance} is less than the minimum of {limit}")
}

pub(super) fn above_maximum(instance: &Value, limit: &Number) -> String {
    format!("{instance} is greater than the maximum of {limit}")
}

pub(super) fn not_above_exclusive_minimum(instance: &Value, limit: &Number) -> String {
    format!("{instance} is less than or equal to the minimum of {limit}")
}

pub(super) fn not_below_exclusive_maximum(instance: &Value, limit: &Number) -> String {
    format!("{instance} is greater than or equal to the maximum of {limit}")
}

/// The divisor is shown as an `f64` (`2`, not `2.0`), as jsonschema keeps it.
pub(super) fn not_multiple(instance: &Value, divisor: f64) -> String {
    format!("{instance} is not a multiple of {divisor}")
}

pub(super) fn too_short(instance: &Value, limit: u64) -> String {
    let unit = plural(limit, "character", "characters");
    format!("{instance} is shorter than {limit} {unit}")
}

pub(super) fn too_long(instance: &Value, limit: u64) -> String {
    let unit = plural(limit, "character", "characters");
    format!("{instance} is longer than {limit} {unit}")
}

pub(super) fn too_few_items(instance: &Value, limit: u64) -> String {
    format!(
        "{instance} has less than {limit} {}",
        plural(limit, "item", "items")
    )
}

pub(super) fn too_many_items(instance: &Value, limit: u64) -> String {
    format!(
        "{instance} has more than {limit} {}",
        plural(limit, "item", "items")
    )
}

pub(super) fn too_few_properties(instance: &Value, limit: u64) -> String {
    let unit = plural(limit, "property", "properties");
    format!("{instance} has less than {limit} {unit}")
}

pub(super) fn too_many_properties(instance: &Value, limit: u64) -> String {
    let unit = plural(limit, "property", "properties");
    format!("{instance} has more than {limit} {unit}")
}

pub(super) fn missing(name: &str) -> String {
    format!("{} is a required property", quoted(name))
}

pub(super) fn no_match(instance: &Value, pattern: &str) -> String {
    format!(r#"{instance} does not match "{pattern}""#)
}

pub(super) fn not_unique(instance: &Value) -> String {
    format!("{instance} has non-unique elements")
}

pub(super) fn unexpected(names: &[&str]) -> String {
    let listed: Vec<String> = names.iter().map(|name| format!("'{name}'")).collect();
    let verb = if names.len() == 1 { "was" } else { "were" };
    format!(
        "Additional properties are not allowed ({} {verb} unexpected)",
        listed.join(", ")
    )
}

pub(super) fn refused(instance: &Value) -> String {
    format!("False schema does not allow {instance}")
}

pub(super) fn none_contained(instance: &Value) -> String {
    format!("None of {instance} are valid under the given schema")
}

pub(super) fn no_branch(instance: &Value, keyword: &str) -> String {
    format!("{instance} is not valid under any of the schemas listed in the '{keyword}' keyword")
}

pub(super) fn several_branches(instance: &Value) -> String {
    format!("{instance} is valid under more than one of the schemas listed in the 'oneOf' keyword")
}

pub(super) fn negated(schema: &Value, instance: &Value) -> String {
    format!("{schema} is not allowed for {instance}")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn messages_read_as_jsonschema_writes_them() {
        assert_eq!(
            type_mismatch(&json!(null), Types(Types::INTEGER | Types::STRING)),
            r#"null is not of types "integer", "string""#
        );
        assert_eq!(
            not_in_enum(&json!(6), &json!([1, 2, 3, 4, 5])),
            "6 is not one of 1, 2 or 3 other candidates"
        );
        assert_eq!(
            not_in_enum(&json!(6), &json!([1, 2, 3])),
            "6 is not one of 1, 2 or 3"
        );
        assert_eq!(missing("code"), r#""code" is a required property"#);
        assert_eq!(
            unexpected(&["a", "b"]),
            "Additional properties are not allowed ('a', 'b' were unexpected)"
        );
        assert_eq!(not_multiple(&json!(7), 2.0), "7 is not a multiple of 2");
        assert_eq!(
            too_short(&json!(""), 1),
            r#""" is shorter than 1 character"#
        );
        assert_eq!(
            too_few_properties(&json!({}), 1),
            "{} has less than 1 property"
        );
    }
}
