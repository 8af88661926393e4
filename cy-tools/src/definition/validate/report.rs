//! What is wrong with an invalid instance, and where: the violations of a compiled [`Tree`], in
//! the order jsonschema reports them.

use serde_json::{Map, Value};

use super::messages as say;
use super::path::Path;
use super::pattern::Pattern;
use super::tree::{Keyword, Node, NodeId, Properties, Rest, Tree, Types};
use super::verdict::{is_valid, keyword_holds};

/// Below this many declared properties jsonschema may walk them rather than the members (see
/// [`Collector::properties`]); from it on, always the members.
const SMALL_PROPERTIES: usize = 15;

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

/// Gathers violations in report order, and stops looking once it holds `limit`.
struct Collector<'t> {
    tree: &'t Tree,
    found: Vec<Violation>,
    limit: usize,
}

impl Collector<'_> {
    fn full(&self) -> bool {
        self.found.len() >= self.limit
    }

    /// Records a violation; the message is only written while there is room for it.
    fn report(&mut self, path: &Path<'_>, message: impl FnOnce() -> String) {
        if !self.full() {
            self.found.push(Violation {
                path: path.render(),
                message: message(),
            });
        }
    }

    /// The violations of `value` against the subschema `id`.
    fn node(&mut self, id: NodeId, value: &Value, path: &Path<'_>) {
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
                if let Some((name, declared)) = required
                    && !(*declared && map.contains_key(name))
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
    fn properties(&mut self, properties: &Properties, map: &Map<String, Value>, path: &Path<'_>) {
        if properties.len() < SMALL_PROPERTIES && map.len() > properties.len().saturating_mul(4) {
            for (name, node) in properties.iter() {
                if let Some(value) = map.get(name) {
                    self.node(*node, value, &Path::Key(path, name));
                }
            }
            return;
        }
        for (name, value) in map {
            if let Some(node) = properties.get(name) {
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
        properties: &Properties,
        patterns: &[(Pattern, NodeId)],
        rest: &Rest,
        map: &Map<String, Value>,
        path: &Path<'_>,
    ) {
        let mut unexpected = Vec::new();
        for (name, value) in map {
            let here = Path::Key(path, name);
            let declared_node = properties.get(name);
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
