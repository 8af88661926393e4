//! The conversation as the loop keeps it, the same for every provider: each wire format writes
//! it out in its own shape.

use cy_tools::ToolResult;
use serde_json::Value;

/// A tool call as the model wrote it.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelCall {
    /// The provider's id for it, which its result must carry back.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments: a JSON object, or (OpenAI) the text the model wrote, which may not be
    /// JSON at all; the session parses it, and malformed text becomes an error result.
    pub arguments: Value,
}

impl ModelCall {
    /// The arguments as JSON text, as OpenAI's messages carry them.
    pub(crate) fn arguments_text(&self) -> String {
        match &self.arguments {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }

    /// The arguments as an object, as Anthropic's messages carry them (`{}` when the text is
    /// not an object: the model is told so by the call's error result).
    pub(crate) fn arguments_object(&self) -> Value {
        match &self.arguments {
            Value::Object(_) => self.arguments.clone(),
            Value::String(text) => match serde_json::from_str::<Value>(text) {
                Ok(value @ Value::Object(_)) => value,
                _ => Value::Object(serde_json::Map::new()),
            },
            _ => Value::Object(serde_json::Map::new()),
        }
    }
}

/// One message of the conversation.
#[derive(Clone, Debug)]
pub(crate) enum Message {
    /// What the user (or the parent's model, for a subagent) asked.
    User(String),
    /// A model turn: what it said and the tools it called, and the blocks of tools the
    /// provider ran itself (Anthropic's tool search), sent back as they came.
    Assistant {
        text: String,
        calls: Vec<ModelCall>,
        server_blocks: Vec<Value>,
    },
    /// The results of the previous turn's calls, in the calls' order.
    Results(Vec<(ModelCall, ToolResult)>),
}

/// Tokens one turn used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Tokens read (prompt, conversation, tool declarations).
    pub input_tokens: u64,
    /// Tokens written.
    pub output_tokens: u64,
}

impl Usage {
    /// Input and output together.
    pub fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }

    pub(crate) fn add(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
    }
}

/// A model's answer to one request.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reply {
    pub(crate) text: String,
    pub(crate) calls: Vec<ModelCall>,
    pub(crate) usage: Usage,
    /// The model that answered, as the provider names it.
    pub(crate) model: Option<String>,
    /// Why it stopped, in the provider's words (`stop`, `tool_calls`, `end_turn`, ...).
    pub(crate) stop_reason: Option<String>,
    /// The blocks of tools the provider ran itself (Anthropic's `server_tool_use` and its
    /// `tool_search_tool_result`), which the next request must carry back.
    pub(crate) server_blocks: Vec<Value>,
}

/// A tool result as text, for providers whose tool messages carry only text.
pub(crate) fn result_text(result: &ToolResult) -> String {
    let text = result.text_content();
    if text.is_empty() && result.is_error {
        "the tool failed without a message".to_string()
    } else {
        text
    }
}
