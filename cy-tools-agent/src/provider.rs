//! `Provider`: one wire format, what the loop needs of it.

use std::collections::HashSet;

use cy_tools::dialect::{Dialect, NameMap};
use cy_tools::{BoundTool, Toolset};
use serde_json::Value;

use super::error::AgentError;
use super::sse::Event;
use super::transcript::{Message, Reply};
use super::turn_budget::Written;

/// What one request holds, whatever the wire format.
pub(crate) struct RequestParts<'a> {
    pub(crate) model: &'a str,
    pub(crate) system: Option<&'a str>,
    pub(crate) messages: &'a [Message],
    pub(crate) tools: &'a [Value],
    /// The most the answer may write.
    pub(crate) max_tokens: u64,
    pub(crate) stream: bool,
    /// Whether the base URL is the provider's own API (which knows its newest fields).
    pub(crate) official: bool,
}

/// A model API's wire format: how a request is written and an answer read.
pub(crate) trait Provider: Send + Sync {
    /// `openai` or `anthropic`.
    fn name(&self) -> &'static str;

    /// The endpoint, relative to the base URL.
    fn endpoint(&self) -> &'static str;

    /// The headers a request carries, with the key when there is one; `strict` when some
    /// tools are declared strict, `tool_search` when tool search is on.
    fn headers(
        &self,
        key: Option<&str>,
        strict: bool,
        tool_search: bool,
    ) -> Vec<(&'static str, String)>;

    /// The tools one turn declares under tool search: `declared` (the whole toolset's
    /// declarations) cut to what the model may see, with the search tool. `loaded` are the
    /// session's names of the tools kept or found so far.
    fn search_declarations(&self, declared: &Declared, loaded: &HashSet<String>) -> Vec<Value>;

    /// Whether the provider runs the search itself (Anthropic's deferred loading): the loop
    /// then answers no search call.
    fn searches_itself(&self) -> bool;

    /// The tool dialects: strict and not.
    fn dialects(&self) -> (Dialect, Dialect);

    /// The request body.
    fn request(&self, parts: &RequestParts<'_>) -> Value;

    /// A whole (not streamed) answer.
    fn parse(&self, body: &Value) -> Result<Reply, AgentError>;

    /// A fresh reader of a streamed answer.
    fn stream(&self) -> Box<dyn StreamReader>;

    /// The message of an error answer's body, when it is the provider's error format.
    fn error_message(&self, body: &Value) -> Option<String>;
}

/// Builds a [`Reply`] from a streamed answer's events.
pub(crate) trait StreamReader: Send {
    /// Takes one event; text the model wrote goes to `text` as it comes. `true` when the event
    /// ends the answer.
    fn event(&mut self, event: &Event, text: &mut dyn FnMut(&str)) -> Result<bool, AgentError>;

    /// What the answer has written so far (text, thinking, tool-call arguments), for the turn's
    /// budget.
    fn written(&self) -> Written;

    /// The answer, once the stream has ended.
    fn finish(self: Box<Self>) -> Result<Reply, AgentError>;
}

/// A toolset as declared to the model.
pub(crate) struct Declared {
    /// The declarations, in the toolset's order.
    pub(crate) tools: Vec<Value>,
    /// The session's name of each declaration, in the same order.
    pub(crate) order: Vec<String>,
    /// The tools declared strict, by the session's names.
    pub(crate) strict: HashSet<String>,
    /// The session's tool names and the names the provider knows them by (the same, but for a
    /// name its rule refuses, such as `github.create_issue`).
    pub(crate) names: NameMap,
}

impl Declared {
    /// The session's name of the tool a model's call names.
    pub(crate) fn tool_name<'a>(&'a self, called: &'a str) -> &'a str {
        self.names.to_tool(called).unwrap_or(called)
    }
}

/// The declarations of `tools`, strict where `strict` asks and the tool can be: a tool whose
/// schema the strict dialect cannot express is declared loosely (its calls are still validated
/// against its full schema), with a warning. A tool whose name the provider refuses is
/// declared under a mapped one ([`NameMap`]), and its calls mapped back.
pub(crate) fn declare(
    provider: &dyn Provider,
    tools: &Toolset,
    strict: bool,
) -> Result<Declared, AgentError> {
    let (strict_dialect, loose) = provider.dialects();
    // One provider's two dialects share its rule for names.
    let names = NameMap::new(loose, tools.iter().map(BoundTool::name));
    let mut out = Vec::new();
    let mut order = Vec::new();
    let mut strict_names = HashSet::new();
    for tool in tools.iter() {
        order.push(tool.name().to_string());
        let name = names.to_dialect(tool.name()).unwrap_or(tool.name());
        if strict {
            match strict_dialect.export_as(tool, name) {
                Ok(declaration) => {
                    out.push(declaration);
                    strict_names.insert(tool.name().to_string());
                    continue;
                }
                Err(err) => tracing::warn!("{err}; declaring it without `strict`"),
            }
        }
        out.push(loose.export_as(tool, name).map_err(|err| {
            AgentError::usage(format!(
                "{err}; leave the tool out of the session, or fix its schema"
            ))
        })?);
    }
    if strict && strict_dialect == Dialect::AnthropicStrict {
        // The per-request limits of Anthropic's strict mode.
        strict_dialect.export_toolset(tools).map_err(|err| {
            AgentError::usage(format!(
                "{err}; turn strict tool schemas off, or give the session fewer tools"
            ))
        })?;
    }
    Ok(Declared {
        tools: out,
        order,
        strict: strict_names,
        names,
    })
}

/// Strict mode makes every optional property "required but nullable", so the model sends
/// `null` for one it leaves out; the tool's own schema may not accept `null` there. Those
/// nulls are dropped (at the top level, where strict mode adds them), which is what leaving the
/// property out means.
pub(crate) fn drop_strict_nulls(arguments: &mut Value, parameters: &Value) {
    let Value::Object(map) = arguments else {
        return;
    };
    let required: Vec<&str> = parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    map.retain(|name, value| !value.is_null() || required.contains(&name.as_str()));
}

/// A required field of an answer was missing or of the wrong type.
pub(crate) fn malformed(provider: &str, what: &str, body: &Value) -> AgentError {
    let mut shown = body.to_string();
    if shown.len() > 300 {
        let mut end = 300;
        while !shown.is_char_boundary(end) {
            end -= 1;
        }
        shown.truncate(end);
        shown.push_str("...");
    }
    AgentError::provider(format!(
        "the {provider} API answered without {what}: {shown}; check that the base URL serves the {provider} format"
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::drop_strict_nulls;

    #[test]
    fn nulls_strict_mode_adds_are_dropped_and_required_ones_kept() {
        let parameters = json!({
            "type": "object",
            "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}, "note": {"type": ["string", "null"]}},
            "required": ["path", "note"],
        });
        let mut arguments = json!({"path": "a.txt", "limit": null, "note": null});
        drop_strict_nulls(&mut arguments, &parameters);
        assert_eq!(arguments, json!({"path": "a.txt", "note": null}));
        let mut text = json!("not an object");
        drop_strict_nulls(&mut text, &parameters);
        assert_eq!(text, json!("not an object"));
    }
}
