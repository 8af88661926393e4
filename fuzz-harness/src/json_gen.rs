//! JSON values built from fuzzer bytes, steered by a tool's JSON Schema so most inputs get past
//! argument validation into the tool body, with a share of wrong types and unknown fields.

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Number, Value};

/// Strings worth trying in any string field: paths that stay in or try to leave the
/// workspace, globs, regexes, signal names, profile and process ids, odd text.
const STRINGS: &[&str] = &[
    "",
    " ",
    ".",
    "..",
    "/",
    "/workspace",
    "/workspace/",
    "/workspace/a.txt",
    "/workspace/../root/a.txt",
    "a.txt",
    "sub",
    "sub/b.txt",
    "sub/deeper",
    "new/dir/file.txt",
    "empty.txt",
    "binary.bin",
    "link_in",
    "link_in_dir/b.txt",
    "link_out_file",
    "link_out_dir/secret.txt",
    "link_out_dir_abs",
    "sub/link_up/outside/secret.txt",
    "sub/deeper/link_up2/deep.txt",
    "link_root/etc/passwd",
    "link_self/link_self/a.txt",
    "loop_a",
    "dangling",
    "dangling_out",
    "../outside/secret.txt",
    "/etc/passwd",
    "a.txt\0",
    "*",
    "**",
    "**/*.txt",
    "*.{rs,txt}",
    "[",
    "{a,",
    "alpha",
    "beta\ngamma",
    ".*",
    "(",
    "a{2,}",
    "(?i)ALPHA",
    "\\",
    "\\p{L}+",
    "data-ready",
    "s-1",
    "fuzz",
    "researcher",
    "failing",
    "parallel",
    "sequence",
    "start",
    "status",
    "output",
    "write",
    "kill",
    "list",
    "p1",
    "p0",
    "print(1)",
    "echo hi",
    "é\u{301}日本",
    "\u{feff}",
    "\r\n",
];

const INTEGERS: &[i64] = &[0, 1, 2, 3, -1, 10, 100, 2000, 30_000, 600_000, 600_001];

/// Depth below which no more nested values are made.
const MAX_DEPTH: u32 = 4;

/// A value for `schema` (a subschema of `root`, whose `$defs` resolve `$ref`s).
pub fn value_for(
    u: &mut Unstructured<'_>,
    root: &Value,
    schema: &Value,
    depth: u32,
) -> Result<Value> {
    // One value in eight ignores the schema, to exercise type errors.
    if depth >= MAX_DEPTH || u.ratio(1, 8)? {
        return any_value(u, depth);
    }
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        let name = target.rsplit('/').next().unwrap_or_default();
        let resolved = root
            .get("$defs")
            .and_then(|defs| defs.get(name))
            .unwrap_or(&Value::Null);
        return value_for(u, root, resolved, depth + 1);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array)
            && !options.is_empty()
        {
            let pick = u.choose(options)?;
            return value_for(u, root, pick, depth + 1);
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array)
        && !values.is_empty()
        && u.ratio(7, 8)?
    {
        return Ok(u.choose(values)?.clone());
    }
    let ty = match schema.get("type") {
        Some(Value::String(ty)) => ty.as_str(),
        Some(Value::Array(types)) if !types.is_empty() => {
            u.choose(types)?.as_str().unwrap_or("null")
        }
        _ => return any_value(u, depth),
    };
    Ok(match ty {
        "object" => object_for(u, root, schema, depth)?,
        "array" => {
            let items = schema.get("items").unwrap_or(&Value::Null);
            let len = u.int_in_range(0..=4)?;
            let mut out = Vec::with_capacity(len);
            for _ in 0..len {
                out.push(value_for(u, root, items, depth + 1)?);
            }
            Value::Array(out)
        }
        "string" => Value::String(string(u)?),
        "integer" => integer(u)?,
        "number" => Number::from_f64(u.arbitrary::<f64>()?).map_or(Value::Null, Value::Number),
        "boolean" => Value::Bool(u.arbitrary()?),
        _ => Value::Null,
    })
}

/// An object with some of the schema's properties (the required ones most of the time) and
/// now and then a field the schema does not know.
pub fn object_for(
    u: &mut Unstructured<'_>,
    root: &Value,
    schema: &Value,
    depth: u32,
) -> Result<Value> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, sub) in properties {
            let wanted = if required.contains(&name.as_str()) {
                u.ratio(15, 16)?
            } else {
                u.ratio(1, 2)?
            };
            if wanted {
                out.insert(name.clone(), value_for(u, root, sub, depth + 1)?);
            }
        }
    }
    if u.ratio(1, 16)? {
        out.insert(string(u)?, any_value(u, depth + 1)?);
    }
    Ok(Value::Object(out))
}

fn string(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0..=3)? {
        0 => u.arbitrary::<String>()?,
        1 => format!("{}/{}", u.choose(STRINGS)?, u.choose(STRINGS)?),
        _ => (*u.choose(STRINGS)?).to_string(),
    })
}

fn integer(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=3)? {
        0 => Value::from(u.arbitrary::<i64>()?),
        1 => Value::from(u.arbitrary::<u64>()?),
        _ => Value::from(*u.choose(INTEGERS)?),
    })
}

/// Any JSON value at all.
pub fn any_value(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    let top = if depth >= MAX_DEPTH { 4 } else { 6 };
    Ok(match u.int_in_range(0..=top)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => integer(u)?,
        3 => Number::from_f64(u.arbitrary::<f64>()?).map_or(Value::Null, Value::Number),
        4 => Value::String(string(u)?),
        5 => {
            let len = u.int_in_range(0..=3)?;
            let mut out = Vec::with_capacity(len);
            for _ in 0..len {
                out.push(any_value(u, depth + 1)?);
            }
            Value::Array(out)
        }
        _ => {
            let len = u.int_in_range(0..=3)?;
            let mut out = Map::new();
            for _ in 0..len {
                out.insert(string(u)?, any_value(u, depth + 1)?);
            }
            Value::Object(out)
        }
    })
}
