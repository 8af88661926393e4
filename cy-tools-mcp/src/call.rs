//! `tools/call`: the path of one call through the server.

use std::pin::pin;
use std::sync::Arc;

use cy_tools::ToolCall;
use cy_tools::approval::Decision;
use cy_tools::call::CallHooks;
use rmcp::model::{CallToolRequestParams, CallToolResponse, NumberOrString, ProtocolVersion};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;
use tokio::runtime::Handle;
use tokio::sync::OwnedSemaphorePermit;
use tokio_util::either::Either;
use tracing::Span;

use super::approval::{Decided, Eliciting, STATELESS, stateless_fronted};
use super::ask;
use super::convert::call_tool_result;
use super::input_required::{Round, approval_round};
use super::request_state::{Accepted, Scope, StateError, spent_suffix};
use super::server::McpServer;
use super::{call_task, notes};

impl McpServer {
    /// One `tools/call`: the tool looked up once, approval asked when the session's policy
    /// says so (in the form the client's protocol allows), then the session's one call path,
    /// with the call's progress and log messages sent before its answer.
    ///
    /// A plain function around one `async` block that uses `request` and `context` in place
    /// (an `async fn` keeps a second copy of each); the answer is recorded in `span`, the
    /// request's.
    #[allow(clippy::manual_async_fn)] // written out on purpose: see above
    pub(super) fn call(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        span: Span,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + '_ {
        async move {
            let answer = self.answer(&mut request, &context).await;
            if !span.is_disabled() {
                super::trace::record_answer(&span, &answer);
            }
            answer
        }
    }

    /// The answer to one `tools/call`.
    async fn answer(
        &self,
        request: &mut CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The session's own tool search, when the server offers it (boxed: only a search
        // carries its state).
        if let Some(search) = &self.search
            && request.name == super::search_tools::SEARCH_TOOLS
        {
            let served = self.current_inner();
            return Box::pin(search.call(&served, &self.found, request, context)).await;
        }
        let name = &*request.name;
        // The tools served now (a host may put new ones in place while the server runs).
        let served = self.current();
        let session = &served.session;
        let Some(tool) = session.tools().get(name) else {
            tracing::debug!(tool = name, "call of an unknown tool");
            return Err(self.unknown_tool(name));
        };
        // Asked once: reading the connection's version takes a lock.
        let modern = super::protocol::is_modern(context);
        // `context.ct` is cancelled by the client's `notifications/cancelled` for this request
        // (and when the connection closes): the same token the tool body and its processes see.
        let cancel = &context.ct;
        // The call is made and handed on in a block of its own, so this future does not keep
        // a second, moved-from copy of it (and of its sinks) beside the running call. `_slot`:
        // the call's place under the server's cap, held until it answers.
        let (run, _slot, forward) = {
            let (notes, forward) =
                notes::forwarder(context, self.log_level.for_request(context, modern));
            // Absent arguments are `null`, which the tool contract accepts as "no arguments".
            let arguments = request.arguments.take().map_or(Value::Null, Value::Object);
            let hooks = CallHooks {
                progress: notes.progress,
                approver: None,
                log: Some(notes.log),
                // The tool's questions (its `sample` and `elicit`) go to this request's client.
                asker: Some(ask::for_call(
                    &self.asker,
                    &context.peer,
                    modern,
                    self.stateless,
                )),
            };
            let mut call = ToolCall::new(call_id(&context.id), arguments).with_hooks(hooks);
            tracing::debug!(tool = name, id = %context.id, "tools/call");
            // Arguments that fail the call's checks are answered as such, without asking
            // anybody; those that pass are parsed once, here, for the question and the call.
            // Boxed: only a call that asks carries the question's state, not every call's
            // future.
            if tool.needs_approval() && tool.check_arguments(&mut call.arguments) {
                match Box::pin(self.approval(tool, request, context, call)).await {
                    Ok(approved) => call = approved,
                    Err(ask) => return Ok(ask),
                }
            }
            let (run, slot) = self.run_call(session, tool, call, cancel);
            (run, slot, forward)
        };
        // The call's notes are all sent before its answer; a request that asked for none has
        // its call run as it is. Pinned here, once: the call's future is the largest part of
        // this one, and is not moved again.
        let mut run = pin!(run);
        let result = match forward {
            Some(forward) => forward.run(run.as_mut()).await,
            None => run.await,
        };
        if result.is_error {
            tracing::debug!(tool = name, id = %context.id, "tool returned an error result");
        }
        Ok(CallToolResponse::Complete(call_tool_result(
            result,
            tool.output_schema(),
        )))
    }

