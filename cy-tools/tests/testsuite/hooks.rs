//! Hooks around every call and the result limits, through a session's one call path: a hook
//! passes, rewrites, refuses, fails and times out (the last two refuse, naming it); an after
//! hook replaces a result; a 10 MB result reaches the caller cut, with a notice, and whole in
//! the workspace; an image past its bound is kept in the workspace instead.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use cy_tools::call::Content;
use cy_tools::call::hook::{After, Before, CallHook, HookCall, HookError, Hooks, ResultLimits};
use cy_tools::memory::MemorySandbox;
use cy_tools::prelude::*;
use cy_tools::{BoxFuture, services::Sandbox};
use serde_json::json;

/// Echoes its text.
#[tool(read_only, register = false)]
async fn echo(
    /** The text. */
    text: String,
) -> String {
    text
}

/// Answers `bytes` bytes of text, numbered lines.
#[tool(read_only, register = false)]
async fn big_text(
    /** How many bytes. */
    bytes: usize,
) -> String {
    let mut out = String::with_capacity(bytes + 16);
    let mut line = 0;
    while out.len() < bytes {
        out.push_str(&format!("line {line}\n"));
        line += 1;
    }
    out.truncate(bytes);
    out
}

/// Answers an image of `bytes` bytes.
#[tool(read_only, register = false)]
async fn picture(
    /** How many bytes. */
    bytes: usize,
) -> ToolResult {
    ToolResult::text("a picture").with_content(Content::image(&vec![7u8; bytes], "image/png"))
}

enum Does {
    Pass,
    Rewrite,
    Refuse,
    Fail,
    Hang,
    ReplaceResult,
}

struct Scripted {
    does: Does,
    seen: AtomicUsize,
}

impl Scripted {
    fn new(does: Does) -> Arc<Scripted> {
        Arc::new(Scripted {
            does,
            seen: AtomicUsize::new(0),
        })
    }
}

impl CallHook for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }

    fn before<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, Result<Before, HookError>> {
        Box::pin(async move {
            self.seen.fetch_add(1, Ordering::SeqCst);
            assert_eq!(call.session.session_id, "s-1");
            match self.does {
                Does::Pass | Does::ReplaceResult => Ok(Before::Pass),
                Does::Rewrite => {
                    let mut arguments = call.arguments.clone();
                    arguments.insert("text".into(), json!("rewritten"));
                    Ok(Before::Rewrite(arguments))
                }
                Does::Refuse => Ok(Before::Refuse("not today".into())),
                Does::Fail => Err(HookError::new("its policy server is down")),
                Does::Hang => {
                    tokio::time::sleep(Duration::from_secs(60)).await;
                    Ok(Before::Pass)
                }
            }
        })
    }

    fn after<'a>(
        &'a self,
        _call: &'a HookCall<'a>,
        result: &'a ToolResult,
    ) -> BoxFuture<'a, Result<After, HookError>> {
        Box::pin(async move {
            Ok(match self.does {
                Does::ReplaceResult => {
                    After::Replace(ToolResult::text(format!("[{}]", result.text_content())))
                }
                _ => After::Keep,
            })
        })
    }
}

fn session(context: ToolContext) -> Session {
    let mut registry = ToolRegistry::new();
    registry.register("echo", &ECHO).unwrap();
    registry.register("big_text", &BIG_TEXT).unwrap();
    registry.register("picture", &PICTURE).unwrap();
    let context = Arc::new(context);
    let tools = registry.build(&["echo", "big_text", "picture"], &context);
    Session::new(context, tools)
}

fn hooked(hooks: Hooks) -> Session {
    session(ToolContext::new(SessionIdentity::root("s-1", "acme")).with_hooks(hooks))
}

async fn call(session: &Session, tool: &str, arguments: serde_json::Value) -> ToolResult {
    session.call(tool, arguments).await
}

