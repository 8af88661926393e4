//! The span of one `tools/call` request, after OpenTelemetry's MCP conventions
//! (`tools/call {tool}`, kind server, `mcp.method.name`, `jsonrpc.request.id`,
//! `gen_ai.tool.name`): the parent of the tool call's own `execute_tool` span, which the
//! session makes. A `tracing` span, so free when nobody listens; exported by an application
//! that adds `cy-tools-agent`'s `otel` layer (`cy-tools mcp` built with `otel` does).

use cy_tools::call::TRACE_TARGET;
use rmcp::model::{CallToolRequestParams, CallToolResponse};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use tracing::Span;
use tracing::field::Empty;

/// The span of `request`; disabled when no subscriber wants it.
pub(super) fn request_span(
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Span {
    let name: &str = &request.name;
    tracing::debug_span!(
        target: TRACE_TARGET,
        "tools/call",
        otel.name = format!("tools/call {name}"),
        otel.kind = "server",
        otel.status_code = Empty,
        otel.status_description = Empty,
        mcp.method.name = "tools/call",
        mcp.protocol.version = context.protocol_version().map(|v| v.as_str().to_string()),
        jsonrpc.request.id = %context.id,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        error.type = Empty,
    )
}

/// Records how the request was answered: an error answer (unknown tool, bad request) or an
/// error result makes the span's status an error.
pub(super) fn record_answer(span: &Span, answer: &Result<CallToolResponse, ErrorData>) {
    match answer {
        Err(err) => {
            span.record("error.type", err.code.0.to_string());
            span.record("otel.status_code", "error");
            span.record("otel.status_description", err.message.as_ref());
        }
        Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
            span.record("error.type", "tool_error");
            span.record("otel.status_code", "error");
        }
        Ok(_) => {}
    }
}
