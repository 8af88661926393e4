//! `MemoryChat`: a chat that keeps its messages in memory, for tests.

use std::sync::Mutex;

use crate::BoxFuture;
use crate::services::{Chat, ChatMessage, ServiceError};

/// A chat that keeps every message in memory.
///
/// ```
/// # tokio_test_block_on(async {
/// use cy_tools::{memory::MemoryChat, Chat, ChatMessage};
/// let chat = MemoryChat::new();
/// chat.send(ChatMessage { session_id: "s-1".into(), text: "hi".into() }).await.unwrap();
/// assert_eq!(chat.messages()[0].text, "hi");
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Debug, Default)]
pub struct MemoryChat {
    messages: Mutex<Vec<ChatMessage>>,
}

impl MemoryChat {
    /// An empty chat.
    pub fn new() -> Self {
        MemoryChat::default()
    }

    /// Every message sent so far, in order.
    pub fn messages(&self) -> Vec<ChatMessage> {
        self.messages
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl Chat for MemoryChat {
    fn send(&self, message: ChatMessage) -> BoxFuture<'_, Result<(), ServiceError>> {
        self.messages
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(message);
        Box::pin(async { Ok(()) })
    }
}
