//! Provider schema dialects: the canonical schema of a tool, reshaped for each provider.
//!
//! The canonical schema (JSON Schema 2020-12, see [`Schema`](crate::definition::Schema)) is what
//! validation uses; a dialect export derives from it what one provider accepts, or refuses with
//! an error naming the tool, the field and the rule, instead of sending something the provider
//! would reject. Keywords a dialect cannot carry (a `minLength` under OpenAI strict, say) are
//! dropped from the export: the call is still validated against the canonical schema, so a
//! looser export never lets a bad argument through.
//!
//! # Tool names
//!
//! A tool's name follows MCP's rule; providers have their own ([`Dialect::name_rule`]):
//!
//! | dialect | tool names |
//! |---|---|
//! | [`Mcp`](Dialect::Mcp) (the rule every tool name follows) | `^[A-Za-z0-9_.-]{1,128}$` |
//! | [`OpenAi`](Dialect::OpenAi), [`OpenAiStrict`](Dialect::OpenAiStrict) | `^[a-zA-Z0-9_-]{1,64}$` |
//! | [`Anthropic`](Dialect::Anthropic), [`AnthropicStrict`](Dialect::AnthropicStrict) | `^[a-zA-Z0-9_-]{1,64}$` |
//! | [`Gemini`](Dialect::Gemini), [`GeminiJsonSchema`](Dialect::GeminiJsonSchema) | `^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$` (what both the Gemini API and Vertex AI take) |
//!
//! [`Dialect::export`] refuses a tool whose name breaks the dialect's rule, naming the rule;
//! [`Dialect::export_toolset_mapped`] declares it under a name from a [`NameMap`] instead, which
//! maps the provider's calls back (`github.create_issue` becomes `github_create_issue`, unless
//! another tool has that name). The model loop of `cy-tools-agent` declares toolsets that way.
//!
//! # Results
//!
//! What each host sends the model of a result's [`Content`](crate::call::Content) blocks:
//!
//! | block | MCP | Anthropic (`cy-tools-agent`) | OpenAI (`cy-tools-agent`), and any text-only host |
//! |---|---|---|---|
//! | text, JSON | `text` (JSON also as `structuredContent`) | `text` | text |
//! | image | `image` | `image` | the line `[image: image/png]` |
//! | audio | `audio` | the line `[audio: audio/wav, 4 bytes]` | the same line |
//! | embedded text resource | `resource` | `document` (text source, titled by its URI) | the line `[resource <uri> (<type>)]`, then its text |
//! | embedded binary resource | `resource` | `document` for a PDF, `image` for an image, else the line | the line `[resource <uri> (<type>), <n> bytes]` |
//! | resource link | `resource_link` | the line `[resource link: <name> <<uri>>]` | the same line |
//!
//! The lines are [`Content::write_text`](crate::call::Content::write_text)'s, so a model without
//! a place for a kind still learns that it is there and what it is.
//!
//! ```
//! use cy_tools::{SessionIdentity, ToolContext, ToolRegistry, dialect::Dialect};
//! # use cy_tools::{BoxFuture, CallInfo, Ctx, ToolResult, definition::ToolDefinition};
//! # #[derive(serde::Deserialize, schemars::JsonSchema)]
//! # #[serde(deny_unknown_fields)]
//! # struct P { /// How many.
//! #   count: Option<u32> }
//! # fn f<'a>(_: P, _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> { Box::pin(async { ToolResult::text("") }) }
//! # static COUNT: ToolDefinition<P> = ToolDefinition::new("count", "Counts.", f);
//! # let mut registry = ToolRegistry::new();
//! # registry.register("count", &COUNT).unwrap();
//! let tools = registry.build(&["count"], &ToolContext::new(SessionIdentity::root("s", "t")));
//! let openai = Dialect::OpenAiStrict.export(tools.get("count").unwrap()).unwrap();
//! assert_eq!(openai["function"]["strict"], true);
//! assert_eq!(openai["function"]["parameters"]["required"], serde_json::json!(["count"]));
//! ```

