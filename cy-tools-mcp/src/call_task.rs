//! A `tools/call` run as a task on a runtime of its own, apart from the protocol's.
//!
//! A tool body that blocks its thread (a blocking system call, a busy loop) holds up everything
//! else scheduled on that thread, and on a multi-thread runtime may also leave nobody polling
//! its I/O driver. Run on another runtime, such a call can only hold up other calls: the
//! protocol (`ping`, answers, cancellations, end of input) goes on.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use cy_tools::ToolResult;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

use super::server::McpServer;

impl McpServer {
    /// The same server, running each call's tool on `runtime`, so a tool
    /// that blocks its thread cannot hold up the protocol: serve it from another runtime with
    /// [`serve_stdio`](crate::serve_stdio).
    #[must_use]
    pub fn with_call_runtime(mut self, runtime: Handle) -> Self {
        self.call_runtime = Some(runtime);
        self
    }
}

/// Runs `call`, a call of tool `name`, on `runtime` and waits for its result. Dropping the
/// returned future (the request was cancelled, or the server is stopping) aborts the task,
/// which drops the call and so stops its work.
pub(super) fn run_on(
    runtime: &Handle,
    name: &str,
    call: impl Future<Output = ToolResult> + Send + 'static,
) -> impl Future<Output = ToolResult> + Send + 'static {
    let name = name.to_string();
    // A task starts outside every span: the call's is made a child of the request's here.
    let span = tracing::Span::current();
    let task = if span.is_disabled() {
        AbortOnDrop(runtime.spawn(call))
    } else {
        AbortOnDrop(runtime.spawn(tracing::Instrument::instrument(call, span)))
    };
    async move {
        task.await.unwrap_or_else(|err| {
            // `execute` catches the body's panics, so only an abort (the runtime shutting
            // down) gets here.
            ToolResult::error(format!(
                "the call to `{name}` stopped before it finished ({err}); call it again if the result is still needed"
            ))
        })
    }
}

/// A task handle that aborts the task when dropped (a plain `JoinHandle` detaches it).
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Future for AbortOnDrop<T> {
    type Output = Result<T, tokio::task::JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx)
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
