//! Every model-caused failure comes back as an error result with an actionable message.

use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::support::*;
use cy_tools::{ToolCall, binding::bind_tool};
use serde_json::json;

#[tokio::test]
async fn a_valid_call_runs_the_body() {
    let tool = bind_tool(&ADD, session("s")).unwrap();
    let result = tool.execute(call(json!({"a": 2, "b": 40})), &token()).await;
    assert!(!result.is_error);
    assert_eq!(result.text_content(), "42");
}

#[tokio::test]
async fn a_wrong_type_names_the_field_and_the_expected_type() {
    let tool = bind_tool(&ADD, session("s")).unwrap();
    let result = tool
        .execute(call(json!({"a": "2", "b": 40})), &token())
        .await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "invalid arguments for `add`: `a`: expected an integer, got string \"2\"; valid fields are `a` (integer, required), `b` (integer, required)"
    );
}

#[tokio::test]
async fn a_missing_field_is_named() {
    let tool = bind_tool(&ADD, session("s")).unwrap();
    let result = tool.execute(call(json!({"a": 2})), &token()).await;
    assert_eq!(
        result.text_content(),
        "invalid arguments for `add`: missing required field `b`; valid fields are `a` (integer, required), `b` (integer, required)"
    );
    assert!(result.is_error);
}

#[tokio::test]
async fn unknown_fields_are_all_listed_with_the_valid_ones() {
    let tool = bind_tool(&ADD, session("s")).unwrap();
    let result = tool
        .execute(
            call(json!({"a": 1, "b": 2, "c": 3, "verbose": true})),
            &token(),
        )
        .await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "invalid arguments for `add`: unknown fields `c`, `verbose`; valid fields are `a` (integer, required), `b` (integer, required)"
    );
}

#[tokio::test]
async fn null_and_empty_payloads_mean_no_arguments() {
    let tool = bind_tool(&PING, session("s")).unwrap();
    for payload in [
        json!(null),
        json!(""),
        json!("   "),
        json!({}),
        json!("{}"),
        json!("null"),
    ] {
        let result = tool.execute(call(payload.clone()), &token()).await;
        assert!(!result.is_error, "payload {payload} gave {result:?}");
        assert_eq!(result.text_content(), "pong");
    }
    let result = tool.execute(call(json!({"x": 1})), &token()).await;
    assert_eq!(
        result.text_content(),
        "invalid arguments for `ping`: unknown field `x`; this tool takes no arguments, send `{}`"
    );
}

