//! Traces (feature `otel`): a model-loop run whose first turn calls two tools, exported over
//! OTLP/HTTP to a receiver built on the protocol's definitions, and checked span by span:
//! names, attributes, and the parent links run → turn → chat / execute_tool.

use cy_tools::CancellationToken;
use cy_tools::call::TRACE_TARGET;
use cy_tools::session::ModelProvider;
use cy_tools_agent::otel::Otel;
use cy_tools_agent::{Agent, AgentConfig, Ending, Quiet};
use tracing_subscriber::layer::SubscriberExt;

use super::otlp_receiver::{OtlpReceiver, Received};
use super::setup;
use crate::support::alone::alone;
use crate::support::fake_model::{FakeApi, Reply};

/// Runs the inner test in a process of its own (the subscriber is global), exporting to a
/// fresh receiver; the spans it got.
fn traced_run(capture_content: bool) -> (Vec<Received>, OtlpReceiver) {
    let receiver = OtlpReceiver::start();
    let api = FakeApi::start(vec![
        Reply::ok("openai/two_reads.json"),
        Reply::ok("openai/after_tools.json"),
    ]);
    alone!(two_tool_calls_traced_inner)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url())
        .env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
        .env("OTEL_SERVICE_NAME", "")
        .env(
            "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
            if capture_content { "true" } else { "false" },
        )
        .env("CY_TEST_MODEL_API", api.url())
        .run();
    assert_eq!(api.requests().len(), 2);
    (receiver.spans(), receiver)
}

#[tokio::test]
#[ignore = "run by its parent, in a process of its own (it sets the global subscriber)"]
async fn two_tool_calls_traced_inner() {
    let otel = Otel::from_env()
        .unwrap()
        .expect("OTEL_EXPORTER_OTLP_ENDPOINT is set");
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(otel.layer()))
        .unwrap();
    let url = std::env::var("CY_TEST_MODEL_API").unwrap();
    let setup = setup(&["read_file"]).await;
    let mut config =
        AgentConfig::new(ModelProvider::OpenAi, "gpt-fake").with_base_url(format!("{url}/v1"));
    config.api_key = Some("test-key".to_string());
    let run = Agent::new(config)
        .unwrap()
        .run(
            &setup.session,
            "read two files",
            &CancellationToken::new(),
            &Quiet,
        )
        .await
        .unwrap();
    assert_eq!(
        (run.ending, run.turns),
        (
            Ending::Answer("Done: I read what the tools returned.".to_string()),
            2
        )
    );
    otel.shutdown().unwrap();
}

fn named<'a>(spans: &'a [Received], name: &str) -> Vec<&'a Received> {
    spans.iter().filter(|s| s.name() == name).collect()
}

/// `SpanKind` and status codes as the protocol numbers them.
const INTERNAL: i32 = 1;
const CLIENT: i32 = 3;
const STATUS_ERROR: i32 = 2;

