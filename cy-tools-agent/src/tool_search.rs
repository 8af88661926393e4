//! Tool search for direct calling: the model is declared a few tools and a search tool, not
//! every definition, and the tools it finds become callable.
//!
//! * Anthropic: the API's own deferred loading. Every tool is declared, those not kept with
//!   `"defer_loading": true`, beside the server-side search tool
//!   `{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}`, under the
//!   beta header `advanced-tool-use-2025-11-20`. Deferred definitions do not enter the
//!   model's context until its search (run by the API, answered with `server_tool_use` and
//!   `tool_search_tool_result` blocks, which the loop sends back as they came) returns them, in
//!   the same answer.
//! * OpenAI Chat Completions, which has no such form: a function `search_tools` (words, and
//!   how many to find) that the loop answers itself with cy-tools' ranking
//!   ([`ToolSearch`]); the tools it finds are declared from the next turn on.

use std::borrow::Cow;
use std::collections::HashSet;

use cy_tools::ToolResult;
use cy_tools::dialect::ToolSearch;
use cy_tools::{BoundTool, Toolset};
use serde_json::{Value, json};

use super::error::AgentError;
use super::provider::{Declared, Provider};
use super::transcript::ModelCall;

/// Tool search for direct calling ([`AgentConfig::tool_search`](crate::AgentConfig::tool_search)).
///
/// ```
/// use cy_tools_agent::{AgentConfig, ToolSearchConfig};
/// use cy_tools::session::ModelProvider;
///
/// let mut config = AgentConfig::new(ModelProvider::Anthropic, "claude-sonnet-4-5");
/// config.tool_search = Some(ToolSearchConfig::keeping(["read_file"]));
/// assert_eq!(config.tool_search.unwrap().limit, 5);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSearchConfig {
    /// Tools declared from the start, by the session's names: the few the model needs most.
    /// A name the session does not have is left out.
    pub keep: Vec<String>,
    /// How many tools one portable search finds at most (Anthropic's search returns its own
    /// three to five).
    pub limit: usize,
}

impl ToolSearchConfig {
    /// Tool search keeping `keep` declared, finding at most 5 tools a search.
    pub fn keeping<S: Into<String>>(keep: impl IntoIterator<Item = S>) -> Self {
        ToolSearchConfig {
            keep: keep.into_iter().map(Into::into).collect(),
            limit: 5,
        }
    }
}

/// The name of the portable search tool.
pub const SEARCH_TOOLS: &str = "search_tools";

/// Anthropic's server-side search tool, natural-language queries (BM25).
pub(crate) const ANTHROPIC_SEARCH_TYPE: &str = "tool_search_tool_bm25_20251119";
pub(crate) const ANTHROPIC_SEARCH_NAME: &str = "tool_search_tool_bm25";
/// The beta Anthropic's tool search came out under.
pub(crate) const ADVANCED_TOOL_USE_BETA: &str = "advanced-tool-use-2025-11-20";

/// What the portable search tool tells the model.
pub(crate) const SEARCH_DESCRIPTION: &str = "Find tools by words: this session has more tools than are declared here. Give words of what you want to do (`read file`, `current time`); the tools whose names, descriptions or argument names have them are listed, best first, and can be called from your next turn on.";

/// One run's tool search: the index, what is kept and what the model found so far.
pub(crate) struct Search {
    pub(crate) config: ToolSearchConfig,
    index: ToolSearch,
    /// The session's names of the tools declared in full: kept, then found.
    pub(crate) loaded: HashSet<String>,
}

impl Search {
    /// The run's tool search, if `config` turns it on.
    ///
    /// # Errors
    /// The loop's own search tool would take the name of a session tool.
    pub(crate) fn for_run(
        config: Option<&ToolSearchConfig>,
        provider: &dyn Provider,
        tools: &Toolset,
    ) -> Result<Option<Search>, AgentError> {
        let Some(config) = config else {
            return Ok(None);
        };
        if !provider.searches_itself() && tools.get(SEARCH_TOOLS).is_some() {
            return Err(AgentError::usage(format!(
                "the session has a tool named `{SEARCH_TOOLS}`, the name tool search gives its own search tool; rename that tool, or turn tool search off"
            )));
        }
        Ok(Some(Search::new(config.clone(), tools)))
    }

