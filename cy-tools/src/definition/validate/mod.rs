//! Validating arguments against a JSON Schema (draft 2020-12), with messages in the typed path's
//! form.
//!
//! A schema is compiled once, when its definition is first used, into a [`Validator`]; a call's
//! arguments are then checked by walking that tree, which allocates nothing for valid arguments.
//! The messages are jsonschema 0.61's, word for word and in its order: it checked arguments
//! before, and what the model reads should not change with the validator.
//!
//! Keywords checked: `type`, `enum`, `const`, `properties`, `required`,
//! `additionalProperties`, `patternProperties`, `propertyNames`, `minProperties`,
//! `maxProperties`, `dependentRequired`, `items`, `prefixItems`, `minItems`, `maxItems`,
//! `uniqueItems`, `contains` (with `minContains`, `maxContains`), `minLength`, `maxLength`
//! (in code points), `pattern`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
//! `multipleOf`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `$ref` to any JSON pointer
//! inside the schema (`#/$defs/name`, `#/definitions/name`, `#`), and `$defs`.
//!
//! Annotations (`title`, `description`, `default`, `examples`, `format`, `$schema`, `$id` at the
//! root, `deprecated`, `readOnly`, `writeOnly`, `nullable` and any keyword JSON Schema does not
//! define) are accepted and check nothing. A keyword that checks something in some draft but not
//! here (`$dynamicRef`, `unevaluatedProperties`, `dependentSchemas`, a `$ref` to another
//! document...) makes compilation fail with what to write instead, never a silent pass.
//!
//! Patterns are ECMA-262 regular expressions run by the `regex` crate: look-around and
//! backreferences are not supported, and a schema using them does not compile. A `$ref` cycle
//! that comes back to the same value without going into a member or an item (`{"$ref": "#"}`)
//! could never finish checking and does not compile either; recursion through `properties` or
//! `items` is fine.

mod compile;
mod constraints;
mod ecma;
mod equality;
mod messages;
mod numbers;
mod operands;
mod path;
mod pattern;
mod refs;
mod report;
mod shape;
mod tree;
mod verdict;

pub(crate) use constraints::has_constraints_beyond_serde;

use serde_json::Value;

use crate::call::{ArgProblem, ArgsError, ProblemKind};

/// How many schema violations one error message lists before it stops.
const MAX_LISTED_VIOLATIONS: usize = 5;

/// A compiled schema.
#[derive(Debug)]
pub(crate) struct Validator {
    tree: tree::Tree,
}

impl Validator {
    /// Compiles `schema`.
    ///
    /// # Errors
    /// The schema is not valid JSON Schema 2020-12, or uses what this validator does not check;
    /// the error names the keyword, where it is, and what to write instead.
    pub(crate) fn new(schema: &Value) -> Result<Validator, String> {
        Ok(Validator {
            tree: compile::compile(schema)?,
        })
    }

    /// Whether `value` matches the schema.
    pub(crate) fn is_valid(&self, value: &Value) -> bool {
        verdict::is_valid(&self.tree, self.tree.root, value)
    }

    /// The first `limit` violations of `value`, each as the path it concerns (`items[0].name`,
    /// empty at the root) and the message.
    pub(crate) fn violations(&self, value: &Value, limit: usize) -> Vec<(String, String)> {
        report::violations(&self.tree, value, limit)
            .into_iter()
            .map(|v| (v.path, v.message))
            .collect()
    }
}

/// A JSON Schema compiled once, checking arguments as every tool's are checked (the same
/// messages, up to five violations with their paths): for definitions made while the program
/// runs, such as an MCP server's tools.
///
/// ```
/// use cy_tools::definition::ArgsCheck;
/// let check = ArgsCheck::new(&serde_json::json!({
///     "type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}
/// })).unwrap();
/// assert!(check.check(&serde_json::json!({"n": 2})).is_ok());
/// let err = check.check(&serde_json::json!({"n": 0})).unwrap_err();
/// assert!(err.to_string().contains("`n`"), "{err}");
/// // A keyword this validator does not check is refused when compiling, saying which.
/// assert!(ArgsCheck::new(&serde_json::json!({"unevaluatedProperties": false})).is_err());
/// ```
#[derive(Debug)]
pub struct ArgsCheck(Validator);

impl ArgsCheck {
    /// Compiles `schema`.
    ///
    /// # Errors
    /// It is not JSON Schema 2020-12, or uses what the validator does not check (named).
    pub fn new(schema: &Value) -> Result<ArgsCheck, String> {
        Validator::new(schema).map(ArgsCheck)
    }

    /// Checks `args`.
    ///
    /// # Errors
    /// What is wrong with them, for the model and for programs.
    pub fn check(&self, args: &Value) -> Result<(), ArgsError> {
        check(&self.0, args)
    }
}

