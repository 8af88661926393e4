//! The compiled form of a schema: one [`Node`] per subschema in an arena, so a `$ref` is an
//! index and a recursive schema is a cycle of indices, not an endless tree.

use serde_json::{Number, Value};

use super::numbers::MultipleOf;
use super::pattern::Pattern;

/// A subschema's index in [`Tree::nodes`].
pub(super) type NodeId = usize;

/// A compiled schema document.
#[derive(Debug)]
pub(super) struct Tree {
    pub(super) nodes: Vec<Node>,
    pub(super) root: NodeId,
}

/// One subschema.
#[derive(Debug)]
pub(super) enum Node {
    /// `true`, `{}`, or a schema of annotations only.
    Accept,
    /// `false`.
    Reject,
    /// The keywords that check something, in the order their violations are reported.
    Keywords(Box<[Keyword]>),
}

/// The JSON types `type` names, as a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Types(pub(super) u8);

impl Types {
    /// Type names in the order messages list them (that of the bits).
    pub(super) const NAMES: [&'static str; 7] = [
        "null", "boolean", "integer", "number", "string", "array", "object",
    ];
    pub(super) const NULL: u8 = 1;
    pub(super) const BOOLEAN: u8 = 1 << 1;
    pub(super) const INTEGER: u8 = 1 << 2;
    pub(super) const NUMBER: u8 = 1 << 3;
    pub(super) const STRING: u8 = 1 << 4;
    pub(super) const ARRAY: u8 = 1 << 5;
    pub(super) const OBJECT: u8 = 1 << 6;

    /// The bit of a type name, or `None` for a name that is not a JSON type.
    pub(super) fn bit(name: &str) -> Option<u8> {
        Types::NAMES
            .iter()
            .position(|n| *n == name)
            .map(|index| 1 << index)
    }

    /// The names in the set, in bit order.
    pub(super) fn names(self) -> impl Iterator<Item = &'static str> {
        Types::NAMES
            .iter()
            .enumerate()
            .filter(move |(index, _)| self.0 & (1 << index) != 0)
            .map(|(_, name)| *name)
    }
}

/// `properties`: in the schema's order, which jsonschema may walk them in, and found by name
/// without comparing every one.
#[derive(Debug, Default)]
pub(super) struct Properties {
    entries: Box<[(String, NodeId)]>,
    /// Indices into `entries`, sorted by name.
    by_name: Box<[usize]>,
}

impl Properties {
    /// Up to this many, a scan finds a name as fast as a search.
    const SCANNED: usize = 8;

    pub(super) fn new(entries: Box<[(String, NodeId)]>) -> Properties {
        let mut by_name: Vec<usize> = (0..entries.len()).collect();
        by_name.sort_by(|a, b| entries[*a].0.cmp(&entries[*b].0));
        Properties {
            entries,
            by_name: by_name.into_boxed_slice(),
        }
    }

    /// The subschema of the property `name`, if it is declared.
    pub(super) fn get(&self, name: &str) -> Option<NodeId> {
        if self.entries.len() <= Properties::SCANNED {
            return self
                .entries
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, node)| *node);
        }
        self.by_name
            .binary_search_by(|i| self.entries[*i].0.as_str().cmp(name))
            .ok()
            .map(|found| self.entries[self.by_name[found]].1)
    }

    /// The properties in the schema's order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &(String, NodeId)> {
        self.entries.iter()
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Where `additionalProperties` sends a member neither `properties` nor `patternProperties`
/// names.
#[derive(Debug)]
pub(super) enum Rest {
    /// `false`: the member is reported as unexpected.
    Refuse,
    /// A schema the member is checked against.
    Check(NodeId),
}

