//! Tool search over MCP: a server with hundreds of tools lists the kept ones and a
//! `search_tools` tool; the tools a search finds join the connection's `tools/list`, and the
//! client is told with `notifications/tools/list_changed`.
//!
//! What was found belongs to the connection (stdio, or a session of the session-bearing HTTP
//! mode): a stateless HTTP server, which keeps nothing between requests and cannot notify,
//! lists every tool instead. A tool not listed yet can still be called by its name: the list
//! is what the client's model is shown, not a permission.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};

use cy_tools::ToolResult;
use cy_tools::dialect::{ToolSearch, search_tool_schema};
use rmcp::model::{CallToolRequestParams, CallToolResponse, Tool};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;

use super::server::Inner;

/// The search tool's name.
pub(super) const SEARCH_TOOLS: &str = "search_tools";

/// How long a search's answer waits for its `notifications/tools/list_changed` to go out.
const NOTIFY_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// How many tools one search finds unless it asks for another number.
const DEFAULT_LIMIT: usize = 5;

/// The server's tool search: the kept tools and the index (the same for every connection).
pub(super) struct SearchTools {
    keep: HashSet<String>,
    index: Mutex<Indexed>,
    declaration: Tool,
}

/// The index of the tools one [`Inner`] serves. A host may put other tools in place while the
/// server runs (a gateway whose upstream's list changed): the index is made again for them on
/// the next search, so a search finds what is served now.
struct Indexed {
    /// What it indexes. A `Weak` keeps the allocation, so no other `Inner` can take its address
    /// while this is compared with the one served.
    of: Weak<Inner>,
    index: Arc<ToolSearch>,
}

/// The tools one connection's searches found.
#[derive(Clone, Default)]
pub(super) struct Found(Arc<Mutex<HashSet<String>>>);

impl SearchTools {
    /// Tool search over what `served` serves, keeping `keep` listed (names the session lacks
    /// are ignored).
    ///
    /// # Errors
    /// The session has a tool named `search_tools` of its own.
    pub(super) fn new(served: &Arc<Inner>, keep: &[String]) -> Result<SearchTools, String> {
        let tools = served.session.tools();
        if tools.get(SEARCH_TOOLS).is_some() {
            return Err(format!(
                "the session has a tool named `{SEARCH_TOOLS}`, the name tool search gives its own; rename that tool, or serve without tool search"
            ));
        }
        let declaration = serde_json::from_value(serde_json::json!({
            "name": SEARCH_TOOLS,
            "title": "Search tools",
            "description": "Find tools by words: this server has more tools than it lists. Give words of what you want to do (`read file`, `current time`); the tools whose names, descriptions or argument names have them are added to the tool list (the server says the list changed), best first, and named in the answer.",
            "inputSchema": search_tool_schema(),
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
        }))
        .map_err(|err| format!("the `{SEARCH_TOOLS}` declaration is not an MCP tool: {err}"))?;
        Ok(SearchTools {
            keep: keep
                .iter()
                .filter(|n| tools.get(n).is_some())
                .cloned()
                .collect(),
            index: Mutex::new(Indexed {
                of: Arc::downgrade(served),
                index: Arc::new(ToolSearch::new(tools)),
            }),
            declaration,
        })
    }

    /// The index of what `served` serves: the one made last, or a new one when the tools
    /// served are others.
    fn index(&self, served: &Arc<Inner>) -> Arc<ToolSearch> {
        let mut indexed = self.index.lock().unwrap_or_else(|e| e.into_inner());
        if !std::ptr::eq(indexed.of.as_ptr(), Arc::as_ptr(served)) {
            *indexed = Indexed {
                of: Arc::downgrade(served),
                index: Arc::new(ToolSearch::new(served.session.tools())),
            };
        }
        Arc::clone(&indexed.index)
    }

