//! The span of one tool call, named and described after OpenTelemetry's GenAI conventions
//! (`execute_tool {name}`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, the session as
//! `gen_ai.conversation.id`), with the tenant and the outcome. It is a `tracing` span, so it
//! costs one check of an atomic when nobody listens; an application that exports traces turns
//! it into an OpenTelemetry span (`cy-tools-agent`'s `otel` feature). It is a child of whatever
//! span the host runs the call in: a model loop's turn, an MCP request.
//!
//! A call's arguments and result can hold what the operator's users typed and what their files
//! hold, so a span carries them only when the operator opts in
//! ([`record_content_in_traces`]).

use std::sync::atomic::{AtomicBool, Ordering};

use tracing::Span;
use tracing::field::Empty;

use super::{ToolCall, ToolResult};
use crate::binding::SessionIdentity;

/// The target of every span cy-tools makes, for a filter that keeps them (and only them).
/// They are at level `DEBUG`: a log at `INFO` is not prefixed with their fields, and an
/// exporter's layer takes them whatever the log's level.
pub const TRACE_TARGET: &str = "cy_tools::trace";

static CONTENT: AtomicBool = AtomicBool::new(false);

/// Whether the spans of tool calls carry each call's arguments
/// (`gen_ai.tool.call.arguments`, as JSON) and result (`gen_ai.tool.call.result`, its text):
/// off unless turned on, for the whole process.
///
/// ```
/// use cy_tools::call::{content_in_traces, record_content_in_traces};
///
/// assert!(!content_in_traces());
/// record_content_in_traces(true);
/// assert!(content_in_traces());
/// # record_content_in_traces(false);
/// ```
pub fn record_content_in_traces(on: bool) {
    CONTENT.store(on, Ordering::Relaxed);
}

/// Whether tool call spans carry arguments and results (see [`record_content_in_traces`]).
pub fn content_in_traces() -> bool {
    CONTENT.load(Ordering::Relaxed)
}

/// The span of `call` of tool `name` in the session `identity` names; disabled (and built from
/// nothing) when no subscriber wants it.
pub(crate) fn call_span(identity: &SessionIdentity, name: &str, call: &ToolCall) -> Span {
    let span = tracing::debug_span!(
        target: TRACE_TARGET,
        "execute_tool",
        otel.name = format!("execute_tool {name}"),
        otel.kind = "internal",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        gen_ai.tool.type = "function",
        gen_ai.tool.call.id = call.id.as_str(),
        gen_ai.conversation.id = identity.session_id.as_str(),
        cy_tools.tenant = identity.tenant.as_str(),
        cy_tools.outcome = Empty,
        error.type = Empty,
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
    );
    if !span.is_disabled() && content_in_traces() {
        span.record(
            "gen_ai.tool.call.arguments",
            serde_json::to_string(&call.arguments).unwrap_or_default(),
        );
    }
    span
}

/// Records how the call of `span` ended: `ok`, or `error` with the first line of what the
/// model was told.
pub(crate) fn record_outcome(span: &Span, result: &ToolResult) {
    if result.is_error {
        let text = result.text_content();
        let first: String = text
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(300)
            .collect();
        span.record("cy_tools.outcome", "error");
        span.record("error.type", "tool_error");
        span.record("otel.status_code", "error");
        span.record("otel.status_description", first);
    } else {
        span.record("cy_tools.outcome", "ok");
    }
    if content_in_traces() {
        span.record("gen_ai.tool.call.result", result.text_content());
    }
}
