//! A turn's tool calls: run side by side through the session, at most
//! [`AgentLimits::max_parallel_calls`](super::AgentLimits::max_parallel_calls) at once, their
//! results in the model's order.

use std::collections::HashSet;
use std::sync::Arc;

use cy_tools::call::Asker;
use cy_tools::{CancellationToken, Session, ToolCall, ToolResult};
use serde_json::Value;
use tokio::task::JoinSet;
use tracing::Instrument;

use super::events::AgentEvents;
use super::provider::{Declared, drop_strict_nulls};
use super::transcript::ModelCall;

/// Runs a turn's calls side by side, at most `parallel` at once (the others start as places
/// free up, in the model's order), each through the session; their results in the calls'
/// order, each call reported to `events` as it starts and its result as it comes.
pub(super) async fn run_calls(
    session: &Session,
    calls: &[ModelCall],
    declared: &Declared,
    parallel: usize,
    cancel: &CancellationToken,
    events: &dyn AgentEvents,
    asker: &Arc<dyn Asker>,
) -> Vec<(ModelCall, ToolResult)> {
    let mut running = JoinSet::new();
    let mut waiting = calls.iter().enumerate();
    let mut start_next = |running: &mut JoinSet<_>| {
        let Some((index, call)) = waiting.next() else {
            return;
        };
        events.tool_call(call);
        let name = declared.tool_name(&call.name).to_string();
        let arguments =
            tool_call(session, call, &name, &declared.strict).with_asker(Arc::clone(asker));
        let (session, cancel) = (session.clone(), cancel.clone());
        // A task starts outside every span: the call's is made a child of the turn's here.
        let run = async move { (index, session.execute(&name, arguments, &cancel).await) };
        running.spawn(run.instrument(tracing::Span::current()));
    };
    for _ in 0..parallel.max(1) {
        start_next(&mut running);
    }
    let mut results: Vec<Option<ToolResult>> = vec![None; calls.len()];
    while let Some(joined) = running.join_next().await {
        match joined {
            Ok((index, result)) => {
                events.tool_result(&calls[index], &result);
                results[index] = Some(result);
            }
            // The session catches tool panics; a task that still failed leaves its slot empty.
            Err(err) => tracing::error!("a tool call's task failed: {err}"),
        }
        start_next(&mut running);
    }
    calls
        .iter()
        .zip(results)
        .map(|(call, result)| {
            let result = result.unwrap_or_else(|| {
                ToolResult::error(format!(
                    "the call to `{}` failed inside the host and has no result; try it again",
                    call.name
                ))
            });
            (call.clone(), result)
        })
        .collect()
}

/// The session's call for what the model sent. Text that is a JSON object is logged as the
/// object; anything else is left to the session, which answers it with an error result naming
/// the problem.
fn tool_call(
    session: &Session,
    call: &ModelCall,
    name: &str,
    strict: &HashSet<String>,
) -> ToolCall {
    let mut arguments = match &call.arguments {
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(object @ Value::Object(_)) => ToolCall::new(call.id.clone(), object),
            _ => ToolCall::from_json_text(call.id.clone(), text.clone()),
        },
        other => ToolCall::new(call.id.clone(), other.clone()),
    };
    if strict.contains(name)
        && let Some(tool) = session.tools().get(name)
    {
        drop_strict_nulls(&mut arguments.arguments, tool.parameters());
    }
    arguments
}
