//! `SubagentRunner`: the application's agent loop, as `delegate` and `workflow` see it.

use cy_tools::{BoxFuture, CancellationToken, services::ServiceError, session::SubagentProfile};

use cy_tools::Session;

/// One task for a subagent: the child session it runs in, the profile it was made from, and
/// what it is asked to do.
#[derive(Debug)]
pub struct SubagentRun<'a> {
    /// The child session, with its tools bound and every call recorded under its own id.
    pub session: &'a Session,
    /// The profile the child was made from: its limits (`max_turns`, `max_tokens`) are for the
    /// loop to keep, and its `model` says which model runs it, when it names one.
    pub profile: &'a SubagentProfile,
    /// The task, as the parent's model wrote it.
    pub task: &'a str,
    /// Triggered when the parent's call is cancelled or times out; the loop should stop.
    pub cancel: &'a CancellationToken,
}

/// Runs a subagent's task to its final answer: the library hands the loop the child session and
/// takes back the answer. `agent::ModelRunner` (feature `agent`) is the built-in one; an
/// application may bring its own.
///
/// The profile's wall-clock limit is enforced around [`run`](Self::run); its turn limit is the
/// loop's to keep.
pub trait SubagentRunner: Send + Sync {
    /// Runs `run.task` in `run.session` and returns the final answer.
    ///
    /// # Errors
    /// Whatever stops the loop; the message reaches the parent's model, so it should say what
    /// went wrong and what to try.
    fn run<'a>(&'a self, run: SubagentRun<'a>) -> BoxFuture<'a, Result<String, ServiceError>>;
}
