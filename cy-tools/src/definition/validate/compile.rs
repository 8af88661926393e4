//! Turning a schema `Value` into a [`Tree`] once, refusing what it cannot check faithfully.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::numbers::MultipleOf;
use super::operands::{bad_pattern, expect_kind, names, number, size, types};
use super::pattern::Pattern;
use super::refs;
use super::shape::Shape;
use super::tree::{Keyword, Node, NodeId, Properties, Rest, Tree};

/// Keywords that check something in some JSON Schema draft and that this validator does not
/// implement, with what to write instead. Accepting them silently would let arguments through
/// that the schema shown to the model forbids.
const REFUSED: &[(&str, &str)] = &[
    ("$dynamicRef", "use `$ref` to a `#/$defs/...` entry"),
    ("$recursiveRef", "use `$ref` to a `#/$defs/...` entry"),
    (
        "unevaluatedProperties",
        "list the properties and use `additionalProperties` beside them",
    ),
    ("unevaluatedItems", "use `items` (after `prefixItems`)"),
    (
        "dependentSchemas",
        "use `if`/`then`, or `dependentRequired` when only names are required",
    ),
    (
        "dependencies",
        "use `dependentRequired` (or `if`/`then` for schemas)",
    ),
    (
        "additionalItems",
        "use `items` after `prefixItems`, as draft 2020-12 does",
    ),
];

/// Annotation keywords with the JSON type the draft 2020-12 meta-schema gives their value;
/// they check nothing.
const ANNOTATIONS: &[(&str, &str)] = &[
    ("$schema", "string"),
    ("$anchor", "string"),
    ("$dynamicAnchor", "string"),
    ("$comment", "string"),
    ("title", "string"),
    ("description", "string"),
    ("format", "string"),
    ("contentEncoding", "string"),
    ("contentMediaType", "string"),
    ("deprecated", "boolean"),
    ("readOnly", "boolean"),
    ("writeOnly", "boolean"),
    ("examples", "array"),
    ("$vocabulary", "object"),
];

/// Compiles `schema`, or says what in it cannot be checked and what to write instead.
pub(super) fn compile(schema: &Value) -> Result<Tree, String> {
    let mut compiler = Compiler {
        root: schema,
        nodes: Vec::new(),
        by_pointer: HashMap::new(),
        refs: Vec::new(),
    };
    let root = compiler.node(schema, "")?;
    if let Some(cycle) = refs::in_place_cycle(&compiler.nodes) {
        let (pointer, reference) = compiler
            .refs
            .iter()
            .find(|(id, _, _)| cycle.contains(id))
            .map(|(_, pointer, reference)| (pointer.as_str(), reference.as_str()))
            .unwrap_or_default();
        return Err(format!(
            "`$ref` `{reference}` at `#{pointer}` leads back to itself without going into a property or an item, so checking a value against it would never end; reach the recursion through `properties`, `items` or another keyword that checks a part of the value"
        ));
    }
    Ok(Tree {
        nodes: compiler.nodes,
        root,
    })
}

struct Compiler<'s> {
    root: &'s Value,
    nodes: Vec<Node>,
    /// Subschemas compiled so far by JSON pointer, so a `$ref` target is compiled once and a
    /// recursive reference finds its own node.
    by_pointer: HashMap<String, NodeId>,
    /// Each `$ref`: the node holding it, its pointer and its text, for the cycle message.
    refs: Vec<(NodeId, String, String)>,
}

impl<'s> Compiler<'s> {
    /// The node of the subschema at `pointer`, compiling it on first sight.
    fn node(&mut self, schema: &'s Value, pointer: &str) -> Result<NodeId, String> {
        if let Some(id) = self.by_pointer.get(pointer) {
            return Ok(*id);
        }
        let id = self.nodes.len();
        self.nodes.push(Node::Accept);
        self.by_pointer.insert(pointer.to_string(), id);
        let node = match schema {
            Value::Bool(true) => Node::Accept,
            Value::Bool(false) => Node::Reject,
            Value::Object(map) => {
                let keywords = self.keywords(map, pointer, id)?;
                if keywords.is_empty() {
                    Node::Accept
                } else {
                    Node::Keywords(keywords.into_boxed_slice())
                }
            }
            other => {
                return Err(format!(
                    "the subschema at `#{pointer}` is `{other}`; a schema must be an object or a boolean"
                ));
            }
        };
        self.nodes[id] = node;
        Ok(id)
    }

