//! `CallHook`: what a hook sees of a call, and what it may decide.

use serde_json::{Map, Value};

use crate::BoxFuture;
use crate::approval::hook::ApprovalStep;
use crate::binding::SessionIdentity;
use crate::call::ToolResult;

/// One call as a hook sees it: the session, the tool, the call's id and its arguments (already
/// an object whose root fields the tool declares).
#[derive(Clone, Copy, Debug)]
pub struct HookCall<'a> {
    /// The session the call runs in.
    pub session: &'a SessionIdentity,
    /// The tool's name.
    pub tool: &'a str,
    /// The call's id.
    pub call_id: &'a str,
    /// The arguments.
    pub arguments: &'a Map<String, Value>,
    /// What the built-in approval hook needs of a call that needs approval (absent otherwise).
    pub(crate) approval: Option<&'a ApprovalStep<'a>>,
}

/// What a hook decides before a call.
#[derive(Clone, Debug, PartialEq)]
pub enum Before {
    /// Let the call go on as it is.
    Pass,
    /// Let it go on with these arguments instead (checked against the tool's schema again).
    Rewrite(Map<String, Value>),
    /// Refuse it: the model reads the message (which names the hook), and nothing ran.
    Refuse(String),
    /// Answer this result in the tool's place: the tool does not run, and the caller gets the
    /// result as it is (a cached answer, or a refusal in the hook's own words and `details`,
    /// as the built-in approval hook gives). The hooks' `after` steps do not run for it.
    Answer(ToolResult),
}

/// What a hook decides after a call.
#[derive(Clone, Debug, PartialEq)]
pub enum After {
    /// Keep the result.
    Keep,
    /// Answer this result instead.
    Replace(ToolResult),
}

/// Why a hook could not decide: the call is refused (before) or its result withheld (after),
/// naming the hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookError {
    message: String,
}

impl HookError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        HookError {
            message: message.into(),
        }
    }
}

impl std::fmt::Display for HookError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HookError {}

/// A hook around every call of a session (see [the module](crate::call::hook)). Both steps default
/// to passing, so a hook implements the one it needs.
pub trait CallHook: Send + Sync {
    /// Its name, for the messages that say it refused or failed.
    fn name(&self) -> &str;

    /// Sees a call before it runs.
    fn before<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, Result<Before, HookError>> {
        let _ = call;
        Box::pin(std::future::ready(Ok(Before::Pass)))
    }

    /// Sees the call's result before the caller does.
    fn after<'a>(
        &'a self,
        call: &'a HookCall<'a>,
        result: &'a ToolResult,
    ) -> BoxFuture<'a, Result<After, HookError>> {
        let _ = (call, result);
        Box::pin(std::future::ready(Ok(After::Keep)))
    }
}
