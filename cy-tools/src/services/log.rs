//! `ExecutionLog`: where every call a session makes is recorded, and one recorded call.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ServiceError, ServiceErrorKind};
use crate::BoxFuture;
use crate::call::ToolResult;

/// One recorded tool call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// The session that made the call.
    pub session_id: String,
    /// The call's id.
    pub call_id: String,
    /// The call that caused this one (code mode, delegation), if any.
    pub parent_call: Option<String>,
    /// The tool's name.
    pub tool: String,
    /// The arguments as the model sent them.
    pub arguments: Value,
    /// What the model was answered (its `is_error` is the call's error flag).
    pub result: ToolResult,
    /// Milliseconds since the Unix epoch when the call started.
    pub started_at_ms: u64,
    /// How long the call took, in microseconds.
    pub duration_us: u64,
}

/// The tokens one model turn of a session used, as the provider counted them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageEntry {
    /// The session the turn was for.
    pub session_id: String,
    /// The turn's number in its run, from 1.
    pub turn: u32,
    /// The provider's wire format (`openai`, `anthropic`).
    pub provider: String,
    /// The model, as the provider named it in its answer (or as asked for).
    pub model: String,
    /// Tokens read: the prompt, with the conversation so far and the tool declarations.
    pub input_tokens: u64,
    /// Tokens written: the answer and its tool calls.
    pub output_tokens: u64,
    /// Milliseconds since the Unix epoch when the turn's answer arrived.
    pub recorded_at_ms: u64,
}

/// The execution log: every call a session makes, in order, and the tokens its model turns
/// used.
pub trait ExecutionLog: Send + Sync {
    /// Appends one entry.
    fn record(&self, entry: LogEntry) -> BoxFuture<'_, Result<(), ServiceError>>;

    /// The entries of one session, oldest first.
    fn entries<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<LogEntry>, ServiceError>>;

    /// Appends the usage of one model turn.
    ///
    /// # Errors
    /// The default: this log keeps no usage ([`Unsupported`](ServiceErrorKind::Unavailable)).
    fn record_usage(&self, entry: UsageEntry) -> BoxFuture<'_, Result<(), ServiceError>> {
        let err = ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "this execution log keeps no token usage (turn {} of session `{}` is not recorded); use a store that does (memory, SQLite, PostgreSQL)",
                entry.turn, entry.session_id
            ),
        );
        Box::pin(async { Err(err) })
    }

    /// The usage of one session's model turns, oldest first; none by default.
    fn usage<'a>(
        &'a self,
        _session_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<UsageEntry>, ServiceError>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}