mod anthropic;
mod gemini;
mod mcp;
mod names;
mod openai;
mod refs;
mod search;
mod visit;

use std::fmt;

use serde_json::Value;

use crate::binding::{BoundTool, Toolset};
use crate::definition::{Definition, OutputSchema, ToolAnnotations};

pub use names::{NameMap, NameRule};
pub use search::{ToolSearch, search_tool_schema};

/// A provider's way of declaring tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// OpenAI function calling, non-strict.
    OpenAi,
    /// OpenAI function calling with `strict: true` (structured outputs).
    OpenAiStrict,
    /// Anthropic tool use.
    Anthropic,
    /// Anthropic tool use with `strict: true`.
    AnthropicStrict,
    /// Google Gemini `FunctionDeclaration.parameters` (OpenAPI subset).
    Gemini,
    /// Google Gemini `FunctionDeclaration.parametersJsonSchema` (plain JSON Schema).
    GeminiJsonSchema,
    /// An MCP `Tool` as listed by `tools/list`.
    Mcp,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 7] = [
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::Anthropic,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
    ];

    /// The dialect's name on the command line and in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Dialect::OpenAi => "openai",
            Dialect::OpenAiStrict => "openai-strict",
            Dialect::Anthropic => "anthropic",
            Dialect::AnthropicStrict => "anthropic-strict",
            Dialect::Gemini => "gemini",
            Dialect::GeminiJsonSchema => "gemini-json-schema",
            Dialect::Mcp => "mcp",
        }
    }

    /// Parses a name as [`name`](Self::name) spells it.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The declaration of one bound tool in this dialect.
    ///
    /// # Errors
    /// The tool's schema cannot be expressed in this dialect.
    pub fn export(self, tool: &BoundTool) -> Result<Value, DialectError> {
        self.export_parts(&ToolParts::of(tool))
    }

    /// The declaration of one bound tool under `name`, which a [`NameMap`] gave it: what a host
    /// that maps names declares, tool by tool.
    ///
    /// # Errors
    /// The tool's schema cannot be expressed in this dialect, or `name` breaks its rule.
    pub fn export_as(self, tool: &BoundTool, name: &str) -> Result<Value, DialectError> {
        let mut parts = ToolParts::of(tool);
        parts.name = name;
        self.export_parts(&parts)
    }

    /// The declaration of a definition under `name`, without binding it to a session.
    ///
    /// # Errors
    /// The definition's schema is invalid or cannot be expressed in this dialect.
    pub fn export_definition(
        self,
        name: &str,
        definition: &dyn Definition,
    ) -> Result<Value, DialectError> {
        let schema = definition.schema().map_err(|err| DialectError {
            tool: name.to_string(),
            dialect: self.name().to_string(),
            field: "(root)".to_string(),
            rule: err.to_string(),
        })?;
        self.export_parts(&ToolParts {
            name,
            description: definition.description(),
            parameters: schema.value(),
            mcp_parameters: schema.with_meta_schema(),
            annotations: definition.annotations(),
            output_schema: definition.output_schema(),
        })
    }

    /// The declarations of a whole toolset, in order, checking the dialect's per-request limits
    /// too (Anthropic strict: 20 strict tools, 24 optional parameters, 16 union-typed ones).
    ///
    /// # Errors
    /// A tool cannot be expressed, or the toolset exceeds a per-request limit.
    pub fn export_toolset(self, tools: &Toolset) -> Result<Vec<Value>, DialectError> {
        let declarations = tools
            .iter()
            .map(|tool| self.export(tool))
            .collect::<Result<Vec<_>, _>>()?;
        if self == Dialect::AnthropicStrict {
            anthropic::check_request_limits(tools)?;
        }
        Ok(declarations)
    }

    /// The declarations of a whole toolset, each under a name this dialect accepts: a tool whose
    /// name breaks the dialect's rule ([`name_rule`](Self::name_rule)) is declared under the
    /// name the returned [`NameMap`] gives it, and the map turns the names in the provider's
    /// calls back into the tools' names.
    ///
    /// ```
    /// use cy_tools::{SessionIdentity, ToolContext, ToolRegistry, dialect::Dialect};
    /// # use cy_tools::{BoxFuture, CallInfo, Ctx, ToolResult, definition::ToolDefinition};
    /// # fn f<'a>(_: (), _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> { Box::pin(async { ToolResult::text("") }) }
    /// # static ISSUE: ToolDefinition<()> = ToolDefinition::new("github.create_issue", "Creates an issue.", f);
    /// let mut registry = ToolRegistry::new();
    /// registry.register("github.create_issue", &ISSUE).unwrap();
    /// let tools = registry.build(&["github.create_issue"], &ToolContext::new(SessionIdentity::root("s", "t")));
    ///
    /// assert!(Dialect::OpenAi.export_toolset(&tools).is_err());
    /// let (declared, names) = Dialect::OpenAi.export_toolset_mapped(&tools).unwrap();
    /// assert_eq!(declared[0]["function"]["name"], "github_create_issue");
    /// assert_eq!(names.to_tool("github_create_issue"), Some("github.create_issue"));
    /// ```
    ///
    /// # Errors
    /// As [`export_toolset`](Self::export_toolset), but for names.
    pub fn export_toolset_mapped(
        self,
        tools: &Toolset,
    ) -> Result<(Vec<Value>, NameMap), DialectError> {
        let names = NameMap::new(self, tools.iter().map(BoundTool::name));
        let declarations = tools
            .iter()
            .map(|tool| self.export_as(tool, names.to_dialect(tool.name()).unwrap_or(tool.name())))
            .collect::<Result<Vec<_>, _>>()?;
        if self == Dialect::AnthropicStrict {
            anthropic::check_request_limits(tools)?;
        }
        Ok((declarations, names))
    }

    /// The declarations of a whole toolset as one JSON array, the text a `tools/list` answer
    /// or a request's `tools` field carries: the same as serializing
    /// [`export_toolset`](Self::export_toolset), but for [`Dialect::Mcp`] (whose declarations
    /// hold the schemas unchanged) written straight from the tools' schemas, without copying
    /// them into new values first.
    ///
    /// ```
    /// # use cy_tools::{Toolset, dialect::Dialect};
    /// let empty = Toolset::new(Vec::new());
    /// assert_eq!(Dialect::Mcp.export_toolset_json(&empty).unwrap(), "[]");
    /// ```
    ///
    /// # Errors
    /// As [`export_toolset`](Self::export_toolset).
    pub fn export_toolset_json(self, tools: &Toolset) -> Result<String, DialectError> {
        if self == Dialect::Mcp {
            let parts: Vec<ToolParts<'_>> = tools.iter().map(ToolParts::of).collect();
            return Ok(mcp::write_toolset(&parts));
        }
        let declarations = self.export_toolset(tools)?;
        // Values built by the exporters: always serializable.
        Ok(serde_json::to_string(&declarations).unwrap_or_default())
    }

    fn export_parts(self, tool: &ToolParts<'_>) -> Result<Value, DialectError> {
        let named = |err: DialectError| DialectError {
            tool: tool.name.to_string(),
            ..err
        };
        let rule = self.name_rule();
        if !rule.accepts(tool.name) {
            return Err(named(DialectError {
                tool: String::new(),
                dialect: self.name().to_string(),
                field: "(name)".to_string(),
                rule: format!(
                    "the name breaks {self}'s rule for tool names, `{}`; rename the tool, or declare the toolset with `Dialect::export_toolset_mapped`, which maps names into the rule and back",
                    rule.pattern()
                ),
            }));
        }
        match self {
            Dialect::OpenAi => openai::declare(tool, false).map_err(named),
            Dialect::OpenAiStrict => openai::declare(tool, true).map_err(named),
            Dialect::Anthropic => anthropic::declare(tool, false).map_err(named),
            Dialect::AnthropicStrict => anthropic::declare(tool, true).map_err(named),
            Dialect::Gemini => gemini::declare(tool).map_err(named),
            Dialect::GeminiJsonSchema => Ok(gemini::declare_json_schema(tool)),
            Dialect::Mcp => Ok(mcp::declare(tool)),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a dialect export needs of a tool.
pub(crate) struct ToolParts<'a> {
    pub(crate) name: &'a str,
    pub(crate) description: &'a str,
    pub(crate) parameters: &'a Value,
    /// The parameters as MCP declares them: with the tool's own `$schema`, when it named one.
    pub(crate) mcp_parameters: &'a Value,
    pub(crate) annotations: ToolAnnotations,
    pub(crate) output_schema: Option<&'a OutputSchema>,
}

impl<'a> ToolParts<'a> {
    fn of(tool: &'a BoundTool) -> Self {
        ToolParts {
            name: tool.name(),
            description: tool.description(),
            parameters: tool.parameters(),
            mcp_parameters: tool.schema().with_meta_schema(),
            annotations: tool.annotations(),
            output_schema: tool.output_schema(),
        }
    }
}

/// A tool's schema cannot be expressed in a dialect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DialectError {
    /// The tool.
    pub tool: String,
    /// The dialect's name.
    pub dialect: String,
    /// The field whose schema breaks the rule (`(root)` for the root).
    pub field: String,
    /// The rule, and what to do instead.
    pub rule: String,
}

