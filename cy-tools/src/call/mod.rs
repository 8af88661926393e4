//! Calls: what a model sends a tool and what it gets back.
//!
//! A [`ToolCall`] is the call as sent (its arguments in any of the forms providers use); a tool
//! body gets [`CallInfo`] (the call's id and cancellation, and a way to ask its caller's model
//! and user: [`Asker`]) besides its arguments and returns
//! anything [`IntoToolResult`]; the answer is a [`ToolResult`] of [`Content`] blocks, with
//! structured JSON when the tool returns [`Json`](crate::Json).

use std::future::Future;

use crate::BoxFuture;

pub(crate) mod args;
mod ask;
pub(crate) mod blocking;
mod content;
pub mod hook;
pub(crate) mod info;
pub(crate) mod into_result;
mod log;
mod problem;
mod progress;
pub(crate) mod result;
pub(crate) mod returned;
mod taking;
mod taking_access;
#[cfg(test)]
mod taking_differential;
pub(crate) mod trace;

// At the root: `CallInfo`, `ToolCall`, `Json`, `ToolError`, `ToolResult`.
pub use ask::{
    AskError, Asker, ElicitField, ElicitForm, Elicited, SampleMessage, SampleRequest, Sampled,
};
pub use info::CallHooks;
pub(crate) use info::{CallInfo, ToolCall};
pub use into_result::IntoToolResult;
pub use log::{LOG_MESSAGE_BYTES, LogLevel, LogMessage, LogSink};

pub use content::{Content, ResourceBody};
pub use problem::{ArgProblem, ArgsError, ProblemKind};
pub(crate) use progress::ProgressGate;
pub use progress::{PROGRESS_INTERVAL, PROGRESS_MESSAGE_BYTES, Progress, ProgressSink};
pub(crate) use result::ToolResult;
pub use trace::{TRACE_TARGET, content_in_traces, record_content_in_traces};

/// Boxes a tool body's future and converts its output into a [`ToolResult`]: what `#[tool]`
/// wraps every function in, and what a hand-written handler can end with. One generic body for
/// every tool, so the compiler checks it once instead of once per tool.
///
/// ```
/// use cy_tools::{BoxFuture, CallInfo, Ctx, ToolResult};
/// use cy_tools::call::box_result;
///
/// fn handler<'a>(_: (), _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
///     box_result(async { Ok::<_, std::io::Error>("done") })
/// }
/// ```
pub fn box_result<'a, F>(future: F) -> BoxFuture<'a, ToolResult>
where
    F: Future + Send + 'a,
    F::Output: IntoToolResult,
{
    Box::pin(async move { future.await.into_tool_result() })
}
