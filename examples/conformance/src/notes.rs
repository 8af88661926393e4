//! Tools that tell the client how they are doing while they run.

use std::time::Duration;

use cy_tools::call::LogLevel;
use cy_tools::prelude::*;

/// How long each step of these tools takes.
pub const STEP: Duration = Duration::from_millis(50);

/// Logs three messages as it works, 50 ms apart.
#[tool(read_only)]
async fn test_tool_with_logging(call: CallInfo<'_>) -> &'static str {
    call.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(STEP).await;
    call.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(STEP).await;
    call.log(LogLevel::Info, "Tool execution completed");
    "Tool with logging executed successfully"
}

/// Reports its progress three times (0, 50 and 100 of 100), 50 ms apart.
#[tool(read_only)]
async fn test_tool_with_progress(call: CallInfo<'_>) -> &'static str {
    for done in [0.0, 50.0, 100.0] {
        if done > 0.0 {
            tokio::time::sleep(STEP).await;
        }
        call.progress(done, Some(100.0), || format!("{done} of 100"));
    }
    "Tool with progress executed successfully"
}

/// Takes a few seconds, longer than the session-bearing mode keeps a call's event stream open
/// here ([`crate::POLL_AFTER`]): the client resumes the stream with `Last-Event-ID` and gets the
/// answer there.
#[tool(read_only, open_world = false)]
async fn test_reconnection() -> &'static str {
    tokio::time::sleep(std::time::Duration::from_secs(4)).await;
    "Reconnection test completed"
}
