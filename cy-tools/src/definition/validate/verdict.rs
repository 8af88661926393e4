//! Whether an instance matches a compiled [`Tree`]: a walk that stops at the first failure and
//! allocates nothing (but for `propertyNames`, which checks each name as a string value, and
//! `uniqueItems` over more than 16 items, which hashes them).

use std::cmp::Ordering;

use serde_json::{Map, Value};

use super::equality;
use super::numbers;
use super::pattern::Pattern;
use super::tree::{Keyword, Node, NodeId, Properties, Rest, Tree, Types};

/// Whether `value` matches the subschema `id`.
pub(super) fn is_valid(tree: &Tree, id: NodeId, value: &Value) -> bool {
    match &tree.nodes[id] {
        Node::Accept => true,
        Node::Reject => false,
        Node::Keywords(keywords) => keywords.iter().all(|k| keyword_holds(tree, k, value)),
    }
}

pub(super) fn has_type(types: Types, value: &Value) -> bool {
    let bits = match value {
        Value::Null => Types::NULL,
        Value::Bool(_) => Types::BOOLEAN,
        Value::Number(n) if numbers::is_integer(n) => Types::INTEGER | Types::NUMBER,
        Value::Number(_) => Types::NUMBER,
        Value::String(_) => Types::STRING,
        Value::Array(_) => Types::ARRAY,
        Value::Object(_) => Types::OBJECT,
    };
    types.0 & bits != 0
}

/// How `value` compares to `limit`, when it is a number.
fn against(value: &Value, limit: &serde_json::Number) -> Option<Ordering> {
    value.as_number().and_then(|n| numbers::compare(n, limit))
}

/// A string's length in code points, as the specification counts it; the byte length bounds it
/// from above, which often settles a bound without counting.
fn at_least_chars(s: &str, min: u64) -> bool {
    (s.len() as u64) >= min && (s.chars().count() as u64) >= min
}

fn at_most_chars(s: &str, max: u64) -> bool {
    (s.len() as u64) <= max || (s.chars().count() as u64) <= max
}

/// How many items of `items` match `node`, counting no further than `stop`.
fn count_matching(tree: &Tree, node: NodeId, items: &[Value], stop: u64) -> u64 {
    let mut count = 0;
    for item in items {
        if is_valid(tree, node, item) {
            count += 1;
            if count >= stop {
                break;
            }
        }
    }
    count
}

fn contains_holds(tree: &Tree, node: NodeId, min: u64, max: Option<u64>, items: &[Value]) -> bool {
    let count = count_matching(tree, node, items, max.map_or(min, |m| m.saturating_add(1)));
    count >= min && max.is_none_or(|m| count <= m)
}

fn members_hold(
    tree: &Tree,
    object: &Map<String, Value>,
    properties: &Properties,
    patterns: &[(Pattern, NodeId)],
    rest: &Rest,
) -> bool {
    object.iter().all(|(name, value)| {
        let mut matched = false;
        let patterns_hold = patterns.iter().all(|(pattern, node)| {
            !pattern.is_match(name) || {
                matched = true;
                is_valid(tree, *node, value)
            }
        });
        patterns_hold
            && match properties.get(name) {
                Some(node) => is_valid(tree, node, value),
                None => {
                    matched
                        || match rest {
                            Rest::Refuse => false,
                            Rest::Check(node) => is_valid(tree, *node, value),
                        }
                }
            }
    })
}

