//! Walking an instance against a compiled [`Tree`]: first whether it is valid, which allocates
//! nothing, and only for an invalid one, what is wrong where, in jsonschema's order.

use std::cmp::Ordering;

use serde_json::{Map, Value};

use super::equality;
use super::messages as say;
use super::numbers;
use super::pattern::Pattern;
use super::tree::{Keyword, Node, NodeId, Rest, Tree, Types};

/// Below this many declared properties jsonschema may walk them rather than the members (see
/// [`Collector::properties`]); from it on, always the members.
const SMALL_PROPERTIES: usize = 15;

/// Where in the instance a violation is, as a chain of borrowed steps: nothing is built unless
/// a violation is reported.
#[derive(Clone, Copy)]
pub(super) enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    /// `items[0].name`, the form the typed path uses: an all-digit step is an index.
    pub(super) fn render(&self) -> String {
        let mut steps = Vec::new();
        let mut at = self;
        loop {
            match at {
                Path::Root => break,
                Path::Key(parent, key) => {
                    steps.push(Step::Key(key));
                    at = parent;
                }
                Path::Index(parent, index) => {
                    steps.push(Step::Index(*index));
                    at = parent;
                }
            }
        }
        let mut out = String::new();
        for step in steps.iter().rev() {
            match step {
                Step::Index(index) => out.push_str(&format!("[{index}]")),
                Step::Key(key) if !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit()) => {
                    out.push_str(&format!("[{key}]"));
                }
                Step::Key(key) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                }
            }
        }
        out
    }
}

enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// Whether `value` matches the subschema `id`.
pub(super) fn is_valid(tree: &Tree, id: NodeId, value: &Value) -> bool {
    match &tree.nodes[id] {
        Node::Accept => true,
        Node::Reject => false,
        Node::Keywords(keywords) => keywords.iter().all(|k| keyword_holds(tree, k, value)),
    }
}

