//! A session end to end: register tools, build a session's toolset from names, and make the
//! calls a model would make, including the mistakes a model makes. (The tools are registered by
//! hand, under names of this example's choosing; without `register = false` they would be in
//! `ToolRegistry::linked()`.)
//!
//! Run with `cargo run -p cy-tools --example session`.

use std::sync::Arc;

use cy_tools::memory::{MemoryChat, MemorySandbox};
use cy_tools::prelude::*;
use serde_json::json;

/// Reads a UTF-8 text file from the workspace.
#[tool(capabilities(env), read_only, register = false)]
async fn read_text(
    ctx: Ctx<'_>,
    /// Path relative to the workspace root.
    path: String,
) -> Result<String, ToolError> {
    let bytes = ctx.env().read(&path).await?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Sends a message to the people in the chat.
#[tool(capabilities(chat, session), register = false)]
async fn say(
    chat: &dyn Chat,
    session: &SessionIdentity,
    /// The message.
    text: String,
) -> Result<&'static str, ToolError> {
    let session_id = session.session_id.clone();
    chat.send(ChatMessage { session_id, text }).await?;
    Ok("sent")
}

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
