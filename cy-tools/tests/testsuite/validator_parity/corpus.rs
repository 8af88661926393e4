//! The schemas the validator is held to jsonschema on: every tool schema these tests can reach,
//! the linked tools' schemas from the application suite's MCP snapshots, and hand-written ones
//! that use every supported keyword alone and in the combinations jsonschema reports together.

use std::path::Path;

use cy_tools::definition::Definition;
use serde_json::{Value, json};

use crate::support::{ADD, PING, READ_TEXT, SAY};

/// One schema, named for failure messages.
pub struct Case {
    pub name: String,
    pub schema: Value,
}

fn case(name: &str, schema: Value) -> Case {
    Case {
        name: name.to_string(),
        schema,
    }
}

/// Typed definitions of this suite and the raw schemas it writes by hand.
pub fn tool_schemas() -> Vec<Case> {
    let typed: [&dyn Definition; 8] = [
        &ADD,
        &READ_TEXT,
        &SAY,
        &PING,
        &crate::dialects::SEARCH,
        &crate::dialects::TREE,
        &crate::dialects::LABEL,
        &crate::call_contract::CONSTRAINED,
    ];
    let mut cases: Vec<Case> = typed
        .iter()
        .map(|def| case(def.name(), def.schema().unwrap().value().clone()))
        .collect();
    cases.push(case(
        "raw run_code",
        json!({
            "type": "object",
            "properties": {
                "code": {"type": "string", "minLength": 1},
                "filename": {"type": "string", "default": "main.py"},
                "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000}
            },
            "required": ["code"],
            "additionalProperties": false
        }),
    ));
    cases
}

/// The `inputSchema` of every tool the application suite links (the built-ins and its own),
/// from its MCP snapshots; none when this crate is built outside the repository.
pub fn linked_tool_schemas() -> Vec<Case> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/tests/testsuite/snapshots");
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Vec::new();
    };
    let mut cases = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(tool) = name
            .strip_prefix("testsuite__dialect_conformance__mcp__")
            .and_then(|rest| rest.strip_suffix(".snap"))
        else {
            continue;
        };
        let text = std::fs::read_to_string(entry.path()).unwrap();
        // An insta snapshot: a `---` header, then the JSON.
        let json = text.splitn(3, "---").nth(2).unwrap();
        let decl: Value = serde_json::from_str(json).unwrap();
        cases.push(case(&format!("linked {tool}"), decl["inputSchema"].clone()));
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    cases
}

