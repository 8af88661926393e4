use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::ServiceError;
use crate::{BoxFuture, ToolCall, ToolResult, Toolset};

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

/// Runs one call of the tool `name` in `tools` and records it in `log` under `session_id`:
/// arguments, result, timings and the call that caused it.
///
/// The call's result is returned whatever happens to the record: the call has already had its
/// effect, so a log that cannot be written is reported to the host (a `tracing` error), not to
/// the model.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use cy_tools::{execute_recorded, memory::MemoryLog, CancellationToken, ExecutionLog, ToolCall, Toolset};
/// let log = MemoryLog::new();
/// let tools = Toolset::default();
/// let result = execute_recorded(&tools, &log, "s-1", None, "nope", ToolCall::new("c1", serde_json::json!({})), &CancellationToken::new()).await;
/// assert!(result.is_error);
/// let entries = log.entries("s-1").await.unwrap();
/// assert_eq!(entries[0].tool, "nope");
/// assert!(entries[0].result.is_error);
/// # });
/// ```
pub async fn execute_recorded(
    tools: &Toolset,
    log: &dyn ExecutionLog,
    session_id: &str,
    parent_call: Option<&str>,
    name: &str,
    call: ToolCall,
    cancel: &CancellationToken,
) -> ToolResult {
    let started_at_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let started = Instant::now();
    let call_id = call.id.clone();
    let arguments = call.arguments.clone();
    let result = tools.execute(name, call, cancel).await;
    let entry = LogEntry {
        session_id: session_id.to_string(),
        call_id,
        parent_call: parent_call.map(str::to_string),
        tool: name.to_string(),
        arguments,
        result: result.clone(),
        started_at_ms,
        duration_us: u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
    };
    if let Err(err) = log.record(entry).await {
        tracing::error!(
            session = session_id,
            tool = name,
            "the execution log could not record a call: {err}"
        );
    }
    result
}
