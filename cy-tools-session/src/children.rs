//! `ChildFactory`: the `factory` a session's context carries, bound to that session.

use std::sync::Arc;

use cy_tools::{
    BoxFuture, CancellationToken, Session, SessionSpec,
    services::{ChildOutcome, ChildRequest, ChildSessionFactory, Sandbox, ServiceError},
};

use super::LocalSessionFactory;

/// Makes children of one session. Only a session that may start subagents gets one, so a
/// session at the maximum depth has no factory at all; each child's factory is one level
/// shallower, since the child's depth is one more.
pub(super) struct ChildFactory {
    pub(super) factory: LocalSessionFactory,
    pub(super) parent: Arc<SessionSpec>,
    pub(super) parent_env: Arc<dyn Sandbox>,
}

impl ChildSessionFactory for ChildFactory {
    fn remaining_depth(&self) -> u32 {
        self.parent
            .max_depth
            .saturating_sub(self.parent.identity.depth)
    }

    fn profiles(&self) -> Vec<String> {
        self.parent
            .subagents
            .iter()
            .map(|p| p.name.clone())
            .collect()
    }

    fn spawn_child(&self, request: ChildRequest) -> BoxFuture<'_, Result<Session, ServiceError>> {
        Box::pin(async move {
            let child = self
                .factory
                .spawn_child_of(&self.parent, &self.parent_env, request)
                .await?;
            Ok(child)
        })
    }

    fn run_child<'a>(
        &'a self,
        request: ChildRequest,
        task: &'a str,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<ChildOutcome, ServiceError>> {
        Box::pin(
            self.factory
                .run_child_of(&self.parent, &self.parent_env, request, task, cancel),
        )
    }
}