    /// The subschema under `key` of the schema at `pointer`.
    fn child(&mut self, schema: &'s Value, pointer: &str, key: &str) -> Result<NodeId, String> {
        self.node(schema, &format!("{pointer}/{}", refs::escape(key)))
    }

    /// The subschemas of an array keyword (`allOf`, `prefixItems`), which needs at least one.
    fn list(&mut self, value: &'s Value, at: &str) -> Result<Box<[NodeId]>, String> {
        match value {
            Value::Array(items) if !items.is_empty() => items
                .iter()
                .enumerate()
                .map(|(index, item)| self.child(item, at, &index.to_string()))
                .collect(),
            _ => Err(format!(
                "`#{at}` must be a non-empty array of schemas, got `{value}`"
            )),
        }
    }

    /// The subschemas of an object keyword (`properties`, `$defs`), by name.
    fn named(&mut self, value: &'s Value, at: &str) -> Result<Box<[(String, NodeId)]>, String> {
        let Value::Object(map) = value else {
            return Err(format!(
                "`#{at}` must be an object of schemas, got `{value}`"
            ));
        };
        map.iter()
            .map(|(name, schema)| Ok((name.clone(), self.child(schema, at, name)?)))
            .collect()
    }

    /// `patternProperties`, each pattern compiled.
    fn patterns(&mut self, value: &'s Value, at: &str) -> Result<Box<[(Pattern, NodeId)]>, String> {
        self.named(value, at)?
            .into_vec()
            .into_iter()
            .map(|(source, node)| {
                let pattern =
                    Pattern::new(&source).map_err(|why| bad_pattern(&source, at, &why))?;
                Ok((pattern, node))
            })
            .collect()
    }

