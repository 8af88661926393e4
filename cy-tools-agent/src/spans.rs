//! The spans of a run, after OpenTelemetry's GenAI conventions: `invoke_agent` around the run,
//! a `turn` span for each turn, and in it the `chat {model}` span of the request to the model
//! API and the `execute_tool {name}` spans of the calls the answer asked for (made by the
//! session, see `cy_tools::call::trace`); a tool's sampling request is a `chat` span under
//! its call's. They are `tracing` spans: free when nobody listens,
//! and OpenTelemetry spans under the `otel` feature's layer (`otel::Otel`).

use cy_tools::Session;
use cy_tools::call::TRACE_TARGET;
use tracing::Span;
use tracing::field::Empty;

use super::config::AgentConfig;
use super::error::AgentError;
use super::http::BaseUrl;
use super::transcript::{Reply, Usage};

/// The provider as the conventions' `gen_ai.provider.name` spells it.
fn provider_name(config: &AgentConfig) -> &'static str {
    match config.provider {
        cy_tools::session::ModelProvider::OpenAi => "openai",
        cy_tools::session::ModelProvider::Anthropic => "anthropic",
    }
}

/// The span of a whole run of `config`'s model in `session`.
pub(crate) fn run_span(config: &AgentConfig, session: &Session) -> Span {
    tracing::debug_span!(
        target: TRACE_TARGET,
        "invoke_agent",
        otel.name = "invoke_agent cy-tools",
        otel.kind = "internal",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = "cy-tools",
        gen_ai.provider.name = provider_name(config),
        gen_ai.request.model = config.model.as_str(),
        gen_ai.conversation.id = session.id(),
        cy_tools.tenant = session.identity().tenant.as_str(),
        cy_tools.turns = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
    )
}

/// Records what a run did on its span.
pub(crate) fn record_run(span: &Span, turns: u32, usage: Usage) {
    span.record("cy_tools.turns", turns);
    span.record("gen_ai.usage.input_tokens", usage.input_tokens);
    span.record("gen_ai.usage.output_tokens", usage.output_tokens);
}

/// The span of turn `turn` (from 1), a child of the current span (the run's).
pub(crate) fn turn_span(turn: u32) -> Span {
    tracing::debug_span!(
        target: TRACE_TARGET,
        "turn",
        otel.kind = "internal",
        cy_tools.turn = turn,
    )
}

/// The span of one request to the model API, a child of `turn` (or, for a tool's sampling
/// request, of the tool call's span).
pub(crate) fn chat_span(
    turn: &Span,
    config: &AgentConfig,
    base: &BaseUrl,
    max_tokens: u64,
) -> Span {
    tracing::debug_span!(
        target: TRACE_TARGET,
        parent: turn,
        "chat",
        otel.name = format!("chat {}", config.model),
        otel.kind = "client",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider_name(config),
        gen_ai.request.model = config.model.as_str(),
        gen_ai.request.max_tokens = max_tokens,
        server.address = base.host(),
        server.port = base.port(),
        gen_ai.response.model = Empty,
        gen_ai.response.finish_reasons = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        error.type = Empty,
    )
}

/// Records the answer of a chat span's request.
pub(crate) fn record_reply(span: &Span, reply: &Reply) {
    if let Some(model) = &reply.model {
        span.record("gen_ai.response.model", model.as_str());
    }
    if let Some(reason) = &reply.stop_reason {
        span.record("gen_ai.response.finish_reasons", reason.as_str());
    }
    span.record("gen_ai.usage.input_tokens", reply.usage.input_tokens);
    span.record("gen_ai.usage.output_tokens", reply.usage.output_tokens);
}

/// Records a chat span's request failing.
pub(crate) fn record_error(span: &Span, err: &AgentError) {
    let kind = match err.kind() {
        super::error::AgentErrorKind::Usage => "usage",
        super::error::AgentErrorKind::Provider => "provider",
    };
    span.record("error.type", kind);
    span.record("otel.status_code", "error");
    span.record("otel.status_description", err.to_string());
}
