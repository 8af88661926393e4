//! Messages a call logs for its caller: MCP's `notifications/message`, or the host's own log.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How much a log message matters, as MCP (and syslog) order them: `Debug` least.
///
/// ```
/// use cy_tools::call::LogLevel;
/// assert!(LogLevel::Warning > LogLevel::Info);
/// assert_eq!(serde_json::to_value(LogLevel::Warning).unwrap(), "warning");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detail for whoever debugs the tool.
    Debug,
    /// What the tool is doing.
    Info,
    /// Normal but worth noticing.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A part of the system failed.
    Critical,
    /// Somebody must act now.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// The most bytes one log message carries (its data as JSON text): past it, the data is
/// replaced by the start of that text and a notice saying how much was cut, so a tool cannot
/// flood its caller's log with one message.
pub const LOG_MESSAGE_BYTES: usize = 16 * 1024;

/// `data` within [`LOG_MESSAGE_BYTES`]: as it is, or cut with a notice.
pub(crate) fn bounded(data: Value) -> Value {
    let text = match &data {
        Value::String(text) if text.len() <= LOG_MESSAGE_BYTES => return data,
        Value::String(text) => text.clone(),
        // Small structured data is kept as it is; only a large one pays for its text.
        other => match serde_json::to_string(other) {
            Ok(text) if text.len() <= LOG_MESSAGE_BYTES => return data,
            Ok(text) => text,
            Err(_) => return data,
        },
    };
    let kept = text.floor_char_boundary(LOG_MESSAGE_BYTES);
    Value::String(format!(
        "{}... [log message cut: {} of its {} bytes are past the bound of {LOG_MESSAGE_BYTES}]",
        &text[..kept],
        text.len() - kept,
        text.len()
    ))
}

/// One message a call logged: its level, the tool's name (MCP's `logger`) and any JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct LogMessage {
    /// How much it matters.
    pub level: LogLevel,
    /// The tool that logged it.
    pub logger: String,
    /// What it says: a string, or any JSON.
    pub data: Value,
}

/// Where a host receives what one call logs: an MCP server sends `notifications/message` to
/// its client, at or above the level the client set. Any `Fn(LogMessage)` is one (taking
/// every level).
///
/// Without one (the command line, the model loop) a call's messages go to the host's own log
/// (`tracing`, target `cy_tools::tool`), with the tool's name and the call's id.
///
/// `log` is called on the tool's task, so it must not block.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::sync::{Arc, Mutex};
/// use cy_tools::prelude::*;
/// use cy_tools::call::{LogLevel, LogMessage};
/// use cy_tools::binding::bind_tool;
///
/// /// Tidies up, saying what it does.
/// #[tool(register = false)]
/// async fn tidy(call: CallInfo<'_>) -> &'static str {
///     call.log(LogLevel::Info, "tidying");
///     call.log(LogLevel::Debug, serde_json::json!({"files": 3}));
///     "tidy"
/// }
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink = Arc::clone(&seen);
/// let tool = bind_tool(&TIDY, ToolContext::new(SessionIdentity::root("s", "t"))).unwrap();
/// let call = ToolCall::new("c1", serde_json::json!({}))
///     .with_log(Arc::new(move |m: LogMessage| sink.lock().unwrap().push((m.level, m.logger, m.data))));
/// assert_eq!(tool.execute(call, &CancellationToken::new()).await.text_content(), "tidy");
/// assert_eq!(seen.lock().unwrap()[0], (LogLevel::Info, "tidy".to_string(), "tidying".into()));
/// assert_eq!(seen.lock().unwrap().len(), 2);
/// # });
/// ```
pub trait LogSink: Send + Sync {
    /// Whether messages at `level` are wanted (those below it are not even made).
    fn accepts(&self, level: LogLevel) -> bool {
        let _ = level;
        true
    }

    /// Receives one message.
    fn log(&self, message: LogMessage);
}

impl<F: Fn(LogMessage) + Send + Sync> LogSink for F {
    fn log(&self, message: LogMessage) {
        self(message);
    }
}

/// A message logged by a call whose host gave it no sink: into the host's `tracing` log.
pub(crate) fn to_tracing(tool: &str, call: &str, level: LogLevel, data: &Value) {
    const TARGET: &str = "cy_tools::tool";
    // A string is logged as it is, anything else as its JSON.
    let text = data
        .as_str()
        .map_or_else(|| data.to_string(), str::to_string);
    match level {
        LogLevel::Debug => tracing::debug!(target: TARGET, tool, call, "{text}"),
        LogLevel::Info | LogLevel::Notice => tracing::info!(target: TARGET, tool, call, "{text}"),
        LogLevel::Warning => tracing::warn!(target: TARGET, tool, call, "{text}"),
        LogLevel::Error | LogLevel::Critical | LogLevel::Alert | LogLevel::Emergency => {
            tracing::error!(target: TARGET, tool, call, ?level, "{text}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{LOG_MESSAGE_BYTES, bounded};
    use serde_json::json;

    #[test]
    fn a_message_past_its_bound_is_cut_with_a_notice() {
        let small = json!({"rows": 3});
        assert_eq!(bounded(small.clone()), small);
        let text = "ü".repeat(LOG_MESSAGE_BYTES);
        let cut = bounded(json!(text));
        let cut = cut.as_str().unwrap();
        assert!(cut.len() < LOG_MESSAGE_BYTES + 200);
        assert!(cut.ends_with(&format!(
            "[log message cut: {} of its {} bytes are past the bound of {LOG_MESSAGE_BYTES}]",
            LOG_MESSAGE_BYTES,
            2 * LOG_MESSAGE_BYTES
        )));
        let big = json!({"rows": vec![1; LOG_MESSAGE_BYTES]});
        assert!(
            bounded(big)
                .as_str()
                .unwrap()
                .starts_with("{\"rows\":[1,1,")
        );
    }
}