impl DialectError {
    pub(crate) fn new(dialect: Dialect, field: &str, rule: impl Into<String>) -> Self {
        DialectError {
            tool: String::new(),
            dialect: dialect.name().to_string(),
            field: refs::field(field),
            rule: rule.into(),
        }
    }
}

impl fmt::Display for DialectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool `{}` cannot be declared for {}: field `{}`: {}",
            self.tool, self.dialect, self.field, self.rule
        )
    }
}

impl std::error::Error for DialectError {}

/// Keeps only `allowed` keywords of one schema node.
pub(crate) fn retain_keywords(node: &mut serde_json::Map<String, Value>, allowed: &[&str]) {
    node.retain(|key, _| allowed.contains(&key.as_str()));
}

/// `const: v` → `enum: [v]`, which every dialect here accepts.
pub(crate) fn const_to_enum(node: &mut serde_json::Map<String, Value>) {
    if let Some(value) = node.remove("const") {
        node.insert("enum".into(), Value::Array(vec![value]));
    }
}

/// `oneOf` → `anyOf` (for tool arguments the difference, exactly one versus at least one
/// matching branch, does not matter: validation uses the canonical schema), and a one-element
/// `allOf` merged into its parent.
pub(crate) fn simplify_combinators(
    dialect: Dialect,
    node: &mut serde_json::Map<String, Value>,
    path: &str,
) -> Result<(), DialectError> {
    if let Some(one_of) = node.remove("oneOf") {
        node.insert("anyOf".into(), one_of);
    }
    if let Some(all_of) = node.remove("allOf") {
        match all_of {
            Value::Array(mut parts) if parts.len() == 1 => {
                if let Value::Object(part) = parts.remove(0) {
                    for (key, value) in part {
                        node.entry(key).or_insert(value);
                    }
                }
            }
            _ => {
                return Err(DialectError::new(
                    dialect,
                    path,
                    "`allOf` with several schemas is not supported; merge them into one struct",
                ));
            }
        }
    }
    for keyword in [
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
    ] {
        if node.contains_key(keyword) {
            return Err(DialectError::new(
                dialect,
                path,
                format!(
                    "`{keyword}` is not supported; express the constraint in the description and check it in the tool"
                ),
            ));
        }
    }
    Ok(())
}

/// Whether a node describes an object.
pub(crate) fn is_object(node: &serde_json::Map<String, Value>) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => node.contains_key("properties"),
    }
}

/// An object with free-form keys (a Rust map): `additionalProperties` is a schema and there
/// are no declared properties. Strict modes and Gemini cannot express it.
pub(crate) fn is_free_form_map(node: &serde_json::Map<String, Value>) -> bool {
    matches!(node.get("additionalProperties"), Some(Value::Object(_)))
        && node
            .get("properties")
            .is_none_or(|p| p.as_object().is_some_and(serde_json::Map::is_empty))
}