fn has_type(types: Types, value: &Value) -> bool {
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

fn declared(properties: &[(String, NodeId)], name: &str) -> Option<NodeId> {
    properties
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, node)| *node)
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
    properties: &[(String, NodeId)],
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
            && match declared(properties, name) {
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

fn keyword_holds(tree: &Tree, keyword: &Keyword, value: &Value) -> bool {
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
            required.iter().all(|n| map.contains_key(n))
                && properties
                    .iter()
                    .all(|(name, node)| map.get(name).is_none_or(|v| is_valid(tree, *node, v)))
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
                && required.as_ref().is_none_or(|name| {
                    map.contains_key(name) && declared(properties, name).is_some()
                })
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

/// A violation: where (rendered) and what.
pub(super) struct Violation {
    pub(super) path: String,
    pub(super) message: String,
}

/// The violations of `value`, in report order, at most `limit` of them.
pub(super) fn violations(tree: &Tree, value: &Value, limit: usize) -> Vec<Violation> {
    let mut collector = Collector {
        tree,
        found: Vec::new(),
        limit,
    };
    collector.node(tree.root, value, &Path::Root);
    collector.found
}

pub(super) struct Collector<'t> {
    pub(super) tree: &'t Tree,
    pub(super) found: Vec<Violation>,
    pub(super) limit: usize,
}

impl Collector<'_> {
    pub(super) fn full(&self) -> bool {
        self.found.len() >= self.limit
    }

    /// Records a violation; the message is only written while there is room for it.
    pub(super) fn report(&mut self, path: &Path<'_>, message: impl FnOnce() -> String) {
        if !self.full() {
            self.found.push(Violation {
                path: path.render(),
                message: message(),
            });
        }
    }

    pub(super) fn node(&mut self, id: NodeId, value: &Value, path: &Path<'_>) {
        match &self.tree.nodes[id] {
            Node::Accept => {}
            Node::Reject => self.report(path, || say::refused(value)),
            Node::Keywords(keywords) => {
                for keyword in keywords {
                    if self.full() {
                        return;
                    }
                    if !keyword_holds(self.tree, keyword, value) {
                        self.keyword(keyword, value, path);
                    }
                }
            }
        }
    }

    fn keyword(&mut self, keyword: &Keyword, value: &Value, path: &Path<'_>) {
        let tree = self.tree;
        match (keyword, value) {
            (Keyword::Type(types), _) => self.report(path, || say::type_mismatch(value, *types)),
            (Keyword::Const(expected), _) => self.report(path, || say::not_const(expected)),
            (Keyword::Enum(options), _) => self.report(path, || say::not_in_enum(value, options)),
            (Keyword::Minimum(limit), _) => self.report(path, || say::below_minimum(value, limit)),
            (Keyword::Maximum(limit), _) => self.report(path, || say::above_maximum(value, limit)),
            (Keyword::ExclusiveMinimum(limit), _) => {
                self.report(path, || say::not_above_exclusive_minimum(value, limit));
            }
            (Keyword::ExclusiveMaximum(limit), _) => {
                self.report(path, || say::not_below_exclusive_maximum(value, limit));
            }
            (Keyword::MultipleOf(divisor), _) => {
                self.report(path, || say::not_multiple(value, divisor.0));
            }
            (Keyword::MinLength(min), _) => self.report(path, || say::too_short(value, *min)),
            (Keyword::MaxLength(max), _) => self.report(path, || say::too_long(value, *max)),
            (Keyword::MinItems(min), _) => self.report(path, || say::too_few_items(value, *min)),
            (Keyword::MaxItems(max), _) => self.report(path, || say::too_many_items(value, *max)),
            (Keyword::MinProperties(min), _) => {
                self.report(path, || say::too_few_properties(value, *min));
            }
            (Keyword::MaxProperties(max), _) => {
                self.report(path, || say::too_many_properties(value, *max));
            }
            (Keyword::Required(names), Value::Object(map)) => self.missing(names, map, path),
            (Keyword::DependentRequired(dependencies), Value::Object(map)) => {
                for (name, names) in dependencies.iter() {
                    if map.contains_key(name) {
                        self.missing(names, map, path);
                    }
                }
            }
            (Keyword::Pattern(pattern), _) => {
                self.report(path, || say::no_match(value, pattern.source()));
            }
            (Keyword::UniqueItems, _) => self.report(path, || say::not_unique(value)),
            (
                Keyword::Properties {
                    properties,
                    required,
                },
                Value::Object(map),
            ) => {
                self.missing(required, map, path);
                self.properties(properties, map, path);
            }
            (Keyword::PatternProperties(patterns), Value::Object(map)) => {
                self.pattern_properties(patterns, map, path);
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
                self.members(properties, patterns, rest, map, path);
                if let Some(name) = required
                    && !(map.contains_key(name) && declared(properties, name).is_some())
                {
                    self.report(path, || say::missing(name));
                }
            }
            (Keyword::NoMembers, Value::Object(map)) => {
                if let Some((_, first)) = map.iter().next() {
                    // jsonschema reports the first member's value, at the object.
                    self.report(path, || say::refused(first));
                }
            }
            (Keyword::NoNames, _) => self.report(path, || say::refused(value)),
            (Keyword::PropertyNames(node), Value::Object(map)) => {
                for name in map.keys() {
                    // A name's violations are reported at the object.
                    self.node(*node, &Value::String(name.clone()), path);
                }
            }
            (Keyword::Items { skip, node }, Value::Array(items)) => {
                for (index, item) in items.iter().enumerate().skip(*skip) {
                    self.node(*node, item, &Path::Index(path, index));
                }
            }
            (Keyword::ArrayShape { min, max, node }, _) => {
                let Value::Array(items) = value else {
                    self.report(path, || say::type_mismatch(value, Types(Types::ARRAY)));
                    return;
                };
                if (items.len() as u64) < *min {
                    self.report(path, || say::too_few_items(value, *min));
                }
                if items.len() as u64 > *max {
                    self.report(path, || say::too_many_items(value, *max));
                }
                for (index, item) in items.iter().enumerate() {
                    self.node(*node, item, &Path::Index(path, index));
                }
            }
            (Keyword::PrefixItems(nodes), Value::Array(items)) => {
                for (index, (item, node)) in items.iter().zip(nodes.iter()).enumerate() {
                    self.node(*node, item, &Path::Index(path, index));
                }
            }
            (Keyword::Contains { .. }, _) => self.report(path, || say::none_contained(value)),
            (Keyword::AllOf(nodes), _) => {
                for node in nodes.iter() {
                    self.node(*node, value, path);
                }
            }
            (Keyword::AnyOf(_), _) => self.report(path, || say::no_branch(value, "anyOf")),
            (Keyword::OneOf(nodes), _) => {
                let valid = nodes
                    .iter()
                    .filter(|n| is_valid(tree, **n, value))
                    .take(2)
                    .count();
                if valid == 0 {
                    self.report(path, || say::no_branch(value, "oneOf"));
                } else {
                    self.report(path, || say::several_branches(value));
                }
            }
            (Keyword::Not { schema, .. }, _) => self.report(path, || say::negated(schema, value)),
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
                if let Some(node) = branch {
                    self.node(*node, value, path);
                }
            }
            (Keyword::Ref(node), _) => self.node(*node, value, path),
            _ => {}
        }
    }

    fn missing(&mut self, names: &[String], map: &Map<String, Value>, path: &Path<'_>) {
        for name in names {
            if !map.contains_key(name) {
                self.report(path, || say::missing(name));
            }
        }
    }

    /// `properties` alone: jsonschema walks the members, or, past four per declared property
    /// (in a small `properties`), the declared names, which orders the violations. With
    /// `serde_json`'s default sorted maps both orders are the same.
    fn properties(
        &mut self,
        properties: &[(String, NodeId)],
        map: &Map<String, Value>,
        path: &Path<'_>,
    ) {
        if properties.len() < SMALL_PROPERTIES && map.len() > properties.len().saturating_mul(4) {
            for (name, node) in properties {
                if let Some(value) = map.get(name) {
                    self.node(*node, value, &Path::Key(path, name));
                }
            }
            return;
        }
        for (name, value) in map {
            if let Some(node) = declared(properties, name) {
                self.node(node, value, &Path::Key(path, name));
            }
        }
    }

    /// `patternProperties` alone: one pattern by member, several by pattern then member.
    fn pattern_properties(
        &mut self,
        patterns: &[(Pattern, NodeId)],
        map: &Map<String, Value>,
        path: &Path<'_>,
    ) {
        for (pattern, node) in patterns {
            for (name, value) in map {
                if pattern.is_match(name) {
                    self.node(*node, value, &Path::Key(path, name));
                }
            }
        }
    }

    /// `additionalProperties` with the `properties` and `patternProperties` beside it, member by
    /// member; the unexpected ones are reported together, after the members' own violations.
    fn members(
        &mut self,
        properties: &[(String, NodeId)],
        patterns: &[(Pattern, NodeId)],
        rest: &Rest,
        map: &Map<String, Value>,
        path: &Path<'_>,
    ) {
        let mut unexpected = Vec::new();
        for (name, value) in map {
            let here = Path::Key(path, name);
            let declared_node = declared(properties, name);
            if let Some(node) = declared_node {
                self.node(node, value, &here);
            }
            let mut matched = false;
            for (pattern, node) in patterns {
                if pattern.is_match(name) {
                    matched = true;
                    self.node(*node, value, &here);
                }
            }
            if declared_node.is_none() && !matched {
                match rest {
                    Rest::Refuse => unexpected.push(name.as_str()),
                    Rest::Check(node) => self.node(*node, value, &here),
                }
            }
        }
        if !unexpected.is_empty() {
            self.report(path, || say::unexpected(&unexpected));
        }
    }
}
