//! Small tools for the other features: no parameters, an `#[args]` struct, a renamed tool,
//! per-call data, several capabilities, a timeout and `register = false`.

use cy_tools::prelude::*;
use cy_tools::services::ChatMessage;
use schemars::JsonSchema;
use serde::Deserialize;

/// Answer `pong`: a liveness check.
#[tool(read_only, idempotent, open_world = false)]
pub async fn ping() -> &'static str {
    "pong"
}

/// The two numbers `add_numbers` adds.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddArgs {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
}

/// Add two integers.
#[tool(name = "add_numbers", read_only, idempotent, open_world = false)]
pub async fn add(#[args] numbers: AddArgs) -> Result<String, ToolError> {
    numbers
        .a
        .checked_add(numbers.b)
        .map(|sum| sum.to_string())
        .ok_or_else(|| ToolError::new("the sum does not fit in 64 bits; add smaller numbers"))
}

/// Tell the people in this session's chat something.
#[tool(capabilities(chat, session), open_world = false)]
pub async fn notify(
    ctx: Ctx<'_>,
    call: CallInfo,
    /// What to say.
    message: String,
) -> Result<String, ToolError> {
    let session_id = ctx.session().session_id.clone();
    ctx.chat()
        .send(ChatMessage {
            session_id: session_id.clone(),
            text: message,
        })
        .await?;
    Ok(format!(
        "sent from session `{session_id}` in call `{}`",
        call.id
    ))
}

/// Wait until the call is cancelled or times out.
#[tool(read_only, timeout = "100ms")]
pub async fn wait_for_cancel(call: CallInfo) -> String {
    call.cancel.cancelled().await;
    "cancelled".to_string()
}

/// Echo text back. Not registered at link time: an application registers it by hand, under a
/// name of its choosing.
#[tool(register = false, description = "Echo `text` back unchanged.")]
pub async fn echo(
    /// The text to echo.
    text: String,
) -> String {
    text
}

/// Count the characters of a text; defined through a re-export of the runtime.
#[tool(crate = crate::runtime::reexported, read_only)]
pub async fn count_chars(
    /// The text to count.
    r#text: String,
) -> String {
    text.chars().count().to_string()
}
