//! What getting a prompt answers: `PromptReply`, its `PromptMessage`s, and the types a prompt
//! function may return (`IntoPromptReply`).

use std::fmt::Display;

use serde::Serialize;

use crate::call::Content;

/// Who says a prompt's message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant (the model).
    Assistant,
}

/// One message of a prompt: who says it and what (text, an image, audio, an embedded
/// resource or a link to one).
///
/// ```
/// use cy_tools::catalog::{PromptMessage, Role};
/// use cy_tools::call::Content;
/// let ask = PromptMessage::user("Review this file:");
/// let file = PromptMessage::new(Role::User, Content::embedded_text("file:///a.rs", "text/x-rust", "fn main() {}"));
/// assert_eq!(ask.role, Role::User);
/// assert!(matches!(file.content, Content::Resource { .. }));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: Content,
}

impl PromptMessage {
    /// A message of `role` saying `content`.
    pub fn new(role: Role, content: Content) -> Self {
        PromptMessage { role, content }
    }

    /// The user saying `text`.
    pub fn user(text: impl Into<String>) -> Self {
        PromptMessage::new(Role::User, Content::text(text))
    }

    /// The assistant saying `text`.
    pub fn assistant(text: impl Into<String>) -> Self {
        PromptMessage::new(Role::Assistant, Content::text(text))
    }
}

/// A prompt as it is got: its messages, and optionally a description of this rendering.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PromptReply {
    /// What this rendering of the prompt is, when it says more than the prompt's description.
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<PromptMessage>,
}

impl PromptReply {
    /// A reply of `messages`.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        PromptReply {
            description: None,
            messages,
        }
    }

    /// The same reply described as `description`.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// A type a `#[prompt]` function can return: `String` or `&'static str` (one user message),
/// [`PromptMessage`] or a `Vec` of them, [`PromptReply`], or a `Result` of one of these whose
/// error is `Display` (the caller is told it).
#[diagnostic::on_unimplemented(
    message = "a prompt cannot return `{Self}`",
    label = "not a prompt's messages",
    note = "return `String` (one user message), `PromptMessage`, `Vec<PromptMessage>` or `PromptReply`, or a `Result` of one of them with an error that implements `Display`"
)]
pub trait IntoPromptReply {
    /// The reply, or the error the caller is told.
    fn into_prompt_reply(self) -> Result<PromptReply, String>;
}

impl IntoPromptReply for PromptReply {
    fn into_prompt_reply(self) -> Result<PromptReply, String> {
        Ok(self)
    }
}

impl IntoPromptReply for String {
    fn into_prompt_reply(self) -> Result<PromptReply, String> {
        Ok(PromptReply::new(vec![PromptMessage::user(self)]))
    }
}

impl IntoPromptReply for &'static str {
    fn into_prompt_reply(self) -> Result<PromptReply, String> {
        Ok(PromptReply::new(vec![PromptMessage::user(self)]))
    }
}

impl IntoPromptReply for PromptMessage {
    fn into_prompt_reply(self) -> Result<PromptReply, String> {
        Ok(PromptReply::new(vec![self]))
    }
}

impl IntoPromptReply for Vec<PromptMessage> {
    fn into_prompt_reply(self) -> Result<PromptReply, String> {
        Ok(PromptReply::new(self))
    }
}

impl<T: IntoPromptReply, E: Display> IntoPromptReply for Result<T, E> {
    fn into_prompt_reply(self) -> Result<PromptReply, String> {
        self.map_err(|err| err.to_string())?.into_prompt_reply()
    }
}
