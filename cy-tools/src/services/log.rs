//! `ExecutionLog`: where every call a session makes is recorded, and one recorded call.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ServiceError;
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

/// The execution log: every call a session makes, in order.
pub trait ExecutionLog: Send + Sync {
    /// Appends one entry.
    fn record(&self, entry: LogEntry) -> BoxFuture<'_, Result<(), ServiceError>>;

    /// The entries of one session, oldest first.
    fn entries<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<LogEntry>, ServiceError>>;
}
