//! Instances for a schema, from a seeded generator (the same ones every run): mostly near what
//! the schema asks (bounds, their neighbours, required names, members patterns match), with
//! wrong types, extra members and arbitrary values mixed in, since those are what a model sends.

use serde_json::{Map, Number, Value, json};

/// SplitMix64: small, fast, and the same sequence on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const STRINGS: &[&str] = &[
    "",
    "a",
    "ab",
    "abc",
    "abcd",
    "abcde",
    "Ada",
    "x-a",
    "x-",
    "0",
    "12",
    "123-abc",
    "123-abc ",
    "get",
    "fast",
    "slow",
    "x",
    "y",
    "z",
    "é",
    "日本",
    "🦀🦀",
    "a b",
    "\n",
    "\r",
    "\u{2028}",
    "\u{feff}",
    "a\tb",
    "under_score",
    "dash-ed",
    "CAPS",
    "٣",
    "label",
    "code",
    "print(1)",
];

const KEYS: &[&str] = &[
    "a", "b", "c", "d", "x", "y", "n", "m", "x-a", "x-b", "0", "7", "a/b", "~", "", "name",
    "label", "children", "extra", "ab", "abcd", "Z",
];

fn number(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// Any JSON value, of bounded depth.
pub fn arbitrary(rng: &mut Rng, depth: usize) -> Value {
    let kinds = if depth == 0 { 6 } else { 8 };
    match rng.below(kinds) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => json!(*rng.pick(&[
            0_i64,
            1,
            -1,
            2,
            3,
            5,
            7,
            10,
            255,
            600_000,
            i64::MIN,
            i64::MAX
        ])),
        3 => match rng.below(3) {
            0 => json!(u64::MAX),
            _ => number(*rng.pick(&[0.5, 1.0, 2.0, -0.0, 1.5, 0.1, 12.2, 3.3, 1e300, -2.5, 9.999])),
        },
        4 | 5 => json!(*rng.pick(STRINGS)),
        6 => Value::Array(
            (0..rng.below(4))
                .map(|_| arbitrary(rng, depth - 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..rng.below(4))
                .map(|_| (rng.pick(KEYS).to_string(), arbitrary(rng, depth - 1)))
                .collect(),
        ),
    }
}

/// A number near the bounds and divisors `schema` states.
fn near_bounds(rng: &mut Rng, schema: &Map<String, Value>) -> Value {
    let mut anchors: Vec<f64> = [
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]
    .iter()
    .filter_map(|k| schema.get(*k).and_then(Value::as_f64))
    .collect();
    anchors.push(0.0);
    let anchor = *rng.pick(&anchors);
    let offset = *rng.pick(&[0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 0.1, 10.0]);
    let value = anchor + offset;
    match rng.below(3) {
        // As an integer when it is one, as `x.0` otherwise: both forms reach validators.
        0 if value.fract() == 0.0 && value.abs() < 9e15 => json!(value as i64),
        _ => number(value),
    }
}

/// A string around the length bounds `schema` states.
fn near_length(rng: &mut Rng, schema: &Map<String, Value>) -> Value {
    if rng.chance(60) {
        return json!(*rng.pick(STRINGS));
    }
    let bound = ["minLength", "maxLength"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_u64))
        .next()
        .unwrap_or(2) as usize;
    let len = (bound + rng.below(3)).saturating_sub(1);
    let unit = *rng.pick(&["a", "é", "🦀", "1"]);
    json!(unit.repeat(len))
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?.replace("%20", " ");
    root.pointer(&pointer)
}

/// An instance for `schema` (within the document `root`), mostly close to valid.
pub fn instance(rng: &mut Rng, root: &Value, schema: &Value, depth: usize) -> Value {
    let Value::Object(map) = schema else {
        return arbitrary(rng, depth.min(2));
    };
    if depth == 0 || rng.chance(12) {
        return arbitrary(rng, depth.min(2));
    }
    if let Some(target) = map
        .get("$ref")
        .and_then(|r| r.as_str())
        .and_then(|r| resolve(root, r))
        && rng.chance(80)
    {
        return instance(rng, root, target, depth - 1);
    }
    if let Some(Value::Array(options)) = map.get("enum")
        && !options.is_empty()
        && rng.chance(70)
    {
        return rng.pick(options).clone();
    }
    if let Some(value) = map.get("const")
        && rng.chance(70)
    {
        return value.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = map.get(key)
            && !branches.is_empty()
            && rng.chance(60)
        {
            let branch = rng.pick(branches).clone();
            return instance(rng, root, &branch, depth - 1);
        }
    }
    let kind = match map.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) if !ts.is_empty() => {
            rng.pick(ts).as_str().unwrap_or("null").to_string()
        }
        _ if map.contains_key("properties") || map.contains_key("additionalProperties") => {
            "object".into()
        }
        _ if map.contains_key("items")
            || map.contains_key("prefixItems")
            || map.contains_key("contains") =>
        {
            "array".into()
        }
        _ if map.contains_key("minLength") || map.contains_key("pattern") => "string".into(),
        _ if map.contains_key("minimum") || map.contains_key("multipleOf") => "number".into(),
        _ => return arbitrary(rng, depth.min(2)),
    };
    match kind.as_str() {
        "object" => object(rng, root, map, depth),
        "array" => array(rng, root, map, depth),
        "string" => near_length(rng, map),
        "integer" | "number" => near_bounds(rng, map),
        "boolean" => Value::Bool(rng.chance(50)),
        _ => Value::Null,
    }
}

fn object(rng: &mut Rng, root: &Value, map: &Map<String, Value>, depth: usize) -> Value {
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    if let Some(Value::Object(properties)) = map.get("properties") {
        for (name, schema) in properties {
            let keep = if required.contains(&name.as_str()) {
                85
            } else {
                50
            };
            if rng.chance(keep) {
                out.insert(name.clone(), instance(rng, root, schema, depth - 1));
            }
        }
    }
    for name in &required {
        if !out.contains_key(*name) && rng.chance(40) {
            out.insert((*name).to_string(), arbitrary(rng, 1));
        }
    }
    let extra = map.get("additionalProperties").and_then(Value::as_object);
    while rng.chance(25) {
        let value = match extra {
            Some(schema) => instance(rng, root, &Value::Object(schema.clone()), depth - 1),
            None => arbitrary(rng, depth.min(2) - 1),
        };
        out.insert(rng.pick(KEYS).to_string(), value);
    }
    Value::Object(out)
}

fn array(rng: &mut Rng, root: &Value, map: &Map<String, Value>, depth: usize) -> Value {
    let prefix: Vec<Value> = map
        .get("prefixItems")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let items = map.get("items").cloned().unwrap_or(Value::Bool(true));
    let contains = map.get("contains").cloned();
    let len = rng.below(6);
    let mut out: Vec<Value> = (0..len)
        .map(|i| {
            let schema = match (prefix.get(i), &contains) {
                (Some(schema), _) => schema.clone(),
                (None, Some(schema)) if rng.chance(40) => schema.clone(),
                _ => items.clone(),
            };
            instance(rng, root, &schema, depth - 1)
        })
        .collect();
    if out.len() > 1 && rng.chance(20) {
        let copy = out[0].clone();
        out.push(copy);
    }
    Value::Array(out)
}