    /// The call on the session's one path, under the server's cap on calls at once and on
    /// its call runtime when it has one; with the slot it took under the cap when there was
    /// one free at once, which the caller holds until the call answers.
    ///
    /// A plain function: a call that finds a free slot (or no cap) and runs on this runtime is
    /// the session's call future, nothing else (a future wrapped around it would hold it
    /// twice: once to start, once while awaited); waiting for a slot and running on another
    /// runtime are boxed, so their state is not in every call's future.
    fn run_call<'a>(
        &'a self,
        session: &'a cy_tools::Session,
        tool: &'a cy_tools::BoundTool,
        call: ToolCall,
        cancel: &'a cy_tools::CancellationToken,
    ) -> (
        impl Future<Output = cy_tools::ToolResult> + Send + 'a,
        Option<OwnedSemaphorePermit>,
    ) {
        // `Some(slot)`: the call may start now (`slot` is `None` without a cap).
        let ready = match &self.call_slots {
            None => Some(None),
            Some(slots) => slots.try_take().map(Some),
        };
        match (ready, &self.call_runtime) {
            (Some(slot), None) => (Either::Left(session.execute_tool(tool, call, cancel)), slot),
            (ready, runtime) => {
                let run = self.waited(session, tool, call, cancel, ready, runtime);
                (Either::Right(Box::pin(run)), None)
            }
        }
    }

    /// A call that waits for a slot first, or runs on the server's call runtime.
    async fn waited(
        &self,
        session: &cy_tools::Session,
        tool: &cy_tools::BoundTool,
        call: ToolCall,
        cancel: &cy_tools::CancellationToken,
        ready: Option<Option<OwnedSemaphorePermit>>,
        runtime: &Option<Handle>,
    ) -> cy_tools::ToolResult {
        let name = tool.name();
        let _slot = match (ready, &self.call_slots) {
            (Some(slot), _) => slot,
            (None, Some(slots)) => match slots.take(cancel).await {
                Some(slot) => Some(slot),
                // Cancelled while waiting: no answer is sent for it, and it never ran.
                None => {
                    return cy_tools::ToolResult::error(format!(
                        "the call to `{name}` was cancelled while it waited for one of the {} calls that may run at once",
                        slots.max()
                    ));
                }
            },
            (None, None) => None,
        };
        match runtime {
            // Another runtime's task owns what it uses: the session and tool are shared
            // counts, cloned only on this path.
            Some(runtime) => {
                let (session, tool, cancel) = (session.clone(), tool.clone(), cancel.clone());
                let run = async move { session.execute_tool(&tool, call, &cancel).await };
                call_task::run_on(runtime, name, run).await
            }
            None => session.execute_tool(tool, call, cancel).await,
        }
    }

    /// Who approves `call` of `tool`, in the form the client's protocol allows: the call with
    /// its approver, or the answer that asks the question (2026-07-28's multi-round form).
    async fn approval(
        &self,
        tool: &cy_tools::BoundTool,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        mut call: ToolCall,
    ) -> Result<ToolCall, CallToolResponse> {
        let modern = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        if modern {
            // 2026-07-28 has no server-to-client requests: the question goes back as the
            // answer, and the call comes again with the user's answer.
            let state = self.state.as_ref().as_ref().map_err(String::as_str);
            let scope = self.scope(tool);
            match approval_round(state, &scope, request, context, tool, &call.arguments) {
                Round::Ask(input_required) => {
                    return Err(CallToolResponse::InputRequired(input_required));
                }
                Round::Decided(decision) => {
                    let decided = Decided::new(call.id.clone(), decision);
                    call = call.with_approver(Arc::new(decided));
                }
                Round::Answered(decision, accepted) => {
                    let decision = match self.spent_elsewhere(&accepted).await {
                        Ok(false) => decision,
                        Ok(true) => Decision::Unavailable {
                            reason: StateError::Replayed.to_string(),
                        },
                        Err(err) => Decision::Unavailable {
                            reason: format!(
                                "the approval state could not be spent in the session store ({err}); call the tool again once the store is reachable"
                            ),
                        },
                    };
                    // Under an id naming the state, so the log shows it spent.
                    call.id.push_str(&spent_suffix(&accepted.nonce));
                    let decided = Decided::new(call.id.clone(), decision);
                    call = call.with_approver(Arc::new(decided));
                }
            }
        } else if self.stateless {
            let reason = match self.fronted_server(tool.name()) {
                Some(server) => stateless_fronted(server),
                None => STATELESS.to_string(),
            };
            let refused = Decision::Unavailable { reason };
            let decided = Decided::new(call.id.clone(), refused);
            call = call.with_approver(Arc::new(decided));
        } else {
            call = call.with_approver(Arc::new(Eliciting::new(context.peer.clone())));
        }
        Ok(call)
    }

    /// The session an approval of `tool` is asked and answered in.
    fn scope(&self, tool: &cy_tools::BoundTool) -> Scope {
        Scope {
            session: tool.session().session_id.clone(),
            tenant: tool.session().tenant.clone(),
            workspace: self.workspace.to_string(),
        }
    }

    /// Whether an accepted state was spent already by another replica: in the shared store
    /// when there is one (spending it there now, atomically), else in the session's
    /// execution log (which holds a call once it finished). `Err`: the store could not say,
    /// and the call must not run.
    async fn spent_elsewhere(&self, accepted: &Accepted) -> Result<bool, String> {
        if let Some(nonces) = &self.spent_nonces {
            return nonces
                .spend(&accepted.nonce, accepted.expires_ms)
                .await
                .map(|spent_here| !spent_here)
                .map_err(|err| err.to_string());
        }
        Ok(self.in_log(&spent_suffix(&accepted.nonce)).await)
    }

    /// Whether the session's execution log, which replicas serving one stored session share,
    /// has a call run under an approval state with this suffix: spent by another replica. A
    /// log that cannot be read counts as not (this replica's own record still holds).
    async fn in_log(&self, suffix: &str) -> bool {
        match self.inner.session.entries().await {
            Ok(entries) => entries.iter().any(|entry| entry.call_id.ends_with(suffix)),
            Err(err) => {
                tracing::warn!(
                    "the execution log could not be read to check an approval state: {err}"
                );
                false
            }
        }
    }
}

/// A request's id as a call id: a number written without the formatting machinery (every
/// call has one, and most clients number their requests).
fn call_id(id: &NumberOrString) -> String {
    match id {
        NumberOrString::Number(n) => {
            let mut digits = [0u8; 20];
            let mut at = digits.len();
            let mut rest = n.unsigned_abs();
            loop {
                at -= 1;
                // A digit: always below 10.
                digits[at] = b'0' + u8::try_from(rest % 10).unwrap_or(0);
                rest /= 10;
                if rest == 0 {
                    break;
                }
            }
            let mut out = String::with_capacity(21 - at);
            if *n < 0 {
                out.push('-');
            }
            out.extend(digits[at..].iter().map(|&d| char::from(d)));
            out
        }
        NumberOrString::String(s) => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_id_is_the_request_id_as_text() {
        for n in [0, 7, 10, 42, 1_000_000, i64::MAX, -1, -90, i64::MIN] {
            assert_eq!(call_id(&NumberOrString::Number(n)), n.to_string());
        }
        assert_eq!(call_id(&NumberOrString::String("req-9".into())), "req-9");
    }
}