    /// The checking keywords of one schema object, in report order.
    fn keywords(
        &mut self,
        map: &'s Map<String, Value>,
        pointer: &str,
        id: NodeId,
    ) -> Result<Vec<Keyword>, String> {
        let shape = Shape::of(map);
        let mut keywords = Vec::new();
        for (key, value) in map {
            let at = format!("{pointer}/{}", refs::escape(key));
            if let Some((_, instead)) = REFUSED.iter().find(|(name, _)| name == key) {
                return Err(format!(
                    "`{key}` (at `#{at}`) is not supported by this validator; {instead}"
                ));
            }
            if let Some((_, kind)) = ANNOTATIONS.iter().find(|(name, _)| name == key) {
                expect_kind(value, kind, &at)?;
                continue;
            }
            let keyword = match key.as_str() {
                "type" => {
                    let types = types(value, &at)?;
                    (!shape.array).then_some(Keyword::Type(types))
                }
                "const" => Some(Keyword::Const(value.clone())),
                "enum" => {
                    expect_kind(value, "array", &at)?;
                    Some(Keyword::Enum(value.clone()))
                }
                "minimum" => Some(Keyword::Minimum(number(value, &at)?)),
                "maximum" => Some(Keyword::Maximum(number(value, &at)?)),
                "exclusiveMinimum" => Some(Keyword::ExclusiveMinimum(number(value, &at)?)),
                "exclusiveMaximum" => Some(Keyword::ExclusiveMaximum(number(value, &at)?)),
                "multipleOf" => {
                    let divisor = number(value, &at)?.as_f64().unwrap_or_default();
                    if divisor <= 0.0 {
                        return Err(format!(
                            "`multipleOf` at `#{at}` is `{value}`; it must be greater than 0"
                        ));
                    }
                    Some(Keyword::MultipleOf(MultipleOf(divisor)))
                }
                "minLength" => Some(Keyword::MinLength(size(value, &at)?)),
                "maxLength" => Some(Keyword::MaxLength(size(value, &at)?)),
                "minItems" => Some(Keyword::MinItems(size(value, &at)?)).filter(|_| !shape.array),
                "maxItems" => Some(Keyword::MaxItems(size(value, &at)?)).filter(|_| !shape.array),
                "minProperties" => Some(Keyword::MinProperties(size(value, &at)?)),
                "maxProperties" => Some(Keyword::MaxProperties(size(value, &at)?)),
                "minContains" | "maxContains" => {
                    size(value, &at)?;
                    None
                }
                "required" => {
                    let names = names(value, &at)?;
                    (!shape.fuses_required(names.len())).then_some(Keyword::Required(names))
                }
                "dependentRequired" => {
                    let Value::Object(dependencies) = value else {
                        return Err(format!(
                            "`#{at}` must be an object of name lists, got `{value}`"
                        ));
                    };
                    let dependencies = dependencies
                        .iter()
                        .map(|(name, list)| {
                            Ok((
                                name.clone(),
                                names(list, &format!("{at}/{}", refs::escape(name)))?,
                            ))
                        })
                        .collect::<Result<_, String>>()?;
                    Some(Keyword::DependentRequired(dependencies))
                }
                "pattern" => {
                    let Value::String(source) = value else {
                        return Err(format!("`#{at}` must be a string, got `{value}`"));
                    };
                    let pattern =
                        Pattern::new(source).map_err(|why| bad_pattern(source, &at, &why))?;
                    Some(Keyword::Pattern(pattern))
                }
                "uniqueItems" => {
                    expect_kind(value, "boolean", &at)?;
                    (value == &Value::Bool(true)).then_some(Keyword::UniqueItems)
                }
                "properties" => {
                    let properties = self.named(value, &at)?;
                    (!shape.closed).then(|| Keyword::Properties {
                        properties: Properties::new(properties),
                        required: shape.fused_pair(map),
                    })
                }
                "patternProperties" => {
                    let patterns = self.patterns(value, &at)?;
                    (!shape.closed).then_some(Keyword::PatternProperties(patterns))
                }
                "additionalProperties" => self.members(map, value, pointer, &at)?,
                "propertyNames" => {
                    let node = self.node(value, &at)?;
                    match value {
                        Value::Bool(true) => None,
                        Value::Bool(false) => Some(Keyword::NoNames),
                        _ => Some(Keyword::PropertyNames(node)),
                    }
                }
                "items" => self.items(map, value, &shape, pointer, &at)?,
                "prefixItems" => Some(Keyword::PrefixItems(self.list(value, &at)?)),
                "contains" => Some(Keyword::Contains {
                    node: self.node(value, &at)?,
                    min: map
                        .get("minContains")
                        .map_or(Ok(1), |v| size(v, &format!("{pointer}/minContains")))?,
                    max: map
                        .get("maxContains")
                        .map(|v| size(v, &format!("{pointer}/maxContains")))
                        .transpose()?,
                }),
                "allOf" => Some(Keyword::AllOf(self.list(value, &at)?)),
                "anyOf" => Some(Keyword::AnyOf(self.list(value, &at)?)),
                "oneOf" => Some(Keyword::OneOf(self.list(value, &at)?)),
                "not" => Some(Keyword::Not {
                    node: self.node(value, &at)?,
                    schema: value.clone(),
                }),
                "if" => {
                    let condition = self.node(value, &at)?;
                    let then = match map.get("then") {
                        Some(then) => Some(self.child(then, pointer, "then")?),
                        None => None,
                    };
                    let otherwise = match map.get("else") {
                        Some(otherwise) => Some(self.child(otherwise, pointer, "else")?),
                        None => None,
                    };
                    (then.is_some() || otherwise.is_some()).then_some(Keyword::If {
                        condition,
                        then,
                        otherwise,
                    })
                }
                // Checked only with `if`, but still schemas.
                "then" | "else" | "contentSchema" => {
                    self.node(value, &at)?;
                    None
                }
                "$defs" | "definitions" => {
                    self.named(value, &at)?;
                    None
                }
                "$ref" => {
                    let Value::String(reference) = value else {
                        return Err(format!("`#{at}` must be a string, got `{value}`"));
                    };
                    let (target, target_pointer) = refs::resolve(self.root, reference)?;
                    self.refs.push((id, at.clone(), reference.clone()));
                    Some(Keyword::Ref(self.node(target, &target_pointer)?))
                }
                "$id" if !pointer.is_empty() => {
                    return Err(format!(
                        "`$id` at `#{at}` gives a subschema its own identity, which is not supported; remove it (references resolve against the whole schema)"
                    ));
                }
                "$id" => {
                    expect_kind(value, "string", &at)?;
                    None
                }
                // Anything else is an annotation, as the specification has it.
                _ => None,
            };
            keywords.extend(keyword);
        }
        keywords.sort_by_key(Keyword::rank);
        Ok(keywords)
    }

