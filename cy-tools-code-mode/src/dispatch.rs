//! `Dispatcher`: answers one execution's SDK requests with the session's tools, in the runtime.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use cy_tools::{BoxFuture, CancellationToken, Session, ToolCall, services::SdkCalls};
use serde_json::{Value, json};

use super::approval::{Approval, ApprovalHook, ApprovalRequest};
use super::limits::CodeModeLimits;
use super::protocol::{self, Request};
use super::tools_module::ToolsModule;

/// What one execution's code may reach: the session (its tools and log) and the rules.
pub(super) struct Served {
    pub session: Session,
    /// The session's `cy_sdk.tools`, sent along with code run on another host.
    pub module: Arc<ToolsModule>,
    pub parent_call: Option<String>,
    pub limits: CodeModeLimits,
    pub approval: Arc<dyn ApprovalHook>,
    pub cancel: CancellationToken,
    /// Who the `execute_code` call's host asks for approval: the code's calls that need it ask
    /// the same person (else the session's own approver, as for any call).
    pub approver: Option<Arc<dyn cy_tools::approval::Approver>>,
    /// Who the nested calls ask the caller's model and user through: the `execute_code`
    /// call's own asker.
    pub asker: Option<Arc<dyn cy_tools::call::Asker>>,
}

/// Answers the SDK requests of one execution (token already checked by whoever received them):
/// refusals, approval, limits, the call through the toolset, recorded under the parent call.
pub(super) struct Dispatcher {
    served: Served,
    calls: AtomicUsize,
}

impl Dispatcher {
    pub(super) fn new(served: Served) -> Self {
        Dispatcher {
            served,
            calls: AtomicUsize::new(0),
        }
    }
}

impl SdkCalls for Dispatcher {
    fn call(&self, request: Value) -> BoxFuture<'_, Value> {
        Box::pin(handle(self, request))
    }

    fn python_module(&self) -> Option<Arc<str>> {
        Some(Arc::clone(self.served.module.source()))
    }
}

async fn handle(state: &Dispatcher, request: Value) -> Value {
    let served = &state.served;
    let size = request.to_string().len();
    if size > served.limits.max_payload_bytes {
        return protocol::error(format!(
            "the request is over the SDK channel's limit of {} bytes; send less in one call (write large inputs to a file and pass its path)",
            served.limits.max_payload_bytes
        ));
    }
    let request: Request = match serde_json::from_value(request) {
        Ok(request) => request,
        Err(err) => {
            return protocol::error(format!(
                "the request is not of the form {{\"tool\", \"arguments\"}}: {err}"
            ));
        }
    };
    if request.op.as_deref() == Some("tools") {
        return protocol::ok(json!(callable(served)));
    }
    let Some(tool) = request.tool else {
        return protocol::error(
            "the request names no `tool`: send {\"tool\": name, \"arguments\": {...}}, or {\"op\": \"tools\"} to list them",
        );
    };
    if tool == "execute_code" && !served.limits.allow_nesting {
        return protocol::error(
            "`execute_code` cannot be called from code that `execute_code` runs: this session does not allow nesting; do the work in this program instead",
        );
    }
    if served.session.tools().get(&tool).is_none() {
        return protocol::error(format!(
            "tool `{tool}` is not in this session's toolset; the tools this code may call are {}",
            list(&callable(served))
        ));
    }
    let n = state.calls.fetch_add(1, Ordering::SeqCst);
    if n >= served.limits.max_calls {
        return protocol::error(format!(
            "this execution has made the {} tool calls it may make; do more per call, or split the work over several `execute_code` runs",
            served.limits.max_calls
        ));
    }
    let arguments = request.arguments.unwrap_or_else(|| json!({}));
    let cancel = served.cancel.child_token();
    let timeout = served.limits.call_timeout;
    let run = run_call(served, &tool, arguments, n, &cancel);
    let reply = match tokio::time::timeout(timeout, run).await {
        Ok(reply) => reply,
        Err(_) => {
            cancel.cancel();
            protocol::error(format!(
                "the call to `{tool}` took longer than the per-call limit of {} ms and was stopped; ask for less in one call",
                timeout.as_millis()
            ))
        }
    };
    let size = reply.to_string().len();
    if size > served.limits.max_payload_bytes {
        return protocol::error(format!(
            "the result of `{tool}` is {size} bytes, over the SDK channel's limit of {} bytes; ask for less in one call (a range, a limit), or have the tool write to a file",
            served.limits.max_payload_bytes
        ));
    }
    reply
}

async fn run_call(
    served: &Served,
    tool: &str,
    arguments: Value,
    n: usize,
    cancel: &CancellationToken,
) -> Value {
    let approval = served
        .approval
        .approve(ApprovalRequest {
            session_id: served.session.id(),
            parent_call: served.parent_call.as_deref(),
            tool,
            arguments: &arguments,
        })
        .await;
    if let Approval::Deny(reason) = approval {
        return protocol::error(format!("the call to `{tool}` was denied: {reason}"));
    }
    let id = match &served.parent_call {
        Some(parent) => format!("{parent}/sdk-{}", n + 1),
        None => format!("sdk-{}", n + 1),
    };
    let mut call = ToolCall::new(id, arguments);
    if let Some(asker) = &served.asker {
        call = call.with_asker(Arc::clone(asker));
    }
    if let Some(approver) = &served.approver {
        call = call.with_approver(Arc::clone(approver));
    }
    let result = match &served.parent_call {
        Some(parent) => {
            served
                .session
                .execute_nested(parent, tool, call, cancel)
                .await
        }
        None => served.session.execute(tool, call, cancel).await,
    };
    protocol::from_result(&result)
}

/// The tools the code may call: the session's, less `execute_code` unless nesting is allowed.
fn callable(served: &Served) -> Vec<&str> {
    served
        .session
        .tools()
        .names()
        .into_iter()
        .filter(|name| *name != "execute_code" || served.limits.allow_nesting)
        .collect()
}

fn list(names: &[&str]) -> String {
    if names.is_empty() {
        return "none".to_string();
    }
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
