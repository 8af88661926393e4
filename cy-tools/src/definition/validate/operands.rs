//! Reading keyword values (`minLength`'s count, `type`'s names...) as the draft 2020-12
//! meta-schema allows them, refusing the rest with where and why.

use serde_json::Value;

use super::tree::Types;

/// The error for a pattern `regex` cannot run, saying `why`.
pub(super) fn bad_pattern(source: &str, at: &str, why: &str) -> String {
    format!(
        "the pattern `{source}` at `#{at}` does not compile: {why}; patterns use ECMA-262 syntax without look-around or backreferences"
    )
}

/// Refuses a value whose JSON type is not `kind`.
pub(super) fn expect_kind(value: &Value, kind: &str, at: &str) -> Result<(), String> {
    let ok = match kind {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("`#{at}` must be a {kind}, got `{value}`"))
    }
}

pub(super) fn number(value: &Value, at: &str) -> Result<serde_json::Number, String> {
    match value {
        Value::Number(n) if n.as_f64().is_some() => Ok(n.clone()),
        _ => Err(format!("`#{at}` must be a number, got `{value}`")),
    }
}

/// A count bound (`minLength`, `maxItems`): a non-negative integer, `2.0` included; one past
/// `u64` saturates, since no string or array can reach it.
pub(super) fn size(value: &Value, at: &str) -> Result<u64, String> {
    if let Some(n) = value.as_u64() {
        return Ok(n);
    }
    match value.as_f64() {
        Some(f) if f >= 18_446_744_073_709_551_616.0 => Ok(u64::MAX),
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(f) if f >= 0.0 && f.fract() == 0.0 => Ok(f as u64),
        _ => Err(format!(
            "`#{at}` must be a non-negative integer, got `{value}`"
        )),
    }
}

/// `type`: one type name or a non-empty list of distinct ones.
pub(super) fn types(value: &Value, at: &str) -> Result<Types, String> {
    let bit = |name: &Value| match name.as_str().and_then(Types::bit) {
        Some(bit) => Ok(bit),
        None => Err(format!(
            "`#{at}` names `{name}`, which is not a JSON type; use `array`, `boolean`, `integer`, `null`, `number`, `object` or `string`"
        )),
    };
    match value {
        Value::String(_) => Ok(Types(bit(value)?)),
        Value::Array(names) if !names.is_empty() => {
            let mut set = 0;
            for name in names {
                let b = bit(name)?;
                if set & b != 0 {
                    return Err(format!("`#{at}` lists `{name}` twice; list each type once"));
                }
                set |= b;
            }
            Ok(Types(set))
        }
        _ => Err(format!(
            "`#{at}` must be a type name or a non-empty list of them, got `{value}`"
        )),
    }
}

/// A list of distinct property names (`required`, `dependentRequired`'s lists).
pub(super) fn names(value: &Value, at: &str) -> Result<Box<[String]>, String> {
    let Value::Array(items) = value else {
        return Err(format!(
            "`#{at}` must be an array of property names, got `{value}`"
        ));
    };
    let mut names: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let Value::String(name) = item else {
            return Err(format!(
                "`#{at}` must hold property names (strings), got `{item}`"
            ));
        };
        if names.contains(name) {
            return Err(format!("`#{at}` lists `{name}` twice; list each name once"));
        }
        names.push(name.clone());
    }
    Ok(names.into_boxed_slice())
}