pub(super) fn keyword_holds(tree: &Tree, keyword: &Keyword, value: &Value) -> bool {
    match (keyword, value) {
        (Keyword::Type(types), _) => has_type(*types, value),
        (Keyword::Const(expected), _) => equality::equal(value, expected),
        (Keyword::Enum(options), _) => options
            .as_array()
            .is_some_and(|options| options.iter().any(|o| equality::equal(value, o))),
        (Keyword::Minimum(limit), _) => against(value, limit) != Some(Ordering::Less),
        (Keyword::Maximum(limit), _) => against(value, limit) != Some(Ordering::Greater),
        (Keyword::ExclusiveMinimum(limit), Value::Number(_)) => {
            against(value, limit) == Some(Ordering::Greater)
        }
        (Keyword::ExclusiveMaximum(limit), Value::Number(_)) => {
            against(value, limit) == Some(Ordering::Less)
        }
        (Keyword::MultipleOf(divisor), Value::Number(n)) => divisor.divides(n),
        (Keyword::MinLength(min), Value::String(s)) => at_least_chars(s, *min),
        (Keyword::MaxLength(max), Value::String(s)) => at_most_chars(s, *max),
        (Keyword::MinItems(min), Value::Array(items)) => items.len() as u64 >= *min,
        (Keyword::MaxItems(max), Value::Array(items)) => items.len() as u64 <= *max,
        (Keyword::MinProperties(min), Value::Object(map)) => map.len() as u64 >= *min,
        (Keyword::MaxProperties(max), Value::Object(map)) => map.len() as u64 <= *max,
        (Keyword::Required(names), Value::Object(map)) => names.iter().all(|n| map.contains_key(n)),
        (Keyword::DependentRequired(dependencies), Value::Object(map)) => {
            dependencies.iter().all(|(name, names)| {
                !map.contains_key(name) || names.iter().all(|n| map.contains_key(n))
            })
        }
        (Keyword::Pattern(pattern), Value::String(s)) => pattern.is_match(s),
        (Keyword::UniqueItems, Value::Array(items)) => equality::all_unique(items),
        (
            Keyword::Properties {
                properties,
                required,
            },
            Value::Object(map),
        ) => {
            // Whichever side is shorter is walked, the other looked up.
            required.iter().all(|n| map.contains_key(n))
                && if map.len() < properties.len() {
                    map.iter().all(|(name, v)| {
                        properties
                            .get(name)
                            .is_none_or(|node| is_valid(tree, node, v))
                    })
                } else {
                    properties
                        .iter()
                        .all(|(name, node)| map.get(name).is_none_or(|v| is_valid(tree, *node, v)))
                }
        }
        (Keyword::PatternProperties(patterns), Value::Object(map)) => {
            map.iter().all(|(name, value)| {
                patterns
                    .iter()
                    .all(|(p, node)| !p.is_match(name) || is_valid(tree, *node, value))
            })
        }
        (
            Keyword::Members {
                properties,
                patterns,
                rest,
                required,
            },
            Value::Object(map),
        ) => {
            members_hold(tree, map, properties, patterns, rest)
                && required
                    .as_ref()
                    .is_none_or(|(name, declared)| *declared && map.contains_key(name))
        }
        (Keyword::NoMembers | Keyword::NoNames, Value::Object(map)) => map.is_empty(),
        (Keyword::PropertyNames(node), Value::Object(map)) => map
            .keys()
            .all(|name| is_valid(tree, *node, &Value::String(name.clone()))),
        (Keyword::Items { skip, node }, Value::Array(items)) => items
            .iter()
            .skip(*skip)
            .all(|item| is_valid(tree, *node, item)),
        (Keyword::ArrayShape { min, max, node }, _) => value.as_array().is_some_and(|items| {
            let len = items.len() as u64;
            len >= *min && len <= *max && items.iter().all(|item| is_valid(tree, *node, item))
        }),
        (Keyword::PrefixItems(nodes), Value::Array(items)) => items
            .iter()
            .zip(nodes.iter())
            .all(|(item, node)| is_valid(tree, *node, item)),
        (Keyword::Contains { node, min, max }, Value::Array(items)) => {
            contains_holds(tree, *node, *min, *max, items)
        }
        (Keyword::AllOf(nodes), _) => nodes.iter().all(|n| is_valid(tree, *n, value)),
        (Keyword::AnyOf(nodes), _) => nodes.iter().any(|n| is_valid(tree, *n, value)),
        (Keyword::OneOf(nodes), _) => {
            nodes
                .iter()
                .filter(|n| is_valid(tree, **n, value))
                .take(2)
                .count()
                == 1
        }
        (Keyword::Not { node, .. }, _) => !is_valid(tree, *node, value),
        (
            Keyword::If {
                condition,
                then,
                otherwise,
            },
            _,
        ) => {
            let branch = if is_valid(tree, *condition, value) {
                then
            } else {
                otherwise
            };
            branch.is_none_or(|node| is_valid(tree, node, value))
        }
        (Keyword::Ref(node), _) => is_valid(tree, *node, value),
        // Keywords about another type hold for this one.
        _ => true,
    }
}
