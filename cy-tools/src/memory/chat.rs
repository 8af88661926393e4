//! `MemoryChat`: a chat that keeps its messages in memory, for tests.

use std::collections::VecDeque;
use std::sync::Mutex;

use crate::BoxFuture;
use crate::services::{Chat, ChatAnswer, ChatMessage, ServiceError};

/// A chat that keeps every message in memory.
///
/// ```
/// # tokio_test_block_on(async {
/// use cy_tools::{memory::MemoryChat, services::{Chat, ChatMessage}};
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
    answers: Mutex<VecDeque<ChatAnswer>>,
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

    /// Queues the answer the next question ([`Chat::ask`]) gets. A question with no answer
    /// queued waits for ever (the caller's timeout ends it).
    pub fn answer(&self, from: impl Into<String>, text: impl Into<String>) {
        self.answers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push_back(ChatAnswer {
                from: from.into(),
                text: text.into(),
            });
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

    fn ask(&self, question: ChatMessage) -> BoxFuture<'_, Result<ChatAnswer, ServiceError>> {
        self.messages
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(question);
        let answer = self
            .answers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop_front();
        Box::pin(async move {
            match answer {
                Some(answer) => Ok(answer),
                None => std::future::pending().await,
            }
        })
    }
}
