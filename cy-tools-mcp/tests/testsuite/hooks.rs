//! Hooks and the result limits through MCP: a hook's refusal reaches the client as an error
//! result naming it, and a tool answering 10 MB reaches it cut, with the notice, while the
//! workspace holds the whole result; a rewrite, a failing hook and a stuck one are answered as
//! the library answers them.

use std::sync::Arc;

use cy_tools::BoxFuture;
use cy_tools::call::hook::{Before, CallHook, HookCall, HookError};
use cy_tools::prelude::*;
use cy_tools_sandbox::LocalSandbox;
use serde_json::json;

/// Answers `bytes` bytes of `x`.
#[tool(read_only, open_world = false)]
async fn ten_megabytes(
    /** How many bytes. */
    bytes: usize,
) -> String {
    "x".repeat(bytes)
}

/// Refuses every call of `list_directory`.
struct NoListing;

impl CallHook for NoListing {
    fn name(&self) -> &str {
        "no-listing"
    }

    fn before<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, Result<Before, HookError>> {
        Box::pin(async move {
            Ok(if call.tool == "list_directory" {
                Before::Refuse("listing is off in this deployment".into())
            } else {
                Before::Pass
            })
        })
    }
}

#[tokio::test]
async fn a_refusal_and_a_cut_result_reach_the_client() {
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme"))
        .with_env(Arc::new(env))
        .with_hook(Arc::new(NoListing));
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["ten_megabytes", "list_directory"], &context);
    let mut peer = crate::in_process::serve(tools).await;

    let response = peer
        .request(
            2,
            "tools/call",
            json!({"name": "list_directory", "arguments": {"path": "."}}),
        )
        .await;
    let result = &response["result"];
    assert_eq!(result["isError"], true, "{response}");
    assert_eq!(
        result["content"][0]["text"],
        "`list_directory` was refused by hook `no-listing`: listing is off in this deployment"
    );

    let response = peer
        .request(
            3,
            "tools/call",
            json!({"name": "ten_megabytes", "arguments": {"bytes": 10_000_000}}),
        )
        .await;
    let content = response["result"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 2, "{}", content.len());
    assert_eq!(content[0]["text"].as_str().unwrap().len(), 200_000);
    let notice = content[1]["text"].as_str().unwrap();
    assert!(
        notice.starts_with("[result cut: 10000000 bytes of text"),
        "{notice}"
    );
    let path = notice
        .split('`')
        .find(|p| p.starts_with(".cy-tools/results/"))
        .unwrap();
    let whole = std::fs::read(dir.path().join(path)).unwrap();
    assert_eq!(whole.len(), 10_000_000);
}

/// Halves `ten_megabytes`' byte count, fails on a count of 13, and takes a minute on 7.
struct Halver;

impl CallHook for Halver {
    fn name(&self) -> &str {
        "halver"
    }

    fn before<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, Result<Before, HookError>> {
        Box::pin(async move {
            let bytes = call.arguments["bytes"].as_u64().unwrap_or_default();
            match bytes {
                13 => Err(HookError::new("13 is unlucky")),
                7 => {
                    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
                    Ok(Before::Pass)
                }
                _ => {
                    let mut arguments = call.arguments.clone();
                    arguments.insert("bytes".into(), json!(bytes / 2));
                    Ok(Before::Rewrite(arguments))
                }
            }
        })
    }
}

#[tokio::test]
async fn a_rewrite_a_failing_hook_and_a_stuck_one_reach_the_client() {
    let hooks = cy_tools::call::hook::Hooks::default()
        .with(Arc::new(Halver))
        .with_timeout(std::time::Duration::from_millis(200));
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme")).with_hooks(hooks);
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["ten_megabytes"], &context);
    let mut peer = crate::in_process::serve(tools).await;
    let mut text = async |id: u64, bytes: u64| {
        let response = peer
            .call(id, "ten_megabytes", json!({"bytes": bytes}))
            .await;
        let result = &response["result"];
        (
            result["isError"] == true,
            result["content"][0]["text"].as_str().unwrap().to_string(),
        )
    };
    assert_eq!(text(2, 10).await, (false, "xxxxx".to_string()));
    assert_eq!(
        text(3, 13).await,
        (
            true,
            "`ten_megabytes` was refused: hook `halver` failed (13 is unlucky), so the call did not run; this is the host's hook, not your arguments".to_string()
        )
    );
    assert_eq!(
        text(4, 7).await,
        (
            true,
            "`ten_megabytes` did not run: hook `halver` did not decide within 200ms; the host's hook is too slow or stuck".to_string()
        )
    );
}