    /// `additionalProperties`, which takes `properties` and `patternProperties` along when it
    /// constrains anything.
    fn members(
        &mut self,
        map: &'s Map<String, Value>,
        value: &'s Value,
        pointer: &str,
        at: &str,
    ) -> Result<Option<Keyword>, String> {
        let rest = match value {
            Value::Bool(true) => return Ok(None),
            Value::Bool(false) => Rest::Refuse,
            Value::Object(_) => Rest::Check(self.node(value, at)?),
            other => {
                return Err(format!(
                    "`#{at}` must be a schema (an object or a boolean), got `{other}`"
                ));
            }
        };
        let properties = match map.get("properties") {
            Some(value) => Some(self.named(value, &format!("{pointer}/properties"))?),
            None => None,
        };
        let patterns = match map.get("patternProperties") {
            Some(value) => Some(self.patterns(value, &format!("{pointer}/patternProperties"))?),
            None => None,
        };
        if properties.is_none() && patterns.is_none() && matches!(rest, Rest::Refuse) {
            return Ok(Some(Keyword::NoMembers));
        }
        let properties = Properties::new(properties.unwrap_or_default());
        let required = match (&rest, map.get("required")) {
            (Rest::Refuse, Some(Value::Array(names)))
                if names.len() == 1 && map.contains_key("properties") && patterns.is_none() =>
            {
                names[0]
                    .as_str()
                    .map(|name| (name.to_string(), properties.get(name).is_some()))
            }
            _ => None,
        };
        Ok(Some(Keyword::Members {
            properties,
            patterns: patterns.unwrap_or_default(),
            rest,
            required,
        }))
    }

    /// `items` as a schema (an array of schemas is draft 2019-09's form).
    fn items(
        &mut self,
        map: &'s Map<String, Value>,
        value: &'s Value,
        shape: &Shape,
        pointer: &str,
        at: &str,
    ) -> Result<Option<Keyword>, String> {
        if value.is_array() {
            return Err(format!(
                "`items` at `#{at}` is an array, draft 2019-09's form; in draft 2020-12 write the schemas as `prefixItems`"
            ));
        }
        if value == &Value::Bool(true) {
            self.node(value, at)?;
            return Ok(None);
        }
        let node = self.node(value, at)?;
        if shape.array {
            let bound = |key: &str| {
                map.get(key)
                    .map(|v| size(v, &format!("{pointer}/{key}")))
                    .transpose()
            };
            return Ok(Some(Keyword::ArrayShape {
                min: bound("minItems")?.unwrap_or(0),
                max: bound("maxItems")?.unwrap_or(u64::MAX),
                node,
            }));
        }
        let skip = map
            .get("prefixItems")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        Ok(Some(Keyword::Items { skip, node }))
    }
}
