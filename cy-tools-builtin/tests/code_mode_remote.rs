//! The code-mode cases through the remote executor and a control server on loopback: the socket
//! is opened by the server next to the code, and each call is relayed back over the connection
//! carrying the run, to run in the runtime under its context and be recorded in its log.

mod code_mode_common;

use std::sync::Arc;
use std::time::Duration;

use code_mode_common::{Backend, Harness, cases, limit_cases};
use cy_tools_builtin::code_mode::CodeModeLimits;

#[tokio::test]
async fn python_combines_read_file_write_file_and_an_application_tool() {
    cases::python_combines_read_file_write_file_and_an_application_tool(
        Harness::start(Backend::Remote, CodeModeLimits::default(), None).await,
    )
    .await;
}

#[tokio::test]
async fn tools_lists_the_toolset_without_execute_code() {
    cases::tools_lists_the_toolset_without_execute_code(
        Harness::start(Backend::Remote, CodeModeLimits::default(), None).await,
    )
    .await;
}

#[tokio::test]
async fn refusals_reach_python_as_tool_errors_with_the_model_facing_message() {
    cases::refusals_reach_python_as_tool_errors_with_the_model_facing_message(
        Harness::start(
            Backend::Remote,
            CodeModeLimits::default(),
            Some("write_file"),
        )
        .await,
    )
    .await;
}

#[tokio::test]
async fn the_channel_is_an_inherited_descriptor_named_nowhere_else() {
    cases::the_channel_is_an_inherited_descriptor_named_nowhere_else(
        Harness::start(Backend::Remote, CodeModeLimits::default(), None).await,
    )
    .await;
}

#[tokio::test]
async fn a_call_after_its_execution_ended_is_refused() {
    cases::a_call_after_its_execution_ended_is_refused(
        Harness::start(Backend::Remote, CodeModeLimits::default(), None).await,
    )
    .await;
}

#[tokio::test]
async fn nesting_when_allowed_runs_a_second_channel() {
    cases::nesting_when_allowed_runs_a_second_channel(
        Harness::start(
            Backend::Remote,
            CodeModeLimits {
                allow_nesting: true,
                ..CodeModeLimits::default()
            },
            None,
        )
        .await,
    )
    .await;
}

#[tokio::test]
async fn concurrent_executions_have_separate_channels() {
    cases::concurrent_executions_have_separate_channels(Arc::new(
        Harness::start(Backend::Remote, CodeModeLimits::default(), None).await,
    ))
    .await;
}

#[tokio::test]
async fn calls_past_the_maximum_are_refused_and_listing_is_free() {
    limit_cases::calls_past_the_maximum_are_refused_and_listing_is_free(
        Harness::start(
            Backend::Remote,
            CodeModeLimits {
                max_calls: 2,
                ..CodeModeLimits::default()
            },
            None,
        )
        .await,
    )
    .await;
}

#[tokio::test]
async fn payloads_over_the_limit_are_refused_both_ways() {
    limit_cases::payloads_over_the_limit_are_refused_both_ways(
        Harness::start(
            Backend::Remote,
            CodeModeLimits {
                max_payload_bytes: 2_000,
                ..CodeModeLimits::default()
            },
            None,
        )
        .await,
    )
    .await;
}

#[tokio::test]
async fn a_call_past_the_per_call_timeout_is_stopped() {
    limit_cases::a_call_past_the_per_call_timeout_is_stopped(
        Harness::start(
            Backend::Remote,
            CodeModeLimits {
                call_timeout: Duration::from_millis(200),
                ..CodeModeLimits::default()
            },
            None,
        )
        .await,
    )
    .await;
}

#[tokio::test]
async fn cancelling_the_run_stops_it_and_its_nested_call() {
    cases::cancelling_the_run_stops_it_and_its_nested_call(
        Harness::start(Backend::Remote, CodeModeLimits::default(), None).await,
    )
    .await;
}

#[tokio::test]
async fn a_wrong_server_token_is_refused_before_anything_runs() {
    use cy_tools::{CodeExecutor, CodeOptions};
    use cy_tools_builtin::code_mode::CodeModeExecutor;
    use cy_tools_builtin::executor::RemoteExecutor;

    let h = Harness::start(Backend::Remote, CodeModeLimits::default(), None).await;
    let addr = h.server.unwrap();
    let remote = RemoteExecutor::new(
        &format!("http://{addr}"),
        "s-code",
        "not-the-token-0123456789",
    )
    .unwrap();
    let executor = CodeModeExecutor::new(Arc::new(remote));
    executor.bind(h.session()).unwrap();
    let err = executor
        .execute("open('ran', 'w')", CodeOptions::default())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "the control server at http://{addr} answered 401 Unauthorized: missing or wrong bearer token; send `Authorization: Bearer <token>` with the token the server was started with (its `CY_CONTROL_TOKEN`)"
        )
    );
    assert!(!h.root().join("ran").exists());
}