#[test]
fn a_turn_with_two_tool_calls_is_exported_as_nested_spans() {
    let (spans, receiver) = traced_run(false);
    assert!(
        receiver.paths().iter().all(|p| p == "/v1/traces"),
        "{:?}",
        receiver.paths()
    );
    let mut names: Vec<&str> = spans.iter().map(Received::name).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "chat gpt-fake",
            "chat gpt-fake",
            "execute_tool read_file",
            "execute_tool read_file",
            "invoke_agent cy-tools",
            "turn",
            "turn",
        ],
        "cy-tools' spans, and only those"
    );
    assert!(spans.iter().all(|s| s.service == "cy-tools"));
    let trace_id = &spans[0].span.trace_id;
    assert!(
        spans.iter().all(|s| &s.span.trace_id == trace_id),
        "one trace"
    );
    assert!(
        spans
            .iter()
            .all(|s| s.span.end_time_unix_nano > s.span.start_time_unix_nano),
        "every span has a duration"
    );

    let run = named(&spans, "invoke_agent cy-tools")[0];
    assert!(run.span.parent_span_id.is_empty(), "the run is the root");
    assert_eq!(
        run.attr("gen_ai.operation.name").as_deref(),
        Some("invoke_agent")
    );
    assert_eq!(run.attr("gen_ai.provider.name").as_deref(), Some("openai"));
    assert_eq!(run.attr("gen_ai.conversation.id").as_deref(), Some("s-1"));
    assert_eq!(run.attr("cy_tools.turns").as_deref(), Some("2"));
    assert_eq!(
        run.attr("gen_ai.usage.input_tokens").as_deref(),
        Some("225")
    );

    let turns = named(&spans, "turn");
    assert!(
        turns
            .iter()
            .all(|t| t.span.parent_span_id == run.span.span_id)
    );
    let turn = |n: &str| {
        *turns
            .iter()
            .find(|t| t.attr("cy_tools.turn").as_deref() == Some(n))
            .unwrap()
    };
    let (first, second) = (turn("1"), turn("2"));

    for (chat, turn, input) in named(&spans, "chat gpt-fake").into_iter().map(|chat| {
        let of = if chat.span.parent_span_id == first.span.span_id {
            (first, "85")
        } else {
            (second, "140")
        };
        (chat, of.0, of.1)
    }) {
        assert_eq!(chat.span.parent_span_id, turn.span.span_id);
        assert_eq!(chat.span.kind, CLIENT);
        assert_eq!(chat.attr("gen_ai.operation.name").as_deref(), Some("chat"));
        assert_eq!(
            chat.attr("gen_ai.request.model").as_deref(),
            Some("gpt-fake")
        );
        assert_eq!(
            chat.attr("gen_ai.response.model").as_deref(),
            Some("gpt-fake-2026-01-01")
        );
        assert_eq!(
            chat.attr("gen_ai.usage.input_tokens").as_deref(),
            Some(input)
        );
        assert_eq!(chat.attr("server.address").as_deref(), Some("127.0.0.1"));
    }
    assert_eq!(
        named(&spans, "chat gpt-fake")
            .iter()
            .filter(|c| c.span.parent_span_id == first.span.span_id)
            .count(),
        1
    );

    let tools = named(&spans, "execute_tool read_file");
    let call = |id: &str| {
        *tools
            .iter()
            .find(|t| t.attr("gen_ai.tool.call.id").as_deref() == Some(id))
            .unwrap_or_else(|| panic!("no span of call {id}: {tools:#?}"))
    };
    for tool in &tools {
        assert_eq!(
            tool.span.parent_span_id, first.span.span_id,
            "a call's span is a child of its turn's"
        );
        assert_eq!(tool.span.kind, INTERNAL);
        assert_eq!(
            tool.attr("gen_ai.operation.name").as_deref(),
            Some("execute_tool")
        );
        assert_eq!(tool.attr("gen_ai.tool.name").as_deref(), Some("read_file"));
        assert_eq!(tool.attr("gen_ai.conversation.id").as_deref(), Some("s-1"));
        assert_eq!(tool.attr("cy_tools.tenant").as_deref(), Some("acme"));
        assert_eq!(
            tool.attr("gen_ai.tool.call.arguments"),
            None,
            "not opted in"
        );
        assert_eq!(tool.attr("gen_ai.tool.call.result"), None, "not opted in");
    }
    let found = call("call_read_notes");
    assert_eq!(found.attr("cy_tools.outcome").as_deref(), Some("ok"));
    assert_eq!(found.attr("error.type"), None);
    let missing = call("call_read_missing");
    assert_eq!(missing.attr("cy_tools.outcome").as_deref(), Some("error"));
    assert_eq!(missing.attr("error.type").as_deref(), Some("tool_error"));
    let status = missing.span.status.as_ref().unwrap();
    assert_eq!(status.code, STATUS_ERROR);
    assert!(status.message.contains("missing.txt"), "{status:?}");
}

#[test]
fn arguments_and_results_are_on_the_spans_only_when_the_operator_opts_in() {
    let (spans, _receiver) = traced_run(true);
    let tools = named(&spans, "execute_tool read_file");
    assert_eq!(tools.len(), 2);
    let notes = tools
        .iter()
        .find(|t| t.attr("gen_ai.tool.call.id").as_deref() == Some("call_read_notes"))
        .unwrap();
    assert_eq!(
        notes.attr("gen_ai.tool.call.arguments").as_deref(),
        Some(r#"{"path":"notes.txt"}"#)
    );
    assert!(
        notes
            .attr("gen_ai.tool.call.result")
            .unwrap()
            .contains("hello from the notes"),
        "{notes:#?}"
    );
}

#[test]
fn an_otlp_endpoint_that_refuses_is_named_with_the_fix() {
    // A port nothing listens on: bound, its number noted, and closed.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = format!("http://127.0.0.1:{closed}/v1/traces");
    let otel = Otel::new(&endpoint, "refused").unwrap();
    tracing::subscriber::with_default(tracing_subscriber::registry().with(otel.layer()), || {
        let _span = tracing::debug_span!(target: TRACE_TARGET, "execute_tool").entered();
    });
    let err = otel.shutdown().unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "spans could not be sent to the OTLP endpoint `{endpoint}` (1 lost): "
        )) && err.ends_with(
            "check that a collector listens there and accepts OTLP/HTTP with protobuf, or unset `OTEL_EXPORTER_OTLP_ENDPOINT`"
        ),
        "{err}"
    );
}

#[test]
fn an_endpoint_that_is_not_a_url_is_refused_when_the_exporter_is_made() {
    let err = Otel::new("127.0.0.1:4318", "x").unwrap_err().to_string();
    assert_eq!(
        err,
        "the OTLP endpoint `127.0.0.1:4318` (from the configuration) is not an http:// or https:// URL; set it to a collector's OTLP/HTTP address, like `http://127.0.0.1:4318`, or unset it"
    );
}
