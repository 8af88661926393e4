//! The annotated function stays callable directly, with a `Ctx` built for a test.

use std::sync::Arc;

use cy_tools::memory::MemoryChat;
use cy_tools::prelude::*;
use cy_tools::services::{Chat, ChatMessage};

/// Tell the chat.
#[tool(capabilities(chat))]
async fn tell(
    chat: &dyn Chat,
    /// What to say.
    text: String,
) -> Result<String, ToolError> {
    chat.send(ChatMessage {
        session_id: "s".into(),
        text: text.clone(),
    })
    .await?;
    Ok(format!("told: {text}"))
}

fn main() {
    let chat = Arc::new(MemoryChat::new());
    let context = ToolContext::new(SessionIdentity::root("s", "t")).with_chat(chat.clone());
    let ctx = Ctx::<TellCaps>::new(&context).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let answer = runtime.block_on(tell(ctx.chat(), "hi".into())).unwrap();
    assert_eq!(answer, "told: hi");
    assert_eq!(chat.messages().len(), 1);
}