#[tokio::test]
async fn arguments_as_json_text_are_parsed_and_bad_text_is_explained() {
    let tool = bind_tool(&ADD, session("s")).unwrap();
    let ok = tool
        .execute(ToolCall::from_json_text("c", r#"{"a":1,"b":2}"#), &token())
        .await;
    assert_eq!(ok.text_content(), "3");
    let bad = tool
        .execute(ToolCall::from_json_text("c", "{a:1"), &token())
        .await;
    assert!(bad.is_error);
    assert!(
        bad.text_content().starts_with(
            "invalid arguments for `add`: arguments must be a JSON object, got a string that is not JSON (key must be a string at line 1 column 2)"
        ),
        "{}",
        bad.text_content()
    );
    let array = tool.execute(call(json!([1, 2])), &token()).await;
    assert_eq!(
        array.text_content(),
        "invalid arguments for `add`: arguments must be a JSON object, got an array; valid fields are `a` (integer, required), `b` (integer, required)"
    );
}

#[tokio::test]
async fn a_handler_error_reaches_the_model() {
    let tool = bind_tool(&FAIL, session("s")).unwrap();
    let result = tool.execute(call(json!({})), &token()).await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "the disk is full; free space and retry"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_handler_is_an_error_and_the_host_keeps_running() {
    let boom = bind_tool(&BOOM, session("s1")).unwrap();
    let other = bind_tool(&ADD, session("s2")).unwrap();
    let result = boom.execute(call(json!({})), &token()).await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "`boom` failed with an internal error (index out of range in boom); this is a bug in the tool, not in your arguments: try another way to reach your goal"
    );
    let sync = bind_tool(&BOOM_SYNC, session("s1")).unwrap();
    let result = sync.execute(call(json!({})), &token()).await;
    assert!(result.is_error);
    assert!(result.text_content().contains("(boom before the future)"));
    // Another session, and the same tool again, still work.
    assert_eq!(
        other
            .execute(call(json!({"a": 1, "b": 1})), &token())
            .await
            .text_content(),
        "2"
    );
    assert!(boom.execute(call(json!({})), &token()).await.is_error);
}

#[tokio::test]
async fn a_timeout_stops_the_body_and_says_so() {
    SLEEPY_DROPPED.store(false, Ordering::SeqCst);
    let tool = bind_tool(&SLEEPY, session("s")).unwrap();
    let started = std::time::Instant::now();
    let result = tool.execute(call(json!({})), &token()).await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "`sleepy` timed out after 50ms and was stopped; retry with a smaller task or split the work into several calls"
    );
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(
        SLEEPY_DROPPED.load(Ordering::SeqCst),
        "the body's future was not dropped"
    );
    // The per-call token is cancelled too, so work outside the future stops.
    tokio::time::timeout(Duration::from_secs(5), async {
        while !SLEEPY_TOKEN_CANCELLED.load(Ordering::SeqCst) {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the per-call token was not cancelled on timeout");
}

#[tokio::test]
async fn a_binding_can_lift_the_timeout() {
    let tool = bind_tool(&SLEEPY, session("s")).unwrap();
    assert_eq!(tool.timeout(), Some(Duration::from_millis(50)));
    let tool = tool.with_timeout(None);
    let cancel = token();
    let run = tokio::spawn({
        let cancel = cancel.clone();
        async move { tool.execute(call(json!({})), &cancel).await }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        !run.is_finished(),
        "without a timeout the call should still run"
    );
    cancel.cancel();
    let result = run.await.unwrap();
    assert!(result.text_content().contains("was cancelled"));
}

#[tokio::test]
async fn cancellation_drops_the_body_promptly() {
    let tool = bind_tool(&SLEEPY, session("s")).unwrap().with_timeout(None);
    let cancel = token();
    let run = tokio::spawn({
        let cancel = cancel.clone();
        async move { tool.execute(call(json!({})), &cancel).await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    cancel.cancel();
    let result = tokio::time::timeout(Duration::from_secs(5), run)
        .await
        .expect("cancellation did not end the call")
        .unwrap();
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "the call to `sleepy` was cancelled before it finished and was stopped; call it again if the result is still needed"
    );
}

#[tokio::test]
async fn an_already_cancelled_call_does_not_start() {
    let tool = bind_tool(&ADD, session("s")).unwrap();
    let cancel = token();
    cancel.cancel();
    let result = tool.execute(call(json!({"a": 1, "b": 2})), &cancel).await;
    assert!(result.is_error);
    assert!(
        result
            .text_content()
            .starts_with("the call to `add` was cancelled")
    );
}

/// Parameters with constraints only the schema states.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Constrained {
    /// A non-empty query.
    #[schemars(length(min = 1))]
    query: String,
    /// Between 1 and 10.
    #[schemars(range(min = 1, max = 10))]
    count: u32,
}

fn constrained<'a>(
    p: Constrained,
    _: cy_tools::Ctx<'a>,
    _: cy_tools::CallInfo<'a>,
) -> cy_tools::BoxFuture<'a, cy_tools::ToolResult> {
    Box::pin(async move { cy_tools::ToolResult::text(format!("{} x{}", p.query, p.count)) })
}

pub(crate) static CONSTRAINED: cy_tools::definition::ToolDefinition<Constrained> =
    cy_tools::definition::ToolDefinition::new(
        "constrained",
        "Has schema-only constraints.",
        constrained,
    );

#[tokio::test]
async fn constraints_the_schema_states_are_enforced_too() {
    let tool = bind_tool(&CONSTRAINED, session("s")).unwrap();
    assert_eq!(tool.parameters()["properties"]["query"]["minLength"], 1);
    let ok = tool
        .execute(call(json!({"query": "a", "count": 10})), &token())
        .await;
    assert_eq!(ok.text_content(), "a x10");
    let bad = tool
        .execute(call(json!({"query": "", "count": 0})), &token())
        .await;
    assert!(bad.is_error);
    assert_eq!(
        bad.text_content(),
        "invalid arguments for `constrained`: `count`: 0 is less than the minimum of 1; `query`: \"\" is shorter than 1 character; valid fields are `count` (integer, required), `query` (string, required)"
    );
}

fn watcher<'a>(
    _: (),
    _: cy_tools::Ctx<'a>,
    call: cy_tools::CallInfo<'a>,
) -> cy_tools::BoxFuture<'a, cy_tools::ToolResult> {
    Box::pin(async move {
        call.cancel.cancelled().await;
        cy_tools::ToolResult::text("ended as it saw the cancellation")
    })
}

static WATCHER: cy_tools::definition::ToolDefinition<()> =
    cy_tools::definition::ToolDefinition::new(
        "watcher",
        "Ends once its call is cancelled.",
        watcher,
    );

/// A body can see the cancellation and end within the poll that follows it (on a multi-thread
/// runtime, another thread may drive its I/O meanwhile): the caller who cancelled gets the
/// cancellation's answer all the same, not the body's.
#[tokio::test]
async fn a_body_ending_as_it_sees_the_cancellation_is_still_answered_as_cancelled() {
    let tool = bind_tool(&WATCHER, session("s"))
        .unwrap()
        .with_timeout(None);
    let cancel = token();
    let run = tokio::spawn({
        let cancel = cancel.clone();
        async move { tool.execute(call(json!({})), &cancel).await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    cancel.cancel();
    let result = run.await.unwrap();
    assert_eq!(
        result.text_content(),
        "the call to `watcher` was cancelled before it finished and was stopped; call it again if the result is still needed"
    );
}

#[tokio::test]
async fn an_invalid_call_carries_its_problems_as_data_for_programs() {
    let tool = bind_tool(&ADD, session("s")).unwrap();
    let result = tool
        .execute(call(json!({"a": "2", "b": 40})), &token())
        .await;
    assert_eq!(
        result.details,
        Some(json!({
            "error": "invalid_arguments",
            "tool": "add",
            "problems": [{
                "kind": "invalid_type",
                "path": "a",
                "expected": "an integer",
                "got": "string \"2\"",
                "message": "expected an integer, got string \"2\""
            }],
            "valid_fields": [
                {"name": "a", "type": "integer", "required": true},
                {"name": "b", "type": "integer", "required": true}
            ]
        }))
    );

    let unknown = tool
        .execute(
            call(json!({"a": 1, "b": 2, "c": 3, "verbose": true})),
            &token(),
        )
        .await;
    let problems = &unknown.details.as_ref().unwrap()["problems"];
    assert_eq!(
        problems,
        &json!([
            {"kind": "unknown_field", "path": "c", "message": "unknown field"},
            {"kind": "unknown_field", "path": "verbose", "message": "unknown field"}
        ])
    );

    let missing = tool.execute(call(json!({"a": 2})), &token()).await;
    assert_eq!(
        missing.details.as_ref().unwrap()["problems"],
        json!([{"kind": "missing_field", "path": "b", "message": "missing required field"}])
    );

    let bad = bind_tool(&CONSTRAINED, session("s"))
        .unwrap()
        .execute(call(json!({"query": "", "count": 0})), &token())
        .await;
    let problems = &bad.details.as_ref().unwrap()["problems"];
    assert_eq!(problems[0]["kind"], "constraint");
    assert_eq!(problems[0]["path"], "count");
    assert_eq!(problems[1]["path"], "query");
}
