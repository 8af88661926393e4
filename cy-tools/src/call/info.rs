//! One call of a tool: what the model sent, and what the tool body gets besides its arguments.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// A tool call as a model (or an MCP client) sent it.
///
/// `arguments` may be an object, `null`, an empty string, or an object encoded as a JSON string:
/// providers and models send all of these, and all are accepted.
///
/// ```
/// use cy_tools::ToolCall;
/// let call = ToolCall::new("call-1", serde_json::json!({"path": "a.txt"}));
/// assert_eq!(call.id, "call-1");
/// let from_openai = ToolCall::from_json_text("call-2", r#"{"path":"a.txt"}"#);
/// assert_eq!(from_openai.arguments, serde_json::json!(r#"{"path":"a.txt"}"#));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for this call.
    pub id: String,
    /// The arguments.
    pub arguments: Value,
}

impl ToolCall {
    /// A call with JSON arguments.
    pub fn new(id: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            arguments,
        }
    }

    /// A call whose arguments arrived as JSON text (OpenAI sends them so); parsed when executed,
    /// so malformed text becomes an error result the model can act on.
    pub fn from_json_text(id: impl Into<String>, text: impl Into<String>) -> Self {
        ToolCall {
            id: id.into(),
            arguments: Value::String(text.into()),
        }
    }
}

/// Per-call data a tool body may ask for besides its arguments.
#[derive(Clone, Copy, Debug)]
pub struct CallInfo<'a> {
    /// The call's id.
    pub id: &'a str,
    /// Triggered when the call is cancelled or times out. The body's future is dropped at its
    /// next await point anyway; the token is for work outside that future (a child process, a
    /// request on another task) that should stop too.
    pub cancel: &'a CancellationToken,
}

impl<'a> CallInfo<'a> {
    /// Per-call data for calling a tool body directly, in a test.
    pub fn for_test(id: &'a str, cancel: &'a CancellationToken) -> Self {
        CallInfo { id, cancel }
    }
}
