//! `delegate`: run a task in a child session and return its final answer.

use cy_tools::prelude::*;
use cy_tools::services::{ChildRequest, ChildSessionFactory};
use schemars::JsonSchema;
use serde::Deserialize;

/// What the inert `delegate` and `workflow` answer, and what a factory without an agent loop
/// reports.
pub const UNAVAILABLE: &str = "delegation is unavailable here: this application runs no subagents (no agent loop is wired in); do the task yourself with your other tools";

/// The arguments of `delegate`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DelegateArgs {
    /// The subagent profile to run the task with, such as `researcher`.
    pub agent: String,
    /// The task, complete in itself: the subagent sees nothing else of this conversation.
    pub task: String,
}

/// Hand a task to a subagent and get its final answer. The subagent runs in a child session
/// with the tools of its profile and its own folder inside this workspace (its files are under
/// `subagents/`); it cannot see this conversation, so say everything it needs in `task`.
#[tool(
    title = "Delegate to a subagent",
    capabilities(factory),
    open_world,
    destructive
)]
pub async fn delegate(
    factory: &dyn ChildSessionFactory,
    call: CallInfo,
    #[args] args: DelegateArgs,
) -> Result<String, ToolError> {
    if args.task.trim().is_empty() {
        return Err(ToolError::new(
            "`task` is empty; describe the work the subagent should do and what to answer",
        ));
    }
    let request = ChildRequest {
        profile: args.agent.clone(),
        workspace: None,
        parent_call: Some(call.id.to_string()),
    };
    let outcome = factory.run_child(request, &args.task, call.cancel).await?;
    Ok(format!(
        "subagent `{}` (session `{}`) answered:\n{}",
        args.agent, outcome.session_id, outcome.answer
    ))
}

/// Hand a task to a subagent. Not available in this session: no agent loop for subagents is
/// wired in, so a call only answers that; do the work yourself.
#[tool(name = "delegate", register = false, read_only, open_world = false)]
pub async fn delegate_unavailable(#[args] _args: DelegateArgs) -> ToolResult {
    ToolResult::error(UNAVAILABLE)
}
