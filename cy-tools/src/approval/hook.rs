//! Approval as one of the session's call hooks: the built-in hook that asks a person.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::gate::{self, Verdict};
use super::{Approval, ApprovalRequest, Approver};
use crate::BoxFuture;
use crate::call::ToolResult;
use crate::call::hook::{After, Before, CallHook, HookCall, HookError};
use crate::services::Chat;

/// The name approval goes by among a session's hooks (in messages and in
/// [`Hooks`](crate::call::hook::Hooks)' listing).
pub const APPROVAL_HOOK: &str = "approval";

/// The built-in hook that asks a person before a call that needs it runs (see
/// [the module](crate::approval)). Every session runs it after its host's hooks unless the host
/// placed it elsewhere with [`Hooks::with_approval`](crate::call::hook::Hooks::with_approval);
/// it is bounded by [`Approval::timeout`], not by the hooks' timeout, since a person answers it.
pub(crate) struct ApprovalHook;

/// What the approval hook needs of one call beyond what every hook sees: made by the call
/// path for a call that needs approval, and shared by the hook's two steps.
pub(crate) struct ApprovalStep<'a> {
    pub(crate) approval: &'a Approval,
    /// The call's own approver (its host's), asked before the session's.
    pub(crate) approver: Option<&'a Arc<dyn Approver>>,
    pub(crate) chat: Option<&'a Arc<dyn Chat>>,
    pub(crate) title: Option<&'a str>,
    pub(crate) cancel: &'a CancellationToken,
    /// Who approved, from `before` to `after`, for the result's `details`.
    pub(crate) record: Mutex<Option<Value>>,
}

impl std::fmt::Debug for ApprovalStep<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApprovalStep")
            .field("policy", &self.approval.policy)
            .finish_non_exhaustive()
    }
}

impl CallHook for ApprovalHook {
    fn name(&self) -> &str {
        APPROVAL_HOOK
    }

    fn before<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, Result<Before, HookError>> {
        Box::pin(async move {
            // A call that does not need approval carries no step: the hook passes it.
            let Some(step) = call.approval else {
                return Ok(Before::Pass);
            };
            // A copy only for calls that ask: a person looks at them anyway.
            let arguments = Value::Object(call.arguments.clone());
            let request = ApprovalRequest {
                session_id: &call.session.session_id,
                call_id: call.call_id,
                tool: call.tool,
                title: step.title,
                arguments: &arguments,
                policy: step.approval.policy,
            };
            Ok(
                match gate::ask(
                    step.approval,
                    step.approver,
                    step.chat,
                    &request,
                    step.cancel,
                )
                .await
                {
                    Verdict::Run(record) => {
                        *step.record.lock().unwrap_or_else(|e| e.into_inner()) = Some(record);
                        Before::Pass
                    }
                    // The refusal's own words and its `details` record reach the model as they
                    // are, not wrapped as a hook's refusal.
                    Verdict::Refuse(result) => Before::Answer(result),
                    Verdict::Cancelled => {
                        Before::Answer(crate::binding::ending::cancelled(call.tool))
                    }
                },
            )
        })
    }

    fn after<'a>(
        &'a self,
        call: &'a HookCall<'a>,
        result: &'a ToolResult,
    ) -> BoxFuture<'a, Result<After, HookError>> {
        let record = call
            .approval
            .and_then(|step| step.record.lock().unwrap_or_else(|e| e.into_inner()).take());
        Box::pin(std::future::ready(Ok(match record {
            Some(record) => {
                let mut result = result.clone();
                gate::record(&mut result, record);
                After::Replace(result)
            }
            None => After::Keep,
        })))
    }
}
