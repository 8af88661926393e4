//! Binding: capability checks, shared schemas, and per-session isolation.

use std::sync::Arc;

use crate::support::*;
use cy_tools::definition::Definition;
use cy_tools::memory::MemorySandbox;
use cy_tools::{
    Ctx,
    binding::{BindError, bind_tool},
    capability::{Capabilities, Capability},
    definition::ToolAnnotations,
    services::Sandbox,
};
use serde_json::json;

#[test]
fn binding_refuses_a_context_without_a_declared_capability() {
    let err = bind_tool(&SAY, session("sub-1")).unwrap_err();
    assert_eq!(
        err,
        BindError::MissingCapabilities {
            tool: "say".into(),
            missing: Capabilities::NONE.with(Capability::Chat),
            session: "sub-1".into(),
        }
    );
    assert_eq!(
        err.to_string(),
        "tool `say` needs capability `chat`, which session `sub-1` does not provide; give the session's context that service, or leave the tool out of this session"
    );
    let (full, _, _) = full_session("root");
    let tool = bind_tool(&SAY, full).unwrap();
    assert_eq!(tool.capabilities().to_string(), "session, chat");
}

#[test]
fn a_bound_tool_describes_itself() {
    let (ctx, _, _) = full_session("s");
    let tool = bind_tool(&READ_TEXT, ctx).unwrap();
    assert_eq!(tool.name(), "read_text");
    assert_eq!(tool.description(), "Reads a text file.");
    assert_eq!(tool.annotations(), ToolAnnotations::DEFAULT);
    assert_eq!(tool.session().session_id, "s");
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path relative to the workspace."},
                "limit": {"type": ["integer", "null"], "format": "uint64", "minimum": 0, "description": "Maximum bytes to return."}
            },
            "required": ["path"],
            "additionalProperties": false
        })
    );
}

#[test]
fn the_schema_is_generated_once_and_shared_by_every_binding() {
    let (ctx, _, _) = full_session("a");
    let first = bind_tool(&READ_TEXT, ctx.clone()).unwrap();
    let generated = cy_tools::__private::schemas_generated();
    let second = bind_tool(&READ_TEXT, ctx).unwrap();
    let third = bind_tool(&READ_TEXT, full_session("b").0).unwrap();
    assert_eq!(
        cy_tools::__private::schemas_generated(),
        generated,
        "a later bind regenerated the schema"
    );
    assert!(std::ptr::eq(first.parameters(), second.parameters()));
    assert!(std::ptr::eq(first.parameters(), third.parameters()));
    assert!(std::ptr::eq(first.schema(), READ_TEXT.schema().unwrap()));
}

#[test]
fn parameterless_tools_get_the_empty_object_schema() {
    let tool = bind_tool(&PING, session("s")).unwrap();
    assert_eq!(
        tool.parameters(),
        &json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
}

#[tokio::test]
async fn ctx_can_be_built_directly_to_test_a_body() {
    let (ctx, sandbox, _) = full_session("s");
    sandbox
        .write("a.txt", b"hello world".to_vec())
        .await
        .unwrap();
    let view = Ctx::<EnvCaps>::new(&ctx).unwrap();
    let body = READ_TEXT.handler();
    let result = body(
        ReadParams {
            path: "a.txt".into(),
            limit: Some(5),
        },
        view,
        cy_tools::CallInfo::for_test("t", &cy_tools::CancellationToken::new()),
    )
    .await;
    assert_eq!(result.text_content(), "hello");
    let err = Ctx::<EnvCaps>::new(&session("bare")).unwrap_err();
    assert!(
        matches!(err, BindError::MissingCapabilities { missing, .. } if missing == Capabilities::NONE.with(Capability::Env))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_concurrent_sessions_each_see_only_their_own_context() {
    let mut handles = Vec::new();
    for i in 0..10 {
        handles.push(tokio::spawn(async move {
            let sandbox = Arc::new(MemorySandbox::new());
            sandbox
                .write("who.txt", format!("session {i}").into_bytes())
                .await
                .unwrap();
            let ctx = session(&format!("s-{i}")).with_env(sandbox);
            let tool = bind_tool(&READ_TEXT, ctx).unwrap();
            let mut seen = Vec::new();
            for _ in 0..20 {
                let r = tool
                    .execute(call(json!({"path": "who.txt"})), &token())
                    .await;
                seen.push(r.text_content());
                tokio::task::yield_now().await;
            }
            (i, tool.session().session_id.clone(), seen)
        }));
    }
    for handle in handles {
        let (i, id, seen) = handle.await.unwrap();
        assert_eq!(id, format!("s-{i}"));
        assert!(
            seen.iter().all(|s| *s == format!("session {i}")),
            "session {i} saw {seen:?}"
        );
    }
}

/// A binding's own timeout and description are each its own, kept through the other's change,
/// and setting the definition's own timeout leaves the binding as bound.
#[test]
fn a_bindings_own_timeout_and_description_are_kept_apart() {
    use std::time::Duration;
    let tool = bind_tool(&SLEEPY, session("s")).unwrap();
    assert_eq!(tool.timeout(), Some(Duration::from_millis(50)));
    assert_eq!(tool.description(), "Sleeps an hour.");
    let described = tool.clone().with_description("Sleeps; here, briefly.");
    let both = described.clone().with_timeout(Some(Duration::from_secs(2)));
    assert_eq!(both.description(), "Sleeps; here, briefly.");
    assert_eq!(both.timeout(), Some(Duration::from_secs(2)));
    let lifted = both.clone().with_timeout(None);
    assert_eq!(lifted.timeout(), None);
    assert_eq!(lifted.description(), "Sleeps; here, briefly.");
    let back = lifted.with_timeout(Some(Duration::from_millis(50)));
    assert_eq!(back.timeout(), Some(Duration::from_millis(50)));
    assert_eq!(back.description(), "Sleeps; here, briefly.");
    // The original binding is untouched by its clones' settings.
    assert_eq!(tool.timeout(), Some(Duration::from_millis(50)));
    assert_eq!(tool.description(), "Sleeps an hour.");
    assert_eq!(described.timeout(), Some(Duration::from_millis(50)));
}

/// Every session keeps one of these per tool: the heap a session takes (at most a fifth of a
/// cloned rmcp router's, `bench/benches/session_memory.rs`) is mostly them.
#[test]
fn a_bound_tool_is_at_most_64_bytes() {
    assert!(
        std::mem::size_of::<cy_tools::BoundTool>() <= 64,
        "BoundTool is {} bytes",
        std::mem::size_of::<cy_tools::BoundTool>()
    );
}
