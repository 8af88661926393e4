//! The approval hook consulted before each call the code makes.

use cy_tools::BoxFuture;
use serde_json::Value;

/// One call the code asks to make, as the approval hook sees it.
#[derive(Clone, Debug)]
pub struct ApprovalRequest<'a> {
    /// The session making the call.
    pub session_id: &'a str,
    /// The `execute_code` call whose code makes it, if known.
    pub parent_call: Option<&'a str>,
    /// The tool's name.
    pub tool: &'a str,
    /// The arguments, as the code sent them.
    pub arguments: &'a Value,
}

/// What the hook decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Approval {
    /// Run the call.
    Allow,
    /// Refuse it; the reason reaches the code as a `cy_sdk.ToolError`.
    Deny(String),
}

/// Consulted before each call the code makes. The answer is a future, so a hook can ask the
/// host (a person, a policy service) and wait; the per-call timeout covers that wait.
///
/// ```
/// use cy_tools::BoxFuture;
/// use cy_tools_code_mode::{Approval, ApprovalHook, ApprovalRequest};
///
/// struct NoWrites;
/// impl ApprovalHook for NoWrites {
///     fn approve<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Approval> {
///         let tool = request.tool.to_string();
///         Box::pin(async move {
///             if tool == "write_file" {
///                 Approval::Deny("this session may not write files".into())
///             } else {
///                 Approval::Allow
///             }
///         })
///     }
/// }
/// ```
pub trait ApprovalHook: Send + Sync {
    /// Decides whether the call may run.
    fn approve<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Approval>;
}

/// The hook that allows every call (the default): the toolset and its validation still apply.
#[derive(Clone, Copy, Debug, Default)]
pub struct AllowAll;

impl ApprovalHook for AllowAll {
    fn approve<'a>(&'a self, _request: ApprovalRequest<'a>) -> BoxFuture<'a, Approval> {
        Box::pin(async { Approval::Allow })
    }
}
