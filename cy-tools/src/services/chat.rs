//! `Chat`: the people a root session talks to, as its messaging tools see them.

use serde::{Deserialize, Serialize};

use super::ServiceError;
use crate::BoxFuture;

/// A message a session sends to the people it works with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// The sending session.
    pub session_id: String,
    /// The text.
    pub text: String,
}

/// The chat a session is bound to. Subagent sessions have none, so they get no messaging tools.
pub trait Chat: Send + Sync {
    /// Delivers one message.
    fn send(&self, message: ChatMessage) -> BoxFuture<'_, Result<(), ServiceError>>;
}
