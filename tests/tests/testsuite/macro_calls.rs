//! Typed calls through `BoundTool::execute` on tools written with `#[tool]`, and direct calls of
//! the annotated functions.

use std::sync::Arc;

use cy_tools::memory::{MemoryChat, MemorySandbox};
use cy_tools::{
    CallInfo, CancellationToken, Ctx, SessionIdentity, ToolCall, ToolContext, ToolRegistry,
    ToolResult, Toolset,
    binding::{BindError, bind_tool},
    services::Sandbox,
};
use cy_tools_tests::{files, misc, search};
use serde_json::{Value, json};

async fn workspace() -> (Arc<MemorySandbox>, Arc<MemoryChat>, ToolContext) {
    let sandbox = Arc::new(MemorySandbox::new());
    sandbox
        .write("notes.txt", b"alpha\nBeta\ngamma\nbeta max\n".to_vec())
        .await
        .unwrap();
    sandbox
        .write("other.txt", b"no match\nBETA\n".to_vec())
        .await
        .unwrap();
    let chat = Arc::new(MemoryChat::new());
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme"))
        .with_env(sandbox.clone())
        .with_chat(chat.clone());
    (sandbox, chat, context)
}

fn toolset(context: &ToolContext) -> Toolset {
    let registry = ToolRegistry::linked().expect("linked");
    registry.build(
        &[
            "read_lines",
            "save_text",
            "find_lines",
            "ping",
            "add_numbers",
            "notify",
            "wait_for_cancel",
            "count_chars",
        ],
        context,
    )
}

async fn call(tools: &Toolset, name: &str, args: Value) -> ToolResult {
    tools
        .execute(
            name,
            ToolCall::new("call-7", args),
            &CancellationToken::new(),
        )
        .await
}

#[tokio::test]
async fn read_lines_applies_default_and_optional_arguments() {
    let (_, _, context) = workspace().await;
    let tools = toolset(&context);
    let all = call(&tools, "read_lines", json!({"path": "notes.txt"})).await;
    assert!(!all.is_error);
    assert_eq!(all.text_content(), "alpha\nBeta\ngamma\nbeta max");
    let window = call(
        &tools,
        "read_lines",
        json!({"path": "notes.txt", "offset": 2, "limit": 2}),
    )
    .await;
    assert_eq!(window.text_content(), "Beta\ngamma");
    let missing = call(&tools, "read_lines", json!({"path": "nope.txt"})).await;
    assert!(missing.is_error);
}

#[tokio::test]
async fn invalid_arguments_name_the_field_and_the_valid_ones() {
    let (_, _, context) = workspace().await;
    let tools = toolset(&context);
    let wrong = call(
        &tools,
        "read_lines",
        json!({"path": "notes.txt", "offset": "two"}),
    )
    .await;
    assert!(wrong.is_error);
    assert_eq!(
        wrong.text_content(),
        "invalid arguments for `read_lines`: `offset`: expected a non-negative integer, got string \"two\"; valid fields are `path` (string, required), `limit` (integer or null), `offset` (integer)"
    );
    let unknown = call(&tools, "ping", json!({"loud": true})).await;
    assert!(unknown.is_error);
    assert!(
        unknown
            .text_content()
            .starts_with("invalid arguments for `ping`: unknown field `loud`; "),
        "{}",
        unknown.text_content()
    );
}

#[tokio::test]
async fn save_text_gets_the_sandbox_directly() {
    let (sandbox, _, context) = workspace().await;
    let tools = toolset(&context);
    let result = call(
        &tools,
        "save_text",
        json!({"path": "out/a.txt", "contents": "héllo"}),
    )
    .await;
    assert_eq!(result.text_content(), "wrote 6 bytes to `out/a.txt`");
    assert_eq!(sandbox.read("out/a.txt").await.unwrap(), "héllo".as_bytes());
}

