//! The spans of a `tools/call`: the request's `tools/call {tool}` span, and the session's
//! `execute_tool {tool}` span of the call as its child, as a `tracing` layer sees them (their
//! export over OTLP is `cy-tools-agent`'s `otel` test), in a process of its own.

use std::sync::{Arc, Mutex};

use cy_tools::call::TRACE_TARGET;
use cy_tools::prelude::*;
use cy_tools_sandbox::LocalSandbox;
use serde_json::json;
use tracing::span::{Attributes, Id};
use tracing::{Subscriber, field::Field, field::Visit};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::{Layer, registry::LookupSpan};

/// A span as made: its target, its `otel.name`, its parent's, and its request id.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Made {
    target: String,
    name: String,
    parent: Option<String>,
    request_id: Option<String>,
}

#[derive(Clone, Default)]
struct Spans(Arc<Mutex<Vec<Made>>>);

struct Fields {
    name: String,
    request_id: Option<String>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "otel.name" => self.name = value.to_string(),
            "jsonrpc.request.id" => self.request_id = Some(value.to_string()),
            _ => {}
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.record_str(field, &format!("{value:?}"));
    }
}

/// A span's `otel.name`, kept with it for its children.
struct OtelName(String);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = Fields {
            name: String::new(),
            request_id: None,
        };
        attrs.record(&mut fields);
        let span = ctx.span(id).unwrap();
        let parent = span
            .parent()
            .and_then(|parent| parent.extensions().get::<OtelName>().map(|n| n.0.clone()));
        span.extensions_mut().insert(OtelName(fields.name.clone()));
        self.0.lock().unwrap().push(Made {
            target: attrs.metadata().target().to_string(),
            name: fields.name,
            parent,
            request_id: fields.request_id,
        });
    }
}

/// In a process of its own: `tracing` caches whether a call site is wanted, and a test running
/// beside this one without a subscriber can settle that to "never" while this one installs its
/// own (it did in one of this stop's four CI runs).
#[test]
fn a_tool_call_span_is_a_child_of_its_request_span() {
    crate::support::alone::alone!(a_tool_call_span_is_a_child_of_its_request_span_inner).run();
}

#[tokio::test]
#[ignore = "run by its parent, in a process of its own (tracing's call-site cache is process-wide)"]
async fn a_tool_call_span_is_a_child_of_its_request_span_inner() {
    let spans = Spans::default();
    // This test's thread only (the runtime is the test's own, on this thread).
    // Only cy-tools' spans, as the OTLP exporter's layer takes them: rmcp's own spans are left
    // out, so the request's span is a root.
    let only_ours = Targets::new().with_target(TRACE_TARGET, LevelFilter::TRACE);
    let _default = tracing::subscriber::set_default(
        tracing_subscriber::registry().with(spans.clone().with_filter(only_ours)),
    );
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme")).with_env(Arc::new(env));
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["list_directory"], &context);
    let mut peer = crate::in_process::serve(tools).await;
    let response = peer
        .request(
            7,
            "tools/call",
            json!({"name": "list_directory", "arguments": {"path": "."}}),
        )
        .await;
    assert_eq!(response["result"]["isError"], false, "{response}");

    let made = spans.0.lock().unwrap().clone();
    assert_eq!(
        made,
        [
            Made {
                target: TRACE_TARGET.to_string(),
                name: "tools/call list_directory".to_string(),
                parent: None,
                request_id: Some("7".to_string()),
            },
            Made {
                target: TRACE_TARGET.to_string(),
                name: "execute_tool list_directory".to_string(),
                parent: Some("tools/call list_directory".to_string()),
                request_id: None,
            },
        ]
    );
}
