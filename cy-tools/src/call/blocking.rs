//! Where a `#[tool]` written as a plain (not `async`) `fn` runs: on tokio's blocking thread
//! pool, so a body that reads files, hashes or sleeps does not hold up the runtime's other
//! calls.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::info::CallInfo;
use super::log::LogSink;
use super::result::ToolResult;
use crate::BoxFuture;
use crate::approval::Approver;
use crate::binding::ToolContext;
use crate::capability::{CapabilitySet, Ctx};

/// Not public API: runs the body of a sync tool on the blocking pool.
///
/// The body gets its own `Ctx` and `CallInfo`, made from owned copies (the session's context is
/// a few `Arc`s; the call's id, its cancellation token and its approver), because a thread of
/// the pool may outlive the call: a cancelled or timed-out call stops waiting, but the thread
/// runs the function to its end (a long body can watch `call.cancel`). Progress reports are
/// not carried over: `wants_progress()` is `false` in a sync tool. Log messages are: a
/// message logged after the call answered has nowhere to go, and is dropped.
///
/// Outside a tokio runtime the body runs in place.
pub fn run_blocking<'a, C, F>(
    tool: &'static str,
    ctx: Ctx<'a, C>,
    call: CallInfo<'a>,
    body: F,
) -> BoxFuture<'a, ToolResult>
where
    C: CapabilitySet,
    F: for<'b> FnOnce(Ctx<'b, C>, CallInfo<'b>) -> ToolResult + Send + 'static,
{
    let owned = OwnedCall {
        context: ctx.context().clone(),
        id: call.id.to_string(),
        cancel: call.cancel.clone(),
        approver: call.approver().cloned(),
        log: call.log_sink().cloned(),
    };
    let run = move || {
        let ctx = Ctx::<C>::assume_checked(&owned.context);
        let call = CallInfo::owned(
            tool,
            &owned.id,
            &owned.cancel,
            owned.approver.as_ref(),
            owned.log.as_ref(),
        );
        body(ctx, call)
    };
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => Box::pin(async move {
            match runtime.spawn_blocking(run).await {
                Ok(result) => result,
                Err(err) => {
                    let why = match err.try_into_panic() {
                        Ok(panic) => panic
                            .downcast_ref::<&str>()
                            .map(|s| (*s).to_string())
                            .or_else(|| panic.downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "no message".to_string()),
                        Err(_) => "the runtime is shutting down".to_string(),
                    };
                    ToolResult::error(format!(
                        "`{tool}` failed with an internal error ({why}); this is a bug in the tool, not in your arguments: try another way to reach your goal"
                    ))
                }
            }
        }),
        Err(_) => Box::pin(std::future::ready(run())),
    }
}

/// What a sync tool's body keeps of its call.
struct OwnedCall {
    context: ToolContext,
    id: String,
    cancel: CancellationToken,
    approver: Option<Arc<dyn Approver>>,
    log: Option<Arc<dyn LogSink>>,
}
