//! What a tool call answers: content the model sees, an error flag, and host-only details.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::content::Content;

/// The answer to one tool call.
///
/// `content` and `is_error` are what the model sees; `details` is for the host only (logs, UI)
/// and is never sent to a model.
///
/// ```
/// use cy_tools::{ToolResult, call::Content};
/// let ok = ToolResult::text("3 files");
/// assert!(!ok.is_error);
/// assert_eq!(ok.text_content(), "3 files");
/// let err = ToolResult::error("`path`: expected a string, got 3");
/// assert!(err.is_error);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// What the model sees, in order.
    pub content: Vec<Content>,
    /// Whether the call failed; the model reads the content to correct itself.
    pub is_error: bool,
    /// Host-only data the model never sees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl ToolResult {
    /// A successful result of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolResult {
            content: vec![Content::text(text)],
            is_error: false,
            details: None,
        }
    }

    /// A successful result of one structured JSON block.
    pub fn json(value: Value) -> Self {
        ToolResult {
            content: vec![Content::json(value)],
            is_error: false,
            details: None,
        }
    }

    /// A failed result whose text tells the model what went wrong and what to do.
    pub fn error(message: impl Into<String>) -> Self {
        ToolResult {
            content: vec![Content::text(message)],
            is_error: true,
            details: None,
        }
    }

    /// Adds host-only details.
    #[must_use]
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Adds a content block.
    #[must_use]
    pub fn with_content(mut self, content: Content) -> Self {
        self.content.push(content);
        self
    }

    /// All content as text, blocks separated by newlines: JSON rendered compactly, media and
    /// resources as a line naming them (see [`Content::write_text`]). This is what a text-only
    /// client shows.
    pub fn text_content(&self) -> String {
        let mut out = String::new();
        for (i, block) in self.content.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            block.write_text(&mut out);
        }
        out
    }
}

/// The result's text, as a text-only client shows it ([`text_content`](ToolResult::text_content)):
/// `println!("{result}")`. Whether it is an error is [`is_error`](ToolResult::is_error).
impl std::fmt::Display for ToolResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text_content())
    }
}
