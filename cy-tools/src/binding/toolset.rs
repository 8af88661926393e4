//! `Toolset`: the ordered tools of one session.

use tokio_util::sync::CancellationToken;

use super::bound::BoundTool;
use crate::call::{ToolCall, ToolResult};

/// A session's bound tools, in the order its spec listed them.
///
/// ```
/// use cy_tools::{SessionIdentity, ToolContext, ToolRegistry, memory::MemorySandbox};
/// let registry = ToolRegistry::new();
/// let tools = registry.build(&["nothing_here"], &ToolContext::new(SessionIdentity::root("s", "t")));
/// assert!(tools.is_empty());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Toolset {
    tools: Vec<BoundTool>,
}

impl Toolset {
    /// A toolset of `tools`, in that order.
    pub fn new(tools: Vec<BoundTool>) -> Self {
        Toolset { tools }
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&BoundTool> {
        self.tools.iter().find(|t| t.name() == name)
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
