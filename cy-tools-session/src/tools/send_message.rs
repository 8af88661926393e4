//! `send_message`: a message to the people the session works for, through its chat.

use cy_tools::prelude::*;
use cy_tools::services::{Chat, ChatMessage};

/// The longest message accepted, in characters.
pub const MAX_MESSAGE_CHARS: usize = 16_000;

/// Send a message to the people this session works for, in its chat: progress they should
/// see, a result, or a question only they can answer. It is delivered as written; the answer,
/// if any, does not come back through this tool.
#[tool(
    title = "Send message",
    capabilities(chat, session),
    open_world,
    destructive = false
)]
pub async fn send_message(
    chat: &dyn Chat,
    session: &SessionIdentity,
    /// The message, as the people should read it.
    text: String,
) -> Result<String, ToolError> {
    if text.trim().is_empty() {
        return Err(ToolError::new("`text` is empty; write the message to send"));
    }
    let chars = text.chars().count();
    if chars > MAX_MESSAGE_CHARS {
        return Err(ToolError::new(format!(
            "`text` has {chars} characters, more than {MAX_MESSAGE_CHARS}; shorten it, or write the details to a file and mention its path"
        )));
    }
    chat.send(ChatMessage {
        session_id: session.session_id.clone(),
        text,
    })
    .await?;
    Ok(format!("message sent ({chars} characters)"))
}
