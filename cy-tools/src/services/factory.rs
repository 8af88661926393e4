use super::ServiceError;
use crate::{BoxFuture, SessionIdentity, Toolset};

/// What a tool asks of the [`SessionFactory`] when it needs a child session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildRequest {
    /// The subagent profile to build the child from (its tools and limits).
    pub profile: String,
    /// Folder of the child's workspace, inside the parent's.
    pub workspace: String,
}

/// A child session, bound and ready.
pub struct ChildSession {
    /// The child's identity (lineage extended by the parent, depth one more).
    pub identity: SessionIdentity,
    /// The child's toolset, bound to its narrower context.
    pub tools: Toolset,
}

/// Mints child sessions. A context at the maximum depth carries none.
pub trait SessionFactory: Send + Sync {
    /// How many more levels of children this factory may create below its session.
    fn remaining_depth(&self) -> u32;

    /// Builds a child session of the calling session.
    fn spawn_child(
        &self,
        request: ChildRequest,
    ) -> BoxFuture<'_, Result<ChildSession, ServiceError>>;
}
