//! Dialect exports: the reshaping each provider needs, and refusals that name tool, field and
//! rule.

use std::collections::BTreeMap;

use cy_tools::definition::Definition;
use cy_tools::{
    BoxFuture, CallInfo, Ctx, ToolResult,
    definition::{ToolAnnotations, ToolDefinition},
    dialect::Dialect,
};
use serde::Deserialize;
use serde_json::{Value, json};

/// How to search.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Fast,
    Thorough,
}

/// Which documents qualify.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "only its schema is used: the tools are exported, never run"
)]
struct Filter {
    /// Only documents newer than this many days.
    max_age_days: Option<u32>,
    /// The author.
    author: String,
}

/// Parameters of `search`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "only its schema is used: the tools are exported, never run"
)]
pub(crate) struct SearchParams {
    /// What to look for.
    #[schemars(length(min = 1))]
    query: String,
    /// How many results.
    limit: Option<u32>,
    /// Search mode.
    mode: Mode,
    /// The filter.
    filter: Filter,
    /// Tags to match.
    tags: Vec<String>,
}

/// A tree node.
#[derive(Deserialize, schemars::JsonSchema)]
#[expect(
    dead_code,
    reason = "only its schema is used: the tools are exported, never run"
)]
struct Node {
    /// The label.
    label: String,
    /// The children.
    children: Vec<Node>,
}

/// Parameters of `tree`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "only its schema is used: the tools are exported, never run"
)]
pub(crate) struct TreeParams {
    /// The root.
    root: Node,
}

/// Parameters of `label`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "only its schema is used: the tools are exported, never run"
)]
pub(crate) struct LabelParams {
    /// Labels to set.
    labels: BTreeMap<String, String>,
}

fn noop<'a, P>(_: P, _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    Box::pin(async { ToolResult::text("") })
}

pub(crate) static SEARCH: ToolDefinition<SearchParams> =
    ToolDefinition::new("search", "Searches documents.", noop::<SearchParams>)
        .with_annotations(ToolAnnotations::DEFAULT.read_only().title("Search"));
pub(crate) static TREE: ToolDefinition<TreeParams> =
    ToolDefinition::new("tree", "Takes a tree.", noop::<TreeParams>);
pub(crate) static LABEL: ToolDefinition<LabelParams> =
    ToolDefinition::new("label", "Sets labels.", noop::<LabelParams>);
static NOTHING: ToolDefinition<()> = ToolDefinition::new("nothing", "Takes nothing.", noop::<()>);

fn export(dialect: Dialect, def: &dyn Definition) -> Value {
    dialect.export_definition(def.name(), def).unwrap()
}

fn has_key_anywhere(value: &Value, key: &str) -> bool {
    match value {
        Value::Object(map) => {
            map.contains_key(key) || map.values().any(|v| has_key_anywhere(v, key))
        }
        Value::Array(items) => items.iter().any(|v| has_key_anywhere(v, key)),
        _ => false,
    }
}

#[test]
fn openai_strict_requires_everything_and_nulls_the_optional() {
    let decl = export(Dialect::OpenAiStrict, &SEARCH);
    assert_eq!(decl["type"], "function");
    assert_eq!(decl["function"]["name"], "search");
    assert_eq!(decl["function"]["strict"], true);
    let p = &decl["function"]["parameters"];
    assert_eq!(
        p["required"],
        json!(["filter", "limit", "mode", "query", "tags"])
    );
    assert_eq!(p["additionalProperties"], false);
    assert_eq!(p["properties"]["limit"]["type"], json!(["integer", "null"]));
    // The nested struct is inlined (no `$ref` beside a description), and strict too.
    let filter = &p["properties"]["filter"];
    assert_eq!(filter["description"], "The filter.");
    assert_eq!(filter["additionalProperties"], false);
    assert_eq!(filter["required"], json!(["author", "max_age_days"]));
    assert_eq!(
        filter["properties"]["max_age_days"]["type"],
        json!(["integer", "null"])
    );
    // Keywords strict mode rejects are gone; validation still uses the canonical schema.
    assert!(!has_key_anywhere(p, "$ref") && !has_key_anywhere(p, "$defs"));
    assert!(!has_key_anywhere(p, "minLength") && !has_key_anywhere(p, "oneOf"));
    assert_eq!(p["properties"]["limit"].get("format"), None);
}

