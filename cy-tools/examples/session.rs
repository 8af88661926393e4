//! A session end to end: register tools, build a session's toolset from names, and make the
//! calls a model would make, including the mistakes a model makes.
//!
//! Run with `cargo run -p cy-tools --example session`.

use std::sync::Arc;

use cy_tools::memory::{MemoryChat, MemorySandbox};
use cy_tools::{
    BoxFuture, CallInfo, CancellationToken, Ctx, Sandbox, SessionIdentity, ToolCall, ToolContext,
    ToolDefinition, ToolRegistry, ToolResult, capability_set,
};
use serde::Deserialize;
use serde_json::json;

/// Parameters of `read_text`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadText {
    /// Path relative to the workspace root.
    path: String,
}

capability_set!(ReadCaps: env);

fn read_text<'a>(
    p: ReadText,
    ctx: Ctx<'a, ReadCaps>,
    _: CallInfo<'a>,
) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move {
        match ctx.env().read(&p.path).await {
            Ok(bytes) => ToolResult::text(String::from_utf8_lossy(&bytes)),
            Err(err) => ToolResult::error(err.to_string()),
        }
    })
}

static READ_TEXT: ToolDefinition<ReadText, ReadCaps> = ToolDefinition::new(
    "read_text",
    "Reads a UTF-8 text file from the workspace.",
    read_text,
);

/// Parameters of `say`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Say {
    /// The message.
    text: String,
}

capability_set!(ChatCaps: chat, session);

fn say<'a>(p: Say, ctx: Ctx<'a, ChatCaps>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move {
        let message = cy_tools::ChatMessage {
            session_id: ctx.session().session_id.clone(),
            text: p.text,
        };
        match ctx.chat().send(message).await {
            Ok(()) => ToolResult::text("sent"),
            Err(err) => ToolResult::error(err.to_string()),
        }
    })
}

static SAY: ToolDefinition<Say, ChatCaps> =
    ToolDefinition::new("say", "Sends a message to the people in the chat.", say);

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut registry = ToolRegistry::new();
    registry
        .register("read_text", &READ_TEXT)
        .expect("valid name");
    registry.register("say", &SAY).expect("valid name");

    let sandbox = Arc::new(MemorySandbox::new());
    sandbox
        .write("notes.txt", b"the build is green".to_vec())
        .await
        .expect("memory write");
    let root = ToolContext::new(SessionIdentity::root("root-1", "acme"))
        .with_env(sandbox.clone())
        .with_chat(Arc::new(MemoryChat::new()));
    // The spec carries names only; the registry turns them into tools bound to this session.
    let spec = ["read_text", "say", "web_search"];
    let tools = registry.build(&spec, &root);
    println!("root session tools: {:?}", tools.names());

    let cancel = CancellationToken::new();
    let calls = [
        ("read_text", json!({"path": "notes.txt"})),
        ("read_text", json!({"path": 7})),
        ("read_text", json!({"path": "../etc/passwd"})),
        ("say", json!({"text": "done", "urgent": true})),
        ("reed_text", json!({})),
    ];
    for (i, (name, args)) in calls.into_iter().enumerate() {
        let result = tools
            .execute(
                name,
                ToolCall::new(format!("call-{i}"), args.clone()),
                &cancel,
            )
            .await;
        let flag = if result.is_error { "error" } else { "ok" };
        println!("{name} {args} -> [{flag}] {}", result.text_content());
    }

    // A subagent's context is narrower: no chat, so no messaging tool.
    let child = ToolContext::new(root.session().child("child-1")).with_env(sandbox);
    println!(
        "subagent tools: {:?}",
        registry.build(&spec, &child).names()
    );
}
