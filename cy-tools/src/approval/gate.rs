//! The check `BoundTool::execute` makes before a body runs: ask, bounded in time, and say who
//! decided.

use std::future::poll_fn;
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{Approval, ApprovalRequest, Approver, ChatApprover, Decision};
use crate::binding::format_duration;
use crate::call::ToolResult;
use crate::services::Chat;

/// What came of asking: run the body (with the record of who approved, for the result's
/// `details`), or answer this result instead.
pub(crate) enum Verdict {
    Run(Value),
    Refuse(ToolResult),
    Cancelled,
}

/// Asks `own` (the call's host's approver), else the settings' approver, else the chat.
pub(crate) async fn ask(
    approval: &Approval,
    own: Option<&Arc<dyn Approver>>,
    chat: Option<&Arc<dyn Chat>>,
    request: &ApprovalRequest<'_>,
    cancel: &CancellationToken,
) -> Verdict {
    let tool = request.tool;
    let policy = request.policy;
    let chat_approver;
    let approver: &dyn Approver = match (own, &approval.approver, chat) {
        (Some(own), _, _) => own.as_ref(),
        (None, Some(set), _) => set.as_ref(),
        (None, None, Some(chat)) => {
            chat_approver = ChatApprover::new(Arc::clone(chat));
            &chat_approver
        }
        (None, None, None) => {
            tracing::info!(tool, call = request.call_id, %policy, "approval needed, nobody to ask: refused");
            return Verdict::Refuse(refusal(
                request,
                "unavailable",
                "nobody",
                format!(
                    "the call to `{tool}` was not run: it needs a person's approval (policy `{policy}`), and this session has no chat and no approver to ask; the operator can allow such calls with `--approve none`"
                ),
            ));
        }
    };
    let mut asking = pin!(approver.ask(request));
    let mut expired = pin!(tokio::time::sleep(approval.timeout));
    let mut cancelled = pin!(cancel.cancelled());
    let waited = poll_fn(|cx| {
        if let Poll::Ready(decision) = asking.as_mut().poll(cx) {
            return Poll::Ready(Waited::Answered(decision));
        }
        if cancelled.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Waited::Cancelled);
        }
        if expired.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Waited::TimedOut);
        }
        Poll::Pending
    })
    .await;
    let decision = match waited {
        Waited::Answered(decision) => decision,
        Waited::Cancelled => return Verdict::Cancelled,
        Waited::TimedOut => {
            let after = format_duration(approval.timeout);
            tracing::info!(tool, call = request.call_id, %policy, "approval not answered in {after}: refused");
            return Verdict::Refuse(refusal(
                request,
                "unanswered",
                "nobody",
                format!(
                    "the call to `{tool}` was not run: it needs a person's approval (policy `{policy}`) and nobody answered within {after}; nothing was changed. Ask the user to watch for the approval request, then call it again"
                ),
            ));
        }
    };
    match decision {
        Decision::Approved { by } => {
            tracing::info!(tool, call = request.call_id, %policy, by, "call approved");
            Verdict::Run(json!({"policy": policy, "decision": "approved", "by": by}))
        }
        Decision::Declined { by, reason } => {
            tracing::info!(tool, call = request.call_id, %policy, by, ?reason, "call declined");
            let why = reason.map(|r| format!(" ({r})")).unwrap_or_default();
            Verdict::Refuse(refusal(
                request,
                "declined",
                &by,
                format!(
                    "the call to `{tool}` was not run: {by} declined it{why}; nothing was changed. Do not call it again as it is: ask the user what to do instead"
                ),
            ))
        }
        Decision::Unavailable { reason } => {
            tracing::info!(tool, call = request.call_id, %policy, reason, "approval could not be asked: refused");
            Verdict::Refuse(refusal(
                request,
                "unavailable",
                "nobody",
                format!(
                    "the call to `{tool}` was not run: it needs a person's approval (policy `{policy}`), and {reason}"
                ),
            ))
        }
    }
}

enum Waited {
    Answered(Decision),
    TimedOut,
    Cancelled,
}

fn refusal(request: &ApprovalRequest<'_>, decision: &str, by: &str, message: String) -> ToolResult {
    let mut result = ToolResult::error(message);
    result.details = Some(json!({"approval": {
        "policy": request.policy, "decision": decision, "by": by,
    }}));
    result
}

/// Adds the approval record to a result's `details`, beside what the tool put there.
pub(crate) fn record(result: &mut ToolResult, approval: Value) {
    match &mut result.details {
        Some(Value::Object(details)) => {
            details.insert("approval".into(), approval);
        }
        Some(other) => {
            let tool = other.take();
            result.details = Some(json!({"approval": approval, "tool": tool}));
        }
        None => result.details = Some(json!({"approval": approval})),
    }
}
