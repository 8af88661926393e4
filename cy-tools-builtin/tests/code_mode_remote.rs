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
async fn a_forged_token_is_refused() {
    cases::a_forged_token_is_refused(
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
