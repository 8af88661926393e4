use cy_tools::prelude::*;
use cy_tools::services::{Chat, ChatMessage};

/// Tell the chat something.
#[tool(capabilities(session))]
async fn tell(session: &SessionIdentity, chat: &dyn Chat, text: String) -> Result<(), ToolError> {
    let session_id = session.session_id.clone();
    chat.send(ChatMessage { session_id, text }).await?;
    Ok(())
}

fn main() {}