/// One keyword, ready to check. Some stand for several keywords of one schema object
/// (`Members`, `ArrayShape`): they report their violations where jsonschema reports them, which
/// the messages the model sees depend on.
#[derive(Debug)]
pub(super) enum Keyword {
    Type(Types),
    Const(Value),
    /// The `enum` array, kept whole for the message.
    Enum(Value),
    Minimum(Number),
    Maximum(Number),
    ExclusiveMinimum(Number),
    ExclusiveMaximum(Number),
    MultipleOf(MultipleOf),
    MinLength(u64),
    MaxLength(u64),
    MinItems(u64),
    MaxItems(u64),
    MinProperties(u64),
    MaxProperties(u64),
    Required(Box<[String]>),
    DependentRequired(Box<[(String, Box<[String]>)]>),
    Pattern(Pattern),
    UniqueItems,
    /// `properties` beside no closing `additionalProperties`; `required` is the `required` of
    /// two names that is checked (and reported) with it, first.
    Properties {
        properties: Properties,
        required: Box<[String]>,
    },
    PatternProperties(Box<[(Pattern, NodeId)]>),
    /// `additionalProperties` (`false` or a schema) with the `properties` and
    /// `patternProperties` beside it, checked in one walk over the members; `required` is a
    /// `required` of one name, reported after the walk, and whether `properties` declares it
    /// (jsonschema counts a required name as present only when it does).
    Members {
        properties: Properties,
        patterns: Box<[(Pattern, NodeId)]>,
        rest: Rest,
        required: Option<(String, bool)>,
    },
    /// `additionalProperties: false` alone: any member is refused.
    NoMembers,
    PropertyNames(NodeId),
    /// `propertyNames: false`: any member is refused, and the object reported.
    NoNames,
    /// `items` as a schema, after the first `skip` items (`prefixItems`' share).
    Items {
        skip: usize,
        node: NodeId,
    },
    /// `type: "array"` with `items` and the optional `minItems` and `maxItems` beside it.
    ArrayShape {
        min: u64,
        max: u64,
        node: NodeId,
    },
    PrefixItems(Box<[NodeId]>),
    Contains {
        node: NodeId,
        min: u64,
        max: Option<u64>,
    },
    AllOf(Box<[NodeId]>),
    AnyOf(Box<[NodeId]>),
    OneOf(Box<[NodeId]>),
    /// `not`, with its schema for the message.
    Not {
        node: NodeId,
        schema: Value,
    },
    If {
        condition: NodeId,
        then: Option<NodeId>,
        otherwise: Option<NodeId>,
    },
    Ref(NodeId),
}

impl Keyword {
    /// The order of report: cheap checks of the value itself, then its size, then its members
    /// and items, then the applicators. jsonschema runs (and reports) a schema's keywords in this
    /// order whatever their order in the schema.
    pub(super) fn rank(&self) -> u8 {
        match self {
            Keyword::Type(_) => 1,
            Keyword::Const(_) => 5,
            Keyword::Enum(_) => 6,
            Keyword::Minimum(_) => 10,
            Keyword::Maximum(_) => 11,
            Keyword::ExclusiveMinimum(_) => 12,
            Keyword::ExclusiveMaximum(_) => 13,
            Keyword::MultipleOf(_) => 14,
            Keyword::MinLength(_) => 20,
            Keyword::MaxLength(_) => 21,
            Keyword::MinItems(_) => 22,
            Keyword::MaxItems(_) => 23,
            Keyword::MinProperties(_) => 24,
            Keyword::MaxProperties(_) => 25,
            Keyword::Required(_) => 26,
            Keyword::DependentRequired(_) => 27,
            Keyword::Pattern(_) => 30,
            Keyword::UniqueItems => 35,
            Keyword::Properties { .. } => 40,
            Keyword::PatternProperties(_) => 41,
            Keyword::Members { .. } | Keyword::NoMembers => 42,
            Keyword::PropertyNames(_) | Keyword::NoNames => 43,
            Keyword::Items { .. } | Keyword::ArrayShape { .. } => 44,
            Keyword::PrefixItems(_) => 45,
            Keyword::Contains { .. } => 47,
            Keyword::AllOf(_) => 50,
            Keyword::AnyOf(_) => 51,
            Keyword::OneOf(_) => 52,
            Keyword::Not { .. } => 53,
            Keyword::If { .. } => 54,
            Keyword::Ref(_) => 70,
        }
    }

    /// The subschemas checked against the very value this keyword checks, not a member or an
    /// item of it: a cycle through these alone would never end.
    pub(super) fn in_place(&self) -> Vec<NodeId> {
        match self {
            Keyword::AllOf(nodes) | Keyword::AnyOf(nodes) | Keyword::OneOf(nodes) => nodes.to_vec(),
            Keyword::Not { node, .. } | Keyword::Ref(node) => vec![*node],
            Keyword::If {
                condition,
                then,
                otherwise,
            } => std::iter::once(*condition)
                .chain(*then)
                .chain(*otherwise)
                .collect(),
            _ => Vec::new(),
        }
    }
}