#[tokio::test]
async fn a_hook_passes_rewrites_and_refuses() {
    let pass = Scripted::new(Does::Pass);
    let session = hooked(Hooks::default().with(pass.clone()));
    let result = call(&session, "echo", json!({"text": "hi"})).await;
    assert_eq!(
        (result.is_error, result.to_string().as_str()),
        (false, "hi")
    );
    assert_eq!(pass.seen.load(Ordering::SeqCst), 1);

    let session = hooked(Hooks::default().with(Scripted::new(Does::Rewrite)));
    assert_eq!(
        call(&session, "echo", json!({"text": "hi"}))
            .await
            .to_string(),
        "rewritten"
    );

    let refuse = Scripted::new(Does::Refuse);
    // A refusal stops the chain: the hook after it never sees the call.
    let after = Scripted::new(Does::Pass);
    let session = hooked(Hooks::default().with(refuse).with(after.clone()));
    let result = call(&session, "echo", json!({"text": "hi"})).await;
    assert!(result.is_error);
    assert_eq!(
        result.to_string(),
        "`echo` was refused by hook `scripted`: not today"
    );
    assert_eq!(after.seen.load(Ordering::SeqCst), 0);

    // Arguments that fail the tool's checks are answered before any hook sees them.
    let pass = Scripted::new(Does::Pass);
    let session = hooked(Hooks::default().with(pass.clone()));
    assert!(call(&session, "echo", json!({"txt": "hi"})).await.is_error);
    assert_eq!(pass.seen.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_failing_or_stuck_hook_refuses_the_call_naming_it() {
    let session = hooked(Hooks::default().with(Scripted::new(Does::Fail)));
    let result = call(&session, "echo", json!({"text": "hi"})).await;
    assert!(result.is_error);
    assert_eq!(
        result.to_string(),
        "`echo` was refused: hook `scripted` failed (its policy server is down), so the call did not run; this is the host's hook, not your arguments"
    );

    let hooks = Hooks::default()
        .with(Scripted::new(Does::Hang))
        .with_timeout(Duration::from_millis(100));
    let session = hooked(hooks);
    let result = call(&session, "echo", json!({"text": "hi"})).await;
    assert!(result.is_error);
    assert_eq!(
        result.to_string(),
        "`echo` did not run: hook `scripted` did not decide within 100ms; the host's hook is too slow or stuck"
    );
}

#[tokio::test]
async fn an_after_hook_replaces_the_result() {
    let session = hooked(Hooks::default().with(Scripted::new(Does::ReplaceResult)));
    assert_eq!(
        call(&session, "echo", json!({"text": "hi"}))
            .await
            .to_string(),
        "[hi]"
    );
}

#[tokio::test]
async fn ten_megabytes_reach_the_caller_cut_and_the_workspace_whole() {
    let sandbox = Arc::new(MemorySandbox::new());
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme"))
        .with_env(sandbox.clone() as Arc<dyn Sandbox>);
    let session = session(context);
    let result = call(&session, "big_text", json!({"bytes": 10_000_000})).await;
    assert!(!result.is_error);
    let [
        Content::Text { text: shown },
        Content::Text { text: notice },
    ] = &result.content[..]
    else {
        panic!("{:?}", result.content.len());
    };
    assert_eq!(shown.len(), cy_tools::call::hook::DEFAULT_TEXT_BYTES);
    assert!(shown.starts_with("line 0\nline 1\n"));
    let path = notice
        .split('`')
        .find(|part| part.starts_with(".cy-tools/results/"))
        .unwrap_or_else(|| panic!("{notice}"));
    assert!(
        notice.starts_with("[result cut: 10000000 bytes of text, over this session's limit of 200000 for `big_text`; the first 200000 bytes are above, 9800000 were cut; the whole of it is in `"),
        "{notice}"
    );
    let whole = sandbox.read(path).await.unwrap();
    assert_eq!(whole.len(), 10_000_000);
    assert!(whole.starts_with(shown.as_bytes()));

    // Small results are untouched; a tool's own limit is its own.
    assert_eq!(
        call(&session, "echo", json!({"text": "hi"})).await.content,
        vec![Content::text("hi")]
    );
}

#[tokio::test]
async fn without_a_workspace_the_cut_says_the_rest_is_gone_and_a_tool_limit_applies() {
    let limits = ResultLimits::default().with_tool_text_bytes("big_text", 10);
    let session =
        session(ToolContext::new(SessionIdentity::root("s-1", "acme")).with_result_limits(limits));
    let result = call(&session, "big_text", json!({"bytes": 100})).await;
    assert_eq!(result.content[0], Content::text("line 0\nlin"));
    assert!(
        result
            .to_string()
            .contains("the whole of it could not be kept, as this session has no workspace"),
        "{result}"
    );
}

#[tokio::test]
async fn an_image_past_its_bound_is_kept_in_the_workspace_instead() {
    let sandbox = Arc::new(MemorySandbox::new());
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme"))
        .with_env(sandbox.clone() as Arc<dyn Sandbox>)
        .with_result_limits(ResultLimits::default().with_image_bytes(1000));
    let session = session(context);
    let small = call(&session, "picture", json!({"bytes": 600})).await;
    assert!(matches!(small.content[1], Content::Image { .. }));
    let big = call(&session, "picture", json!({"bytes": 3000})).await;
    assert_eq!(big.content.len(), 2);
    let notice = big.content[1].clone();
    let Content::Text { text } = notice else {
        panic!()
    };
    assert!(text.starts_with("[image cut: image/png, 3000 bytes, over this session's bound of 1000 bytes per image; the whole of it is in `.cy-tools/results/"), "{text}");
    let path = text.split('`').nth(1).unwrap();
    assert_eq!(sandbox.read(path).await.unwrap(), vec![7u8; 3000]);
}
