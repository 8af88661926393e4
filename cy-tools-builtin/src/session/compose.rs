//! The composition root: which tools a session gets, in which order.
//!
//! The order of a session's tools: `execute_code` always (it is the core affordance); the chat tools only
//! when a chat is bound; the spec's other tools, in its order; the delegation tools when the
//! session may start subagents. A name in the spec that belongs to one of the other groups is
//! placed with its group, so the order does not depend on how the spec was written.

use cy_tools::SessionSpec;

/// The tool every session gets first.
pub const EXECUTE_CODE: &str = "execute_code";

/// The tools a session gets when, and only when, it is bound to a chat.
pub const CHAT_TOOLS: &[&str] = &["send_message"];

/// The tools a session gets when its spec declares subagents and it is above the maximum depth.
pub const DELEGATION_TOOLS: &[&str] = &["delegate", "workflow"];

/// The session's tool names in order; `chat_bound` says whether its context has a
/// chat.
///
/// ```
/// use cy_tools::{SessionSpec, SubagentProfile};
/// use cy_tools_builtin::session::compose::tool_names;
///
/// let spec = SessionSpec::root("s-1", "acme", "/w")
///     .with_tools(["delegate", "read_file", "send_message", "write_file"])
///     .with_subagent(SubagentProfile::new("worker", ["read_file"]));
/// assert_eq!(
///     tool_names(&spec, true),
///     ["execute_code", "send_message", "read_file", "write_file", "delegate", "workflow"]
/// );
/// assert_eq!(tool_names(&spec, false), ["execute_code", "read_file", "write_file", "delegate", "workflow"]);
/// ```
pub fn tool_names(spec: &SessionSpec, chat_bound: bool) -> Vec<String> {
    let mut names = Vec::with_capacity(spec.tools.len() + 4);
    names.push(EXECUTE_CODE.to_string());
    if chat_bound {
        names.extend(CHAT_TOOLS.iter().map(|n| (*n).to_string()));
    }
    for name in &spec.tools {
        let grouped = name == EXECUTE_CODE
            || CHAT_TOOLS.contains(&name.as_str())
            || DELEGATION_TOOLS.contains(&name.as_str());
        if !grouped && !names.contains(name) {
            names.push(name.clone());
        }
    }
    if spec.can_delegate() {
        names.extend(DELEGATION_TOOLS.iter().map(|n| (*n).to_string()));
    }
    names
}

/// Whether `name` is one of the delegation tools.
pub fn is_delegation(name: &str) -> bool {
    DELEGATION_TOOLS.contains(&name)
}