/// Every supported keyword, alone and in the combinations whose messages jsonschema orders in
/// its own way (a closed object with `required`, `type: array` with `items`...).
pub fn hand_written() -> Vec<Case> {
    let schemas = [
        ("type string", json!({"type": "string"})),
        ("type integer", json!({"type": "integer"})),
        ("type number", json!({"type": "number"})),
        ("type list", json!({"type": ["string", "integer", "null"]})),
        ("type one-element list", json!({"type": ["boolean"]})),
        ("type object", json!({"type": "object"})),
        ("type array", json!({"type": "array"})),
        ("enum short", json!({"enum": ["a", 1, null]})),
        (
            "enum long",
            json!({"enum": ["a", "b", "c", "d", {"k": [1, 2.0]}]}),
        ),
        ("enum empty", json!({"enum": []})),
        ("enum numbers", json!({"enum": [1.0, 2, -3]})),
        ("const object", json!({"const": {"a": [1, {"b": null}]}})),
        ("const number", json!({"const": 2.0})),
        ("minimum int", json!({"minimum": 1})),
        ("minimum float", json!({"minimum": 1.5})),
        ("maximum float as int", json!({"maximum": 3.0})),
        (
            "exclusive bounds",
            json!({"exclusiveMinimum": 0, "exclusiveMaximum": 10.5}),
        ),
        ("bounds negative", json!({"minimum": -5, "maximum": -1})),
        (
            "bounds huge",
            json!({"minimum": -9223372036854775808_i64, "maximum": 18446744073709551615_u64}),
        ),
        ("multipleOf int", json!({"multipleOf": 3})),
        ("multipleOf tenth", json!({"multipleOf": 0.1})),
        ("multipleOf hundredth", json!({"multipleOf": 0.01})),
        ("multipleOf half", json!({"multipleOf": 0.5})),
        ("multipleOf float whole", json!({"multipleOf": 2.0})),
        ("multipleOf tiny", json!({"multipleOf": 1e-8})),
        ("length", json!({"minLength": 2, "maxLength": 4})),
        ("length one", json!({"minLength": 1, "maxLength": 1})),
        ("length inverted", json!({"minLength": 3, "maxLength": 1})),
        ("pattern anchored", json!({"pattern": "^[a-z][a-z0-9_]*$"})),
        ("pattern unanchored", json!({"pattern": "ab+"})),
        ("pattern classes", json!({"pattern": r"^\d{3}-\w+\s?$"})),
        ("pattern dot", json!({"pattern": "^.$"})),
        (
            "pattern alternation",
            json!({"pattern": "^(get|put|delete)$"}),
        ),
        ("pattern unicode", json!({"pattern": "^[^\\s]+$"})),
        ("items", json!({"items": {"type": "integer", "minimum": 0}})),
        ("items false", json!({"items": false})),
        (
            "array shape",
            json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3}),
        ),
        (
            "array shape with enum",
            json!({"type": "array", "items": {"minLength": 2}, "minItems": 2, "enum": [["aa", "bb"], 1]}),
        ),
        (
            "array shape false",
            json!({"type": "array", "items": false, "maxItems": 0}),
        ),
        ("array counts", json!({"minItems": 1, "maxItems": 2})),
        (
            "prefixItems and items",
            json!({"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": {"type": "boolean"}}),
        ),
        (
            "prefixItems alone",
            json!({"type": "array", "prefixItems": [{"const": 1}]}),
        ),
        ("uniqueItems", json!({"uniqueItems": true})),
        (
            "uniqueItems with items",
            json!({"type": "array", "uniqueItems": true, "items": {"type": "number"}}),
        ),
        (
            "contains",
            json!({"contains": {"type": "integer", "minimum": 5}}),
        ),
        (
            "minContains",
            json!({"contains": {"const": 1}, "minContains": 2}),
        ),
        (
            "maxContains",
            json!({"contains": {"const": 1}, "maxContains": 1}),
        ),
        (
            "min and max contains",
            json!({"contains": {"type": "string"}, "minContains": 0, "maxContains": 2}),
        ),
        (
            "properties",
            json!({"properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}),
        ),
        (
            "properties required one",
            json!({"properties": {"a": {"type": "string"}}, "required": ["a"]}),
        ),
        (
            "properties required two",
            json!({"properties": {"a": {"type": "string"}, "b": {"minimum": 2}}, "required": ["a", "b"], "dependentRequired": {"a": ["c"]}}),
        ),
        (
            "properties required three",
            json!({"properties": {"a": {}, "b": {}}, "required": ["c", "a", "b"]}),
        ),
        ("required alone", json!({"required": ["x", "y"]})),
        (
            "closed",
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "additionalProperties": false}),
        ),
        (
            "closed required one",
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"], "additionalProperties": false}),
        ),
        (
            "closed requires undeclared",
            json!({"properties": {"a": {}}, "required": ["b"], "additionalProperties": false}),
        ),
        (
            "closed required two",
            json!({"properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "c": {}}, "required": ["a", "b"], "additionalProperties": false}),
        ),
        (
            "closed required all",
            json!({"properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a", "b"], "additionalProperties": false}),
        ),
        ("closed alone", json!({"additionalProperties": false})),
        (
            "additional schema",
            json!({"additionalProperties": {"type": "integer"}}),
        ),
        (
            "additional schema with properties",
            json!({"properties": {"a": {"type": "string"}}, "required": ["a", "b"], "additionalProperties": {"type": "integer"}}),
        ),
        (
            "patternProperties one",
            json!({"patternProperties": {"^x-": {"type": "string"}}}),
        ),
        (
            "patternProperties two",
            json!({"patternProperties": {"^x-": {"type": "string"}, "[0-9]": {"type": "integer"}}}),
        ),
        (
            "patterns closed",
            json!({"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}),
        ),
        (
            "patterns with properties closed",
            json!({"properties": {"x-a": {"minLength": 2}, "b": {}}, "patternProperties": {"^x-": {"type": "string"}, "a$": {"maxLength": 3}}, "required": ["b"], "additionalProperties": false}),
        ),
        (
            "patterns with additional schema",
            json!({"properties": {"a": {}}, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {"type": "boolean"}}),
        ),
        (
            "patterns open with properties",
            json!({"properties": {"x-a": {"minLength": 2}}, "patternProperties": {"^x-": {"type": "string"}}, "required": ["x-a", "z"]}),
        ),
        (
            "propertyNames",
            json!({"propertyNames": {"maxLength": 3, "pattern": "^[a-z]+$"}}),
        ),
        ("propertyNames false", json!({"propertyNames": false})),
        (
            "property counts",
            json!({"minProperties": 1, "maxProperties": 2}),
        ),
        (
            "dependentRequired",
            json!({"dependentRequired": {"a": ["b", "c"], "d": ["a"]}}),
        ),
        (
            "allOf",
            json!({"allOf": [{"type": "integer"}, {"minimum": 3}, {"multipleOf": 2}]}),
        ),
        (
            "allOf single",
            json!({"allOf": [{"type": "string", "minLength": 2}]}),
        ),
        (
            "anyOf",
            json!({"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]}),
        ),
        ("anyOf single", json!({"anyOf": [{"const": 1}]})),
        (
            "oneOf",
            json!({"oneOf": [{"type": "integer"}, {"minimum": 2}]}),
        ),
        (
            "oneOf consts",
            json!({"oneOf": [{"const": "a"}, {"const": "b"}]}),
        ),
        ("not", json!({"not": {"type": "integer", "minimum": 1}})),
        ("not true", json!({"not": true})),
        (
            "if then else",
            json!({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "integer", "maximum": 5}}),
        ),
        (
            "if then",
            json!({"if": {"minimum": 0}, "then": {"multipleOf": 2}}),
        ),
        (
            "if else",
            json!({"if": {"minimum": 0}, "else": {"multipleOf": 3}}),
        ),
        ("then without if", json!({"then": {"type": "string"}})),
        (
            "ref defs",
            json!({"$defs": {"pos": {"type": "integer", "minimum": 1}}, "properties": {"n": {"$ref": "#/$defs/pos"}, "m": {"$ref": "#/$defs/pos", "maximum": 3}}}),
        ),
        (
            "ref definitions",
            json!({"definitions": {"s": {"type": "string"}}, "items": {"$ref": "#/definitions/s"}}),
        ),
        (
            "ref root recursion",
            json!({"type": ["object", "integer"], "properties": {"next": {"$ref": "#"}}, "additionalProperties": false}),
        ),
        (
            "ref recursive tree",
            json!({"$ref": "#/$defs/node", "$defs": {"node": {"type": "object", "properties": {"label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["label"], "additionalProperties": false}}}),
        ),
        (
            "ref escaped",
            json!({"$defs": {"a/b": {"type": "null"}, "c d": {"type": "boolean"}}, "properties": {"x": {"$ref": "#/$defs/a~1b"}, "y": {"$ref": "#/$defs/c%20d"}}}),
        ),
        (
            "annotations",
            json!({"title": "T", "description": "d", "default": 1, "examples": [1], "format": "email", "deprecated": true, "readOnly": false, "writeOnly": false, "nullable": true, "x-extension": {"any": 1}, "$comment": "c", "type": "string"}),
        ),
        (
            "format uint",
            json!({"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255}),
        ),
        ("boolean true", json!(true)),
        ("boolean false", json!(false)),
        ("empty", json!({})),
        (
            "kitchen sink",
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 8, "pattern": "^[a-z]"},
                    "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y", "z"]}, "uniqueItems": true, "maxItems": 3},
                    "size": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
                    "mode": {"oneOf": [{"const": "fast", "description": "f"}, {"const": "slow"}]},
                    "point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"], "additionalProperties": false},
                    "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "multipleOf": 0.25},
                    "meta": {"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 2}
                },
                "required": ["name"],
                "additionalProperties": false
            }),
        ),
    ];
    schemas
        .into_iter()
        .map(|(name, schema)| case(name, schema))
        .collect()
}

/// Schemas this validator refuses, with a phrase its error must contain.
pub fn refused() -> Vec<(Value, &'static str)> {
    vec![
        (json!({"$dynamicRef": "#meta"}), "`$dynamicRef`"),
        (json!({"$recursiveRef": "#"}), "`$recursiveRef`"),
        (
            json!({"unevaluatedProperties": false}),
            "`unevaluatedProperties`",
        ),
        (json!({"unevaluatedItems": false}), "`unevaluatedItems`"),
        (json!({"dependentSchemas": {"a": {}}}), "`dependentSchemas`"),
        (json!({"dependencies": {"a": ["b"]}}), "`dependencies`"),
        (json!({"additionalItems": false}), "`additionalItems`"),
        (json!({"$ref": "other.json#/a"}), "only local references"),
        (json!({"$ref": "#anchor"}), "anchor"),
        (json!({"$ref": "#/$defs/missing"}), "points at nothing"),
        (json!({"$ref": "#"}), "never end"),
        (
            json!({"anyOf": [{"$ref": "#"}, {"type": "string"}]}),
            "never end",
        ),
        (
            json!({"properties": {"a": {"$id": "x", "type": "string"}}}),
            "`$id`",
        ),
        (json!({"pattern": "^(?!x)"}), "look-around"),
        (json!({"pattern": "(a)\\1"}), "backreferences"),
        (json!({"pattern": "(a"}), "the pattern `(a`"),
        (json!({"patternProperties": {"[": {}}}), "the pattern `[`"),
        (json!({"type": "text"}), "not a JSON type"),
        (json!({"type": ["string", "string"]}), "twice"),
        (json!({"minLength": -1}), "non-negative integer"),
        (json!({"maxItems": 1.5}), "non-negative integer"),
        (json!({"multipleOf": 0}), "greater than 0"),
        (json!({"minimum": "1"}), "must be a number"),
        (json!({"required": ["a", "a"]}), "twice"),
        (json!({"items": [{}]}), "`prefixItems`"),
        (json!({"anyOf": []}), "non-empty array"),
        (
            json!({"properties": {"a": 3}}),
            "must be an object or a boolean",
        ),
        (json!({"title": 3}), "must be a string"),
    ]
}
