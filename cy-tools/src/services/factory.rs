use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::{ExecutionLog, ServiceError, execute_recorded};
use crate::{BoxFuture, SessionIdentity, ToolCall, ToolResult, Toolset};

/// What a tool asks of the [`SessionFactory`] when it needs a child session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChildRequest {
    /// The subagent profile to build the child from (its tools and limits).
    pub profile: String,
    /// Folder of the child's workspace, relative to the parent's; the factory picks a fresh
    /// one when `None`.
    pub workspace: Option<String>,
    /// The parent's call that starts the child (a `delegate` call), recorded with each of the
    /// child's calls.
    pub parent_call: Option<String>,
}

impl ChildRequest {
    /// A request for a child of profile `profile`, in a fresh folder.
    pub fn new(profile: impl Into<String>) -> Self {
        ChildRequest {
            profile: profile.into(),
            ..ChildRequest::default()
        }
    }
}

/// A child session, bound and ready.
pub struct ChildSession {
    /// The child's identity (lineage extended by the parent, depth one more).
    pub identity: SessionIdentity,
    /// The child's toolset, bound to its narrower context.
    pub tools: Toolset,
    /// The child's execution log (keyed by the child), where [`execute`](Self::execute)
    /// records each call.
    pub log: Option<Arc<dyn ExecutionLog>>,
    /// The parent's call that started the child.
    pub parent_call: Option<String>,
}

impl ChildSession {
    /// Runs one call of the child's tool `name` and records it in the child's log.
    pub async fn execute(
        &self,
        name: &str,
        call: ToolCall,
        cancel: &CancellationToken,
    ) -> ToolResult {
        match &self.log {
            Some(log) => {
                execute_recorded(
                    &self.tools,
                    &**log,
                    &self.identity.session_id,
                    self.parent_call.as_deref(),
                    name,
                    call,
                    cancel,
                )
                .await
            }
            None => self.tools.execute(name, call, cancel).await,
        }
    }
}

impl std::fmt::Debug for ChildSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChildSession")
            .field("identity", &self.identity)
            .field("tools", &self.tools.names())
            .field("parent_call", &self.parent_call)
            .finish()
    }
}

/// What a finished child run answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildOutcome {
    /// The child's session id (its log is recorded under it).
    pub session_id: String,
    /// The child's final answer.
    pub answer: String,
}

/// Mints child sessions. A context at the maximum depth carries none.
pub trait SessionFactory: Send + Sync {
    /// How many more levels of children this factory may create below its session (at least 1:
    /// a session that may create none gets no factory).
    fn remaining_depth(&self) -> u32;

    /// The names of the subagent profiles children can be made from.
    fn profiles(&self) -> Vec<String>;

    /// Builds a child session of the calling session.
    ///
    /// # Errors
    /// An unknown profile or workspace folder ([`InvalidInput`](super::ServiceErrorKind)), the
    /// store failing.
    fn spawn_child(
        &self,
        request: ChildRequest,
    ) -> BoxFuture<'_, Result<ChildSession, ServiceError>>;

    /// Builds a child session and runs `task` in it to its final answer, through the agent
    /// loop the application wired in.
    ///
    /// # Errors
    /// As [`spawn_child`](Self::spawn_child); [`Unavailable`](super::ServiceErrorKind) when no
    /// agent loop is wired in; [`TimedOut`](super::ServiceErrorKind) past the profile's limit;
    /// the loop's own failure.
    fn run_child<'a>(
        &'a self,
        request: ChildRequest,
        task: &'a str,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<ChildOutcome, ServiceError>>;
}
