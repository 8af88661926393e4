//! `Toolset`: the ordered tools of one session.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::OnceLock;

use tokio_util::sync::CancellationToken;

use super::bound::BoundTool;
use super::name::ToolName;
use super::registry::Fnv;
use crate::call::{ToolCall, ToolResult};

/// A session's bound tools, in the order its spec listed them.
///
/// ```
/// use cy_tools::{SessionIdentity, ToolContext, ToolRegistry, memory::MemorySandbox};
/// let registry = ToolRegistry::new();
/// let tools = registry.build(&["nothing_here"], &ToolContext::new(SessionIdentity::root("s", "t")));
/// assert!(tools.is_empty());
/// ```
#[derive(Clone, Default)]
pub struct Toolset {
    tools: Vec<BoundTool>,
    /// Where each name is, made by the first lookup in a set past [`SCANNED`] tools (a
    /// gateway's hundreds): binding stays a list, and a call in a large set is one hash away.
    index: OnceLock<HashMap<ToolName, usize, BuildHasherDefault<Fnv>>>,
}

/// Up to this many tools, a lookup compares names in order: cheaper than hashing one.
const SCANNED: usize = 16;

impl Toolset {
    /// A toolset of `tools`, in that order.
    pub fn new(tools: Vec<BoundTool>) -> Self {
        Toolset {
            tools,
            index: OnceLock::new(),
        }
    }

    /// The tool named `name` (the first, should two share it).
    ///
    /// ```
    /// # use cy_tools::{tool, SessionIdentity, ToolContext, ToolRegistry};
    /// # /// Answers `pong`.
    /// # #[tool] async fn ping_found() -> String { "pong".into() }
    /// let tools = ToolRegistry::linked().unwrap().build(&["ping_found"], &ToolContext::new(SessionIdentity::root("s", "t")));
    /// assert_eq!(tools.get("ping_found").unwrap().name(), "ping_found");
    /// assert!(tools.get("ping_lost").is_none());
    /// ```
    pub fn get(&self, name: &str) -> Option<&BoundTool> {
        if self.tools.len() <= SCANNED {
            return self.tools.iter().find(|t| t.name() == name);
        }
        let index = self.index.get_or_init(|| {
            let mut index = HashMap::with_capacity_and_hasher(self.tools.len(), Default::default());
            for (at, tool) in self.tools.iter().enumerate() {
                index.entry(tool.shared_name().clone()).or_insert(at);
            }
            index
        });
        index.get(name).map(|&at| &self.tools[at])
    }

    /// Tool names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(BoundTool::name).collect()
    }

    /// The tools, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, BoundTool> {
        self.tools.iter()
    }

    /// How many tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Adds a tool at the end.
    pub fn push(&mut self, tool: BoundTool) {
        self.tools.push(tool);
        self.index = OnceLock::new();
    }

    /// Runs a call of the tool named `name`; an unknown name is an error result listing the
    /// tools there are, so a model that misspells a name can correct itself.
    pub async fn execute(
        &self,
        name: &str,
        call: ToolCall,
        cancel: &CancellationToken,
    ) -> ToolResult {
        match self.get(name) {
            Some(tool) => tool.execute(call, cancel).await,
            None => self.unknown(name),
        }
    }

    /// The answer to a call of a tool not in this set: the tools there are.
    pub(crate) fn unknown(&self, name: &str) -> ToolResult {
        ToolResult::error(format!(
            "unknown tool `{name}`; available tools are {}",
            if self.tools.is_empty() {
                "none".to_string()
            } else {
                self.tools
                    .iter()
                    .map(|t| format!("`{}`", t.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ))
    }
}

impl std::fmt::Debug for Toolset {
    /// The tools; the index is how they are found, not what the set is.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolset")
            .field("tools", &self.tools)
            .finish()
    }
}

impl IntoIterator for Toolset {
    type Item = BoundTool;
    type IntoIter = std::vec::IntoIter<BoundTool>;

    fn into_iter(self) -> Self::IntoIter {
        self.tools.into_iter()
    }
}

impl<'a> IntoIterator for &'a Toolset {
    type Item = &'a BoundTool;
    type IntoIter = std::slice::Iter<'a, BoundTool>;

    fn into_iter(self) -> Self::IntoIter {
        self.tools.iter()
    }
}

#[cfg(test)]
mod tests {
    use crate::capability::capability_set;
    use crate::definition::ToolDefinition;
    use crate::{BoxFuture, CallInfo, Ctx, SessionIdentity, ToolContext, ToolRegistry, ToolResult};

    capability_set!(NoCaps:);

    fn answer<'a>(_: (), _: Ctx<'a, NoCaps>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
        Box::pin(async { ToolResult::text("ok") })
    }

    /// One definition, registered under many names.
    static ANSWER: ToolDefinition<(), NoCaps> = ToolDefinition::new("answer", "Answers.", answer);

    /// A set of `count` tools, `t0`, `t1`, ...
    fn tools(count: usize) -> super::Toolset {
        let mut registry = ToolRegistry::new();
        let names: Vec<String> = (0..count).map(|i| format!("t{i}")).collect();
        for name in &names {
            registry.register(name, &ANSWER).unwrap();
        }
        registry.build(&names, ToolContext::new(SessionIdentity::root("s", "t")))
    }

    #[test]
    fn every_tool_is_found_by_name_in_small_and_large_sets() {
        for count in [1, super::SCANNED, super::SCANNED + 1, 500] {
            let set = tools(count);
            assert_eq!(set.len(), count);
            for i in 0..count {
                let name = format!("t{i}");
                assert_eq!(set.get(&name).map(|t| t.name()), Some(name.as_str()));
            }
            assert!(set.get("t-none").is_none());
            assert!(set.get("").is_none());
        }
    }

    #[test]
    fn a_pushed_tool_is_found_after_the_index_was_made() {
        let mut set = tools(40);
        assert!(set.get("t39").is_some());
        let extra = tools(41).into_iter().last().unwrap();
        assert!(set.get("t40").is_none());
        set.push(extra);
        assert_eq!(set.get("t40").map(|t| t.name()), Some("t40"));
        // A clone keeps finding what the original finds.
        assert_eq!(set.clone().get("t7").map(|t| t.name()), Some("t7"));
    }
}
