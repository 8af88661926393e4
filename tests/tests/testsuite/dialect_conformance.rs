//! Every linked tool (the built-ins and this application's own), in every dialect: the export
//! passes that provider's rules, or is refused with a message naming tool, field and rule. The
//! built-ins must be expressible everywhere. And the checker itself can fail.

use cy_tools::{ToolRegistry, dialect::Dialect};
use cy_tools_builtin as _;
use cy_tools_tests as _;
use serde_json::json;

use crate::support::conformance;

#[test]
fn every_linked_tool_conforms_in_every_dialect() {
    let registry = ToolRegistry::linked().expect("linked tools have unique, valid names");
    let is_builtin = |name: &str| {
        registry.origin(name).is_some_and(|o| {
            o.starts_with("cy_tools_sandbox::") || o.starts_with("cy_tools_session::")
        })
    };
    let builtin = registry
        .names()
        .into_iter()
        .filter(|n| is_builtin(n))
        .count();
    assert!(
        builtin >= 8,
        "the built-ins are not linked ({builtin} found)"
    );
    let mut checked = 0;
    let mut refused = Vec::new();
    for (name, def) in registry.definitions() {
        for dialect in Dialect::ALL {
            match dialect.export_definition(name, def) {
                Ok(decl) => {
                    let violations = conformance::check(dialect, &decl);
                    assert!(
                        violations.is_empty(),
                        "`{name}` breaks {dialect} rules:\n{}\n{decl:#}",
                        violations.join("\n")
                    );
                    checked += 1;
                }
                Err(err) => {
                    assert_eq!(err.tool, name);
                    assert!(!err.field.is_empty() && !err.rule.is_empty(), "{err}");
                    assert!(
                        !is_builtin(name),
                        "built-in `{name}` cannot be declared: {err}"
                    );
                    refused.push(err.to_string());
                }
            }
        }
    }
    assert!(
        checked >= registry.len() * 5,
        "only {checked} declarations checked"
    );
    for line in &refused {
        println!("refused: {line}");
    }
}

#[test]
fn the_checker_catches_broken_declarations() {
    let openai = json!({"type": "function", "function": {
        "name": "bad name", "description": "x", "strict": true,
        "parameters": {"type": "object",
            "properties": {"a": {"type": "string", "minLength": 1}, "b": {"$ref": "#/$defs/B", "description": "b"}},
            "required": ["a"]}
    }});
    let v = conformance::check(Dialect::OpenAiStrict, &openai);
    for expected in [
        "name: `\"bad name\"` is not ^[a-zA-Z0-9_-]{1,64}$",
        "(root): objects need `additionalProperties: false`",
        "(root): every property must be in `required`",
        "(root).a: keyword `minLength` is not supported in strict mode",
        "(root).b: `$ref` has sibling keywords",
    ] {
        assert!(
            v.iter().any(|l| l == expected),
            "missing `{expected}` in {v:#?}"
        );
    }
    let gemini = json!({"name": "g", "description": "x", "parameters": {"type": "object",
        "properties": {"a": {"type": ["string", "null"]}, "b": {"$ref": "#/$defs/B"}, "c": {"const": 1}},
        "additionalProperties": false}});
    let v = conformance::check(Dialect::Gemini, &gemini);
    assert!(
        v.iter()
            .any(|l| l == "(root): keyword `additionalProperties` is outside the OpenAPI subset"),
        "{v:#?}"
    );
    assert!(
        v.iter()
            .any(|l| l.starts_with("(root).a: type must be one of")),
        "{v:#?}"
    );
    assert!(
        v.iter()
            .any(|l| l == "(root).b: keyword `$ref` is outside the OpenAPI subset"),
        "{v:#?}"
    );
    assert!(
        v.iter()
            .any(|l| l == "(root).c: keyword `const` is outside the OpenAPI subset"),
        "{v:#?}"
    );
    let anthropic = json!({"name": "a", "description": "x", "strict": true, "input_schema": {"type": "object",
        "properties": {"n": {"type": "integer", "maximum": 3}, "l": {"type": "array", "minItems": 2}}}});
    let v = conformance::check(Dialect::AnthropicStrict, &anthropic);
    assert_eq!(
        v,
        [
            "(root): objects need `additionalProperties: false`",
            "(root).l: `minItems` may only be 0 or 1",
            "(root).n: `maximum` is not allowed in strict mode",
        ]
    );
    let mcp = json!({"name": "m", "description": "", "inputSchema": {"type": "string"}, "annotations": {"readOnlyHint": "yes"}});
    let v = conformance::check(Dialect::Mcp, &mcp);
    assert!(
        v.contains(&"description: missing or empty".to_string()),
        "{v:#?}"
    );
    assert!(
        v.contains(&"annotations: `readOnlyHint` must be a boolean".to_string()),
        "{v:#?}"
    );
    assert!(
        v.iter()
            .any(|l| l.starts_with("(root): type must be \"object\"")),
        "{v:#?}"
    );
}

#[test]
fn every_linked_tool_is_snapshotted_in_every_dialect() {
    let registry = ToolRegistry::linked().unwrap();
    for (name, def) in registry.definitions() {
        for dialect in Dialect::ALL {
            let decl = match dialect.export_definition(name, def) {
                Ok(decl) => decl,
                Err(err) => json!({"refused": err.to_string()}),
            };
            insta::assert_json_snapshot!(format!("{}__{name}", dialect.name()), decl);
        }
    }
}