#[test]
fn openai_strict_keeps_recursion_as_bare_refs() {
    let decl = export(Dialect::OpenAiStrict, &TREE);
    let p = &decl["function"]["parameters"];
    assert!(has_key_anywhere(p, "$defs"));
    let children = &p["$defs"]["Node"]["properties"]["children"];
    assert_eq!(children["items"], json!({"$ref": "#/$defs/Node"}));
}

#[test]
fn openai_plain_keeps_the_canonical_constraints() {
    let decl = export(Dialect::OpenAi, &SEARCH);
    let p = &decl["function"]["parameters"];
    assert_eq!(decl["function"].get("strict"), None);
    assert_eq!(p["required"], json!(["query", "mode", "filter", "tags"]));
    assert_eq!(p["properties"]["query"]["minLength"], 1);
    assert!(!has_key_anywhere(p, "$ref"));
}

#[test]
fn gemini_inlines_refs_and_uses_nullable() {
    let decl = export(Dialect::Gemini, &SEARCH);
    let p = &decl["parameters"];
    assert_eq!(p["properties"]["limit"]["type"], "integer");
    assert_eq!(p["properties"]["limit"]["nullable"], true);
    assert_eq!(p["properties"]["mode"]["enum"], json!(["fast", "thorough"]));
    assert_eq!(p["properties"]["mode"]["type"], "string");
    for banned in [
        "$ref",
        "$defs",
        "oneOf",
        "allOf",
        "const",
        "additionalProperties",
    ] {
        assert!(!has_key_anywhere(p, banned), "{banned} left in {p}");
    }
    assert!(
        !has_key_anywhere(p, "format"),
        "schemars' uint32 format must go: {p}"
    );
}

#[test]
fn gemini_declares_a_parameterless_tool_without_parameters() {
    assert_eq!(
        export(Dialect::Gemini, &NOTHING),
        json!({"name": "nothing", "description": "Takes nothing."})
    );
    assert_eq!(
        export(Dialect::GeminiJsonSchema, &NOTHING)["parametersJsonSchema"],
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
}

#[test]
fn what_cannot_be_expressed_is_refused_naming_tool_field_and_rule() {
    let err = Dialect::Gemini
        .export_definition("tree", &TREE)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `tree` cannot be declared for gemini: field `root.children[]`: type `Node` is recursive, and recursive schemas cannot be expressed here; bound the nesting with a non-recursive type"
    );
    let err = Dialect::AnthropicStrict
        .export_definition("tree", &TREE)
        .unwrap_err();
    assert_eq!(err.dialect, "anthropic-strict");
    assert_eq!(err.field, "root.children[]");
    let err = Dialect::OpenAiStrict
        .export_definition("label", &LABEL)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `label` cannot be declared for openai-strict: field `labels`: a map (an object with free-form keys) cannot be expressed in strict mode; use a list of key/value objects"
    );
    assert!(Dialect::Gemini.export_definition("label", &LABEL).is_err());
    // Non-strict dialects take maps and recursion.
    assert!(Dialect::OpenAi.export_definition("label", &LABEL).is_ok());
    assert!(Dialect::Anthropic.export_definition("tree", &TREE).is_ok());
}

#[test]
fn anthropic_envelopes() {
    let plain = export(Dialect::Anthropic, &SEARCH);
    assert_eq!(plain["name"], "search");
    assert_eq!(plain["input_schema"], *SEARCH.schema().unwrap().value());
    let strict = export(Dialect::AnthropicStrict, &SEARCH);
    assert_eq!(strict["strict"], true);
    let schema = &strict["input_schema"];
    assert_eq!(
        schema["properties"]["filter"]["additionalProperties"],
        false
    );
    assert!(!has_key_anywhere(schema, "minLength") && !has_key_anywhere(schema, "minimum"));
    // Optional stays optional under Anthropic strict.
    assert_eq!(
        schema["required"],
        json!(["query", "mode", "filter", "tags"])
    );
}

#[test]
fn mcp_declares_annotations_and_title() {
    let decl = export(Dialect::Mcp, &SEARCH);
    assert_eq!(decl["title"], "Search");
    assert_eq!(
        decl["annotations"],
        json!({"title": "Search", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": false, "openWorldHint": true})
    );
    assert_eq!(decl["inputSchema"], *SEARCH.schema().unwrap().value());
}

#[test]
fn dialect_names_round_trip() {
    for d in Dialect::ALL {
        assert_eq!(Dialect::from_name(d.name()), Some(d));
    }
    assert_eq!(Dialect::from_name("claude"), None);
}
