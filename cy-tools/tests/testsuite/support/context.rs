//! The sessions and calls the tests make: a bare context, one with a sandbox and a chat, and
//! a call with its cancellation token.

use std::sync::Arc;

use cy_tools::memory::{MemoryChat, MemorySandbox};
use cy_tools::{CancellationToken, SessionIdentity, ToolCall, ToolContext};
use serde_json::Value;

pub fn session(id: &str) -> ToolContext {
    ToolContext::new(SessionIdentity::root(id, "acme"))
}

pub fn full_session(id: &str) -> (ToolContext, Arc<MemorySandbox>, Arc<MemoryChat>) {
    let sandbox = Arc::new(MemorySandbox::new());
    let chat = Arc::new(MemoryChat::new());
    let ctx = session(id)
        .with_env(sandbox.clone())
        .with_chat(chat.clone());
    (ctx, sandbox, chat)
}

pub fn call(args: Value) -> ToolCall {
    ToolCall::new("call-1", args)
}

pub fn token() -> CancellationToken {
    CancellationToken::new()
}