    /// The tools one turn declares: all of them, or under tool search what the model may see
    /// this turn (kept, found, the search tool).
    pub(crate) fn declarations<'a>(
        search: Option<&Search>,
        provider: &dyn Provider,
        declared: &'a Declared,
    ) -> Cow<'a, [Value]> {
        match search {
            Some(search) => Cow::Owned(provider.search_declarations(declared, &search.loaded)),
            None => Cow::Borrowed(&declared.tools),
        }
    }

    pub(crate) fn new(config: ToolSearchConfig, tools: &Toolset) -> Search {
        let loaded = config
            .keep
            .iter()
            .filter(|name| tools.get(name).is_some())
            .cloned()
            .collect();
        let index = ToolSearch::of(tools.iter().filter(|t| t.name() != SEARCH_TOOLS));
        Search {
            config,
            index,
            loaded,
        }
    }

    /// Answers a portable `search_tools` call: the tools found (declared from the next turn
    /// on), or an error result saying what to send.
    pub(crate) fn answer(&mut self, tools: &Toolset, arguments: &Value) -> ToolResult {
        let arguments = match arguments {
            Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
            other => other.clone(),
        };
        let Some(query) = arguments.get("query").and_then(Value::as_str) else {
            return ToolResult::error(format!(
                "`{SEARCH_TOOLS}` needs `query`, a string of words to look for (`{{\"query\": \"read file\"}}`)"
            ));
        };
        let limit = arguments
            .get("limit")
            .and_then(Value::as_u64)
            .map_or(self.config.limit, |n| usize::try_from(n).unwrap_or(20))
            .clamp(1, 20);
        let found = self.index.find(query, limit);
        if found.is_empty() {
            return ToolResult::error(format!(
                "no tool matches `{query}`; try other words (a verb, an object: `list files`, `time zone`)"
            ));
        }
        let mut lines = Vec::with_capacity(found.len());
        let mut names = Vec::with_capacity(found.len());
        for name in found {
            if let Some(tool) = tools.get(name) {
                lines.push(format!("- {name}: {}", summary(tool)));
                names.push(name.to_string());
            }
        }
        self.loaded.extend(names.iter().cloned());
        ToolResult::text(format!(
            "Found {} tool(s); they are declared to you from your next turn on, so call them then:\n{}",
            names.len(),
            lines.join("\n")
        ))
        .with_details(json!({ "found": names }))
    }
}

/// A tool's description's first sentence, on one line.
fn summary(tool: &BoundTool) -> String {
    let flat = tool.description().split_whitespace().collect::<Vec<_>>();
    let flat = flat.join(" ");
    match flat.find(". ") {
        Some(end) => flat[..=end].to_string(),
        None => flat,
    }
}

/// The portable search tool's declaration in OpenAI's function form.
pub(crate) fn openai_search_tool() -> Value {
    json!({
        "type": "function",
        "function": {
            "name": SEARCH_TOOLS,
            "description": SEARCH_DESCRIPTION,
            "parameters": cy_tools::dialect::search_tool_schema(),
        }
    })
}

/// Anthropic's server-side search tool's declaration.
pub(crate) fn anthropic_search_tool() -> Value {
    json!({"type": ANTHROPIC_SEARCH_TYPE, "name": ANTHROPIC_SEARCH_NAME})
}

impl Search {
    /// A turn's calls split into the answers to the portable search's calls (by their place
    /// in the turn; `None` for the others) and the other calls, which run in the session.
    /// Without a portable search every call runs in the session.
    pub(crate) fn split(
        search: Option<&mut Search>,
        tools: &Toolset,
        calls: &[ModelCall],
    ) -> (Vec<Option<(ModelCall, ToolResult)>>, Vec<ModelCall>) {
        let Some(search) = search else {
            return (vec![None; calls.len()], calls.to_vec());
        };
        let mut answered = Vec::with_capacity(calls.len());
        let mut rest = Vec::new();
        for call in calls {
            if call.name == SEARCH_TOOLS {
                let result = search.answer(tools, &call.arguments);
                answered.push(Some((call.clone(), result)));
            } else {
                answered.push(None);
                rest.push(call.clone());
            }
        }
        (answered, rest)
    }

    /// The turn's results in its calls' order: the search's answers in their places, the
    /// session's results (in order) in the others.
    pub(crate) fn merge(
        answered: Vec<Option<(ModelCall, ToolResult)>>,
        ran: Vec<(ModelCall, ToolResult)>,
    ) -> Vec<(ModelCall, ToolResult)> {
        let mut ran = ran.into_iter();
        answered
            .into_iter()
            .filter_map(|slot| slot.or_else(|| ran.next()))
            .collect()
    }
}
