//! `Chat`: the people a root session talks to, as its messaging tools see them.

use serde::{Deserialize, Serialize};

use super::{ServiceError, ServiceErrorKind};
use crate::BoxFuture;
use crate::binding::ToolContext;
use crate::definition::Definition;

/// A message a session sends to the people it works with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// The sending session.
    pub session_id: String,
    /// The text.
    pub text: String,
}

/// An answer a person gave in a chat ([`Chat::ask`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatAnswer {
    /// Who answered, as the chat names them.
    pub from: String,
    /// What they wrote.
    pub text: String,
}

/// The chat a session is bound to. Subagent sessions have none, so they get no messaging tools.
///
/// A chat delivers messages ([`send`](Self::send)) and says which tools it brings to the
/// sessions bound to it ([`tools`](Self::tools)): `send_message` unless it says otherwise.
///
/// ```
/// use cy_tools::BoxFuture;
/// use cy_tools::prelude::*;
/// use cy_tools::services::{ChatTool, ServiceError};
///
/// /// Add an emoji reaction to the user's last message.
/// #[tool(register = false, capabilities(chat))]
/// async fn react(
///     _chat: &dyn Chat,
///     /// The emoji's name, such as `eyes`.
///     emoji: String,
/// ) -> Result<String, ToolError> {
///     Ok(format!("reacted with :{emoji}:"))
/// }
///
/// struct Slackish;
/// impl Chat for Slackish {
///     fn send(&self, _: ChatMessage) -> BoxFuture<'_, Result<(), ServiceError>> {
///         Box::pin(async { Ok(()) })
///     }
///     fn tools(&self, _session: &ToolContext) -> Vec<ChatTool> {
///         vec![ChatTool::SEND_MESSAGE, ChatTool::Definition(&REACT)]
///     }
/// }
///
/// let context = ToolContext::new(SessionIdentity::root("s-1", "acme"));
/// let names: Vec<String> = Slackish.tools(&context).iter().map(|t| t.name().to_string()).collect();
/// assert_eq!(names, ["send_message", "react"]);
/// ```
pub trait Chat: Send + Sync {
    /// Delivers one message.
    fn send(&self, message: ChatMessage) -> BoxFuture<'_, Result<(), ServiceError>>;

    /// Posts a question and waits for a person's answer: how a call that needs approval asks
    /// when its host names no other approver. The caller bounds the wait. By default a chat
    /// cannot wait for answers, and says so.
    ///
    /// # Errors
    /// The chat cannot ask (the default), or the question could not be posted.
    fn ask(&self, question: ChatMessage) -> BoxFuture<'_, Result<ChatAnswer, ServiceError>> {
        let _ = question;
        Box::pin(async {
            Err(ServiceError::new(
                ServiceErrorKind::Unavailable,
                "this chat cannot wait for answers; give the session an approver, or set the approval policy to `none`",
            ))
        })
    }

    /// The tools this chat brings to `session` (a context with this chat bound), in the order
    /// they are to appear, right after `execute_code`. Asked once each time a session bound to
    /// the chat is built. By default, the built-in `send_message` alone.
    fn tools(&self, session: &ToolContext) -> Vec<ChatTool> {
        let _ = session;
        vec![ChatTool::SEND_MESSAGE]
    }
}

/// A tool a chat brings to the sessions bound to it: a Slack-like chat can add "react" or
/// "upload a file", a web chat "ask the user".
///
/// The session factory binds each to the session's own context, with the same capability and
/// state checks as the spec's tools (a tool whose capability the session lacks is left out
/// and logged), and places them right after `execute_code`. A session without a chat (every
/// subagent) never asks, so it gets none of them.
#[derive(Clone, Copy)]
pub enum ChatTool {
    /// A tool of the session's registry, by the name it is registered under
    /// (`send_message`, which every chat gets by default).
    Named(&'static str),
    /// A definition of the chat's own, bound to the session as it is; it need not be
    /// registered (a `#[tool(register = false)]` function, say), so it reaches only the
    /// sessions of this chat.
    Definition(&'static dyn Definition),
}

impl ChatTool {
    /// The built-in messaging tool, `send_message`: what [`Chat::tools`] gives by default.
    pub const SEND_MESSAGE: ChatTool = ChatTool::Named("send_message");

    /// The name the model sees.
    pub fn name(&self) -> &str {
        match self {
            ChatTool::Named(name) => name,
            ChatTool::Definition(definition) => definition.name(),
        }
    }
}

impl std::fmt::Debug for ChatTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChatTool::Named(name) => f.debug_tuple("Named").field(name).finish(),
            ChatTool::Definition(definition) => f
                .debug_tuple("Definition")
                .field(&definition.name())
                .finish(),
        }
    }
}