/// Not public API. The validator on its own, for the test that holds it to jsonschema's
/// verdicts and messages (`tests/testsuite/validator_parity.rs`).
#[doc(hidden)]
#[derive(Debug)]
pub struct CompiledSchema(Validator);

impl CompiledSchema {
    /// Not public API. Compiles `schema`, or says why it cannot be.
    pub fn new(schema: &Value) -> Result<CompiledSchema, String> {
        Validator::new(schema).map(CompiledSchema)
    }

    /// Not public API. Whether `value` matches.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.0.is_valid(value)
    }

    /// Not public API. The first `limit` violations: path (`items[0].name`) and message.
    pub fn violations(&self, value: &Value, limit: usize) -> Vec<(String, String)> {
        self.0.violations(value, limit)
    }

    /// Not public API. What a call with `args` is told: up to five violations.
    pub fn check(&self, args: &Value) -> Result<(), String> {
        check(&self.0, args).map_err(|err| err.to_string())
    }
}

/// Checks `args` against `validator`; the error lists up to five violations, each with the
/// field path (`items[0].name`) it concerns, in its text and as problems.
pub(crate) fn check(validator: &Validator, args: &Value) -> Result<(), ArgsError> {
    if validator.is_valid(args) {
        return Ok(());
    }
    let mut violations: Vec<ArgProblem> = validator
        .violations(args, MAX_LISTED_VIOLATIONS + 1)
        .into_iter()
        .map(|(path, message)| ArgProblem::new(ProblemKind::Constraint, path, message))
        .collect();
    let more = violations.len() > MAX_LISTED_VIOLATIONS;
    violations.truncate(MAX_LISTED_VIOLATIONS);
    let mut message = violations
        .iter()
        .map(|v| {
            if v.path.is_empty() {
                v.message.clone()
            } else {
                format!("`{}`: {}", v.path, v.message)
            }
        })
        .collect::<Vec<_>>()
        .join("; ");
    if more {
        message.push_str("; and more");
    }
    Err(ArgsError::new(message, violations))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::path::Path;
    use super::{Validator, check};

    #[test]
    fn paths_read_like_the_typed_path() {
        assert_eq!(Path::Root.render(), "");
        let items = Path::Key(&Path::Root, "items");
        let first = Path::Index(&items, 0);
        assert_eq!(Path::Key(&first, "name").render(), "items[0].name");
        assert_eq!(Path::Key(&Path::Root, "a/b").render(), "a/b");
        assert_eq!(Path::Key(&items, "7").render(), "items[7]");
    }

    #[test]
    fn a_check_lists_five_violations_then_says_there_are_more() {
        let validator = Validator::new(&json!({
            "type": "object",
            "properties": {"n": {"type": "array", "items": {"type": "string"}}}
        }))
        .unwrap();
        assert_eq!(check(&validator, &json!({"n": ["a"]})), Ok(()));
        let err = check(&validator, &json!({"n": [1, 2, 3, 4, 5, 6]})).unwrap_err();
        assert_eq!(err.problems().len(), 5);
        assert_eq!(err.problems()[4].path, "n[4]");
        assert_eq!(
            err.to_string(),
            "`n[0]`: 1 is not of type \"string\"; `n[1]`: 2 is not of type \"string\"; \
             `n[2]`: 3 is not of type \"string\"; `n[3]`: 4 is not of type \"string\"; \
             `n[4]`: 5 is not of type \"string\"; and more"
        );
    }

    #[test]
    fn unsupported_keywords_are_refused_with_the_fix() {
        let err = Validator::new(&json!({"unevaluatedProperties": false})).unwrap_err();
        assert!(
            err.starts_with(
                "`unevaluatedProperties` (at `#/unevaluatedProperties`) is not supported"
            ),
            "{err}"
        );
        let err = Validator::new(&json!({"$ref": "https://example.com/s.json"})).unwrap_err();
        assert!(err.contains("only local references"), "{err}");
        let err = Validator::new(&json!({"$defs": {"a": {"$ref": "#/$defs/a"}}})).unwrap_err();
        assert!(err.contains("would never end"), "{err}");
        let recursive = json!({"$defs": {"t": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/t"}}}}}, "$ref": "#/$defs/t"});
        let validator = Validator::new(&recursive).unwrap();
        assert!(!validator.is_valid(&json!({"children": [{"children": [3]}]})));
        let err =
            Validator::new(&json!({"properties": {"a": {"pattern": "(?<=a)b"}}})).unwrap_err();
        assert!(
            err.starts_with("the pattern `(?<=a)b` at `#/properties/a/pattern` does not compile: "),
            "{err}"
        );
    }
}
