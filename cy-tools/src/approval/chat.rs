//! `ChatApprover`: the question is posted in the session's chat and the answer awaited.

use std::sync::Arc;

use super::{ApprovalRequest, Approver, Decision};
use crate::BoxFuture;
use crate::services::{Chat, ChatMessage};

/// Asks in a chat: posts the request's question and waits for the answer
/// ([`Chat::ask`]). `yes`, `y`, `approve`, `approved`, `allow` or `ok` (any case, trailing
/// punctuation ignored) approves; any other answer declines, and is the reason given. A chat
/// that cannot wait for answers makes the call refused, saying so.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use cy_tools::approval::{ApprovalPolicy, ApprovalRequest, Approver, ChatApprover, Decision};
/// use cy_tools::memory::MemoryChat;
///
/// let chat = Arc::new(MemoryChat::new());
/// chat.answer("alice", "no, not that file");
/// let args = serde_json::json!({"path": "a.txt"});
/// let request = ApprovalRequest {
///     session_id: "s-1", call_id: "c1", tool: "write_file", title: None,
///     arguments: &args, policy: ApprovalPolicy::Destructive,
/// };
/// let decision = ChatApprover::new(chat.clone()).ask(&request).await;
/// assert_eq!(decision, Decision::Declined { by: "chat: alice".into(), reason: Some("no, not that file".into()) });
/// assert_eq!(chat.messages()[0].text, request.question());
/// # });
/// ```
#[derive(Clone)]
pub struct ChatApprover {
    chat: Arc<dyn Chat>,
}

impl ChatApprover {
    /// Asks in `chat`.
    pub fn new(chat: Arc<dyn Chat>) -> Self {
        ChatApprover { chat }
    }
}

impl Approver for ChatApprover {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        Box::pin(async move {
            let question = ChatMessage {
                session_id: request.session_id.to_string(),
                text: request.question(),
            };
            match self.chat.ask(question).await {
                Ok(answer) if approves(&answer.text) => Decision::Approved {
                    by: format!("chat: {}", answer.from),
                },
                Ok(answer) => Decision::Declined {
                    by: format!("chat: {}", answer.from),
                    reason: Some(answer.text.trim().to_string()).filter(|r| !r.is_empty()),
                },
                Err(err) => Decision::Unavailable {
                    reason: format!("the session's chat could not ask for it ({err})"),
                },
            }
        })
    }
}

fn approves(text: &str) -> bool {
    let word = text
        .trim()
        .trim_end_matches(['.', '!'])
        .to_ascii_lowercase();
    matches!(
        word.as_str(),
        "yes" | "y" | "approve" | "approved" | "allow" | "ok"
    )
}

impl std::fmt::Debug for ChatApprover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChatApprover")
    }
}
