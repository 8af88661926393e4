//! Equality as JSON Schema defines it (`const`, `enum`, `uniqueItems`): numbers by value, so
//! `[1]` equals `[1.0]`, and objects whatever the order of their members.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

use super::numbers;

/// Whether `a` and `b` are the same JSON value.
pub(super) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => numbers::equal(x, y),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, value)| y.get(key).is_some_and(|other| equal(value, other)))
        }
        _ => false,
    }
}

/// Up to this many items, comparing every pair is cheaper than hashing them.
const PAIRWISE_UP_TO: usize = 16;

/// Whether no two items of `items` are equal.
pub(super) fn all_unique(items: &[Value]) -> bool {
    if items.len() <= PAIRWISE_UP_TO {
        return items
            .iter()
            .enumerate()
            .all(|(i, item)| items[i + 1..].iter().all(|other| !equal(item, other)));
    }
    // Equal values hash alike (see `hash_value`), so only items in one bucket are compared.
    let mut buckets: HashMap<u64, Vec<&Value>> = HashMap::with_capacity(items.len());
    for item in items {
        let bucket = buckets.entry(hash_value(item)).or_default();
        if bucket.iter().any(|other| equal(item, other)) {
            return false;
        }
        bucket.push(item);
    }
    true
}

/// A hash that agrees with [`equal`]: a number by its `f64` value (`1` and `1.0` alike, and
/// integers past 2^53 at worst share a bucket), an object whatever its members' order.
fn hash_value(value: &Value) -> u64 {
    let mut hasher = DefaultHasher::new();
    match value {
        Value::Null => 0_u8.hash(&mut hasher),
        Value::Bool(b) => (1_u8, b).hash(&mut hasher),
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(f64::INFINITY);
            // `-0.0 == 0.0`, so both hash as zero.
            let bits = if f == 0.0 { 0 } else { f.to_bits() };
            (2_u8, bits).hash(&mut hasher);
        }
        Value::String(s) => (3_u8, s).hash(&mut hasher),
        Value::Array(items) => {
            4_u8.hash(&mut hasher);
            for item in items {
                hash_value(item).hash(&mut hasher);
            }
        }
        Value::Object(map) => {
            // Summed, so the order of the members does not matter.
            let members = map.iter().fold(0_u64, |sum, (key, value)| {
                let mut member = DefaultHasher::new();
                (key, hash_value(value)).hash(&mut member);
                sum.wrapping_add(member.finish())
            });
            (5_u8, members).hash(&mut hasher);
        }
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn numbers_are_equal_by_value_at_any_depth() {
        assert!(equal(&json!([{"a": 1}]), &json!([{"a": 1.0}])));
        assert!(!equal(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!equal(&json!(1), &json!("1")));
    }

    #[test]
    fn uniqueness_is_by_value_short_and_long() {
        assert!(!all_unique(&[json!(1), json!(1.0)]));
        let mut long: Vec<Value> = (0..40).map(|i| json!({"n": i})).collect();
        assert!(all_unique(&long));
        long.push(json!({"n": 7.0}));
        assert!(!all_unique(&long));
    }
}
