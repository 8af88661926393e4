//! Conversions from what a tool body returns into a [`ToolResult`].

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use super::result::ToolResult;

/// A type that converts itself into a tool's answer. Implemented for `String`, `&str`, `()`,
/// `serde_json::Value`, [`Json<T>`], [`ToolResult`] and `Result<T, E>` where `T` converts and
/// `E: Display`.
///
/// A `#[tool]` function may return these, and besides them any `serde::Serialize` type (a
/// number, a `bool`, a `Vec`, a struct of its own), which is sent as JSON.
///
/// ```
/// use cy_tools::{Json, ToolError, call::IntoToolResult};
/// assert_eq!("hi".into_tool_result().text_content(), "hi");
/// assert_eq!(().into_tool_result().text_content(), "done");
/// let failed: Result<String, ToolError> = Err(ToolError::new("no such file `a.txt`"));
/// let result = failed.into_tool_result();
/// assert!(result.is_error);
/// assert_eq!(result.text_content(), "no such file `a.txt`");
/// #[derive(serde::Serialize)]
/// struct Count { n: u32 }
/// assert_eq!(Json(Count { n: 2 }).into_tool_result().text_content(), r#"{"n":2}"#);
/// ```
#[diagnostic::on_unimplemented(
    message = "a tool cannot return `{Self}`",
    label = "this type does not convert into a `ToolResult`",
    note = "return a type that implements `serde::Serialize` (sent as JSON: add `#[derive(serde::Serialize)]` to your own types), `String`, `()`, `Json<T>` (JSON with an output schema), `ToolResult`, or a `Result` of one of these with an error that implements `Display`"
)]
pub trait IntoToolResult {
    /// Converts into the result the model sees.
    fn into_tool_result(self) -> ToolResult;
}

impl IntoToolResult for ToolResult {
    fn into_tool_result(self) -> ToolResult {
        self
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text(self)
    }
}

impl IntoToolResult for &str {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text(self)
    }
}

impl IntoToolResult for () {
    /// A tool that returns nothing answers `done`: an empty answer leaves a model guessing, and
    /// some providers reject empty tool results.
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text("done")
    }
}

impl IntoToolResult for Value {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::json(self)
    }
}

/// Wraps a value so a tool returns it as structured JSON and declares its schema as the tool's
/// output schema (MCP `outputSchema`; `T` must implement `schemars::JsonSchema` then, and a `T`
/// that is not an object is sent as `{"result": value}`: see
/// [`OutputSchema`](crate::definition::OutputSchema)).
///
/// ```
/// use cy_tools::{Json, call::{Content, IntoToolResult}};
/// let result = Json(vec![1, 2]).into_tool_result();
/// assert_eq!(result.content, vec![Content::json(serde_json::json!([1, 2]))]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> ToolResult {
        match serde_json::to_value(&self.0) {
            Ok(value) => ToolResult::json(value),
            Err(err) => unserializable(&err),
        }
    }
}

/// The answer when a tool's own value cannot be written as JSON (a map with non-string keys,
/// a `Serialize` impl that fails).
pub(crate) fn unserializable(err: &serde_json::Error) -> ToolResult {
    ToolResult::error(format!(
        "the tool produced a result that is not valid JSON ({err}); this is a bug in the tool, not in your arguments"
    ))
}

impl<T: IntoToolResult, E: fmt::Display> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> ToolResult {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(err) => ToolResult::error(err.to_string()),
        }
    }
}

/// A tool's own failure, shown to the model as an error result.
///
/// Any `std::error::Error` converts into it, so `?` works in tool bodies; write the message for
/// the model: what is wrong and what to do.
///
/// ```
/// use cy_tools::ToolError;
/// fn parse(n: &str) -> Result<u32, ToolError> {
///     Ok(n.parse::<u32>()?)
/// }
/// assert_eq!(parse("x").unwrap_err().to_string(), "invalid digit found in string");
/// assert_eq!(ToolError::new("no match for `foo`; search a broader pattern").message(), "no match for `foo`; search a broader pattern");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// An error with a message for the model.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error> From<E> for ToolError {
    fn from(err: E) -> Self {
        ToolError::new(err.to_string())
    }
}