    /// The connection's `tools/list`: the kept and found tools (in `declarations`' order),
    /// then `search_tools`.
    pub(super) fn listed(&self, declarations: &[Tool], found: &Found) -> Vec<Tool> {
        let found = found.0.lock().unwrap_or_else(|e| e.into_inner());
        let mut out: Vec<Tool> = declarations
            .iter()
            .filter(|d| self.keep.contains(&*d.name) || found.contains(&*d.name))
            .cloned()
            .collect();
        out.push(self.declaration.clone());
        out
    }

    /// Answers a `search_tools` call: the tools found join the connection's list, and the
    /// client is told the list changed (when it did).
    pub(super) async fn call(
        &self,
        served: &Arc<Inner>,
        found: &Found,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.clone().unwrap_or_default();
        let Some(query) = arguments.get("query").and_then(Value::as_str) else {
            return Ok(answer(ToolResult::error(format!(
                "`{SEARCH_TOOLS}` needs `query`, a string of words to look for (`{{\"query\": \"read file\"}}`)"
            ))));
        };
        let limit = arguments
            .get("limit")
            .and_then(Value::as_u64)
            .map_or(DEFAULT_LIMIT, |n| usize::try_from(n).unwrap_or(20))
            .clamp(1, 20);
        let tools = served.session.tools();
        let names: Vec<String> = self
            .index(served)
            .find(query, limit)
            .into_iter()
            .map(str::to_string)
            .collect();
        if names.is_empty() {
            return Ok(answer(ToolResult::error(format!(
                "no tool matches `{query}`; try other words (a verb, an object: `list files`, `time zone`)"
            ))));
        }
        let mut added = false;
        {
            let mut found = found.0.lock().unwrap_or_else(|e| e.into_inner());
            for name in names.iter().filter(|n| !self.keep.contains(*n)) {
                // Every one is inserted: no short cut once one was new.
                added |= found.insert(name.clone());
            }
        }
        // Sent before the answer, so the client lists again knowing why. Waited for a while
        // only: once the client has closed its end (stdio at EOF), the connection writes
        // answers still due but no notification, and waiting for one would lose the answer.
        if added {
            match tokio::time::timeout(NOTIFY_WAIT, context.peer.notify_tool_list_changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(err)) => {
                    tracing::debug!("could not send notifications/tools/list_changed: {err}");
                }
                Err(_) => tracing::debug!(
                    "notifications/tools/list_changed not sent in time: the connection is closing"
                ),
            }
        }
        let lines: Vec<String> = names
            .iter()
            .filter_map(|n| tools.get(n))
            .map(|t| format!("- {}: {}", t.name(), summary(t.description())))
            .collect();
        Ok(answer(ToolResult::text(format!(
            "Found {} tool(s), now in the tool list:\n{}",
            lines.len(),
            lines.join("\n")
        ))))
    }
}

fn answer(result: ToolResult) -> CallToolResponse {
    CallToolResponse::Complete(super::convert::call_tool_result(result, None))
}

/// A description's first sentence, on one line.
fn summary(description: &str) -> String {
    let flat = description.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.find(". ") {
        Some(end) => flat[..=end].to_string(),
        None => flat,
    }
}

impl super::McpServer {
    /// The same server with tool search: `tools/list` lists the `keep` tools and a
    /// `search_tools` tool, whose calls add the tools they find to the connection's list and
    /// send `notifications/tools/list_changed`. Per connection (stdio, a session of the
    /// session-bearing HTTP mode); over stateless HTTP every tool is listed.
    ///
    /// # Errors
    /// The session has a tool named `search_tools` of its own.
    pub fn with_tool_search<S: AsRef<str>>(
        mut self,
        keep: &[S],
    ) -> Result<Self, super::ServeError> {
        let keep: Vec<String> = keep.iter().map(|k| k.as_ref().to_string()).collect();
        let search = super::search_tools::SearchTools::new(&self.inner, &keep)
            .map_err(|message| super::ServeError::Configuration { message })?;
        self.search = Some(std::sync::Arc::new(search));
        Ok(self)
    }
}
