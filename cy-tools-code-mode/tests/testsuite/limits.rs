//! Code-mode limits on both backends: calls per execution, payload size both ways, the per-call
//! timeout; each refusal reaches Python as a `cy_sdk.ToolError` that says what to do.

use std::time::{Duration, Instant};

use cy_tools_code_mode::CodeModeLimits;
use serde_json::json;

use super::harness::{Harness, python_json};
use crate::support::backend::on_each_backend;

const ATTEMPT: &str = r#"
def attempt(tool, **args):
    try:
        return {"ok": cy_sdk.call(tool, **args)}
    except cy_sdk.ToolError as err:
        return {"error": str(err)}
"#;

on_each_backend! {
    async fn calls_past_the_maximum_are_refused_and_listing_is_free(backend: Backend) {
        let h = Harness::start(
            backend,
            CodeModeLimits {
                max_calls: 2,
                ..CodeModeLimits::default()
            },
            None,
        )
        .await;
        let code = format!(
            "{ATTEMPT}cy_sdk.tools()\nprint(json.dumps([attempt('tally', text='a') for _ in range(3)]))"
        );
        let out = python_json(&h, &code).await;
        assert_eq!(out[0], json!({"ok": {"words": 1, "distinct": 1}}));
        assert_eq!(out[1], out[0]);
        assert_eq!(
            out[2]["error"],
            "this execution has made the 2 tool calls it may make; do more per call, or split the work over several `execute_code` runs"
        );
        // The next execution starts its own count.
        let again = python_json(&h, "print(json.dumps(cy_sdk.call('tally', text='b c')))").await;
        assert_eq!(again, json!({"words": 2, "distinct": 2}));
    }

    async fn payloads_over_the_limit_are_refused_both_ways(backend: Backend) {
        let h = Harness::start(
            backend,
            CodeModeLimits {
                max_payload_bytes: 2_000,
                ..CodeModeLimits::default()
            },
            None,
        )
        .await;
        std::fs::write(h.root().join("big.txt"), "x".repeat(5_000)).unwrap();
        let code = format!(
            r#"{ATTEMPT}
print(json.dumps({{
    "request": attempt("write_file", path="w.txt", content="y" * 5000),
    "result": attempt("read_file", path="big.txt"),
    "after": attempt("tally", text="still works"),
}}))"#
        );
        let out = python_json(&h, &code).await;
        assert_eq!(
            out["request"]["error"],
            "the request is over the SDK channel's limit of 2000 bytes; send less in one call (write large inputs to a file and pass its path)"
        );
        assert!(!h.root().join("w.txt").exists());
        let result = out["result"]["error"].as_str().unwrap();
        assert!(
            result.starts_with("the result of `read_file` is ")
                && result.ends_with(" bytes, over the SDK channel's limit of 2000 bytes; ask for less in one call (a range, a limit), or have the tool write to a file"),
            "{result}"
        );
        // The oversized request closed its connection; the module reconnects for the next call.
        assert_eq!(out["after"], json!({"ok": {"words": 2, "distinct": 2}}));
    }

    async fn a_call_past_the_per_call_timeout_is_stopped(backend: Backend) {
        let h = Harness::start(
            backend,
            CodeModeLimits {
                call_timeout: Duration::from_millis(200),
                ..CodeModeLimits::default()
            },
            None,
        )
        .await;
        let started = Instant::now();
        let code = format!(
            "{ATTEMPT}print(json.dumps([attempt('pause', ms=10_000), attempt('pause', ms=1)]))"
        );
        let out = python_json(&h, &code).await;
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(
            out[0]["error"],
            "the call to `pause` took longer than the per-call limit of 200 ms and was stopped; ask for less in one call"
        );
        assert_eq!(out[1], json!({"ok": "done"}));
    }
}
