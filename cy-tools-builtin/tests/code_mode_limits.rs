//! Code-mode limits with real `python3` on the local executor: calls per execution, payload size
//! both ways, the per-call timeout; each refusal reaches Python as a `cy_sdk.ToolError` that says
//! what to do. The cases are in `code_mode_common/limit_cases.rs`.

mod code_mode_common;

use std::time::Duration;

use code_mode_common::{Backend, Harness, limit_cases};
use cy_tools_builtin::code_mode::CodeModeLimits;

#[tokio::test]
async fn calls_past_the_maximum_are_refused_and_listing_is_free() {
    limit_cases::calls_past_the_maximum_are_refused_and_listing_is_free(
        Harness::start(
            Backend::Local,
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
            Backend::Local,
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
            Backend::Local,
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
