//! `ChildSessionFactory`: how a tool asks for a child session (`delegate`, `workflow`), and what a
//! finished child answers.

use tokio_util::sync::CancellationToken;

use super::ServiceError;
use crate::BoxFuture;
use crate::session::Session;

/// What a tool asks of the [`ChildSessionFactory`] when it needs a child session.
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

/// What a finished child run answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildOutcome {
    /// The child's session id (its log is recorded under it).
    pub session_id: String,
    /// The child's final answer.
    pub answer: String,
}

/// Mints child sessions. A context at the maximum depth carries none.
pub trait ChildSessionFactory: Send + Sync {
    /// How many more levels of children this factory may create below its session (at least 1:
    /// a session that may create none gets no factory).
    fn remaining_depth(&self) -> u32;

    /// The names of the subagent profiles children can be made from.
    fn profiles(&self) -> Vec<String>;

    /// Builds a child session of the calling session.
    ///
    /// # Errors
    /// An unknown profile or workspace folder ([`InvalidInput`](crate::services::ServiceErrorKind)), the
    /// store failing.
    fn spawn_child(&self, request: ChildRequest) -> BoxFuture<'_, Result<Session, ServiceError>>;

    /// Builds a child session and runs `task` in it to its final answer, through the agent
    /// loop the application wired in.
    ///
    /// # Errors
    /// As [`spawn_child`](Self::spawn_child); [`Unavailable`](crate::services::ServiceErrorKind) when no
    /// agent loop is wired in; [`TimedOut`](crate::services::ServiceErrorKind) past the profile's limit;
    /// the loop's own failure.
    fn run_child<'a>(
        &'a self,
        request: ChildRequest,
        task: &'a str,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<ChildOutcome, ServiceError>>;
}