#[tokio::test]
async fn find_lines_uses_enums_nested_structs_vecs_maps_and_renames() {
    let (_, _, context) = workspace().await;
    let tools = toolset(&context);
    let defaults = call(
        &tools,
        "find_lines",
        json!({"pattern": "beta", "paths": ["notes.txt", "other.txt"]}),
    )
    .await;
    assert_eq!(
        defaults.content,
        vec![cy_tools::call::Content::json(json!([
            {"path": "notes.txt", "line": 4, "text": "beta max", "labels": {}}
        ]))]
    );
    let everything = call(
        &tools,
        "find_lines",
        json!({
            "pattern": "beta",
            "paths": ["notes.txt", "other.txt"],
            "mode": "ignore_case",
            "lines": {"start": 1, "end": 2},
            "labels": {"run": "1"},
            "max_results": 2
        }),
    )
    .await;
    assert_eq!(
        everything.text_content(),
        r#"[{"labels":{"run":"1"},"line":2,"path":"notes.txt","text":"Beta"},{"labels":{"run":"1"},"line":2,"path":"other.txt","text":"BETA"}]"#
    );
    let old_name = call(
        &tools,
        "find_lines",
        json!({"pattern": "a", "paths": [], "limit": 1}),
    )
    .await;
    assert!(old_name.is_error);
    assert!(
        old_name.text_content().contains("unknown field `limit`"),
        "{}",
        old_name.text_content()
    );
    let bad_mode = call(
        &tools,
        "find_lines",
        json!({"pattern": "a", "paths": [], "mode": "fuzzy"}),
    )
    .await;
    assert_eq!(
        bad_mode.text_content(),
        "invalid arguments for `find_lines`: `mode`: unknown value `fuzzy`, expected `literal` or `ignore_case`; valid fields are `paths` (array, required), `pattern` (string, required), `labels` (object), `lines` (object or null), `max_results` (integer), `mode` (one of `literal` or `ignore_case`)"
    );
}

#[tokio::test]
async fn args_struct_ping_and_reexported_crate_path() {
    let (_, _, context) = workspace().await;
    let tools = toolset(&context);
    assert_eq!(
        call(&tools, "add_numbers", json!({"a": 40, "b": 2}))
            .await
            .text_content(),
        "42"
    );
    let overflow = call(&tools, "add_numbers", json!({"a": i64::MAX, "b": 1})).await;
    assert!(overflow.is_error);
    assert_eq!(
        overflow.text_content(),
        "the sum does not fit in 64 bits; add smaller numbers"
    );
    assert_eq!(
        call(&tools, "ping", Value::Null).await.text_content(),
        "pong"
    );
    assert_eq!(
        call(&tools, "count_chars", json!({"text": "héllo"}))
            .await
            .text_content(),
        "5"
    );
}

#[tokio::test]
async fn notify_gets_call_info_session_and_chat() {
    let (_, chat, context) = workspace().await;
    let tools = toolset(&context);
    let result = call(&tools, "notify", json!({"message": "build is green"})).await;
    assert_eq!(
        result.text_content(),
        "sent from session `s-1` in call `call-7`"
    );
    let sent = chat.messages();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].text, "build is green");
    assert_eq!(sent[0].session_id, "s-1");
}

#[tokio::test]
async fn declared_timeout_cancels_the_call_token() {
    let (_, _, context) = workspace().await;
    let tools = toolset(&context);
    let result = call(&tools, "wait_for_cancel", json!({})).await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "`wait_for_cancel` timed out after 100ms and was stopped; retry with a smaller task or split the work into several calls"
    );
}

#[tokio::test]
async fn a_session_without_a_declared_capability_does_not_get_the_tool() {
    let bare = ToolContext::new(SessionIdentity::root("sub-1", "acme"));
    let tools = toolset(&bare);
    assert_eq!(
        tools.names(),
        ["ping", "add_numbers", "wait_for_cancel", "count_chars"]
    );
    let err = bind_tool(&misc::NOTIFY, bare).unwrap_err();
    assert!(matches!(err, BindError::MissingCapabilities { .. }));
    assert_eq!(
        err.to_string(),
        "tool `notify` needs capability `chat`, which session `sub-1` does not provide; give the session's context that service, or leave the tool out of this session"
    );
}

#[tokio::test]
async fn annotated_functions_stay_callable_directly() {
    let (_, chat, context) = workspace().await;
    let ctx = Ctx::<files::ReadLinesCaps>::new(&context).unwrap();
    let text = files::read_lines(ctx, "notes.txt".into(), 3, Some(1))
        .await
        .unwrap();
    assert_eq!(text, "gamma");

    let ctx = Ctx::<misc::NotifyCaps>::new(&context).unwrap();
    let said = misc::notify(
        ctx,
        CallInfo::for_test("direct", &CancellationToken::new()),
        "hi".into(),
    )
    .await
    .unwrap();
    assert_eq!(said, "sent from session `s-1` in call `direct`");
    assert_eq!(chat.messages().len(), 1);

    assert_eq!(misc::ping().await, "pong");
    let sum = misc::add(misc::AddArgs { a: 2, b: 3 }).await.unwrap();
    assert_eq!(sum, "5");
    let found = search::find_lines(
        &*Arc::new(MemorySandbox::new()),
        "x".into(),
        Vec::new(),
        search::MatchMode::Literal,
        None,
        Default::default(),
        10,
    )
    .await
    .unwrap();
    assert!(found.is_empty());
}
